"""The reply parser, with hostile and malformed replies (no model involved)."""

import pytest

from tests.reference import reference
from wason.core.game import Malformed
from wason.tasks.wilt import (
    FinalGuess,
    ProposeTest,
    WiltObservation,
    load_instruction,
    parse_reply,
    render_feedback,
)
from wason.tasks.wilt.protocol import FORMAT_COMPLAINT


def test_system_prompt_is_byte_identical_to_the_published_one() -> None:
    published = reference("wilt", "instruction.txt").read_bytes()
    assert load_instruction().encode("utf-8") == published


@pytest.mark.parametrize(
    "reply, values",
    [
        ("I'll start simple.\n\nTest Case: ```(1, 2, 3)```", ("1", "2", "3")),
        ("Test Case: ```(1,2,3)```", ("1", "2", "3")),
        ("**Test Case:** ```(-1.5, 0, 2)```", ("-1.5", "0", "2")),
        ("Test case: (4, 5, 6)", ("4", "5", "6")),
        ("test case: `(7, 8, 9)`", ("7", "8", "9")),
        ("Test Case:\n```\n(1, 1, 1)\n```", ("1", "1", "1")),
        ("Test Case: ```python\n(2, 4, 6)\n```", ("2", "4", "6")),
        ("Test Case: ```[3, 2, 1]```", ("3", "2", "1")),
        # A reply that mentions its future final guess while proposing a test is a test (reference bug).
        (
            "Once I am sure I will give my Final Guess: ```lambda x,y,z: x<y<z```, but first\n"
            "Test Case: ```(10, 20, 30)```",
            ("10", "20", "30"),
        ),
        ("Test Case: ```(1, 2)```", ("1", "2")),  # wrong arity is the game's call: an invalid test
        ("Test Case: ```(1, 2, nan)```", ("1", "2", "nan")),
    ],
)
def test_test_cases(reply: str, values: tuple[str, ...]) -> None:
    assert parse_reply(reply) == ProposeTest(values)


@pytest.mark.parametrize(
    "reply, expression",
    [
        ("Final Guess: ```lambda x,y,z: x < y < z```", "lambda x,y,z: x < y < z"),
        (
            "I tested (1, 2, 3) already.\nFinal Guess: ```python\nlambda x, y, z: x + y == z\n```",
            "lambda x, y, z: x + y == z",
        ),
        ("**Final Guess:** `lambda x, y, z: x > 0`", "lambda x, y, z: x > 0"),
        ("### Final Guess\n```lambda x, y, z: True```", "lambda x, y, z: True"),
        ("Final guess: lambda x, y, z: x == y", "lambda x, y, z: x == y"),
        # Earlier test-case mentions do not matter: the last marker is the action.
        ("Test Case: ```(1,2,3)``` gave True.\nFinal Guess: ```lambda x,y,z: x<y```", "lambda x,y,z: x<y"),
    ],
)
def test_final_guesses(reply: str, expression: str) -> None:
    assert parse_reply(reply) == FinalGuess(expression)


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "I think the rule is about ordering.",
        "Test Case:",
        "Test Case: ```(1, 2, 3)",  # cut off inside the fence
        "Final Guess: ```",
        "Test Case: ```hello```",
        "Let me test (1, 2, 3).",
        "\x00\x01 Test Case \u202e```(1,2,3)```",  # no colon and no code right after it
    ],
)
def test_malformed_replies(reply: str) -> None:
    assert isinstance(parse_reply(reply), Malformed)


def test_hostile_reply_sizes_are_handled() -> None:
    huge = "Test Case: ```(" + "9" * 100_000 + ", 1, 2)```"
    assert parse_reply(huge) == ProposeTest(("9" * 100_000, "1", "2"))
    many_markers = "Test Case: ```(1,2,3)```\n" * 5_000 + "Final Guess: ```lambda x,y,z: False```"
    assert parse_reply(many_markers) == FinalGuess("lambda x,y,z: False")


def test_feedback_matches_the_reference_wording() -> None:
    obs = WiltObservation(kind="result", remaining=29, values=(1.0, 2.0, 3.0), result=True)
    assert render_feedback(obs) == "Result for input (1.0, 2.0, 3.0): True. Attempts Remaining: 29"
    last = WiltObservation(
        kind="result", remaining=0, values=(-0.5, 2.0, 999.0), result=False, must_guess=True
    )
    assert render_feedback(last) == (
        "Result for input (-0.5, 2.0, 999.0): False. Attempts Remaining: 0\n"
        "Maximum attempts reached. Please make a guess."
    )
    assert render_feedback(WiltObservation(kind="format_error", remaining=12, reason="x")) == FORMAT_COMPLAINT
    assert render_feedback(WiltObservation(kind="verdict", remaining=3, correct=True)) == (
        "Congratulations! Your guess is correct."
    )
    assert render_feedback(WiltObservation(kind="verdict", remaining=3, correct=False)) == (
        "Sorry, that's not the correct rule."
    )
    invalid = render_feedback(
        WiltObservation(kind="invalid_test", remaining=7, reason="1000 has more than 3 digits")
    )
    assert "1000 has more than 3 digits" in invalid and invalid.endswith("Attempts Remaining: 7")
