"""The published texts byte for byte (player, judge, game API) and the reply parsers on hostile replies."""

from __future__ import annotations

import asyncio
import random

import pytest

from tests.reference import reference
from tests.tasks.math_rules.conftest import FakeOracle
from wason.core.game import Malformed
from wason.core.records import CallContext
from wason.models.base import GenerationParams
from wason.tasks.math_rules.game import GiveUp, Guess, MathGame, MathObservation, More, QuizAnswer
from wason.tasks.math_rules.game_api import MathGameApi
from wason.tasks.math_rules.judge import MathJudge, judge_messages, read_verdict
from wason.tasks.math_rules.protocol import (
    EXPRESSION_REQUEST,
    MathProtocol,
    load_text,
    parse_expression_reply,
    parse_guess_reply,
    parse_quiz_reply,
)
from wason.tasks.math_rules.rules import MathRule, Op, draw_sequences

PACK_FILES = [
    "test_llm_sys_prompt.txt",
    "validate_sys_prompt.txt",
    "judge_user.txt",
    "api_init_message.txt",
    "api_more_examples_message.txt",
    "gm_short_messages.txt",
    "rule_generator_system_assembled.txt",
    "rule_generator_user.txt",
    "player_user.txt",
]
RULE = MathRule(Op("mul", 2), Op("add", -3))


def pack(name: str) -> str:
    return reference("guess_the_rule", "math", name).read_bytes().decode("utf-8")


@pytest.mark.parametrize("name", PACK_FILES)
def test_package_texts_are_the_pack_files(name: str) -> None:
    assert load_text(name) == pack(name)


def test_the_player_conversation_is_the_published_one() -> None:
    protocol = MathProtocol()
    assert protocol.system_prompt() == pack("test_llm_sys_prompt.txt")
    game = MathGame(RULE, "L3", tuple(tuple(s) for s in draw_sequences(RULE, "L3", random.Random(1), 5)))
    first = game.start()
    users = [protocol.first_message(first)]
    for reply in ("More", "I am not sure", "My Guess is: it doubles, then subtracts 3"):
        obs = game.step(protocol.parse(reply))
        if obs.kind == "ask_expression":
            break
        users.append(protocol.feedback(obs))
    # every turn brings five sequences, sent as str() of a list of lists: their concatenation is the single
    # user message the published harness rebuilt each turn (player_user.txt)
    assert pack("player_user.txt") == "{examples_turn_1}{examples_turn_2}...{examples_turn_t}"
    shown = [list(s) for s in game.shown]
    assert "".join(users) == "".join(str(shown[k : k + 5]) for k in range(0, len(shown), 5))
    assert len(users) == 3 and all(u.startswith("[[") and u.endswith("]]") for u in users)
    assert protocol.feedback(obs) == EXPRESSION_REQUEST
    assert MathProtocol(ask_lambda=True).system_prompt().startswith(pack("test_llm_sys_prompt.txt") + "\n\n")


def test_the_judge_messages_are_the_published_ones() -> None:
    system, user = judge_messages(RULE, "x doubles")
    assert system.role == "system" and system.content == pack("validate_sys_prompt.txt")
    expected = pack("judge_user.txt").format(rule_str=RULE.text(), rule_code=RULE.code(), guess="x doubles")
    assert user.role == "user" and user.content == expected
    assert user.content.startswith(
        f"the rule to guess is: {RULE.text()}\nthe rule of the generation function is "
    )
    assert user.content.endswith(
        "x doubles\n, please validate the guess and return True if they are consistent or return False if they are not"
    )


@pytest.mark.parametrize(
    ("reply", "vote"),
    [
        ("True", True),
        ("True.", True),  # the reference counted this as a wrong guess
        ("**True**", True),
        ("'true'", True),
        ("Yes, it is.", True),
        ("False", False),
        ("false.", False),
        ("No", False),
        ("The guess is True", None),
        ("", None),
        ("42", None),
    ],
)
def test_judge_replies(reply: str, vote: bool | None) -> None:
    assert read_verdict(reply) is vote


def test_the_judge_asks_three_times_and_takes_the_majority() -> None:
    oracle = FakeOracle(["True.", "False", "yes"])
    judge = MathJudge(oracle, RULE, GenerationParams(), CallContext(sample="s"))
    record = asyncio.run(judge("v * 2 then - 3"))
    assert record["verdict"] is True and record["votes"] == [True, False, True] and len(oracle.calls) == 3
    samples = {c.sample for _, c in oracle.calls}
    assert len(samples) == 3  # independent samples


def test_the_game_api_texts_are_the_published_ones() -> None:
    api = MathGameApi()
    seqs = ((1, 2), (3, 4))
    start = api.view(MathObservation(kind="start", turn=0, turns_left=5, sequences=seqs), False)
    assert start["system_message"] == pack("api_init_message.txt").format(
        generated_examples="[[1, 2], [3, 4]]"
    )
    more = api.view(MathObservation(kind="examples", turn=1, turns_left=5, sequences=seqs), False)
    assert more["system_message"] == pack("api_more_examples_message.txt").format(
        generated_examples="[[1, 2], [3, 4]]"
    )
    assert more["positive_examples"] == [[1, 2], [3, 4]] and more["guess_result"] is None
    short = pack("gm_short_messages.txt").splitlines()
    won = api.view(
        MathObservation(kind="ended", turn=2, turns_left=3, end_reason="won", won=True, rule="r"), True
    )
    assert won["guess_result"] is True and won["system_message"] == short[short.index(won["system_message"])]
    gave_up = api.view(
        MathObservation(kind="ended", turn=2, turns_left=3, end_reason="gave_up", rule="R!"), True
    )
    assert gave_up["system_message"] == "You gave up! The actual rule was: R!"
    wrong = api.view(MathObservation(kind="wrong", turn=2, turns_left=3), False)
    assert wrong["system_message"] == "Incorrect guess. What would you like to do next?"
    assert wrong["guess_result"] is False


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("More", More()),
        ("  More\n", More()),
        ("more.", More()),
        ("**MORE**", More()),
        ("My Guess is: lambda v, i: v + 3", Guess("lambda v, i: v + 3", "lambda v, i: v + 3")),
        ("Thinking...\nMy Guess is: each term adds 3", Guess("each term adds 3", None)),
        ("my guess is: x\nMy Guess is: it triples", Guess("it triples", None)),
        ("My Guess is: give up", GiveUp()),
        ("give up", GiveUp()),
        ("Give up.", GiveUp()),
    ],
)
def test_readable_replies(reply: str, expected: object) -> None:
    assert parse_guess_reply(reply) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   ",
        "More examples please, and then My Guess",
        "I need more",
        "My Guess is:",
        "My Guess is:    \n",
        "\x00\x01",
        "🙂" * 1000,
        "More" * 100_000,
        "[" * 10_000,
    ],
)
def test_unreadable_replies_are_malformed(reply: str) -> None:
    assert isinstance(parse_guess_reply(reply), Malformed)


def test_parsers_take_non_text_and_huge_replies() -> None:
    assert isinstance(parse_guess_reply(None), Malformed)  # type: ignore[arg-type]
    huge = "My Guess is: lambda v, i: v + 1 " + "x" * 300_000
    assert isinstance(parse_guess_reply(huge), Guess)
    assert parse_expression_reply("```python\nlambda v, i: v * 3\n```").source == "lambda v, i: v * 3"
    assert parse_expression_reply("v * 3").source == "v * 3"
    assert parse_expression_reply(None).source == ""  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("reply", "values"),
    [
        ("1: 12, 14, 16, 18, 20\n2: -3, -6, -9, -12, -15", ((12, 14, 16, 18, 20), (-3, -6, -9, -12, -15))),
        ("2) 1, 2, 3, 4, 5, 6, 7\n", (None, (1, 2, 3, 4, 5))),
        ("1. 3, 5, 7.", ((3, 5, 7), None)),
        ("9: 1, 2\n0: 4", (None, None)),
        ("1: 1.5, 2, x3, 10" + "0" * 100, ((2,), None)),
        ("nothing here", (None, None)),
        ("1: " + "9" * 10_000, ((), None)),
    ],
)
def test_quiz_replies(reply: str, values: tuple[object, ...]) -> None:
    assert parse_quiz_reply(reply, 2) == QuizAnswer(values)  # type: ignore[arg-type]
