"""The unified robustness score R of Nezhurina et al. 2024 over a set of problem variations (section 3.4.2).

The per-variation correct rates are normalised into a distribution, whose entropy divided by ``log N`` says how
evenly the successes spread over the ``N`` variations (1 = perfectly even, near 0 = all on one variation). R is
that normalised entropy times the mean rate, so it is near 1 only for uniformly high rates and near 0 for rates
that are low or concentrated on a few variations.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["ROBUSTNESS_EPSILON", "RobustnessScore", "robustness", "robustness_score"]

# The paper adds "a small constant" to every rate before normalising so that all-zero rates do not divide by
# zero and log(0) never occurs; it does not give the value. 1e-6 is far below any rate observable with n <= 1e5
# trials, so it only matters where rates are exactly 0.
ROBUSTNESS_EPSILON = 1e-6


@dataclass(frozen=True, slots=True)
class RobustnessScore:
    """R together with the two factors it is made of.

    Attributes:
        score: ``R = normalized_entropy * mean_rate``, in [0, 1].
        mean_rate: Mean of the per-variation correct rates.
        normalized_entropy: Entropy of the normalised rates divided by ``log N``, in [0, 1]; defined as 1 for a
            single variation.
        n_variations: ``N``, the number of rates.
        epsilon: The constant added to each rate before normalising.
    """

    score: float
    mean_rate: float
    normalized_entropy: float
    n_variations: int
    epsilon: float


def robustness(rates: Iterable[float], epsilon: float = ROBUSTNESS_EPSILON) -> RobustnessScore:
    """Compute the robustness score R with its factors.

    ``q_i = (r_i + eps) / sum_j (r_j + eps)``, ``H = -sum_i q_i log q_i``, ``R = H / log N * mean(r)``.

    Edge cases:
        * One variation: ``log 1 = 0`` leaves the entropy ratio 0/0. A single rate cannot fluctuate across
          variations, so the ratio is taken as 1 and ``R`` equals that rate.
        * All rates 0: the epsilon makes the distribution uniform (ratio 1), and the mean 0 makes ``R = 0``.
        * Equal rates ``r``: the distribution is exactly uniform, so ``R = r`` up to rounding.

    The result does not depend on the order of the rates.

    Args:
        rates: Per-variation correct rates, each in [0, 1]; at least one.
        epsilon: Positive constant added to each rate before normalising.

    Returns:
        The score and its factors.

    Raises:
        ValueError: If there are no rates, a rate is outside [0, 1] or not finite, or ``epsilon`` is not
            positive and finite.
    """
    values = [float(r) for r in rates]
    if not values:
        raise ValueError("robustness needs at least one rate")
    if not all(0.0 <= r <= 1.0 for r in values):
        raise ValueError(f"rates must lie in [0, 1], got {values!r}")
    if not (epsilon > 0.0 and math.isfinite(epsilon)):
        raise ValueError(f"epsilon must be positive and finite, got {epsilon!r}")
    n = len(values)
    # math.fsum and sorting make the result exactly independent of the order the variations come in.
    values.sort()
    mean_rate = math.fsum(values) / n
    if n == 1:
        ratio = 1.0
    else:
        shifted = [r + epsilon for r in values]
        total = math.fsum(shifted)
        entropy = -math.fsum(q * math.log(q) for q in (s / total for s in shifted))
        # Rounding can nudge a perfectly uniform distribution's ratio a hair past 1 (or below 0 when spiky).
        ratio = min(1.0, max(0.0, entropy / math.log(n)))
    return RobustnessScore(
        score=ratio * mean_rate,
        mean_rate=mean_rate,
        normalized_entropy=ratio,
        n_variations=n,
        epsilon=epsilon,
    )


def robustness_score(rates: Iterable[float], epsilon: float = ROBUSTNESS_EPSILON) -> float:
    """The robustness score R alone; see :func:`robustness` for the definition and edge cases.

    Args:
        rates: Per-variation correct rates, each in [0, 1]; at least one.
        epsilon: Positive constant added to each rate before normalising.

    Returns:
        R in [0, 1].

    Raises:
        ValueError: As :func:`robustness`.
    """
    return robustness(rates, epsilon).score
