"""Hunting for a first positive of a rarely true rule: integer triples chosen to cover the simple equalities.

While every answer has been no, the rules still possible are mostly the rarely true ones, and among the rules
people write most of those are equalities with small integers: an offset (``x - z == 7``), a sum (``y + z == 8``,
``x + y + z == 21``), a product (``y * z == 12``), a progression (``y == x + 2 and z == y + 2``), a variable
against the sum of the others (``z == x + y + 1``) or against a constant. A triple makes several of them true at
once (``(9, 2, 2)`` has an offset of 7 between x and y and between x and z, sums 11, 11, 4 and 13, products 18,
18, 4 and 36, and so on), so the next hunting test is the untested integer triple that makes the most prior
weight of the equalities no earlier test made true. The same choice serves a rule that is rarely false: its
negation is one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

F = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]

POOL_RANGE = (-10, 25)
"""Each coordinate of a hunting triple is an integer in this range (inclusive)."""

PAIRS = ((0, 1), (0, 2), (1, 2))


@dataclass(frozen=True)
class Kind:
    """A family of equalities ``value(point) == c`` for the integers ``c`` from ``lo`` to ``hi``: one
    hypothesis per constant, ``mass`` shared among them by a weight that halves ten beyond ``usual``."""

    name: str
    value: Callable[[F], F]
    lo: int
    hi: int
    mass: float
    usual: tuple[int, int] = (-10, 10)
    skip_zero: bool = False

    def weights(self) -> F:
        c = np.arange(self.lo, self.hi + 1, dtype=np.float64)
        a, b = self.usual
        beyond = np.maximum(a - c, 0.0) + np.maximum(c - b, 0.0)
        w = 1.0 / (1.0 + beyond / 10.0)
        if self.skip_zero:
            w[c == 0] = 0.0
        out: F = self.mass * w
        return out

    def index(self, points: F) -> Ints:
        """Each point's hypothesis (its constant's index), -1 where the value is no integer in range."""
        with np.errstate(invalid="ignore", over="ignore"):
            v = self.value(points)
            ok = np.isfinite(v) & (v == np.round(v)) & (v >= self.lo) & (v <= self.hi)
        out: Ints = np.where(ok, np.round(np.where(ok, v, 0.0)).astype(np.int64) - self.lo, -1)
        return out


def _difference(i: int, j: int) -> Callable[[F], F]:
    return lambda p: p[:, i] - p[:, j]


def _sum(i: int, j: int) -> Callable[[F], F]:
    return lambda p: p[:, i] + p[:, j]


def _product(i: int, j: int) -> Callable[[F], F]:
    return lambda p: p[:, i] * p[:, j]


def _against_sum(k: int) -> Callable[[F], F]:
    return lambda p: p[:, k] - (p.sum(axis=1) - p[:, k])


def _coordinate(i: int) -> Callable[[F], F]:
    return lambda p: p[:, i]


def _progression(p: F) -> F:
    """The common difference of an arithmetic progression x, y, z (nan when it is not one)."""
    d = p[:, 1] - p[:, 0]
    out: F = np.where(p[:, 2] - p[:, 1] == d, d, np.nan)
    return out


def _steps(p: F) -> F:
    """The two steps y - x and z - y, as one index into the 21 x 21 pairs from -10 to 10 (nan out of range)."""
    a = p[:, 1] - p[:, 0]
    b = p[:, 2] - p[:, 1]
    ok = (np.abs(a) <= 10) & (np.abs(b) <= 10)
    out: F = np.where(ok, (a + 10) * 21 + (b + 10), np.nan)
    return out


KINDS: tuple[Kind, ...] = (
    *(Kind(f"v{i} - v{j}", _difference(i, j), -20, 20, 1.0) for i, j in PAIRS),
    *(Kind(f"v{i} + v{j}", _sum(i, j), -10, 40, 1.0, (0, 25)) for i, j in PAIRS),
    Kind("x + y + z", lambda p: p.sum(axis=1), -10, 60, 1.0, (0, 30)),
    *(Kind(f"v{i} * v{j}", _product(i, j), -50, 100, 0.3, (1, 50), skip_zero=True) for i, j in PAIRS),
    Kind("x * y * z", lambda p: p.prod(axis=1), -60, 150, 0.3, (1, 60), skip_zero=True),
    *(Kind(f"v{k} - others", _against_sum(k), -10, 10, 1.0) for k in range(3)),
    *(Kind(f"v{i}", _coordinate(i), -10, 30, 0.5, (0, 20)) for i in range(3)),
    Kind("progression", _progression, -10, 10, 0.5),
    Kind("steps", _steps, 0, 21 * 21 - 1, 0.1, (0, 21 * 21 - 1)),
)
"""The equalities hunted for, by family, with each family's share of the prior weight."""


@dataclass(frozen=True)
class _Cover:
    pool: F  # (N, 3) integer triples, smallest first
    index: tuple[Ints, ...]  # per kind: each pool triple's hypothesis, -1 for none
    weights: tuple[F, ...]  # per kind: each hypothesis's prior weight


@cache
def _cover() -> _Cover:
    lo, hi = POOL_RANGE
    axis = np.arange(lo, hi + 1, dtype=np.float64)
    grid = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), axis=-1).reshape(-1, 3)
    # smallest magnitude first, so that ties go to the simplest triple
    order = np.lexsort((grid[:, 2], grid[:, 1], grid[:, 0], np.abs(grid).sum(axis=1)))
    pool = np.ascontiguousarray(grid[order])
    return _Cover(
        pool=pool,
        index=tuple(k.index(pool) for k in KINDS),
        weights=tuple(k.weights() for k in KINDS),
    )


def hunting_test(tested: npt.ArrayLike) -> tuple[float, float, float] | None:
    """The untested integer triple that makes true the most prior weight of the hunted equalities that no
    tested point makes true (None when every one is ruled out)."""
    cover = _cover()
    done = np.asarray(tested, dtype=np.float64).reshape(-1, 3)
    score = np.zeros(cover.pool.shape[0])
    for kind, index, weights in zip(KINDS, cover.index, cover.weights, strict=True):
        alive = weights.copy()
        hit = kind.index(done)
        alive[hit[hit >= 0]] = 0.0
        score += np.where(index >= 0, alive[np.maximum(index, 0)], 0.0)
    # (a tested triple scores nothing: every equality it makes true is ruled out)
    best = int(np.argmax(score))
    if score[best] <= 0.0:
        return None
    a, b, c = (float(v) for v in cover.pool[best])
    return (a, b, c)
