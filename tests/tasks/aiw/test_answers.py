"""Answer parsing for AIW replies: hostile and malformed replies, number words, symbolic answers."""

from __future__ import annotations

import json

import pytest
import sympy

from tests.reference import reference
from wason.tasks.aiw import PROMPT_TYPES, answers, expected_answer, published_items, solve
from wason.tasks.aiw.answers import (
    ParsedAnswer,
    answer_kind,
    answer_segment,
    answers_match,
    parse_answer,
    parse_expression,
    parse_symbolic,
)

M = sympy.Symbol("M")


def _value(reply: str) -> object:
    parsed = parse_answer(reply)
    assert parsed.status == "ok", parsed
    return parsed.value


# --- markers ---------------------------------------------------------------------------------------------


def test_reference_failure_case_reads_the_final_number() -> None:
    # The reference parser reads 2 here (first number after the first "answer:").
    assert _value("### Answer: 2 + 5 = 7") == 7


def test_restated_problem_numbers_before_the_marker_are_ignored() -> None:
    reply = (
        "Alice has 3 brothers and she also has 6 sisters. Each brother has the 6 sisters plus Alice.\n"
        "### Answer: 7"
    )
    assert _value(reply) == 7


def test_last_of_many_markers_wins() -> None:
    reply = "### Answer: 6\nWait, I forgot Alice.\n### Answer: 7\n"
    assert _value(reply) == 7
    many = "".join(f"### Answer: {i}\n" for i in range(1, 500))
    assert _value(many) == 499


def test_heading_marker_beats_a_later_plain_answer_colon() -> None:
    # "### Answer" is the requested form; a later "answer:" in prose is not the final answer.
    assert _value("### Answer: 7\nSo the answer: is it 6? No.") == 7


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("**Answer:** 7", 7),
        ("**Answer**: 7", 7),
        ("Answer : 7", 7),
        ("The final answer: 5", 5),
        ("## **Answer**: 5", 5),
        ("### answer: 3", 3),
        ("### ANSWER 3", 3),
        ("### Final Answer: 3", 3),
        ("#### Answer: 2", 2),
    ],
)
def test_marker_variants(reply: str, expected: int) -> None:
    assert _value(reply) == expected


def test_no_marker() -> None:
    for reply in ("", "7", "Alice's brother has 7 sisters.", "The answer is 7", "answers: 7"):
        parsed = parse_answer(reply)
        assert (parsed.status, parsed.value, parsed.raw) == ("no_marker", None, ""), reply
    assert answer_segment("no marker at all") is None


def test_answer_on_the_following_line() -> None:
    assert _value("### Answer:\n\n**7**\n") == 7
    assert _value("### Answer:\n$$\n\\boxed{5}\n$$") == 5
    assert parse_answer("### Answer:\n\n7").raw == "7"


@pytest.mark.parametrize(
    "reply",
    [
        "### Answer:",
        "### Answer:   \n\n   ",
        "### Answer: **",
        '### Answer: ".',
        "### Answer: I am not sure.",
        "### Answer:\nI hope this helps!",
        "### Answer: Alice's brother has as many sisters as Alice does, plus her",
        "1 2 3 ### Answer: none",
    ],
)
def test_nothing_readable_after_the_marker_is_unparseable(reply: str) -> None:
    parsed = parse_answer(reply)
    assert parsed.status == "unparseable"
    assert parsed.value is None


# --- numbers ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("### Answer: **7**", 7),
        ("### Answer: \\boxed{7}", 7),
        ("### Answer: $\\boxed{7}$", 7),
        ("### Answer: $7$", 7),
        ("### Answer: \\(7\\)", 7),
        ("### Answer: \\[ 7 \\]", 7),
        ("### Answer: 7 sisters", 7),
        ("### Answer: 7 sisters.", 7),
        ("### Answer: M + 1 = 4", 4),
        ("### Answer: 6 + 1 = **7**", 7),
        ("### Answer: I think 3, no wait, 4", 4),
        ("### Answer: -3", -3),
        ("### Answer: x = −2", -2),
        ("### Answer: 7 - 2 = 5", 5),
        ("### Answer: 2.5", 2.5),
        ("### Answer: 7.0", 7),
        ("### Answer: 1,000", 1000),
        ("### Answer: 1,000, I think", 1000),
        ("### Answer: 12,345,678 sisters", 12345678),
        ("### Answer: 7 (6 sisters plus Alice)", 7),
        ("### Answer: 7, because her 6 sisters and Alice herself", 7),
        ("### Answer: 7 sisters, one of whom is Alice", 7),
        ("### Answer: 2 * (3 + 1) = 8", 8),
        ("### Answer: As computed above, 7", 7),
        ("### Answer: 3rd", 3),
    ],
)
def test_final_number(reply: str, expected: float) -> None:
    value = _value(reply)
    assert value == expected
    assert type(value) is type(expected)


def test_a_worked_sum_in_words_reads_its_result_not_its_first_term() -> None:
    # issue 48: these read 6 (the classic wrong answer M, sisters without Alice), 3 and 2, all with status ok
    for reply, result, first_term in (
        ("### Answer: 6 sisters + Alice = 7", 7, 6),
        ("### Answer: 3 + Alice = 4", 4, 3),
        ("### Answer: 2 brothers + 1 (Alice) = 3 sisters", 3, 2),
    ):
        parsed = parse_answer(reply)
        assert (parsed.status, parsed.value) == ("ok", result), reply
        assert answers_match(parsed, result) and not answers_match(parsed, first_term)


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("### Answer: 6 sisters + Alice = 7 sisters for each of her 3 brothers", 7),
        ("### Answer: 4 + 1 = 5. Alice has 4 sisters and 2 brothers.", 5),
        ("### Answer: 6 sisters + Alice = 7 sisters, which is 1 more than her brothers' 6", 7),
        ("### Answer: 6 + 1 = 7 = 8", 7),
        ("### Answer: 7 = 6 + 1", 7),
        ("### Answer: 7 sisters, which is 6 + 1", 7),
        ("### Answer: Total: 6 sisters + Alice = 7", 7),
        ("### Answer: So the brother has 6 + 1 = 7", 7),
        ("### Answer: 6 \\times 1 + 1 = 7", 7),
        ("### Answer: 3 + 1 \\rightarrow 4", 4),
    ],
)
def test_a_worked_sum_reads_the_result_it_states(reply: str, expected: int) -> None:
    # the result of the sum, not a number of the prose after it; the first side after the last operation
    assert _value(reply) == expected


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        # a dash before a word is punctuation, not "minus": the value before it stands
        ("### Answer: 7 - Alice is one of them", 7),
        # a link with no number after it joins nothing
        ("### Answer: 7 sisters, so her 3 brothers have 7 each", 7),
        ("### Answer: 7, which makes sense", 7),
        # a value, then a heading and working (published replies had their newlines replaced by spaces)
        ("### Answer: 4 ### Explanation: 4 sisters + 1 sister = 5 sisters", 4),
        # an equation with no operation is not a worked sum: the other rules read it, as before
        ("### Answer: x = −2", -2),
        ("### Answer: 3, so 3 sisters", 3),
    ],
)
def test_what_is_not_a_worked_sum_reads_as_before(reply: str, expected: int) -> None:
    assert _value(reply) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "### Answer: 14/2",
        "### Answer: 6/7 sisters",
        "### Answer: 6 + 1",
        "### Answer: 2 × 3",
        "### Answer: 7 - 2",
    ],
)
def test_an_operation_left_unworked_is_ambiguous(reply: str) -> None:
    # "a/b" is written for "a or b" as often as for a fraction (docs/aiw.md); a sum is not its result
    parsed = parse_answer(reply)
    assert (parsed.status, parsed.value) == ("ambiguous", None)
    assert not any(answers_match(parsed, n) for n in range(0, 20))


def test_a_chain_of_operations_with_no_result_is_ambiguous() -> None:
    assert parse_answer("### Answer: 6 + 1 = 3 + 4").status == "ambiguous"
    assert _value("### Answer: 14/2 = 7") == 7


def test_a_worked_sum_is_read_from_a_bounded_number_of_tokens() -> None:
    # past MAX_SUM_TOKENS the segment is prose and the other rules read it: the final number here
    sides = answers._sum_sides("1 + " * 50_000 + "1 = 2")
    assert len(sides) == 1 and len(sides[0].values) <= answers.MAX_SUM_TOKENS
    assert _value("### Answer: " + "1 + " * 50_000 + "1 = 50001") == 50001


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("### Answer: seven", 7),
        ("### Answer: Seven.", 7),
        ("### Answer: **Seven** sisters", 7),
        ("### Answer: zero", 0),
        ("### Answer: Zero", 0),
        ("### Answer: seventeen", 17),
        ("### Answer: twenty-one", 21),
        ("### Answer: Twenty One", 21),
        ("### Answer: ninety - nine", 99),
        ("### Answer: forty", 40),
        ("### Answer: one hundred", 100),
        ("### Answer: a hundred", 100),
        ("### Answer: one hundred and five", 105),
        ("### Answer: nine hundred ninety-nine", 999),
        ("### Answer: three, no, four", 4),
        ("### Answer: seven (six sisters plus Alice)", 7),
    ],
)
def test_number_words(reply: str, expected: int) -> None:
    assert _value(reply) == expected


def test_every_number_word_up_to_one_hundred() -> None:
    units = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    teens = ["ten", "eleven", "twelve", "thirteen", "fourteen"]
    teens += ["fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]
    tens = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    words = (
        units + teens + [t + ("" if u == "zero" else "-" + u) for t in tens for u in units] + ["one hundred"]
    )
    got = [_value(f"### Answer: {w}") for w in words]
    assert got == list(range(101))


def test_words_inside_other_words_are_not_numbers() -> None:
    assert parse_answer("### Answer: someone, anyone").status == "unparseable"
    assert parse_answer("### Answer: often").status == "unparseable"


def test_huge_replies(monkeypatch: pytest.MonkeyPatch) -> None:
    # Count the expression parser's work instead of timing it (bench/bench_answers.py measures the speed):
    # the costly part, building sympy expressions, must only ever see token runs of bounded length.
    parsed_runs: list[int] = []

    class CountingParser(answers._ExprParser):
        def __init__(self, tokens: list[str]) -> None:
            parsed_runs.append(len(tokens))
            super().__init__(tokens)

    monkeypatch.setattr(answers, "_ExprParser", CountingParser)
    filler = "Alice has 3 brothers and 6 sisters. " * 3000
    assert len(filler) > 100_000
    assert _value(filler + "### Answer: 7") == 7
    assert parse_answer(filler).status == "no_marker"
    assert parse_answer("### Answer: " + filler.replace(".", " and")).status == "ok"
    assert parse_answer("#" * 100_000).status == "no_marker"
    assert parse_answer("### Answer: " + "(" * 100_000).status == "unparseable"
    assert parse_answer("### Answer: " + "7" * 100_000).status == "unparseable"
    assert parse_symbolic("### Answer: " + "(" * 50_000 + "M" + ")" * 50_000) is None
    assert parse_symbolic("### Answer: " + "M + " * 30_000 + "1") is None
    assert parse_symbolic("### Answer: " + filler + "M + 1") == M + 1
    # a list is followed back run by run: one answer repeated is that answer, a different one ends it
    assert parse_symbolic("### Answer: " + "M + 1, " * 20_000 + "1 + M") == M + 1
    assert parse_answer("### Answer: " + "M, " * 30_000 + "M + 1", "symbolic").status == "ambiguous"
    assert parsed_runs and max(parsed_runs) <= answers.MAX_EXPR_TOKENS


def test_raw_is_the_segment_read() -> None:
    parsed = parse_answer("Working: 3 + 4.\n### Answer: **7 sisters**\nDone.")
    assert parsed == ParsedAnswer(7, "ok", "7 sisters", "number")


# --- attribute control -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("### Answer: Female", "female"),
        ("### Answer: **female**", "female"),
        ("### Answer: Alice is a girl.", "female"),
        ("### Answer: Male", "male"),
        ("### Answer: She is a woman", "female"),
    ],
)
def test_sex_answers(reply: str, expected: str) -> None:
    parsed = parse_answer(reply, "sex")
    assert (parsed.status, parsed.value) == ("ok", expected)


def test_sex_answers_naming_both_or_neither_are_unparseable() -> None:
    for reply in ("### Answer: female, not male", "### Answer: male or female", "### Answer: unknown"):
        assert parse_answer(reply, "sex").status == "unparseable", reply


def test_attribute_control_items_score_through_their_prompt_type() -> None:
    items = [it for it in published_items() if it.family.startswith("light_attribute")]
    assert items
    for item in items:
        want = item.answer()
        if PROMPT_TYPES[item.prompt_type].answer_codes:
            assert answer_kind(want) == "number"
            assert answers_match(parse_answer("### Answer: 1", answer_kind(want)), want)
            assert not answers_match(parse_answer("### Answer: 0", answer_kind(want)), want)
        else:
            assert answer_kind(want) == "sex"
            assert answers_match(parse_answer("### Answer: Female", "sex"), want)
            assert not answers_match(parse_answer("### Answer: male", "sex"), want)


# --- symbolic answers ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply",
    [
        "### Answer: M + 1",
        "### Answer: M+1",
        "### Answer: 1 + M",
        "### Answer: (M + 1)",
        "### Answer: $M + 1$",
        "### Answer: \\boxed{M+1}",
        "### Answer: M + 1 sisters",
        "### Answer: **M + 1**",
        "### Answer: I think M, no wait, M + 1",
        "### Answer: M + 1, where M is the number of sisters",
        "### Answer: M + 1 sisters (M sisters plus Alice)",
        "### Answer: 2M + 1 - M",
        "### Answer: ((M)) + 2 * 1 - 1",
        "### Answer: M − (−1)",
    ],
)
def test_symbolic_answers_equal_to_m_plus_one(reply: str) -> None:
    expr = parse_symbolic(reply)
    assert expr is not None
    assert sympy.expand(expr - (M + 1)) == 0
    assert answers_match(parse_answer(reply, "symbolic"), "M + 1")


@pytest.mark.parametrize(
    "reply",
    [
        "### Answer: M",
        "### Answer: m + 1",
        "### Answer: M + 2",
        "### Answer: M - 1",
        "### Answer: 2*M",
        "### Answer: N + 1",
        "### Answer: 7",
    ],
)
def test_symbolic_answers_not_equal_to_m_plus_one(reply: str) -> None:
    parsed = parse_answer(reply, "symbolic")
    assert parsed.status == "ok"
    assert not answers_match(parsed, "M + 1")


@pytest.mark.parametrize(
    "reply",
    ["### Answer: (M + 1", "### Answer: M + )", "### Answer: + ", "### Answer: sisters", "Answer M + 1"],
)
def test_malformed_symbolic_answers(reply: str) -> None:
    parsed = parse_answer(reply, "symbolic")
    assert parsed.status in ("unparseable", "no_marker")
    assert parse_symbolic(reply) is None
    assert not answers_match(parsed, "M + 1")


@pytest.mark.parametrize(
    "reply",
    [
        "### Answer: (M) - 1 or M + 1",  # the audit's hedge
        "### Answer: M or M + 1",
        "### Answer: M + 1 or M",
        "### Answer: M, M + 1",
        "### Answer: M, M + 1 or M + 2 sisters",
        "### Answer: between M and M + 1",
        "### Answer: M to M + 1",
        "### Answer: M/M + 1",
        "### Answer: M – M + 1",
        "### Answer: M; M + 1",
        "### Answer: $M$ or $M + 1$",
        "### Answer: M sisters or M + 1 sisters",
        "### Answer: M, or maybe M + 1",
        "### Answer: N = M or M + 1",  # an "=" before the list chooses none of it
        "### Answer: M or M + 1, because Alice may count",
        "### Answer: ### Answer: M or M + 1",
    ],
)
def test_several_different_expressions_are_ambiguous(reply: str) -> None:
    parsed = parse_answer(reply, "symbolic")
    assert (parsed.status, parsed.value) == ("ambiguous", None)
    assert parse_symbolic(reply) is None
    assert not answers_match(parsed, "M + 1") and not answers_match(parsed, "M")


@pytest.mark.parametrize(
    "reply",
    [
        "### Answer: M + 1, that is, M + 1",  # restated
        "### Answer: M + 1 or 1 + M",  # equivalent expressions are one
        "### Answer: M + 1, M + 1",
        "### Answer: M - 1 or M = M + 1",  # "=" chooses the result
        "### Answer: S = M + 1",
        "### Answer: M sisters + Alice = M + 1",
        "### Answer: I think M, no wait, M + 1",  # a correction in words, not a list
        "### Answer: Alice's brother has M + 1 sisters.",
        "### Answer: M + 1 sisters, because her M sisters or Alice",  # the explanation is cut first
    ],
)
def test_one_expression_however_restated_is_read(reply: str) -> None:
    parsed = parse_answer(reply, "symbolic")
    assert parsed.status == "ok", parsed
    assert answers_match(parsed, "M + 1")


def test_different_things_joined_by_and_or_a_comma_are_no_hedge() -> None:
    # two quantities, each with its own noun, are read as before: the final expression (here wrong)
    for reply in ("### Answer: M sisters and N brothers", "### Answer: M sisters, N brothers"):
        parsed = parse_answer(reply, "symbolic")
        assert (parsed.status, parsed.value) == ("ok", sympy.Symbol("N")), reply


def test_parse_expression_takes_whole_strings_only() -> None:
    assert parse_expression("M + 1") == M + 1
    assert parse_expression(" (M+1) ") == M + 1
    assert parse_expression("3 * (M - 2)") == 3 * M - 6
    for text in ("", "M + 1 sisters", "M = 1", "M ** 2", "__import__('os')", "M + 1)", "1/2", "Mx + 1"):
        assert parse_expression(text) is None, text


def test_symbolic_parser_never_evaluates_text() -> None:
    # Python or sympy syntax outside the whitelist is not interpreted: names longer than a letter break a
    # run, and "**" is not an operator.
    assert parse_symbolic("### Answer: __import__('os').system('true')") is None
    assert parse_symbolic("### Answer: M**2") is None
    # "exp" is a word, not a function: only the parenthesised integer after it is an expression.
    assert parse_symbolic("### Answer: exp(1)") == sympy.Integer(1)


def test_solver_answers_for_param_families_parse_back() -> None:
    for family, slots in (
        ("param.bs", {"brothers": "X", "sisters": "Y"}),
        ("param.sb", {"sisters": "M", "brothers": "N"}),
        ("param.light.sb", {"sisters": "N", "brothers": "M"}),
    ):
        want = solve(family, slots)
        assert isinstance(want, str)
        assert answer_kind(want) == "symbolic"
        assert answers_match(parse_answer(f"### Answer: {want}", "symbolic"), want)
        assert not answers_match(parse_answer("### Answer: 1", "symbolic"), want)


# --- matching --------------------------------------------------------------------------------------------


def test_answers_match_numbers() -> None:
    assert answers_match(parse_answer("### Answer: 7"), "7.0")
    assert answers_match(parse_answer("### Answer: 7.0"), 7)
    assert answers_match(parse_answer("### Answer: seven"), "7")
    assert not answers_match(parse_answer("### Answer: 6"), "7")
    assert not answers_match(parse_answer("### Answer: 6"), "M + 1")
    assert not answers_match(parse_answer("### Answer:"), "7")
    assert not answers_match(parse_answer("7"), "7")


def test_answers_match_rejects_uninterpretable_expected_answers() -> None:
    for expected in ("null", "", "5 apples", "7 = 7"):
        with pytest.raises(ValueError):
            answers_match(parse_answer("### Answer: 7"), expected)


def test_expected_answers_of_reproduced_items_parse_back() -> None:
    for item in published_items():
        want = expected_answer(item.family, item.slots, item.prompt_type)
        kind = answer_kind(want)
        parsed = parse_answer(f"Alice has 9 brothers.\n### Answer: {want}", kind)
        assert answers_match(parsed, want), (item.id, want, parsed)


def test_published_right_answers_parse_back_to_themselves() -> None:
    records = json.loads(reference("aiw", "prompts.json").read_text(encoding="utf-8"))
    assert len(records) == 826
    numeric = 0
    for record in records:
        right = record["right_answer"]
        if right is None or right == "null":
            continue
        parsed = parse_answer(f"### Answer: {right}")
        assert parsed.status == "ok", (record["id"], right)
        assert parsed.value == float(right), (record["id"], right)
        assert answers_match(parsed, right), (record["id"], right)
        numeric += 1
    # Every stored answer except the 13 "null" and 2 null ones is a number.
    assert numeric == 826 - 15
