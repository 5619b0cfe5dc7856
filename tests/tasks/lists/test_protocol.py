"""The Numberwang prompt, reply parser and feedback, with hostile and malformed replies (no model involved)."""

from __future__ import annotations

import json

import pytest

from tests.reference import reference
from wason.core.game import Malformed
from wason.tasks.lists.protocol import (
    MAX_REPLY_CHARS,
    ParsedReply,
    format_case,
    integer_list,
    load_initial_prompt,
    parse_reply,
    render_feedback,
    render_initial_prompt,
)

# A clean reply in the shape the pilot asked for (taken from the o1-preview transcript in seed 002).
CLEAN = """Possible hypotheses follow.

<response>
{
  "thought_process": "The lists look arbitrary.",
  "possible_hypotheses": ["a", "b", "c", "d", "e", "f"],
  "leading_hypothesis": "Any list of positive integers is acceptable.",
  "test_cases": [[0, 1, 2], [-1, 2, 3], [1.5, 2.5, 3.5], [], [5, 5, 5]]
}"""


def parsed(text: str) -> ParsedReply:
    reply = parse_reply(text)
    assert isinstance(reply, ParsedReply), reply
    return reply


def malformed(text: str) -> Malformed:
    reply = parse_reply(text)
    assert isinstance(reply, Malformed), reply
    return reply


# --- prompt -------------------------------------------------------------------------------------------------


def test_prompt_is_byte_identical_to_the_published_one() -> None:
    published = reference("numberwang", "initial_prompt.txt").read_bytes()
    assert load_initial_prompt().encode("utf-8") == published


def test_rendered_prompt_lists_the_examples_one_per_line_as_python_literals() -> None:
    prompt = render_initial_prompt([[2, 4, 6], [-3, 0, 17], [1]])
    assert prompt.endswith("Here are your example lists:\n[2, 4, 6]\n[-3, 0, 17]\n[1]\n")
    # The template's doubled braces become the literal JSON braces the model must copy.
    assert "\n{\n" in prompt and "\n}\n" in prompt and "{{" not in prompt and "{examples}" not in prompt


def test_rendered_prompt_matches_the_published_template_formatted_as_the_pilot_did() -> None:
    template = reference("numberwang", "initial_prompt.txt").read_text(encoding="utf-8")
    examples = [[12, 6, 3, 16, 8, 4], [7, 36, 18, 9]]
    expected = template.format(examples="\n".join(str(example) for example in examples))
    assert render_initial_prompt(examples) == expected


@pytest.mark.parametrize("bad", [[1, 2.5], [True, 2], ["3"]])
def test_rendered_prompt_refuses_non_integer_examples(bad: list[object]) -> None:
    with pytest.raises(TypeError):
        render_initial_prompt([bad])  # type: ignore[list-item]


# --- feedback -----------------------------------------------------------------------------------------------


def test_feedback_is_the_pilots_numbered_yes_no_lines() -> None:
    assert render_feedback([True, False, True, True, False]) == "1. Yes\n2. No\n3. Yes\n4. Yes\n5. No"


def test_feedback_ignores_tests_unless_echo_is_asked_for() -> None:
    assert render_feedback([False], [(1, 2)]) == "1. No"


def test_echoed_feedback_shows_each_case_as_the_model_wrote_it() -> None:
    reply = parsed(CLEAN.replace("[5, 5, 5]", '["5", true, null]'))
    text = render_feedback([True, True, False, False, False], reply.test_cases, echo=True)
    assert text.splitlines() == [
        "1. [0, 1, 2]: Yes",
        "2. [-1, 2, 3]: Yes",
        "3. [1.5, 2.5, 3.5]: No",
        "4. []: No",
        '5. ["5", true, null]: No',
    ]


@pytest.mark.parametrize("tests", [None, [(1,)], [(1,), (2,), (3,)]])
def test_echo_needs_one_case_per_label(tests: list[object] | None) -> None:
    with pytest.raises(ValueError):
        render_feedback([True, False], tests, echo=True)


def test_empty_feedback_is_empty() -> None:
    assert render_feedback([]) == ""


# --- clean replies ------------------------------------------------------------------------------------------


def test_clean_reply_is_read_without_repairs() -> None:
    reply = parsed(CLEAN)
    assert reply.test_cases == ((0, 1, 2), (-1, 2, 3), (1.5, 2.5, 3.5), (), (5, 5, 5))
    assert reply.possible_hypotheses == ("a", "b", "c", "d", "e", "f")
    assert reply.hypothesis_count == 6
    assert reply.leading_hypothesis == "Any list of positive integers is acceptable."
    assert reply.hypothesis == reply.leading_hypothesis
    assert reply.thought_process == "The lists look arbitrary."
    assert not reply.is_final and reply.final_hypothesis is None and reply.repairs == ()


def test_final_reply_needs_no_test_cases() -> None:
    reply = parsed(
        '<response>\n{"possible_hypotheses": ["x"], "final_hypothesis": "Lists of at least two integers."}'
    )
    assert reply.is_final
    assert reply.hypothesis == "Lists of at least two integers."
    assert reply.test_cases == ()


def test_final_hypothesis_wins_over_a_leading_one() -> None:
    reply = parsed('<response>{"leading_hypothesis": "old", "final_hypothesis": "new", "test_cases": [[1]]}')
    assert reply.is_final and reply.hypothesis == "new" and reply.test_cases == ((1,),)


@pytest.mark.parametrize("empty", ['""', "null", '"   "'])
def test_an_empty_final_hypothesis_is_not_final(empty: str) -> None:
    reply = parsed(
        f'<response>{{"leading_hypothesis": "h", "final_hypothesis": {empty}, "test_cases": [[1]]}}'
    )
    assert not reply.is_final and reply.hypothesis == "h"


def test_replies_are_frozen_and_hashable() -> None:
    reply = parsed(CLEAN)
    with pytest.raises(AttributeError):
        reply.is_final = True  # type: ignore[misc]
    assert hash(reply) == hash(parsed(CLEAN))


# --- replies kept as given ----------------------------------------------------------------------------------


def test_six_test_cases_are_kept_for_the_game_to_judge() -> None:
    reply = parsed('<response>{"leading_hypothesis": "h", "test_cases": [[1], [2], [3], [4], [5], [6]]}')
    assert len(reply.test_cases) == 6


def test_numbers_as_strings_floats_and_booleans_are_kept_as_written() -> None:
    reply = parsed(
        '<response>{"leading_hypothesis": "h", "test_cases": [["1", "2"], [1.0, 2], [true, 3], [1e2]]}'
    )
    assert reply.test_cases == (("1", "2"), (1.0, 2), (True, 3), (100.0,))
    assert isinstance(reply.test_cases[1][0], float)
    assert [integer_list(case) for case in reply.test_cases] == [None, None, None, None]


def test_integer_list_accepts_only_tuples_of_ints() -> None:
    reply = parsed('<response>{"leading_hypothesis": "h", "test_cases": [[3, -1, 0], "1, 2", 7, [[1]]]}')
    assert [integer_list(case) for case in reply.test_cases] == [(3, -1, 0), None, None, None]
    assert reply.test_cases[1:] == ("1, 2", 7, ((1,),))


def test_hypothesis_count_is_recorded_not_enforced() -> None:
    reply = parsed(
        '<response>{"possible_hypotheses": ["a", "b"], "leading_hypothesis": "a", "test_cases": []}'
    )
    assert reply.hypothesis_count == 2


def test_hypotheses_in_other_shapes_become_strings() -> None:
    as_dict = parsed('<response>{"possible_hypotheses": {"1": "a", "2": "b"}, "test_cases": [[1]]}')
    as_text = parsed('<response>{"possible_hypotheses": "just one", "test_cases": [[1]]}')
    mixed = parsed('<response>{"possible_hypotheses": ["a", 3, ["b"]], "test_cases": [[1]]}')
    assert as_dict.possible_hypotheses == ("a", "b")
    assert as_text.possible_hypotheses == ("just one",)
    assert mixed.possible_hypotheses == ("a", "3", '["b"]')


def test_missing_optional_fields_are_none() -> None:
    reply = parsed('<response>{"test_cases": [[1, 2]]}')
    assert reply.thought_process is None and reply.leading_hypothesis is None
    assert reply.possible_hypotheses == () and reply.hypothesis is None


# --- markers ------------------------------------------------------------------------------------------------


def test_the_last_response_marker_counts() -> None:
    draft = '<response>\n{"leading_hypothesis": "draft", "test_cases": [[1]]}\n'
    reply = parsed(draft + "On reflection:\n" + draft.replace("draft", "revised").replace("[[1]]", "[[2]]"))
    assert reply.leading_hypothesis == "revised" and reply.test_cases == ((2,),)


def test_a_broken_last_response_is_not_replaced_by_an_earlier_draft() -> None:
    text = '<response>\n{"leading_hypothesis": "draft", "test_cases": [[1]]}\nNo wait.\n<response>\n{"test_'
    assert "unreadable" in malformed(text).reason


def test_a_marker_quoted_inside_the_json_does_not_hide_it() -> None:
    reply = parsed(
        '<response>\n{"thought_process": "I must end with <response> and JSON", "test_cases": [[4, 5]]}'
    )
    assert reply.test_cases == ((4, 5),)
    assert reply.thought_process == "I must end with <response> and JSON"


def test_repeated_and_stray_tags_are_ignored() -> None:
    reply = parsed('<response>\n<response>\n{"test_cases": [[1, 2]]}\n</response>')
    assert reply.test_cases == ((1, 2),)


def test_marker_spelling_is_tolerated() -> None:
    assert parsed('< RESPONSE >{"test_cases": [[9]]}').test_cases == ((9,),)


# --- repairs ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "payload, repair",
    [
        ('```json\n{"test_cases": [[1, 2]]}\n```', "code fence"),
        ('```json\n```json\n{"test_cases": [[1, 2]]}\n```\n```', "code fence"),
        ('Here is my JSON:\n{"test_cases": [[1, 2]]}', "text before JSON"),
        ('{"test_cases": [[1, 2,],],}', "trailing comma"),
        ('{"test_cases": [[1, 2] [3]]}', "missing comma"),
        ("{'test_cases': [[1, 2]]}", "single quotes"),
        ("{\u201ctest_cases\u201d: [[1, 2]]}", "smart quotes"),
        ("{test_cases: [[1, 2]]}", "unquoted key"),
        ('{"test_cases": [(1, 2)]}', "parentheses"),
        ('{"test_cases": [[1, 2]], "x": None}', "Python literal"),
        ('{"thought_process": "I said "hi" there", "test_cases": [[1, 2]]}', "unescaped quote"),
        ('{"thought_process": "line one\nline two", "test_cases": [[1, 2]]}', "raw control character"),
        ('{"thought_process": "a \\d b", "test_cases": [[1, 2]]}', "invalid escape"),
    ],
)
def test_common_json_mistakes_are_repaired_and_recorded(payload: str, repair: str) -> None:
    reply = parsed("Thinking...\n<response>\n" + payload)
    assert reply.test_cases[0] == (1, 2)
    assert repair in reply.repairs


def test_unescaped_quotes_stay_in_the_text() -> None:
    reply = parsed('<response>{"thought_process": "I said "hi" there", "test_cases": [[1]]}')
    assert reply.thought_process == 'I said "hi" there'


def test_apostrophes_inside_single_quoted_strings_survive() -> None:
    reply = parsed("<response>{'leading_hypothesis': 'it's increasing', 'test_cases': [[1]]}")
    assert reply.leading_hypothesis == "it's increasing"


def test_escapes_are_decoded_like_json() -> None:
    original = {"thought_process": 'tab\t quote" emoji \U0001f600 \\ é', "test_cases": [[1]]}
    reply = parsed("<response>\n" + json.dumps(original))
    assert reply.thought_process == original["thought_process"] and reply.repairs == ()


def test_keys_are_matched_loosely() -> None:
    reply = parsed('<response>{"Final Hypothesis": "done", "Test-Cases": [[1]]}')
    assert reply.is_final and reply.final_hypothesis == "done" and reply.test_cases == ((1,),)


def test_text_after_the_json_is_ignored() -> None:
    reply = parsed('<response>{"test_cases": [[1]]}\n```\nLet me know the results! {"not": "this"}')
    assert reply.test_cases == ((1,),)


# --- malformed ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, reason",
    [
        ("", "no <response>"),
        ('{"test_cases": [[1]]}', "no <response>"),
        ("I think the rule is ascending.", "no <response>"),
        ("<response>", "no JSON object"),
        ("<response>\nI give up.", "no JSON object"),
        ('<response>\n{"test_cases": [[1, 2]', "unreadable"),
        ('<response>\n{"thought_process": "unterminated', "unreadable"),
        ("<response>{}", "no test_cases"),
        ('<response>{"leading_hypothesis": "h"}', "no test_cases"),
        ('<response>{"leading_hypothesis": "h", "test_cases": "[1, 2, 3]"}', "not a list"),
        ('<response>{"leading_hypothesis": "h", "test_cases": 5}', "not a list"),
        ('<response>{"test_cases": [[1, 2 3]], x}', "unreadable"),
        ('<response>{"test_cases": [[NaN]]}', "unreadable"),
    ],
)
def test_unreadable_replies_are_malformed_with_a_reason(text: str, reason: str) -> None:
    assert reason in malformed(text).reason


def test_a_final_reply_drops_a_malformed_test_cases_field() -> None:
    reply = parsed('<response>{"final_hypothesis": "h", "test_cases": "none"}')
    assert reply.is_final and reply.test_cases == ()


def test_huge_replies_are_refused() -> None:
    text = "x" * MAX_REPLY_CHARS + '<response>{"test_cases": [[1]]}'
    assert "longer than" in malformed(text).reason


def test_a_long_but_allowed_reply_is_read() -> None:
    padding = "thinking " * 10_000
    reply = parsed(padding + '<response>{"test_cases": [[1]], "thought_process": "' + "y" * 50_000 + '"}')
    assert reply.test_cases == ((1,),) and len(reply.thought_process or "") == 50_000


def test_deep_nesting_is_refused_without_recursion_errors() -> None:
    text = '<response>{"test_cases": ' + "[" * 10_000 + "]" * 10_000 + "}"
    assert "nested deeper" in malformed(text).reason


def test_huge_numbers_are_refused() -> None:
    text = '<response>{"test_cases": [[' + "9" * 5_000 + "]]}"
    assert "too long" in malformed(text).reason


def test_many_markers_stay_fast() -> None:
    text = ('<response>{"a": "' * 10_000)[:MAX_REPLY_CHARS]
    assert isinstance(parse_reply(text), Malformed)


# --- helpers ------------------------------------------------------------------------------------------------


def test_format_case_writes_json() -> None:
    assert format_case((2, -4, 1.5, "x", None, (1,))) == '[2, -4, 1.5, "x", null, [1]]'
