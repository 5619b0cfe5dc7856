"""Paired comparisons of two runs on the same items: did one succeed where the other failed more often than
chance allows?

Two runs that played the same items are compared item by item, not as two independent samples: the items both
got right or both got wrong say nothing about which run is better, only the discordant pairs do. Two tests are
given, both without scipy:

- :func:`mcnemar_exact`, the exact McNemar test: of the ``b + c`` discordant pairs, ``b`` went to the first run
  and ``c`` to the second; under the null hypothesis (no difference) each discordant pair is a fair coin, so the
  two-sided p-value is twice the smaller binomial tail, capped at 1.
- :func:`paired_bootstrap`, a bootstrap of the mean paired difference (resampling whole pairs): a percentile
  95% interval, and a two-sided p-value from the bootstrap distribution shifted to the null (centred on 0).
  It works for any paired numbers (rates as 0/1, scores, counts).

:func:`pair_outcomes` lines the episodes of two runs up by item: the n-th episode with a key in one run goes
with the n-th episode with the same key in the other (runs with several trials per item have several).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Sequence
from typing import TypeVar

import numpy as np
from pydantic import BaseModel, ConfigDict

__all__ = [
    "BOOTSTRAP_RESAMPLES",
    "PairedBootstrap",
    "PairedComparison",
    "compare_paired",
    "mcnemar_exact",
    "pair_outcomes",
    "paired_bootstrap",
]

BOOTSTRAP_RESAMPLES = 10_000
# resamples drawn at once: bounds the memory of the index matrix (chunk x pairs) on long runs
_CHUNK = 1_000

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


def mcnemar_exact(b: int, c: int) -> float:
    """The two-sided exact McNemar test of paired binary outcomes.

    Args:
        b: pairs where only the first succeeded.
        c: pairs where only the second succeeded.

    Returns:
        The p-value: ``min(1, 2 * P(X <= min(b, c)))`` for ``X ~ Binomial(b + c, 1/2)``; 1.0 when there are no
        discordant pairs (nothing tells the two apart).

    Raises:
        ValueError: a negative count, naming it.
    """
    for name, value in (("b", b), ("c", c)):
        if value < 0:
            raise ValueError(f"{name} must be a count (>= 0), got {value}")
    n = b + c
    if n == 0:
        return 1.0
    # exact integer arithmetic: the binomial tail sum over 2**n, divided once (no underflow on long runs)
    term = 1  # C(n, 0)
    tail = 0
    for i in range(min(b, c) + 1):
        tail += term
        term = term * (n - i) // (i + 1)
    return min(1.0, 2 * tail / (1 << n))


class PairedBootstrap(BaseModel):
    """A bootstrap of the mean difference of paired values.

    Attributes:
        n: pairs.
        difference: the observed mean of ``a - b``.
        interval: its 95% percentile interval.
        p_value: two-sided, from the bootstrap distribution centred on 0 (with the usual +1 correction, so it is
            never 0: at least ``1 / (n_resamples + 1)``).
        n_resamples: resamples drawn.
        seed: the seed of the numpy generator that drew them.
    """

    model_config = ConfigDict(frozen=True)

    n: int
    difference: float
    interval: tuple[float, float]
    p_value: float
    n_resamples: int
    seed: int


def paired_bootstrap(
    a: Sequence[float], b: Sequence[float], *, seed: int, n_resamples: int = BOOTSTRAP_RESAMPLES
) -> PairedBootstrap:
    """The mean of ``a - b`` over paired values, with a percentile 95% interval and a two-sided p-value.

    Pairs are resampled with replacement (``numpy.random.default_rng(seed)``), so the same inputs and seed give
    the same result.

    Raises:
        ValueError: ``a`` and ``b`` of different lengths, no pairs, or fewer than 1 resample, naming the field.
    """
    if len(a) != len(b):
        raise ValueError(f"a and b must be paired: a has {len(a)} values, b has {len(b)}")
    if not a:
        raise ValueError("a, b: a paired bootstrap needs at least one pair")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be at least 1, got {n_resamples}")
    diffs = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    observed = float(diffs.mean())
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    for start in range(0, n_resamples, _CHUNK):
        size = min(_CHUNK, n_resamples - start)
        index = rng.integers(0, len(diffs), size=(size, len(diffs)))
        means[start : start + size] = diffs[index].mean(axis=1)
    low, high = np.quantile(means, [0.025, 0.975])
    # the null distribution is the bootstrap one moved to 0; a tiny tolerance keeps ties (all pairs equal) in
    extreme = np.abs(means - observed) >= abs(observed) - 1e-12
    p_value = (1 + int(extreme.sum())) / (1 + n_resamples)
    return PairedBootstrap(
        n=len(diffs),
        difference=observed,
        interval=(float(low), float(high)),
        p_value=min(1.0, p_value),
        n_resamples=n_resamples,
        seed=seed,
    )


def pair_outcomes(first: Sequence[tuple[K, T]], second: Sequence[tuple[K, T]]) -> list[tuple[T, T]]:
    """Outcomes of two runs paired by item: ``(key, outcome)`` lists, the n-th occurrence of a key in ``first``
    with the n-th occurrence of the same key in ``second``; keys or occurrences only one side has are left out.
    The pairs come in the order of ``first``."""
    theirs: dict[K, list[T]] = defaultdict(list)
    for key, outcome in second:
        theirs[key].append(outcome)
    seen: dict[K, int] = defaultdict(int)
    pairs = []
    for key, outcome in first:
        index = seen[key]
        seen[key] += 1
        if index < len(theirs.get(key, ())):
            pairs.append((outcome, theirs[key][index]))
    return pairs


class PairedComparison(BaseModel):
    """Two runs' successes on the items both played.

    Attributes:
        n: pairs.
        first_k: pairs the first run succeeded on.
        second_k: pairs the second run succeeded on.
        b: pairs only the first succeeded on.
        c: pairs only the second succeeded on.
        mcnemar_p: the exact McNemar p-value of ``b`` against ``c``.
        bootstrap: the paired bootstrap of the second's success minus the first's.
    """

    model_config = ConfigDict(frozen=True)

    n: int
    first_k: int
    second_k: int
    b: int
    c: int
    mcnemar_p: float
    bootstrap: PairedBootstrap


def compare_paired(
    pairs: Sequence[tuple[bool, bool]], *, seed: int, n_resamples: int = BOOTSTRAP_RESAMPLES
) -> PairedComparison:
    """The paired comparison of ``(first succeeded, second succeeded)`` pairs: both rates, the discordant
    counts, the exact McNemar test, and the bootstrap of the difference second minus first.

    Raises:
        ValueError: no pairs.
    """
    if not pairs:
        raise ValueError("pairs: a paired comparison needs at least one item both runs played")
    first = [bool(x) for x, _ in pairs]
    second = [bool(y) for _, y in pairs]
    b = sum(x and not y for x, y in zip(first, second, strict=True))
    c = sum(y and not x for x, y in zip(first, second, strict=True))
    return PairedComparison(
        n=len(pairs),
        first_k=sum(first),
        second_k=sum(second),
        b=b,
        c=c,
        mcnemar_p=mcnemar_exact(b, c),
        bootstrap=paired_bootstrap(
            [float(y) for y in second], [float(x) for x in first], seed=seed, n_resamples=n_resamples
        ),
    )
