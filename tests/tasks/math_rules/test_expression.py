"""Expressions lambda v, i: ... judged by code on the rule's extension, and refused or bounded when hostile."""

from __future__ import annotations

import pytest

from wason.sandbox import GuessRejected
from wason.tasks.math_rules.expression import compile_expression, find_expression, judge_expression
from wason.tasks.math_rules.rules import MathRule, Op

DOUBLE = MathRule(Op("mul", 2), Op("mul", 2))
HALVE_OR_ADD = MathRule(Op("floordiv", 2), Op("add", 7))


@pytest.mark.parametrize(
    "source",
    ["lambda v, i: v * 2", "lambda v, i: 2 * v", "lambda a, b: a + a", "v * 2", "lambda v, i: v << 1"],
)
def test_equivalent_expressions_are_the_rule(source: str) -> None:
    verdict = judge_expression(DOUBLE, "L1", source)
    assert verdict.equivalent and verdict.agreement == 1.0 and verdict.points > 100


def test_an_alternating_rule_and_its_near_misses() -> None:
    right = "lambda v, i: v // 2 if i % 2 == 0 else v + 7"
    assert judge_expression(HALVE_OR_ADD, "L3", right).equivalent
    swapped = judge_expression(HALVE_OR_ADD, "L3", "lambda v, i: v + 7 if i % 2 == 0 else v // 2")
    assert not swapped.equivalent and swapped.counterexamples
    ce = swapped.counterexamples[0]
    assert HALVE_OR_ADD.next(ce["value"], ce["index"]) == ce["next"]
    # true division gives 2.5 where the rule gives 2: not the rule
    assert not judge_expression(HALVE_OR_ADD, "L3", "lambda v, i: v / 2 if i % 2 == 0 else v + 7").equivalent


def test_truncation_is_not_floor_division_on_negative_values() -> None:
    rule = MathRule(Op("floordiv", 2), Op("add", -9))
    assert judge_expression(rule, "L3", "lambda v, i: v // 2 if i % 2 == 0 else v - 9").equivalent
    assert not judge_expression(rule, "L3", "lambda v, i: int(v / 2) if i % 2 == 0 else v - 9").equivalent


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("lambda v, i: __import__('os').system('echo hi')", "__import__"),
        ("lambda v, i: open('/etc/passwd')", "open"),
        ("lambda v, i: v.__class__", "attribute"),
        ("lambda v, i: eval('1')", "eval"),
        ("lambda v, i: exec('x=1')", "exec"),
        ("lambda v, i: self", "self"),
        ("lambda v, i: 'a' * 10**9", "strings"),
        ("lambda v, i: [v] * 10**9", "list"),
        ("lambda v: v", "two parameters"),
        ("lambda v, i, z: v", "two parameters"),
        ("lambda v, v: v", "distinct"),
        ("lambda v, i=1: v", "plain"),
        ("lambda *a: 1", "plain"),
        # a lambda called in place is inlined (wason.sandbox.desugar), a bounded number of times
        ("lambda v, i: (lambda f: f(f))(lambda f: f(f))", "more than 32 times"),
        ("lambda v, i: (x := v)", "assignment"),
        ("v +", "not a valid"),
        ("", "empty"),
        ("   ", "empty"),
        ("lambda v, i: " + " + ".join(["v"] * 400), "nested more than"),
        ("lambda v, i: sum((" + ", ".join(["v * i + 1"] * 120) + "))", "too large"),
        ("lambda v, i: " + "-(" * 120 + "v" + ")" * 120, "nested"),
        ("(" * 150 + "v" + ")" * 150 + "+" + "v", None),  # parentheses alone are not depth
        ("(" * 300 + "v" + ")" * 300, "nested parentheses"),
        ("x" * 5000, "characters long"),
    ],
)
def test_hostile_expressions_are_refused(source: str, reason: str | None) -> None:
    if reason is None:
        compile_expression(source)
        return
    with pytest.raises(GuessRejected) as raised:
        compile_expression(source)
    assert reason in raised.value.reason
    verdict = judge_expression(DOUBLE, "L1", source)
    assert not verdict.equivalent and verdict.rejection == raised.value.reason and verdict.points == 0


@pytest.mark.parametrize(
    "source",
    [
        "lambda v, i: v ** 10**100",
        "lambda v, i: 10 ** 10 ** 10",
        "lambda v, i: pow(v, 99999999)",
        "lambda v, i: v ** v ** v ** v",
        "lambda v, i: math.factorial(10**9) if False else v * 2",
        "lambda v, i: (v * 2) + 0 * (9 ** 9 ** 9)",
    ],
)
def test_huge_powers_are_bounded_never_computed(source: str) -> None:
    try:
        verdict = judge_expression(DOUBLE, "L1", source)
    except GuessRejected:  # pragma: no cover - judge_expression never raises
        pytest.fail("judge_expression raised")
    assert verdict.equivalent is False or verdict.rejection is None


def test_non_text_and_missing_expressions() -> None:
    assert judge_expression(DOUBLE, "L1", None).rejection == "no expression was given"
    with pytest.raises(GuessRejected, match="text"):
        compile_expression(42)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("each term doubles: `lambda v, i: v * 2`.", "lambda v, i: v * 2"),
        ("```python\nlambda v, i: v - 3\n```", "lambda v, i: v - 3"),
        ("lambda v, i: v + 1;", "lambda v, i: v + 1"),
        ("the values double", None),
        ("lambdas are fun", None),
    ],
)
def test_finding_the_expression_in_a_guess(text: str, found: str | None) -> None:
    assert find_expression(text) == found
