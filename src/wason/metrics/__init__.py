"""Statistics for repeated-trial benchmarks: correct rates with their spread, answer histograms, robustness."""

from wason.metrics.rates import (
    DEFAULT_CONFIDENCE,
    BetaSpread,
    NearMissMass,
    RateSummary,
    answer_distribution,
    beta_cdf,
    beta_quantile,
    beta_spread,
    correct_rate,
    mean_present,
    near_miss_mass,
    normal_quantile,
    rate_record,
    summarize_rate,
    wilson_interval,
)
from wason.metrics.robustness import ROBUSTNESS_EPSILON, RobustnessScore, robustness, robustness_score

__all__ = [
    "DEFAULT_CONFIDENCE",
    "ROBUSTNESS_EPSILON",
    "BetaSpread",
    "NearMissMass",
    "RateSummary",
    "RobustnessScore",
    "answer_distribution",
    "beta_cdf",
    "beta_quantile",
    "beta_spread",
    "correct_rate",
    "mean_present",
    "near_miss_mass",
    "normal_quantile",
    "rate_record",
    "robustness",
    "robustness_score",
    "summarize_rate",
    "wilson_interval",
]
