"""Hunting for the rarer answer of a rarely true rule: integer triples chosen over the simple equalities.

While every answer has been no, the rules still possible are mostly the rarely true ones, and most of those that
people write are equalities with small integers (offsets, sums, products, multiples, progressions: ``KINDS``). A
triple makes several of them true at once, so the next hunting test is the untested integer triple that makes
true the most prior weight of the equalities no earlier test made true. After a yes, the equalities true at
every yes and false at every no are left (at the origin also those through it: ``2 * x + 3 * y == z``), and the
next test splits their weight most evenly. The same choice serves a rule that is rarely false: its negation is
one of them.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from wason.tasks.wilt.elimination import binary_entropy

F = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]
Ints = npt.NDArray[np.int64]

POOL_RANGE = (-10, 25)
"""Each coordinate of a hunting triple is an integer in this range (inclusive)."""

PAIRS = ((0, 1), (0, 2), (1, 2))


@dataclass(frozen=True)
class Kind:
    """The equalities ``value(point) == c`` for the integers ``c`` from ``lo`` to ``hi``, each weighing ``mass``
    times 1 inside ``usual`` and less beyond (or as ``weight_of`` says); ``every``: where all of them hold."""

    name: str
    value: Callable[[F], F]
    lo: int
    hi: int
    mass: float
    usual: tuple[int, int] = (-10, 10)
    skip: tuple[int, ...] = ()
    every: Callable[[F], B] | None = None
    weight_of: tuple[tuple[int, float], ...] = ()  # weights of single constants, replacing the rule above

    def weights(self) -> F:
        c = np.arange(self.lo, self.hi + 1, dtype=np.float64)
        a, b = self.usual
        beyond = np.maximum(a - c, 0.0) + np.maximum(c - b, 0.0)
        w = 1.0 / (1.0 + beyond / 10.0)
        if self.weight_of:
            w[:] = 0.2
            for k, v in self.weight_of:
                w[c == k] = v
        w[np.isin(c, self.skip)] = 0.0
        out: F = self.mass * w
        return out

    def index(self, points: F) -> Ints:
        """Each point's hypothesis (its constant's index): -1 where the value is no integer in range, -2 where
        every constant's equality holds (``y == k * x`` at x = y = 0)."""
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            v = self.value(points)
            ok = np.isfinite(v) & (v == np.round(v)) & (v >= self.lo) & (v <= self.hi)
        out: Ints = np.where(ok, np.round(np.where(ok, v, 0.0)).astype(np.int64) - self.lo, -1)
        if self.every is not None:
            out[self.every(points)] = -2
        return out


def _pair(ufunc: Callable[[F, F], F], i: int, j: int) -> Callable[[F], F]:
    """A difference, sum or product of two coordinates."""
    return lambda p: ufunc(p[:, i], p[:, j])


def _against(k: int, times: int) -> Callable[[F], F]:
    """A variable (``times`` 2: twice it) less the other two (0 when it is their sum, or their mean: ``(x + y) /
    2 == z``)."""
    return lambda p: times * p[:, k] - (p.sum(axis=1) - p[:, k])


def _coordinate(i: int) -> Callable[[F], F]:
    return lambda p: p[:, i]


def _ratio(i: int, j: int) -> Callable[[F], F]:
    return lambda p: np.where(p[:, j] != 0, p[:, i] / np.where(p[:, j] != 0, p[:, j], 1.0), np.nan)


def _zeros(*axes: int) -> Callable[[F], B]:
    return lambda p: (p[:, list(axes)] == 0).all(axis=1)


def _geometric(p: F) -> F:
    """The common ratio of a geometric progression x, y, z of whole ratio (nan when it is not one)."""
    k = _ratio(1, 0)(p)
    out: F = np.where(p[:, 2] == k * p[:, 1], k, np.nan)
    return out


def _progression(p: F) -> F:
    """The common difference of an arithmetic progression x, y, z (nan when it is not one)."""
    d = p[:, 1] - p[:, 0]
    out: F = np.where(p[:, 2] - p[:, 1] == d, d, np.nan)
    return out


def _steps(p: F) -> F:
    """The two steps y - x and z - y, as one index into the 21 x 21 pairs from -10 to 10 (nan out of range)."""
    a = p[:, 1] - p[:, 0]
    b = p[:, 2] - p[:, 1]
    ok = (np.abs(a) <= 10) & (np.abs(b) <= 10) & (a == np.round(a)) & (b == np.round(b))
    out: F = np.where(ok, (a + 10) * 21 + (b + 10), np.nan)
    return out


RATIO_MASS = 1.0
RATIOS = ((2, 1.0), (3, 1.0), (4, 0.8), (5, 0.8), (-1, 0.5), (-2, 0.4), (10, 0.4), (-3, 0.3))
"""The multiples people use (``z == 4 * x``) weigh more than the others from -5 to 10 (which weigh 0.2)."""
KINDS: tuple[Kind, ...] = (
    *(Kind(f"v{i} - v{j}", _pair(np.subtract, i, j), -20, 20, 1.0) for i, j in PAIRS),
    *(Kind(f"v{i} + v{j}", _pair(np.add, i, j), -10, 40, 1.0, (0, 25)) for i, j in PAIRS),
    Kind("x + y + z", lambda p: p.sum(axis=1), -10, 60, 1.0, (0, 30)),
    *(Kind(f"v{i} * v{j}", _pair(np.multiply, i, j), -50, 100, 0.3, (1, 50), (0,)) for i, j in PAIRS),
    Kind("x * y * z", lambda p: p.prod(axis=1), -60, 150, 0.3, (1, 60), (0,)),
    *(
        Kind(f"v{i} / v{j}", _ratio(i, j), -5, 10, RATIO_MASS, (-3, 5), (0, 1), _zeros(i, j), RATIOS)
        for i in range(3)
        for j in range(3)
        if i != j
    ),
    Kind("geometric", _geometric, -5, 10, RATIO_MASS, (-3, 5), (0, 1), _zeros(0, 1, 2), RATIOS),
    *(Kind(f"v{k} - others", _against(k, 1), -10, 10, 1.0) for k in range(3)),
    *(Kind(f"2 v{k} - others", _against(k, 2), -10, 10, 0.5, (0, 0)) for k in range(3)),
    *(Kind(f"v{i}", _coordinate(i), -10, 30, 0.5, (0, 20)) for i in range(3)),
    Kind("progression", _progression, -10, 10, 0.5),
    Kind("steps", _steps, 0, 21 * 21 - 1, 0.1, (0, 21 * 21 - 1)),
)
"""The equalities hunted for, by family: each constant weighs the family's mass, less beyond the usual range."""


THROUGH_REACH = 5
"""The largest coefficient of a hunted linear equality through the origin (``2 * x + 3 * y == z``)."""
THROUGH_MASS = 0.4
"""What such an equality weighs, halved for each coefficient other than 0 and 1 in size beyond the first, and
less the more variables and the larger its largest coefficient (see :func:`_through_weights`): about as much
together as the multiples (``z == 4 * x``), which also pass through the origin."""


def _through_forms() -> npt.NDArray[np.int64]:
    """The coefficients of ``a * x + b * y + c * z == 0``, one or two beyond 1 (the others are :data:`KINDS`'),
    with no common divisor and the first non-zero positive."""
    r = range(-THROUGH_REACH, THROUGH_REACH + 1)
    out = [
        c
        for c in itertools.product(r, repeat=3)
        if 1 <= sum(1 for v in c if abs(v) > 1) <= 2 and math.gcd(*c) == 1 and next(v for v in c if v) > 0
    ]
    return np.array(out, dtype=np.int64)


def _through_weights(forms: npt.NDArray[np.int64]) -> F:
    """People write ``2 * x + 3 * y == z`` more often than ``5 * x - 4 * y == z``."""
    size = np.abs(forms)
    odd = (size > 1).sum(axis=1)
    used = (size > 0).sum(axis=1)
    out: F = THROUGH_MASS * 0.5 ** (odd - 1) * 0.8 ** (size.max(axis=1) - 2) * 0.7 ** (used - 2)
    return out


@dataclass(frozen=True)
class _Through:
    """The hunted linear equalities through the origin: their coefficients, prior weights, and the pool triples
    where each holds, grouped by equality (``members[starts[k]:starts[k + 1]]``)."""

    forms: F  # (equalities, 3)
    weights: F
    members: npt.NDArray[np.int32]
    starts: Ints

    def alive(self, done: F, rare: B) -> F:
        """The weight of each equality still possible: it holds at every tested point where the rule gave the
        rarer answer and at none of the others."""
        with np.errstate(invalid="ignore", over="ignore"):
            # (tested, equalities): exact on whole numbers, near enough on decimals to choose hunting triples (an
            # einsum, so that no BLAS thread busy-waits)
            holds = np.einsum("nk,fk->nf", done, self.forms) == 0.0
        ok = holds[rare].all(axis=0) & ~holds[~rare].any(axis=0)
        out: F = np.where(ok, self.weights, 0.0)
        return out

    def covered(self, alive: F, n: int) -> F:
        """The weight of the equalities still possible that each of the ``n`` pool triples makes true."""
        kept = np.flatnonzero(alive)
        lengths = self.starts[kept + 1] - self.starts[kept]
        total = int(lengths.sum())
        if total == 0:
            return np.zeros(n)
        ends = np.cumsum(lengths)
        at = np.arange(total) - np.repeat(ends - lengths, lengths) + np.repeat(self.starts[kept], lengths)
        weights = np.repeat(alive[kept], lengths)
        out: F = np.asarray(np.bincount(self.members[at], weights=weights, minlength=n), dtype=np.float64)
        return out


def _through_cover(pool: F) -> _Through:
    forms = _through_forms()
    columns = np.ascontiguousarray(pool.T)
    members = []
    for k in range(forms.shape[0]):  # whole numbers: exact
        a, b, c = forms[k].tolist()
        members.append(np.flatnonzero(a * columns[0] + b * columns[1] + c * columns[2] == 0).astype(np.int32))
    starts = np.concatenate([[0], np.cumsum([m.shape[0] for m in members])])
    return _Through(
        forms=forms.astype(np.float64),
        weights=_through_weights(forms),
        members=np.concatenate(members),
        starts=starts.astype(np.int64),
    )


@dataclass(frozen=True)
class _Cover:
    pool: F  # (N, 3) integer triples, smallest first
    flat: Ints  # each pool triple's place in the grid (to find tested ones)
    index: tuple[Ints, ...]  # per kind: each pool triple's hypothesis, -1 for none, -2 for every one
    weights: tuple[F, ...]  # per kind: each hypothesis's prior weight
    through: _Through


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
        flat=_flat(pool),
        index=tuple(k.index(pool) for k in KINDS),
        weights=tuple(k.weights() for k in KINDS),
        through=_through_cover(pool),
    )


def _flat(points: F) -> Ints:
    """Each integer triple's place in the grid of POOL_RANGE."""
    lo, hi = POOL_RANGE
    width = hi - lo + 1
    flat = ((points[:, 0] - lo) * width + (points[:, 1] - lo)) * width + (points[:, 2] - lo)
    out: Ints = flat.astype(np.int64)
    return out


def hunting_test(
    tested: npt.ArrayLike, answers: npt.ArrayLike | None = None
) -> tuple[float, float, float] | None:
    """The untested integer triple whose answer is least predictable over the weight of the hunted equalities
    still possible (None when none is); ``answers``: the rule's, all no if not given."""

    cover = _cover()
    done = np.asarray(tested, dtype=np.float64).reshape(-1, 3)
    said = np.zeros(done.shape[0], dtype=np.bool_) if answers is None else np.asarray(answers, dtype=np.bool_)
    rare = said != (2 * int(said.sum()) > said.shape[0])  # where the rule gave the rarer answer
    covered = np.zeros(cover.pool.shape[0])
    total = 0.0
    for kind, index, weights in zip(KINDS, cover.index, cover.weights, strict=True):
        alive = weights.copy()
        hit = kind.index(done)
        for h in hit[rare].tolist():  # the equality held there: only its constant (or every one) is left
            if h == -1:
                alive[:] = 0.0
            elif h >= 0:
                keep = alive[h]
                alive[:] = 0.0
                alive[h] = keep
        common = hit[~rare]
        if (common == -2).any():
            alive[:] = 0.0
        alive[common[common >= 0]] = 0.0
        if not alive.any():
            continue
        total += float(alive.sum())
        covered += np.where(index >= 0, alive[np.maximum(index, 0)], np.where(index == -2, alive.sum(), 0.0))
    through = cover.through.alive(done, rare)
    if through.any():
        total += float(through.sum())
        covered += cover.through.covered(through, cover.pool.shape[0])
    if total <= 0.0:
        return None
    # the answer least predictable over what is left: while every answer has been no, the triple that makes the
    # most weight true (as long as that is under half of it); after a rarer answer, one that splits what is left
    score = binary_entropy(covered / total)
    lo, hi = POOL_RANGE
    inside = done[(done == np.round(done)).all(axis=1) & (done >= lo).all(axis=1) & (done <= hi).all(axis=1)]
    score[np.isin(cover.flat, _flat(inside))] = 0.0  # a tested triple is not proposed again
    best = int(np.argmax(score))
    if score[best] <= 1e-12:
        return None
    a, b, c = (float(v) for v in cover.pool[best])
    return (a, b, c)
