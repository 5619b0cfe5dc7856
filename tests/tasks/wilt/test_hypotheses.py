"""The WILT hypothesis space: numpy semantics equal the sandbox's, every published rule is in it, determinism."""

from __future__ import annotations

from collections import Counter

import numpy as np
import numpy.typing as npt
import pytest

from wason.sandbox import Inputs, compile_rule
from wason.tasks.wilt import load_split
from wason.tasks.wilt.judge import judge
from wason.tasks.wilt.listed_space import (
    SPACE_VERSION,
    Hypothesis,
    HypothesisSpace,
    build_space,
    candidate_tests,
)
from wason.tasks.wilt.values import parse_value


@pytest.fixture(scope="module")
def space() -> HypothesisSpace:
    return build_space(0)


def _semantic_points() -> npt.NDArray[np.float64]:
    """Integers, decimals, ties, zeros, negatives, large values, floats with many digits, relation triples."""
    rng = np.random.default_rng(20240611)
    a = rng.integers(-20, 21, 300).astype(np.float64)
    b = rng.integers(-20, 21, 300).astype(np.float64)
    d = rng.integers(-99, 100, 300) / 10.0
    e = rng.integers(-99, 100, 300) / 10.0
    blocks = [
        rng.integers(-6, 7, (600, 3)).astype(np.float64),
        rng.integers(-999, 1000, (200, 3)).astype(np.float64),
        rng.integers(-300, 301, (300, 3)) / 10.0,
        rng.integers(-9999, 10000, (200, 3)) / 1000.0,
        rng.uniform(-200.0, 200.0, (200, 3)),
        rng.uniform(-3.0, 3.0, (200, 3)),
        np.stack([a, a, b], axis=1),
        np.stack([b, a, a], axis=1),
        np.stack([a, b, a], axis=1),
        np.stack([a, a, a], axis=1),
        np.stack([a, b, a + b], axis=1),
        np.stack([a, b, a * b], axis=1),
        np.stack([a, b, (a + b) / 2], axis=1),
        np.stack([d, e, np.round(d + e, 1)], axis=1),
        np.stack([d, e, np.round(d - e, 1)], axis=1),
        np.array(
            [
                [0.0, 0.0, 0.0],
                [-0.0, 0.0, 1.0],
                [3, 4, 5],
                [-3, 4, -5],
                [0.3, 0.4, 0.5],
                [5, 3, 1],
                [5.5, 3.2, 1],
                [-5, 3, 3],
                [0.1, 0.2, 0.3],
                [-0.9, -0.5, -0.2],
                [0.1, 0.5, 1.0],
                [1, 4, 9],
                [0.25, 4, 9],
                [2, 3, 5],
                [6, 10, 15],
                [999, -999, 0.001],
                [1e200, 1e200, 1.0],  # x**2 overflows: Python raises, so the point is False
            ]
        ),
    ]
    return np.concatenate(blocks, axis=0)


def test_numpy_extension_equals_the_sandbox_on_every_hypothesis(space: HypothesisSpace) -> None:
    points = _semantic_points()
    ours = space.evaluate(points)
    inputs = Inputs.from_points(points)
    wrong: list[str] = []
    hypotheses = space.hypotheses
    for start in range(0, len(hypotheses), 500):
        programs = [compile_rule(h.lambda_text) for h in hypotheses[start : start + 500]]
        results = programs[0].evaluate_together(programs[1:], inputs)
        for k, (truth, _error) in enumerate(results):
            if not np.array_equal(truth, ours[start + k]):
                where = np.flatnonzero(truth != ours[start + k])[:3]
                wrong.append(f"{hypotheses[start + k].expr}: differs at {points[where].tolist()}")
    assert not wrong, "\n".join(wrong[:20])


def test_evaluate_is_the_same_in_chunks_and_at_once(space: HypothesisSpace) -> None:
    points = _semantic_points()
    whole = space.evaluate(points)
    pieces = np.concatenate([space.evaluate(points[i : i + 97]) for i in range(0, len(points), 97)], axis=1)
    assert np.array_equal(whole, pieces)


def test_evaluate_rows_is_those_rows_of_evaluate(space: HypothesisSpace) -> None:
    points = _semantic_points()
    whole = space.evaluate(points)
    rng = np.random.default_rng(5)
    few = rng.choice(len(space), 12, replace=False)  # each primitive's own predicate
    many = rng.choice(len(space), 400, replace=False)  # the plan over the whole grammar
    conjunctions = [h for h, hyp in enumerate(space.hypotheses) if "+" in hyp.family][:10]
    for rows in (few, many, np.array(conjunctions)):
        assert np.array_equal(space.evaluate_rows(rows, points), whole[rows])
    assert space.evaluate_rows([3], points[:1]).shape == (1, 1)


@pytest.mark.parametrize("split", ["lite", "full"])
def test_every_published_rule_has_an_equivalent_member(space: HypothesisSpace, split: str) -> None:
    points, _ = candidate_tests(0)
    table = space.evaluate(points)
    missing = []
    for rule in load_split(split):
        truth = rule.program().evaluate(points)
        agreeing = np.flatnonzero((table == truth).all(axis=1))
        if not any(judge(rule.program(), space.hypotheses[i].lambda_text).equivalent for i in agreeing[:5]):
            missing.append(rule.key)
    assert not missing


def test_published_rule_is_the_only_member_the_candidates_cannot_tell_from_it(space: HypothesisSpace) -> None:
    # The solver can only tell hypotheses apart through the candidates: for each published rule exactly one
    # member agrees with it on all of them, and that member is equivalent (so no wrong twin can be guessed).
    points, _ = candidate_tests(0)
    table = space.evaluate(points)
    for rule in load_split("full"):
        agreeing = np.flatnonzero((table == rule.program().evaluate(points)).all(axis=1))
        assert len(agreeing) == 1, (rule.key, [space.hypotheses[i].expr for i in agreeing])


def test_space_size_prior_and_hypotheses(space: HypothesisSpace) -> None:
    assert space.version == SPACE_VERSION
    assert 2_000 <= len(space) <= 20_000
    assert space.generated > len(space)
    assert space.prior.shape == (len(space),)
    assert np.all(space.prior > 0) and space.prior.sum() == pytest.approx(1.0)
    assert len({h.expr for h in space.hypotheses}) == len(space)
    complexities = [h.complexity for h in space.hypotheses]
    assert complexities == sorted(complexities)  # simplest first: the solver's tie-break relies on it
    # within a family, a simpler member never weighs less than a more complex one
    by_family: dict[str, list[int]] = {}
    for i, h in enumerate(space.hypotheses):
        by_family.setdefault(h.family, []).append(i)
    for members in by_family.values():
        weights = space.prior[members]
        assert np.all(np.diff(weights) <= 1e-18)
    families = Counter(h.family.split("+")[0] for h in space.hypotheses if "+" not in h.family)
    for family in (
        "chain",
        "bound_all",
        "interval_all",
        "modulo_all",
        "sum_relation",
        "pythagorean",
        "bitwise",
    ):
        assert families[family] > 0, family


def test_no_hypothesis_is_constant_on_the_candidates_and_probes(space: HypothesisSpace) -> None:
    points, _ = candidate_tests(0)
    table = space.evaluate(points)
    n_true = table.sum(axis=1)
    # constant on the de-duplication points (a superset of the candidates) is dropped; on the candidates alone
    # a hypothesis may still be constant, but only a few can be
    assert np.count_nonzero((n_true == 0) | (n_true == points.shape[0])) < len(space) // 100


def test_conjunction_text_is_parenthesised_where_python_needs_it(space: HypothesisSpace) -> None:
    for h in space.hypotheses:
        if "+" in h.family and " or " in h.expr:
            assert "(" in h.expr, h.expr
    # a disjunction conjoined without parentheses would mean something else: compile and compare one
    ties = [h for h in space.hypotheses if h.expr.startswith("(x == y or y == z or x == z) and")]
    assert ties
    assert compile_rule(ties[0].lambda_text)(1, 1, 1) == bool(
        space.evaluate(np.array([[1.0, 1.0, 1.0]]))[space.hypotheses.index(ties[0]), 0]
    )


def test_lambda_text() -> None:
    h = Hypothesis("x < y < z", "chain", 2)
    assert h.lambda_text == "lambda x, y, z: x < y < z"
    assert compile_rule(h.lambda_text)(1, 2, 3)


def test_build_is_deterministic() -> None:
    again = build_space.__wrapped__(0)  # bypass the cache: a fresh build
    first = build_space(0)
    assert again is not first
    assert again.hypotheses == first.hypotheses
    assert np.array_equal(again.prior, first.prior)


def test_candidates_are_deterministic_and_seeded() -> None:
    points, labels = candidate_tests(0)
    points2, labels2 = candidate_tests(0)
    assert labels == labels2 and np.array_equal(points, points2)
    _, other = candidate_tests(1)
    assert other != labels  # the random part follows the seed
    assert len(set(other) & set(labels)) > len(labels) // 2  # the systematic part does not


def test_candidates_are_valid_typeable_values() -> None:
    points, labels = candidate_tests(0)
    assert 2_000 <= len(labels) <= 10_000
    assert points.shape == (len(labels), 3)
    for label, row in zip(labels, points.tolist(), strict=True):
        assert [parse_value(token) for token in label] == row
    assert len(set(labels)) == len(labels)
    assert len({tuple(r) for r in points.tolist()}) == len(labels)  # no two spell the same numbers
    assert not points.flags.writeable


def test_candidates_cover_the_families_the_rules_need() -> None:
    points, _ = candidate_tests(0)
    rows = {tuple(r) for r in points.tolist()}
    x, y, z = points.T
    frac = np.mod(points, 1.0)
    for triple in [(3.0, 4.0, 5.0), (5.0, 4.0, 3.0), (-3.0, 4.0, 5.0), (1.0, 4.0, 9.0), (2.0, 3.0, 5.0)]:
        assert triple in rows
    assert {999.0, -999.0} <= set(points.ravel().tolist())
    assert np.any((x == y) & (y == z) & (x < 0))
    for a, b, c in [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]:  # every fraction order
        assert np.any((frac[:, a] > 0) & (frac[:, a] < frac[:, b]) & (frac[:, b] < frac[:, c]))
    assert np.any((x < y) & (y < z) & (z - x <= 1) & (frac != 0).all(axis=1))
    assert (
        np.any((x.astype(np.int64) & y.astype(np.int64)) == z) and np.any(x * y == z) and np.any(x + y == z)
    )
