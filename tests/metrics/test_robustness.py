"""The unified robustness score R (AIW paper 3.4.2)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wason.metrics import ROBUSTNESS_EPSILON, robustness, robustness_score

rates_strategy = st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=12)


@pytest.mark.parametrize("rate", [0.05, 0.4, 0.9, 1.0])
@pytest.mark.parametrize("n", [2, 4, 10])
def test_uniform_rates_score_their_mean(rate: float, n: int) -> None:
    result = robustness([rate] * n)
    assert result.normalized_entropy == pytest.approx(1.0, abs=1e-12)
    assert result.score == pytest.approx(rate, rel=1e-12)


def test_a_spike_scores_far_below_its_mean() -> None:
    result = robustness([1.0, 0.0, 0.0, 0.0])
    assert result.mean_rate == pytest.approx(0.25)
    assert result.score < 0.01 * result.mean_rate


def test_spread_beats_spike_at_equal_mean() -> None:
    # The paper's motivating case: same average, one model fluctuates, the other does not.
    assert robustness_score([0.25] * 4) > 10 * robustness_score([1.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize("n", [1, 2, 5])
def test_all_zero_rates_score_zero(n: int) -> None:
    assert robustness_score([0.0] * n) == 0.0


@pytest.mark.parametrize("rate", [0.0, 0.37, 1.0])
def test_one_variation_scores_its_rate(rate: float) -> None:
    result = robustness([rate])
    assert result.normalized_entropy == 1.0
    assert result.score == rate


def test_order_of_variations_does_not_matter() -> None:
    rates = [0.9, 0.1, 0.55, 0.0, 0.3]
    scores = {robustness_score(p) for p in ([rates[i] for i in perm] for perm in _permutations(5))}
    assert len(scores) == 1


def _permutations(n: int) -> list[list[int]]:
    rng = np.random.default_rng(7)
    return [list(rng.permutation(n)) for _ in range(30)]


@given(rates_strategy)
def test_score_is_bounded_by_the_mean(rates: list[float]) -> None:
    result = robustness(rates)
    assert 0.0 <= result.normalized_entropy <= 1.0
    assert 0.0 <= result.score <= result.mean_rate + 1e-15
    assert result.n_variations == len(rates)


@given(rates_strategy, st.randoms(use_true_random=False))
def test_score_is_permutation_invariant(rates: list[float], rnd: object) -> None:
    shuffled = list(rates)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert robustness_score(shuffled) == robustness_score(rates)


def test_matches_a_direct_numpy_evaluation() -> None:
    rng = np.random.default_rng(11)
    for _ in range(20):
        rates = rng.uniform(0, 1, size=int(rng.integers(2, 9)))
        q = (rates + ROBUSTNESS_EPSILON) / (rates + ROBUSTNESS_EPSILON).sum()
        expected = -(q * np.log(q)).sum() / math.log(len(rates)) * rates.mean()
        assert robustness_score(rates.tolist()) == pytest.approx(expected, rel=1e-12)


def test_rejects_bad_input() -> None:
    for bad in ([], [1.2], [-0.1, 0.5], [math.nan]):
        with pytest.raises(ValueError):
            robustness(bad)
    with pytest.raises(ValueError):
        robustness([0.5, 0.5], epsilon=0.0)
