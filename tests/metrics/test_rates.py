"""Correct rates, the matched Beta spread, Wilson intervals, the normal quantile and answer distributions."""

from __future__ import annotations

import math
import statistics

import mpmath  # type: ignore[import-untyped]
import numpy as np
import pytest

from wason.metrics import (
    answer_distribution,
    beta_cdf,
    beta_quantile,
    beta_spread,
    correct_rate,
    near_miss_mass,
    normal_quantile,
    summarize_rate,
    wilson_interval,
)
from wason.metrics.rates import _acklam

PROBS = [1e-12, 1e-6, 0.001, 0.01, 0.02425, 0.025, 0.1, 0.3, 0.5, 0.7, 0.9, 0.975, 0.99, 0.999999]


# --- normal quantile ------------------------------------------------------------------------------------


@pytest.mark.parametrize("prob", PROBS)
def test_normal_quantile_matches_stdlib(prob: float) -> None:
    # statistics.NormalDist uses Wichura's AS241, an independent algorithm.
    assert normal_quantile(prob) == pytest.approx(statistics.NormalDist().inv_cdf(prob), rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("prob", PROBS)
def test_unrefined_approximation_is_within_its_published_error(prob: float) -> None:
    # Guards the transcribed coefficients: the refinement step would otherwise hide a wrong digit.
    assert _acklam(prob) == pytest.approx(statistics.NormalDist().inv_cdf(prob), rel=1.2e-9, abs=1e-12)


def test_textbook_critical_values() -> None:
    assert normal_quantile(0.975) == pytest.approx(1.959964, abs=1e-6)
    assert normal_quantile(0.95) == pytest.approx(1.644854, abs=1e-6)
    assert normal_quantile(0.995) == pytest.approx(2.575829, abs=1e-6)


def test_normal_quantile_is_antisymmetric() -> None:
    # Dyadic probabilities, so 1 - prob is exact and any asymmetry is the function's own.
    for prob in (2.0**-40, 2.0**-20, 2.0**-7, 0.125, 0.375):
        assert normal_quantile(prob) == pytest.approx(-normal_quantile(1.0 - prob), rel=1e-9)


@pytest.mark.parametrize("prob", [0.0, 1.0, -0.1, 1.5, math.nan])
def test_normal_quantile_rejects_non_probabilities(prob: float) -> None:
    with pytest.raises(ValueError):
        normal_quantile(prob)


# --- correct rate ---------------------------------------------------------------------------------------


def test_correct_rate_is_the_proportion() -> None:
    assert correct_rate(17, 30) == pytest.approx(17 / 30)
    assert correct_rate(0, 30) == 0.0
    assert correct_rate(30, 30) == 1.0


@pytest.mark.parametrize(("k", "n"), [(0, 0), (-1, 30), (31, 30), (1, -3)])
def test_correct_rate_rejects_impossible_counts(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        correct_rate(k, n)


def test_correct_rate_rejects_bools_and_floats() -> None:
    with pytest.raises(TypeError):
        correct_rate(True, 30)
    with pytest.raises(TypeError):
        correct_rate(3.0, 30)  # type: ignore[arg-type]


# --- Wilson ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("k", "n"), [(0, 30), (1, 30), (17, 30), (29, 30), (30, 30), (5, 200), (1, 1)])
@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_wilson_bounds_solve_the_score_equation(k: int, n: int, confidence: float) -> None:
    # The Wilson bounds are the x with |p - x| = z * sqrt(x (1 - x) / n); check that directly.
    low, high = wilson_interval(k, n, confidence)
    p = k / n
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    for x in (low, high):
        assert (p - x) ** 2 == pytest.approx(z * z * x * (1 - x) / n, abs=1e-12)
    assert 0.0 <= low <= p <= high <= 1.0
    assert low < high


def test_wilson_does_not_collapse_at_zero_correct() -> None:
    low, high = wilson_interval(0, 30)
    assert low == 0.0
    assert 0.05 < high < 0.2


def test_wilson_narrows_with_more_trials_and_widens_with_confidence() -> None:
    width = [h - lo for lo, h in (wilson_interval(n // 2, n) for n in (30, 120, 480))]
    assert width[0] > width[1] > width[2]
    lo90, hi90 = wilson_interval(15, 30, 0.9)
    lo99, hi99 = wilson_interval(15, 30, 0.99)
    assert lo99 < lo90 and hi90 < hi99


@pytest.mark.parametrize("confidence", [0.0, 1.0, 95.0])
def test_wilson_rejects_bad_confidence(confidence: float) -> None:
    with pytest.raises(ValueError):
        wilson_interval(3, 30, confidence)


# --- Beta spread ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("k", "n"), [(17, 30), (3, 30), (1, 30), (29, 30), (50, 100), (1, 2)])
def test_beta_matches_the_papers_moments(k: int, n: int) -> None:
    # Paper 2.3: mean p and variance p (1 - p) / n; check by integrating the density, not the formulas.
    spread = beta_spread(k, n)
    p = k / n
    a, b = spread.alpha, spread.beta
    x = np.linspace(0.0, 1.0, 400_001)[1:-1]
    density = np.exp((a - 1) * np.log(x) + (b - 1) * np.log1p(-x) - float(mpmath.log(mpmath.beta(a, b))))
    if min(a, b) >= 1:
        mass = np.trapezoid(density, x)
        mean = np.trapezoid(x * density, x)
        var = np.trapezoid((x - mean) ** 2 * density, x)
        assert mass == pytest.approx(1.0, abs=1e-6)
        assert mean == pytest.approx(p, abs=1e-6)
        assert var == pytest.approx(p * (1 - p) / n, rel=1e-4)
    assert spread.mean == pytest.approx(p)
    assert spread.sd == pytest.approx(math.sqrt(p * (1 - p) / n))
    assert spread.alpha > 0 and spread.beta > 0
    assert not spread.degenerate


@pytest.mark.parametrize(("k", "n"), [(17, 30), (1, 30), (29, 30), (2, 100)])
def test_beta_interval_holds_the_stated_mass(k: int, n: int) -> None:
    spread = beta_spread(k, n, confidence=0.9)

    def cdf(x: float) -> float:
        return float(mpmath.betainc(spread.alpha, spread.beta, 0, x, regularized=True))

    assert cdf(spread.low) == pytest.approx(0.05, abs=1e-9)
    assert cdf(spread.high) == pytest.approx(0.95, abs=1e-9)
    assert spread.low < k / n < spread.high


def test_beta_spread_matches_seeded_samples() -> None:
    spread = beta_spread(17, 30)
    rng = np.random.default_rng(20240603)
    draws = rng.beta(spread.alpha, spread.beta, size=200_000)
    assert draws.std() == pytest.approx(spread.sd, rel=0.01)
    assert np.quantile(draws, 0.025) == pytest.approx(spread.low, abs=0.003)
    assert np.quantile(draws, 0.975) == pytest.approx(spread.high, abs=0.003)


@pytest.mark.parametrize(("k", "n"), [(0, 30), (30, 30), (0, 1), (1, 1)])
def test_beta_spread_is_a_point_mass_when_degenerate(k: int, n: int) -> None:
    spread = beta_spread(k, n)
    p = k / n
    assert spread.degenerate
    assert spread.sd == 0.0
    assert spread.low == spread.high == spread.mean == p


@pytest.mark.parametrize(
    ("x", "a", "b"),
    [
        (0.3, 0.5, 2.7),
        (0.9, 0.2, 0.3),
        (0.01, 16.4, 12.6),
        (0.6, 16.4, 12.6),
        (0.999, 58.5, 0.5),
        (0.5, 1, 1),
    ],
)
def test_beta_cdf_matches_mpmath(x: float, a: float, b: float) -> None:
    assert beta_cdf(x, a, b) == pytest.approx(float(mpmath.betainc(a, b, 0, x, regularized=True)), abs=1e-12)


def test_beta_quantile_inverts_closed_form_cdfs() -> None:
    # Beta(a, 1) has CDF x^a and Beta(1, b) has CDF 1 - (1 - x)^b.
    for q in (0.01, 0.3, 0.77):
        assert beta_quantile(q, 2.5, 1.0) == pytest.approx(q ** (1 / 2.5), abs=1e-12)
        assert beta_quantile(q, 1.0, 0.4) == pytest.approx(1 - (1 - q) ** (1 / 0.4), abs=1e-12)


def test_beta_functions_reject_non_positive_shapes() -> None:
    with pytest.raises(ValueError):
        beta_cdf(0.5, 0.0, 3.0)
    with pytest.raises(ValueError):
        beta_quantile(0.5, 2.0, -1.0)
    with pytest.raises(ValueError):
        beta_quantile(1.5, 2.0, 2.0)


def test_summary_agrees_with_its_parts() -> None:
    summary = summarize_rate(17, 30, confidence=0.9)
    spread = beta_spread(17, 30, confidence=0.9)
    assert (summary.k, summary.n) == (17, 30)
    assert summary.p == pytest.approx(correct_rate(17, 30))
    assert (summary.beta_alpha, summary.beta_beta, summary.beta_sd) == (spread.alpha, spread.beta, spread.sd)
    assert (summary.beta_low, summary.beta_high) == (spread.low, spread.high)
    assert (summary.wilson_low, summary.wilson_high) == wilson_interval(17, 30, 0.9)
    with pytest.raises(AttributeError):
        summary.p = 0.5  # type: ignore[misc]


def test_summary_survives_a_single_trial() -> None:
    summary = summarize_rate(0, 1)
    assert summary.beta_sd == 0.0
    assert summary.wilson_high > 0.5


# --- answer distributions -------------------------------------------------------------------------------


def test_answer_distribution_counts_natural_numbers_and_unparseable() -> None:
    answers: list[object] = [3, "3", " 4 ", 4.0, 4, None, "four", -2, 2.5, True, "²", "", 12]
    dist = answer_distribution(answers)
    assert dist == {3: 2, 4: 3, 12: 1, None: 7}
    assert list(dist)[:-1] == sorted(k for k in dist if k is not None)
    assert sum(dist.values()) == len(answers)


def test_answer_distribution_of_nothing_has_an_unparseable_key() -> None:
    assert answer_distribution([]) == {None: 0}


def test_near_miss_mass_splits_m_and_m_plus_one() -> None:
    # Correct answer C = M + 1 = 4; the classic wrong answer M = 3.
    dist = answer_distribution([3] * 12 + [4] * 9 + [5, 7] + [None] * 2)
    mass = near_miss_mass(dist, expected=4)
    assert (mass.at_expected, mass.at_m, mass.total) == (9, 12, 25)
    assert mass.share_m == pytest.approx(12 / 25)
    assert mass.share_expected == pytest.approx(9 / 25)
    assert mass.share_other == pytest.approx(2 / 25)
    assert mass.share_unparseable == pytest.approx(2 / 25)
    assert mass.mode == 3


def test_near_miss_mass_edge_cases() -> None:
    empty = near_miss_mass({None: 0}, expected=2)
    assert (empty.total, empty.share_expected, empty.mode) == (0, 0.0, None)
    zero = near_miss_mass({0: 3, 1: 3}, expected=0)
    assert zero.at_m == 0
    assert zero.mode == 0  # tie broken towards the smaller answer
    with pytest.raises(ValueError):
        near_miss_mass({1: 2}, expected=-1)
    with pytest.raises(ValueError):
        near_miss_mass({1: -2}, expected=1)


def test_rate_record_is_the_json_of_a_rate_with_its_interval() -> None:
    from wason.metrics import rate_record

    record = rate_record(3, 4)
    assert (record["k"], record["n"], record["rate"]) == (3, 4, 0.75)
    assert (record["wilson_low"], record["wilson_high"]) == wilson_interval(3, 4)
    assert rate_record(0, 0) == {"k": 0, "n": 0, "rate": None, "wilson_low": 0.0, "wilson_high": 0.0}


def test_mean_present_leaves_missing_values_out() -> None:
    from wason.metrics import mean_present

    assert mean_present([1, None, 2]) == 1.5
    assert mean_present([None, None]) is None
