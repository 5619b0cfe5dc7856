"""Paired comparisons: the exact McNemar test against hand-computed values, the paired bootstrap's determinism and
coverage, and pairing episodes by item and occurrence."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wason.metrics import compare_paired, mcnemar_exact, pair_outcomes, paired_bootstrap


@pytest.mark.parametrize(
    ("b", "c", "expected"),
    [
        # n = 12: 2 * (C(12,0) + C(12,1) + C(12,2)) / 2**12 = 2 * 79 / 4096
        (10, 2, 158 / 4096),
        (2, 10, 158 / 4096),
        # n = 5: 2 * (1 + 5) / 32
        (1, 4, 12 / 32),
        # all discordant pairs one way: 2 / 2**n
        (0, 5, 2 / 32),
        (7, 0, 2 / 128),
        # balanced: the tail reaches past the middle, capped at 1
        (3, 3, 1.0),
        (0, 0, 1.0),
    ],
)
def test_mcnemar_exact_matches_hand_computed_values(b: int, c: int, expected: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12)


def test_mcnemar_published_example_rounds_as_tables_give_it() -> None:
    assert round(mcnemar_exact(10, 2), 4) == 0.0386


def test_mcnemar_on_many_pairs_agrees_with_the_normal_approximation() -> None:
    # exact integer arithmetic on 10,100 pairs (no underflow); the continuity-corrected normal test is close
    b, c = 5000, 5100
    z = (abs(b - c) - 1) / math.sqrt(b + c)
    assert mcnemar_exact(b, c) == pytest.approx(math.erfc(z / math.sqrt(2)), abs=0.005)
    assert 0.0 < mcnemar_exact(10_000, 12_000) < 1e-20


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError, match=r"^c must be a count"):
        mcnemar_exact(3, -1)


def test_bootstrap_is_deterministic_under_its_seed() -> None:
    a = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0]
    b = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0]
    first = paired_bootstrap(a, b, seed=3, n_resamples=2000)
    assert paired_bootstrap(a, b, seed=3, n_resamples=2000) == first
    other = paired_bootstrap(a, b, seed=4, n_resamples=2000)
    assert other.difference == first.difference == pytest.approx(0.4)
    assert (other.interval, other.p_value) != (first.interval, first.p_value)
    low, high = first.interval
    assert 0.0 <= low < 0.4 < high <= 0.8
    assert first.n == 10 and first.seed == 3 and first.n_resamples == 2000


def test_bootstrap_interval_covers_the_true_difference_in_simulated_runs() -> None:
    # two correlated runs on 200 items: A succeeds with 0.7, B with 0.55 (B fails wherever A fails, plus some)
    rng = np.random.default_rng(11)
    covered = 0
    reps = 40
    for rep in range(reps):
        a = rng.random(200) < 0.7
        b = a & (rng.random(200) < 0.55 / 0.7)
        result = paired_bootstrap(
            a.astype(float).tolist(), b.astype(float).tolist(), seed=rep, n_resamples=1000
        )
        low, high = result.interval
        covered += low <= 0.15 <= high
        assert low <= result.difference <= high
    # a 95% interval: about 38 of 40; a wrong centre or scale would miss far more often
    assert covered >= 34


def test_bootstrap_p_value_follows_the_evidence() -> None:
    same = paired_bootstrap([1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 1.0, 0.0], seed=0, n_resamples=500)
    assert same.difference == 0.0 and same.interval == (0.0, 0.0) and same.p_value == 1.0
    a = [1.0] * 60 + [0.0] * 40
    b = [0.0] * 45 + [1.0] * 15 + [0.0] * 40
    clear = paired_bootstrap(a, b, seed=0, n_resamples=2000)
    assert clear.difference == pytest.approx(0.45)
    assert clear.p_value < 0.01 and clear.interval[0] > 0.2


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        ([1.0, 0.0], [1.0], "^a and b must be paired"),
        ([], [], "at least one pair"),
    ],
)
def test_bootstrap_rejects_unpaired_input(a: list[float], b: list[float], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        paired_bootstrap(a, b, seed=0)


def test_bootstrap_rejects_no_resamples() -> None:
    with pytest.raises(ValueError, match=r"^n_resamples"):
        paired_bootstrap([1.0], [0.0], seed=0, n_resamples=0)


def test_outcomes_pair_by_item_and_occurrence() -> None:
    # two trials of item x in both runs, one of y only in the first, z only in the second
    first = [("x", 1), ("y", 2), ("x", 3)]
    second = [("z", 10), ("x", 30), ("x", 40), ("x", 50)]
    assert pair_outcomes(first, second) == [(1, 30), (3, 40)]
    assert pair_outcomes(first, []) == []


def test_compare_paired_counts_the_discordant_pairs() -> None:
    pairs = [(True, True), (True, False), (True, False), (False, True), (False, False)]
    result = compare_paired(pairs, seed=1, n_resamples=500)
    assert (result.n, result.first_k, result.second_k, result.b, result.c) == (5, 3, 2, 2, 1)
    assert result.mcnemar_p == pytest.approx(1.0)
    # the bootstrap's difference is the second's rate minus the first's
    assert result.bootstrap.difference == pytest.approx(-0.2)
    with pytest.raises(ValueError, match=r"^pairs"):
        compare_paired([], seed=0)
