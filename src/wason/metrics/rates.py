"""Correct response rates over repeated trials, their spread, and where the answers fall.

Follows Nezhurina et al. 2024 (section 2.3): a cell (model, variation, prompt type) is run ``n`` times, ``k`` of the
answers are correct, the rate is ``p = k / n``, and its spread is described by a Beta distribution matched to
mean ``p`` and variance ``p (1 - p) / n``, which in closed form is ``alpha = p (n - 1)``,
``beta = (1 - p) (n - 1)``. A Wilson score interval is given alongside as the usual frequentist interval for a
binomial proportion. No scipy: the normal quantile and the Beta quantiles are computed here.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from math import fsum
from statistics import mean

__all__ = [
    "DEFAULT_CONFIDENCE",
    "BetaSpread",
    "NearMissMass",
    "RateSummary",
    "answer_distribution",
    "beta_cdf",
    "beta_quantile",
    "beta_spread",
    "correct_rate",
    "mean_present",
    "near_miss_mass",
    "normal_quantile",
    "rate_record",
    "summarize_rate",
    "t_interval",
    "t_quantile",
    "wilson_interval",
]

DEFAULT_CONFIDENCE = 0.95

# Acklam's rational approximation to the inverse standard normal CDF (relative error below 1.15e-9),
# refined below by one Halley step against math.erfc to reach double precision.
_A = (
    -3.969683028665376e01,
    2.209460984245205e02,
    -2.759285104469687e02,
    1.383577518672690e02,
    -3.066479806614716e01,
    2.506628277459239e00,
)
_B = (
    -5.447609879822406e01,
    1.615858368580409e02,
    -1.556989798598866e02,
    6.680131188771972e01,
    -1.328068155288572e01,
)
_C = (
    -7.784894002430293e-03,
    -3.223964580411365e-01,
    -2.400758277161838e00,
    -2.549732539343734e00,
    4.374664141464968e00,
    2.938163982698783e00,
)
_D = (
    7.784695709041462e-03,
    3.224671290700398e-01,
    2.445134137142996e00,
    3.754408661907416e00,
)
# Below this probability (and above its mirror) the tail branch of the approximation is the accurate one.
_P_LOW = 0.02425


def _horner(coefficients: tuple[float, ...], x: float) -> float:
    acc = 0.0
    for c in coefficients:
        acc = acc * x + c
    return acc


def _acklam(prob: float) -> float:
    """The unrefined rational approximation; kept separate so tests can check the coefficients alone."""
    if prob < _P_LOW:
        q = math.sqrt(-2.0 * math.log(prob))
        return _horner(_C, q) / (_horner(_D, q) * q + 1.0)
    if prob > 1.0 - _P_LOW:
        q = math.sqrt(-2.0 * math.log1p(-prob))
        return -_horner(_C, q) / (_horner(_D, q) * q + 1.0)
    q = prob - 0.5
    r = q * q
    return _horner(_A, r) * q / (_horner(_B, r) * r + 1.0)


def normal_quantile(prob: float) -> float:
    """Inverse CDF of the standard normal distribution.

    Args:
        prob: A probability strictly between 0 and 1.

    Returns:
        ``x`` with ``Phi(x) = prob``, accurate to about 1e-15 relative error.

    Raises:
        ValueError: If ``prob`` is not strictly between 0 and 1.
    """
    if not 0.0 < prob < 1.0:
        raise ValueError(f"prob must be strictly between 0 and 1, got {prob!r}")
    # Work in the lower half and mirror: 1 - prob is exact for prob >= 0.5, whereas Phi(x) near 1 would lose
    # the relative precision the refinement step needs.
    if prob > 0.5:
        return -normal_quantile(1.0 - prob)
    x = _acklam(prob)
    # One Halley step on Phi(x) - prob: the approximation is already within 1e-9, so this lands on the
    # double-precision answer.
    err = 0.5 * math.erfc(-x / math.sqrt(2.0)) - prob
    u = err * math.sqrt(2.0 * math.pi) * math.exp(x * x / 2.0)
    return x - u / (1.0 + x * u / 2.0)


def _z_for(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    return normal_quantile(1.0 - (1.0 - confidence) / 2.0)


def _check_counts(k: int, n: int) -> None:
    # bool is an int subclass; True/False as counts is always a caller bug.
    if isinstance(k, bool) or isinstance(n, bool) or not isinstance(k, int) or not isinstance(n, int):
        raise TypeError(f"k and n must be integers, got {k!r} and {n!r}")
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    if not 0 <= k <= n:
        raise ValueError(f"k must lie in [0, n] = [0, {n}], got {k}")


def correct_rate(k: int, n: int) -> float:
    """The correct response rate ``p = k / n``.

    Args:
        k: Number of correct responses.
        n: Number of trials, at least 1.

    Returns:
        The proportion of correct responses.

    Raises:
        TypeError: If ``k`` or ``n`` is not an integer.
        ValueError: If ``n < 1`` or ``k`` is outside ``[0, n]``.
    """
    _check_counts(k, n)
    return k / n


def wilson_interval(k: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion.

    Unlike the normal (Wald) interval it stays inside [0, 1] and does not collapse to a point at ``k = 0``
    or ``k = n``, which matters here: many models score 0 on a variation.

    Args:
        k: Number of correct responses.
        n: Number of trials, at least 1.
        confidence: Two-sided confidence level, strictly between 0 and 1.

    Returns:
        ``(low, high)`` with ``0 <= low <= p <= high <= 1``.

    Raises:
        TypeError: If ``k`` or ``n`` is not an integer.
        ValueError: On invalid counts or confidence level.
    """
    p = correct_rate(k, n)
    z = _z_for(confidence)
    z2n = z * z / n
    centre = (p + z2n / 2.0) / (1.0 + z2n)
    half = z / (1.0 + z2n) * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    # Rounding can push the bounds a hair past [0, 1] or past p at the extremes.
    return max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p))


def _log_beta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _beta_continued_fraction(x: float, a: float, b: float) -> float:
    """Continued fraction for the regularized incomplete beta, evaluated by the modified Lentz method."""
    tiny = 1e-300
    eps = 1e-15
    c = 1.0
    d = 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 10_000):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= c * d
        if abs(c * d - 1.0) < eps:
            break
    return result


def beta_cdf(x: float, a: float, b: float) -> float:
    """CDF of Beta(a, b) at ``x`` (the regularized incomplete beta function ``I_x(a, b)``).

    Args:
        x: Point at which to evaluate; values outside [0, 1] clamp to 0 or 1.
        a: First shape parameter, positive.
        b: Second shape parameter, positive.

    Returns:
        ``P(X <= x)`` for ``X ~ Beta(a, b)``.

    Raises:
        ValueError: If a shape parameter is not positive.
    """
    if not (a > 0.0 and b > 0.0):
        raise ValueError(f"Beta shape parameters must be positive, got a={a!r}, b={b!r}")
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = a * math.log(x) + b * math.log1p(-x) - _log_beta(a, b)
    # The continued fraction converges fast only left of the mean-ish point; use the symmetry
    # I_x(a, b) = 1 - I_{1-x}(b, a) on the other side.
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(x, a, b) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(1.0 - x, b, a) / b


def beta_quantile(q: float, a: float, b: float) -> float:
    """Inverse CDF of Beta(a, b), found by bisection on :func:`beta_cdf`.

    Bisection rather than Newton because the density is unbounded at an endpoint when a shape parameter is
    below 1 (as for ``alpha = p (n - 1)`` with small ``p``), where Newton steps misbehave.

    Args:
        q: Probability in [0, 1].
        a: First shape parameter, positive.
        b: Second shape parameter, positive.

    Returns:
        ``x`` with ``beta_cdf(x, a, b) = q`` to about 1e-14 in ``x``.

    Raises:
        ValueError: If ``q`` is outside [0, 1] or a shape parameter is not positive.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must lie in [0, 1], got {q!r}")
    if not (a > 0.0 and b > 0.0):
        raise ValueError(f"Beta shape parameters must be positive, got a={a!r}, b={b!r}")
    lo, hi = 0.0, 1.0
    # 60 halvings bring the bracket below 1e-18, past double resolution in [0, 1].
    for _ in range(60):
        mid = (lo + hi) / 2.0
        if beta_cdf(mid, a, b) < q:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


@dataclass(frozen=True, slots=True)
class BetaSpread:
    """The Beta distribution matched to an observed rate, as in Nezhurina et al. 2024.

    Attributes:
        alpha: ``p (n - 1)``.
        beta: ``(1 - p) (n - 1)``.
        mean: Mean of the distribution; equals ``p``.
        sd: Standard deviation; equals ``sqrt(p (1 - p) / n)``.
        low: Lower bound of the central interval at ``confidence``.
        high: Upper bound of the central interval at ``confidence``.
        confidence: Mass between ``low`` and ``high``.
        degenerate: True when ``p`` is 0 or 1 (always so for ``n = 1``): a point mass at ``p``.
    """

    alpha: float
    beta: float
    mean: float
    sd: float
    low: float
    high: float
    confidence: float
    degenerate: bool


def beta_spread(k: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> BetaSpread:
    """Beta distribution matched to mean ``p`` and variance ``p (1 - p) / n``, with its central interval.

    Matching ``mean = a / (a + b) = p`` and ``var = a b / ((a + b)^2 (a + b + 1)) = p (1 - p) / n`` gives
    ``a + b = n - 1``, hence ``alpha = p (n - 1)`` and ``beta = (1 - p) (n - 1)``.

    When ``p`` is 0 or 1 (which includes every ``n = 1`` case) a shape parameter is 0 and no proper Beta
    exists; the spread is then a point mass at ``p``: ``sd = 0`` and ``low = high = p``. Note this says the
    observed data carry no spread, not that the true rate is certainly 0 or 1; use the Wilson interval for that.

    Args:
        k: Number of correct responses.
        n: Number of trials, at least 1.
        confidence: Mass of the central interval, strictly between 0 and 1.

    Returns:
        The matched distribution's parameters, moments and central interval.

    Raises:
        TypeError: If ``k`` or ``n`` is not an integer.
        ValueError: On invalid counts or confidence level.
    """
    p = correct_rate(k, n)
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be strictly between 0 and 1, got {confidence!r}")
    alpha = p * (n - 1)
    beta = (1.0 - p) * (n - 1)
    if alpha == 0.0 or beta == 0.0:
        return BetaSpread(alpha, beta, p, 0.0, p, p, confidence, degenerate=True)
    total = alpha + beta
    sd = math.sqrt(alpha * beta / (total * total * (total + 1.0)))
    tail = (1.0 - confidence) / 2.0
    return BetaSpread(
        alpha=alpha,
        beta=beta,
        mean=alpha / total,
        sd=sd,
        low=beta_quantile(tail, alpha, beta),
        high=beta_quantile(1.0 - tail, alpha, beta),
        confidence=confidence,
        degenerate=False,
    )


@dataclass(frozen=True, slots=True)
class RateSummary:
    """Everything reported for one (variation, prompt type) cell.

    Attributes:
        k: Number of correct responses.
        n: Number of trials.
        p: Correct response rate ``k / n``.
        beta_alpha: Beta ``alpha = p (n - 1)``.
        beta_beta: Beta ``beta = (1 - p) (n - 1)``.
        beta_sd: Standard deviation of the matched Beta (0 when degenerate).
        beta_low: Lower bound of the Beta central interval (``p`` when degenerate).
        beta_high: Upper bound of the Beta central interval (``p`` when degenerate).
        wilson_low: Lower bound of the Wilson score interval.
        wilson_high: Upper bound of the Wilson score interval.
        confidence: Level used for both intervals.
    """

    k: int
    n: int
    p: float
    beta_alpha: float
    beta_beta: float
    beta_sd: float
    beta_low: float
    beta_high: float
    wilson_low: float
    wilson_high: float
    confidence: float


def summarize_rate(k: int, n: int, confidence: float = DEFAULT_CONFIDENCE) -> RateSummary:
    """Rate, matched Beta spread and Wilson interval for ``k`` correct out of ``n``.

    Args:
        k: Number of correct responses.
        n: Number of trials, at least 1 (the paper uses at least 30).
        confidence: Level for both intervals, strictly between 0 and 1.

    Returns:
        The summary.

    Raises:
        TypeError: If ``k`` or ``n`` is not an integer.
        ValueError: On invalid counts or confidence level.
    """
    spread = beta_spread(k, n, confidence)
    low, high = wilson_interval(k, n, confidence)
    return RateSummary(
        k=k,
        n=n,
        p=spread.mean,
        beta_alpha=spread.alpha,
        beta_beta=spread.beta,
        beta_sd=spread.sd,
        beta_low=spread.low,
        beta_high=spread.high,
        wilson_low=low,
        wilson_high=high,
        confidence=confidence,
    )


def _as_natural(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float):
        return int(value) if value.is_integer() and value >= 0 else None
    if isinstance(value, str):
        text = value.strip()
        # isdecimal, not isdigit: isdigit accepts superscripts like "²" that int() rejects.
        return int(text) if text.isascii() and text.isdecimal() else None
    return None


def answer_distribution(values: Iterable[object]) -> dict[int | None, int]:
    """Count the natural numbers answered; everything else counts as unparseable.

    Accepted as a natural number: a non-negative ``int``, a non-negative integral ``float`` (``7.0``, as some
    stored records hold), or a string of ASCII digits with optional surrounding whitespace. ``None``, bools,
    negatives, fractions and any other text are unparseable.

    Args:
        values: The extracted answer of each trial.

    Returns:
        ``{answer: count}`` sorted by answer, with the unparseable count under the key ``None`` (always present,
        possibly 0, so callers can read it without a default).
    """
    counts: Counter[int] = Counter()
    unparseable = 0
    for value in values:
        number = _as_natural(value)
        if number is None:
            unparseable += 1
        else:
            counts[number] += 1
    out: dict[int | None, int] = {number: counts[number] for number in sorted(counts)}
    out[None] = unparseable
    return out


@dataclass(frozen=True, slots=True)
class NearMissMass:
    """How the answers split between the correct answer C = M + 1 and the classic wrong answer M.

    For problems whose correct answer is C = M + 1 and whose dominant wrong answer is M (one member of the
    family left out of the count). Shares are
    fractions of all trials, unparseable ones included, so the four shares add up to 1.

    Attributes:
        expected: The correct answer C (= M + 1).
        total: All trials counted.
        at_expected: Trials answering C = M + 1.
        at_m: Trials answering M = C - 1 (0 when C = 0).
        share_expected: ``at_expected / total`` (0 when there are no trials).
        share_m: ``at_m / total`` (0 when there are no trials).
        share_other: Share of parseable answers that are neither C nor M.
        share_unparseable: Share of unparseable answers.
        mode: The most frequent parseable answer, smallest first on ties; None if nothing parsed.
    """

    expected: int
    total: int
    at_expected: int
    at_m: int
    share_expected: float
    share_m: float
    share_other: float
    share_unparseable: float
    mode: int | None


def near_miss_mass(distribution: Mapping[int | None, int], expected: int) -> NearMissMass:
    """Mass on the correct answer M + 1 versus the off-by-one M, given the expected (correct) answer.

    The paper reads these histograms for where the peak sits: on M + 1 for variations a model handles,
    on M for those it fails, with a broad spread for weak models.

    Args:
        distribution: Counts as returned by :func:`answer_distribution` (key ``None`` = unparseable).
        expected: The correct answer C = M + 1, a natural number.

    Returns:
        Counts and shares of trials at C, at M = C - 1, elsewhere and unparseable, and the peak.

    Raises:
        ValueError: If ``expected`` is negative or a count is negative.
    """
    if expected < 0:
        raise ValueError(f"expected must be a natural number, got {expected}")
    if any(count < 0 for count in distribution.values()):
        raise ValueError("counts must be non-negative")
    total = sum(distribution.values())
    at_expected = distribution.get(expected, 0)
    at_m = distribution.get(expected - 1, 0) if expected >= 1 else 0
    unparseable = distribution.get(None, 0)
    other = total - at_expected - at_m - unparseable
    parsed = [(count, number) for number, count in distribution.items() if number is not None and count > 0]
    # Highest count wins; on a tie the smaller answer, so the result does not depend on dict order.
    mode = min(parsed, key=lambda item: (-item[0], item[1]))[1] if parsed else None

    def share(count: int) -> float:
        return count / total if total else 0.0

    return NearMissMass(
        expected=expected,
        total=total,
        at_expected=at_expected,
        at_m=at_m,
        share_expected=share(at_expected),
        share_m=share(at_m),
        share_other=share(other),
        share_unparseable=share(unparseable),
        mode=mode,
    )


def rate_record(k: int, n: int) -> dict[str, float | int | None]:
    """A rate as reports store it in JSON: ``k``, ``n``, ``rate`` (None when ``n`` is 0) and its 95% Wilson
    interval (``wilson_low``, ``wilson_high``; 0 and 0 when ``n`` is 0)."""
    low, high = wilson_interval(k, n) if n else (0.0, 0.0)
    return {"k": k, "n": n, "rate": k / n if n else None, "wilson_low": low, "wilson_high": high}


def mean_present(values: Sequence[float | int | None]) -> float | None:
    """The mean of the values that are there (None when none is)."""
    present = [v for v in values if v is not None]
    return mean(present) if present else None


def t_quantile(confidence: float, df: int) -> float:
    """The two-sided Student t critical value ``t`` with ``P(|T| <= t) = confidence`` for ``df`` degrees of
    freedom, from the Beta distribution: ``t^2 = df (1 - x) / x`` where ``x`` is the ``1 - confidence`` quantile of
    ``Beta(df / 2, 1 / 2)``."""
    if df < 1:
        raise ValueError(f"df must be at least 1, got {df}")
    x = beta_quantile(1.0 - confidence, df / 2.0, 0.5)
    return math.sqrt(df * (1.0 - x) / x)


def t_interval(values: Sequence[float], confidence: float = DEFAULT_CONFIDENCE) -> tuple[float, float] | None:
    """The Student t interval of the mean of ``values`` (None for fewer than two values).

    For means of per-episode numbers (turns taken, examples seen, test accuracy): the usual interval when the
    episodes are independent; it is not clipped, so a caller with bounded values clips it.
    """
    n = len(values)
    if n < 2:
        return None
    m = fsum(values) / n
    sd = math.sqrt(fsum((v - m) ** 2 for v in values) / (n - 1))
    half = t_quantile(confidence, n - 1) * sd / math.sqrt(n)
    return (m - half, m + half)
