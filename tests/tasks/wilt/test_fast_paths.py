"""The fast paths of the WILT hypothesis space, probe sets and rule generator compute what the plain ones do."""

from __future__ import annotations

import random

import numpy as np
import pytest

from wason.sandbox import compile_rule
from wason.tasks.wilt.elimination import IdealSolver
from wason.tasks.wilt.generate import _Identifiability, _identifiable
from wason.tasks.wilt.listed_space import HypothesisSpace, _Cols, build_space, candidate_tests
from wason.tasks.wilt.probes import FAMILIES, REFERENCE_FAMILIES, probe_set


@pytest.fixture(scope="module")
def space() -> HypothesisSpace:
    return build_space(0)


def _hostile_points() -> np.ndarray:
    rng = np.random.default_rng(7)
    special = [
        [np.nan, 1.0, 2.0],
        [np.inf, -np.inf, 0.0],
        [-0.0, 0.0, 1e300],
        [1e308, 1e308, -1e308],
        [0.5, -0.5, 2.5],
        [5.0, -5.0, 20.0],
        [-20.0, 10.0, 0.001],
    ]
    return np.concatenate(
        [
            candidate_tests(0)[0][::7],
            rng.integers(-25, 26, (400, 3)).astype(np.float64),
            rng.integers(-999, 1000, (200, 3)) / 10.0,
            rng.uniform(-3.0, 3.0, (200, 3)),
            np.array(special),
        ]
    )


def test_batched_primitives_equal_each_primitive_alone(space: HypothesisSpace) -> None:
    points = _hostile_points()
    plan = space._plan
    assert len(plan.general) < len(space._primitives) // 4  # most primitives take the batched path
    cols = _Cols(points)
    with np.errstate(all="ignore"):
        one_by_one = np.array([p.fn(cols) for p in space._primitives])
    assert np.array_equal(plan.matrix(points), one_by_one)


def test_probe_sets_join_parts_as_the_whole_would_be_computed() -> None:
    for constants in [(), (1.0, -1.0, 5.0), (0.0, 2.5, -2.5, 999.0)]:
        probes = probe_set(0, constants)
        n_fractional = 3 - sum(m.astype(np.float64) for m in probes.inputs.ints)
        magnitude = np.abs(probes.points).max(axis=1)
        assert np.array_equal(probes.simplicity, n_fractional + magnitude / (1.0 + magnitude))
        codes = np.array([FAMILIES.index(f) for f in REFERENCE_FAMILIES], dtype=np.int8)
        assert np.array_equal(probes.reference, np.isin(probes.family, codes))


def test_choose_is_should_guess_then_next_test(space: HypothesisSpace) -> None:
    points, _ = candidate_tests(0)
    solver = IdealSolver(space, points)
    truth = space.evaluate(points)
    rule = 4321
    while True:
        choice = solver.choose()
        assert choice == (None if solver.should_guess() else solver.next_test())
        if choice is None:
            break
        solver.observe(points[choice], bool(truth[rule, choice]))


def test_identifiability_walk_agrees_with_whole_games(space: HypothesisSpace) -> None:
    # drawn the way the generator draws them (any tier), plus near-constant ones it would skip; a fresh walk
    # shares its decision tree between the rules, as the generator's does
    walk = _Identifiability(space)
    picks = random.Random(3).sample(range(len(space)), 40)
    verdicts = []
    for index in picks:
        program = compile_rule(space.hypotheses[index].lambda_text)
        fast = walk(index, program)
        assert fast == _identifiable(program.source), space.hypotheses[index].expr
        verdicts.append(fast)
    assert any(verdicts) and not all(verdicts)  # both answers are exercised
