"""The equivalence judge: verdicts, the approximate-correctness rule, metrics and their presentation."""

from __future__ import annotations

import io
import math
import tokenize
from collections.abc import Callable

import numpy as np
import pytest

from wason.sandbox import GuessRejected, compile_rule
from wason.tasks.wilt import load_split
from wason.tasks.wilt.judge import APPROX_JACCARD_THRESHOLD, Verdict, format_verdict, judge
from wason.tasks.wilt.probes import probe_set

# The package's copy of the published full split (tests/tasks/wilt/test_game.py proves it equals the reference).
FULL = [rule.text for rule in load_split("full")]


def _python_truth(fn: Callable[..., object], points: np.ndarray) -> np.ndarray:
    out = []
    for row in points.tolist():
        args = [int(v) if v.is_integer() else v for v in row]
        try:
            out.append(bool(fn(*args)))
        except Exception:
            out.append(False)
    return np.array(out)


def test_z_below_500_is_not_x_lt_y_lt_z() -> None:
    verdict = judge("lambda x, y, z: x < y < z", "lambda x, y, z: x < y < z and z < 500")
    assert verdict.accepted and not verdict.equivalent
    assert verdict.approximately_correct
    # every counterexample really separates them, and the valid test (1, 2, 600)-style point is among them
    for (x, y, z), rule_value, guess_value in verdict.counterexamples:
        assert rule_value == (x < y < z) and guess_value == (x < y < z and z < 500)
        assert rule_value != guess_value
    assert any(z >= 500 for (_, _, z), _, _ in verdict.counterexamples)


@pytest.mark.parametrize("bound", ["1000", "1e6", "999.5"])
def test_a_bound_beyond_every_typeable_value_changes_nothing_a_player_can_test(bound: str) -> None:
    # (0, 1, 1000) is no test: the game refuses 1000 ("more than 3 digits"); a verdict is over the tests
    verdict = judge("lambda x, y, z: x < y < z", f"lambda x, y, z: x < y < z and z < {bound}")
    assert verdict.equivalent and verdict.method == "proved"
    assert verdict.counterexamples == []


def test_a_bound_at_the_last_typeable_value_is_refuted_there() -> None:
    verdict = judge("lambda x, y, z: x < y < z", "lambda x, y, z: x < y < z and z < 999")
    assert not verdict.equivalent and verdict.method == "refuted"
    assert any(z == 999 for (_, _, z), _, _ in verdict.counterexamples)


@pytest.mark.parametrize(
    ("rule", "guess"),
    [
        ("lambda x, y, z: x < y < z", "lambda x, y, z: x <= y <= z"),
        (
            "lambda x, y, z: all(-5 <= v <= 5 for v in (x, y, z))",
            "lambda x, y, z: all(-6 <= v <= 6 for v in (x, y, z))",
        ),
        ("lambda x, y, z: x < 0 and y < 0 and z < 0", "lambda x, y, z: x <= 0 and y <= 0 and z <= 0"),
        ("lambda x, y, z: 0 < x < 5", "lambda x, y, z: -1 < x < 7"),
        ("lambda x, y, z: x != y and y != z and x != z", "lambda x, y, z: x != y and y != z"),
    ],
)
def test_approximately_correct(rule: str, guess: str) -> None:
    verdict = judge(rule, guess)
    assert not verdict.equivalent
    assert verdict.approximately_correct
    assert verdict.jaccard is not None and verdict.jaccard >= APPROX_JACCARD_THRESHOLD


@pytest.mark.parametrize(
    ("rule", "guess"),
    [
        ("lambda x, y, z: x == y == z", "lambda x, y, z: False"),
        ("lambda x, y, z: x == y == z", "lambda x, y, z: x == y"),
        ("lambda x, y, z: x > y > z", "lambda x, y, z: x < y < z"),
        ("lambda x, y, z: x < y < z", "lambda x, y, z: x < y"),
        ("lambda x, y, z: x + y == z", "lambda x, y, z: x - y == z"),
        ("lambda x, y, z: x % 2 == 0", "lambda x, y, z: x % 2 == 1"),
    ],
)
def test_not_approximately_correct(rule: str, guess: str) -> None:
    verdict = judge(rule, guess)
    assert verdict.accepted and not verdict.equivalent
    assert not verdict.approximately_correct


@pytest.mark.parametrize("rule", FULL, ids=range(1, len(FULL) + 1))
def test_every_published_rule_equals_itself_renamed(rule: str) -> None:
    names = {"x": "p", "y": "q", "z": "r"}
    tokens = tokenize.generate_tokens(io.StringIO(rule).readline)
    renamed = tokenize.untokenize(
        (t.type, names.get(t.string, t.string) if t.type == tokenize.NAME else t.string) for t in tokens
    )
    assert renamed != rule
    verdict = judge(rule, renamed)
    assert verdict.accepted, verdict.rejection
    assert verdict.equivalent, (renamed, verdict.counterexamples)
    assert verdict.n_disagree == 0 and verdict.agreement == 1.0


def test_full_split_was_found() -> None:
    assert len(FULL) == 50


@pytest.mark.parametrize(
    ("rule", "guess"),
    [
        ("lambda x, y, z: x < y < z", "lambda x, y, z: y > x and z > y"),
        ("lambda x, y, z: x == y and y == z", "lambda x, y, z: max(x, y, z) == min(x, y, z)"),
        ("lambda x, y, z: x**2 + y**2 == z**2", "lambda a, b, c: c ** 2 == b ** 2 + a ** 2"),
        (
            "lambda x, y, z: (x % 2 == 0) and (y % 2 == 0) and (z % 2 == 0)",
            "all(v % 2 == 0 for v in (x, y, z))",
        ),
        ("lambda x, y, z: x < 0 and y < 0 and z < 0", "max(x, y, z) < 0"),
    ],
)
def test_rewritten_correct_guesses(rule: str, guess: str) -> None:
    assert judge(rule, guess).equivalent


def test_rejected_guess_verdict() -> None:
    verdict = judge("lambda x, y, z: x < y < z", "lambda x, y, z: open('f')")
    assert verdict.accepted is False
    assert verdict.rejection == "function 'open' is not allowed"
    assert (verdict.equivalent, verdict.approximately_correct) == (False, False)
    assert (verdict.agreement, verdict.n_probes, verdict.n_disagree) == (0.0, 0, 0)
    assert verdict.jaccard is None and verdict.set_inclusion is None and verdict.counterexamples == []


def test_invalid_rule_raises() -> None:
    with pytest.raises(GuessRejected):
        judge("lambda x, y, z: open('rules')", "x < y")


def test_compiled_rule_is_accepted() -> None:
    verdict = judge(compile_rule("lambda x, y, z: x < y < z"), "x < y < z")
    assert verdict.equivalent and verdict.rule == "lambda x, y, z: x < y < z"


def test_metrics_match_an_independent_count() -> None:
    rule = lambda x, y, z: x < y < z  # noqa: E731
    guess = lambda x, y, z: x <= y <= z  # noqa: E731
    verdict = judge("lambda x, y, z: x < y < z", "lambda x, y, z: x <= y <= z", seed=3)
    probes = probe_set(3)
    r, g = _python_truth(rule, probes.points), _python_truth(guess, probes.points)
    assert verdict.n_probes == probes.n
    assert verdict.n_disagree == int((r != g).sum())
    assert verdict.agreement == pytest.approx(float((r == g).mean()))
    assert verdict.jaccard == pytest.approx((r & g).sum() / (r | g).sum())
    ref = probes.reference
    assert verdict.set_inclusion == pytest.approx(g[ref].sum() / r[ref].sum())
    assert verdict.set_inclusion is not None and verdict.set_inclusion > 1


def test_set_inclusion_is_none_when_neither_set_contains_the_other() -> None:
    verdict = judge("lambda x, y, z: x < y", "lambda x, y, z: y < z")
    assert verdict.set_inclusion is None
    smaller = judge("lambda x, y, z: x <= y <= z", "lambda x, y, z: x < y < z")
    assert smaller.set_inclusion is not None and smaller.set_inclusion < 1
    empty_rule = judge("lambda x, y, z: False", "lambda x, y, z: x < y")
    assert empty_rule.set_inclusion is None
    assert judge("lambda x, y, z: False", "lambda x, y, z: x != x").jaccard is None


def test_counterexamples_are_few_simple_distinct_and_deterministic() -> None:
    first = judge("lambda x, y, z: x < y < z", "lambda x, y, z: x <= y <= z", seed=5)
    second = judge("lambda x, y, z: x < y < z", "lambda x, y, z: x <= y <= z", seed=5)
    assert first.counterexamples == second.counterexamples
    assert len(first.counterexamples) == 5
    points = [p for p, _, _ in first.counterexamples]
    assert len(set(points)) == 5
    assert all(float(v).is_integer() for p in points for v in p)  # integers come before fractions
    assert points[0] == (0.0, 0.0, 0.0)  # and small before large


def test_probe_seed_is_recorded_and_changes_only_random_families() -> None:
    a = judge("lambda x, y, z: x < y < z", "lambda x, y, z: x < y", seed=0)
    b = judge("lambda x, y, z: x < y < z", "lambda x, y, z: x < y", seed=1)
    assert (a.probe_seed, b.probe_seed) == (0, 1)
    assert a.probe_version == b.probe_version
    assert a.n_disagree != b.n_disagree


def test_verdict_round_trips_through_json() -> None:
    verdict = judge("lambda x, y, z: x < y < z", "lambda x, y, z: x <= y <= z")
    assert Verdict.model_validate_json(verdict.model_dump_json()) == verdict


def test_format_verdict() -> None:
    right = format_verdict(judge("x < y < z", "lambda a, b, c: a < b < c"))
    assert "CORRECT" in right and "probes" in right
    near = format_verdict(judge("x < y < z", "x <= y <= z"))
    assert (
        "WRONG" in near
        and "approximately correct" in near
        and "e.g. (0, 0, 0): rule False, guess True" in near
    )
    rejected = format_verdict(judge("x < y < z", "self.rule"))
    assert "rejected by the sandbox: name 'self' is not allowed" in rejected
    far = format_verdict(judge("x < y < z", "x > y > z"))
    assert "not approximately correct" in far


def test_judging_never_raises_for_any_guess_text() -> None:
    for guess in ["", "(", "lambda", "x <", "1/0", "math.log(-1)", "x ** 0.5 < -1", "\x00", "é < x"]:
        verdict = judge("x < y < z", guess)
        assert isinstance(verdict, Verdict)


def test_python_reference_agrees_on_the_500_case() -> None:
    # the counterexample the reference harness misses really is a valid test value
    probes = probe_set(0, (500.0, -500.0), corners=(500.0, -500.0, 0.0))  # the judge's: its corners have 0
    rule = _python_truth(lambda x, y, z: x < y < z, probes.points)
    guess = _python_truth(lambda x, y, z: x < y < z and z < 500, probes.points)
    assert (rule != guess).any()
    assert math.isclose(
        judge("x < y < z", "x < y < z and z < 500").agreement, float((rule == guess).mean()), rel_tol=1e-12
    )
