"""An ideal scientist for WILT: Bayesian elimination over a hypothesis space, one most informative test at a time.

Observations are noiseless, so a hypothesis that disagrees with any observation is eliminated and the others
keep their prior weights. Each test is the candidate triple whose answer is most uncertain under the surviving
weights (maximum binary entropy, which for a noiseless answer is the expected information gain). See
``docs/solver.md``.
"""

from __future__ import annotations

import copy
import threading
import weakref
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from wason.tasks.wilt.listed_space import Hypothesis, HypothesisSpace

CONFIDENCE = 0.99
"""Stop testing once the best surviving hypothesis holds this share of the surviving weight."""

ALWAYS_TRUE = "lambda x, y, z: True"
ALWAYS_FALSE = "lambda x, y, z: False"

F = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]
Index = npt.NDArray[np.intp]

# Weights are the prior scaled to whole numbers summing to about 2**52: every sum of them is then exact in
# float64 (below 2**53) whatever the order of summation, so a weight total is 0 exactly when no surviving
# hypothesis says True, results do not depend on BLAS, and subtracting eliminated weight leaves no residue.
_WEIGHT_SCALE = 2.0**52
_MIN_ENTROPY = 1e-12  # bits; an answer known for certain has entropy exactly 0 (see _WEIGHT_SCALE)


class _Table:
    """A space's truth table on a candidate set, with the prior's weighted column sums (shared by solvers), kept
    packed by rows and by columns (16 MB instead of 64 for seed 0), rows unpacked when gathered."""

    def __init__(self, space: HypothesisSpace, points: F) -> None:
        self.n_columns = int(points.shape[0])
        self.n_rows = len(space)
        # evaluated and packed a block of candidates at a time (a multiple of 8, so the bytes join up), by rows
        # and, for reading one candidate's column at once, by columns too (another 8 MB)
        by_rows, by_columns = [], []
        for start in range(0, self.n_columns, _BLOCK):
            block = space.evaluate(points[start : start + _BLOCK])
            by_rows.append(np.packbits(block, axis=1))
            by_columns.append(np.packbits(block.T, axis=1))
        self.packed = np.concatenate(by_rows, axis=1)
        self.packed_columns = np.concatenate(by_columns, axis=0)
        for arr in (self.packed, self.packed_columns):
            arr.flags.writeable = False
        self.weights: F = np.maximum(np.round(space.prior * _WEIGHT_SCALE), 1.0)
        self.weights.flags.writeable = False
        # the hypotheses of one family share a weight: the distinct weights (a hundred or so), and each row's
        # index into them
        self._weight_values, self._weight_of = np.unique(self.weights, return_inverse=True)
        self.column_weight = self.weighted(np.arange(self.packed.shape[0]))
        self.column_weight.flags.writeable = False
        self.index = {tuple(row): i for i, row in enumerate(points.tolist())}
        # the surviving True weight after the first answers of a game, by those answers: every game begins
        # with the same most informative test, so the top of the tree of answers is shared, and its nodes are
        # the costly ones (most hypotheses are eliminated there)
        self._after: dict[tuple[tuple[tuple[float, float, float], bool], ...], F] = {}
        self._lock = threading.Lock()

    def true_after(self, history: Sequence[tuple[tuple[float, float, float], bool]]) -> F | None:
        """The surviving True weight kept for a history of answers, if any."""
        with self._lock:
            return self._after.get(tuple(history))

    def keep_true_after(self, history: Sequence[tuple[tuple[float, float, float], bool]], true: F) -> None:
        """Keep the surviving True weight for a history (at most _KEPT_HISTORIES; read-only, shared)."""
        true.flags.writeable = False
        with self._lock:
            if len(self._after) < _KEPT_HISTORIES:
                self._after[tuple(history)] = true

    def rows(self, rows: Index) -> B:
        """The truth table's rows ``rows``, unpacked: shape (len(rows), candidates)."""
        out: B = np.unpackbits(self.packed[rows], axis=1, count=self.n_columns).view(np.bool_)
        return out

    def column(self, i: int) -> B:
        """Every hypothesis's truth value at candidate ``i``."""
        out: B = np.unpackbits(self.packed_columns[i], count=self.n_rows).view(np.bool_)
        return out

    def weighted(self, rows: Index) -> F:
        """``weights[rows] @ table[rows]``: the weight of the given rows that says True at each candidate."""
        if rows.shape[0] < _COUNTED_FROM:
            out: F = np.einsum("h,hc->c", self.weights[rows], self.rows(rows), dtype=np.float64)
            return out
        if rows.shape[0] <= _BLOCK:
            # the rows of each weight counted at each candidate, then the counts weighed: whole-number sums, so
            # the same total as the sum of products (and in half its time)
            of = self._weight_of[rows]
            order = np.argsort(of, kind="stable")
            table = self.rows(rows[order]).view(np.uint8)
            starts = np.flatnonzero(np.r_[True, of[order][1:] != of[order][:-1]])
            bounds = [*starts.tolist(), rows.shape[0]]
            counts = np.empty((starts.shape[0], self.n_columns), dtype=np.float64)
            for k in range(starts.shape[0]):
                counts[k] = np.add.reduce(table[bounds[k] : bounds[k + 1]], axis=0, dtype=np.uint16)
            # (einsum, not a matrix product: BLAS would spin up threads that busy-wait for a sum this small)
            total: F = np.einsum("g,gc->c", self._weight_values[of[order][starts]], counts)
            return total
        # a block of rows at a time, so never the whole table unpacked; the partial sums are whole numbers
        # below 2**53, so the total is exact in any order
        total = np.zeros(self.n_columns, dtype=np.float64)
        for start in range(0, rows.shape[0], _BLOCK):
            total += self.weighted(rows[start : start + _BLOCK])
        return total


_BLOCK = 2048  # candidates evaluated, or hypotheses summed, at once (a multiple of 8; counts fit in 16 bits)
_COUNTED_FROM = 128  # rows from which a weighted sum counts the rows of each weight (see _Table.weighted)
_KEPT_HISTORIES = 256  # histories whose surviving True weight is kept (45 KB each for seed 0's candidates)
_DEFER_BELOW = 8  # off-candidate answers are counted for the survivors alone while they are under 1/8 of all


# One table per (space, candidate set): the expensive part, computed once and shared by every solver.
_TABLES: weakref.WeakKeyDictionary[HypothesisSpace, dict[bytes, _Table]] = weakref.WeakKeyDictionary()


def _table(space: HypothesisSpace, points: F) -> _Table:
    per_space = _TABLES.setdefault(space, {})
    key = points.tobytes()
    table = per_space.get(key)
    if table is None:
        table = per_space[key] = _Table(space, points)
    return table


def weighted_rows(table: B, rows: Index, weights: F) -> F:
    """``weights[rows] @ table[rows]`` (rows distinct, ascending), by ``einsum``, which reads the boolean table as
    it is: a matrix product would first copy it to floats, four times the cost of the sum itself."""
    if rows.shape[0] == table.shape[0]:  # every row (rows are distinct and sorted): no copy of the table
        every: F = np.einsum("h,hc->c", weights, table, dtype=np.float64)
        return every
    out: F = np.einsum("h,hc->c", weights[rows], table[rows], dtype=np.float64)
    return out


def binary_entropy(p: F) -> F:
    """Entropy in bits of a yes/no answer that is yes with probability ``p`` (0 at p = 0 or 1)."""
    q = np.clip(p, 0.0, 1.0)
    r = 1.0 - q
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(q * np.log2(q) + r * np.log2(r))
    out: F = np.where(np.isnan(h), 0.0, h)  # 0 * log2(0)
    return out


def _as_points(candidates: npt.ArrayLike) -> F:
    return np.ascontiguousarray(np.asarray(candidates, dtype=np.float64).reshape(-1, 3))


class IdealSolver:
    """Plays WILT over a hypothesis space: most informative test first, guess once one hypothesis dominates.

    The survivors are the hypotheses with the fewest disagreements with the observations: the consistent ones
    while the rule is in the space; when it is not, the least contradicted ones, the search going on among them
    (see :meth:`guess`). Tests are chosen from the (C, 3) ``candidates``.
    """

    def __init__(
        self,
        space: HypothesisSpace,
        candidates: npt.ArrayLike,
        *,
        max_tests: int = 30,
        confidence: float = CONFIDENCE,
    ) -> None:
        if max_tests < 0:
            raise ValueError("max_tests must be 0 or more")
        if not 0.0 < confidence <= 1.0:
            raise ValueError("confidence must be in (0, 1]")
        self.space = space
        self.candidates = _as_points(candidates)
        self.max_tests = max_tests
        self.confidence = confidence
        self.history: list[tuple[tuple[float, float, float], bool]] = []
        self._table = _table(space, self.candidates)
        self._mismatches = np.zeros(len(space), dtype=np.int32)
        # answers at points off the candidates counted so far only for the hypotheses then surviving: (point,
        # answer, the rows counted); the others are counted when they are needed (see _count_deferred)
        self._deferred: list[tuple[F, bool, Index]] = []
        self._tested = np.zeros(self.candidates.shape[0], dtype=np.bool_)
        self._alive: Index = np.arange(len(space))
        self._level = 0  # the survivors' number of disagreements with the observations
        # surviving weight, and surviving weight that says True at each candidate (exact; brought up to date
        # only when asked for, see _true)
        self._total = float(self._table.weights.sum())
        self._true_weight: F | None = self._table.column_weight.copy()
        self._gone: list[Index] = []  # rows eliminated since _true_weight was last brought up to date
        self._information: F | None = None  # kept until the next answer or exclusion

    def copy(self) -> IdealSolver:
        """An independent solver in the same state (the truth table is shared, never copied)."""
        other = copy.copy(self)
        other.history = list(self.history)
        other._mismatches = self._mismatches.copy()
        other._deferred = list(self._deferred)
        other._tested = self._tested.copy()
        other._true_weight = None if self._true_weight is None else self._true_weight.copy()
        other._gone = list(self._gone)
        return other

    # ---- state ----------------------------------------------------------------------------------------------

    @property
    def tests_used(self) -> int:
        """Observations made so far."""
        return len(self.history)

    @property
    def consistent(self) -> bool:
        """True while at least one hypothesis agrees with every observation."""
        return bool(self._mismatches[self._alive[0]] == 0)

    @property
    def remaining_hypotheses(self) -> int:
        """How many hypotheses survive."""
        return int(self._alive.shape[0])

    def survivors(self) -> list[tuple[Hypothesis, float]]:
        """The surviving hypotheses, simplest first, with their share of the surviving weight."""
        shares = self._table.weights[self._alive] / self._total
        return [(self.space.hypotheses[int(h)], float(s)) for h, s in zip(self._alive, shares, strict=True)]

    def posterior_top(self) -> tuple[Hypothesis, float]:
        """The best surviving hypothesis and its share of the surviving weight (ties: the simplest)."""
        weights = self._table.weights[self._alive]
        k = int(np.argmax(weights))  # the first maximum; survivors are simplest first
        return self.space.hypotheses[int(self._alive[k])], float(weights[k] / self._total)

    def information(self) -> F:
        """Expected information (bits) of testing each candidate; already tested candidates get -1 (read-only:
        computed once between answers)."""
        if self._information is None:
            h = binary_entropy(self._true() / self._total)
            h[self._tested] = -1.0
            h.flags.writeable = False
            self._information = h
        return self._information

    # ---- the game -------------------------------------------------------------------------------------------

    def next_test(self) -> int | None:
        """Index of the most informative untested candidate (ties: the first, simplest); None if none tells."""
        h = self.information()
        best = int(np.argmax(h))
        return best if h[best] > _MIN_ENTROPY else None

    def should_guess(self) -> bool:
        """True when the tests are used up, the best hypothesis holds the ``confidence`` share of the weight,
        or no untested candidate can tell the survivors apart."""
        return self.choose() is None

    def choose(self) -> int | None:
        """``None if should_guess() else next_test()``, with the candidates' information computed once."""
        if self.tests_used >= self.max_tests or self.posterior_top()[1] >= self.confidence:
            return None
        return self.next_test()

    def observe(self, point: Sequence[float], result: bool) -> None:
        """Record the rule's answer at a point (a candidate or any other triple; ValueError if it has not three
        values)."""
        key = tuple(float(v) for v in point)
        if len(key) != 3:
            raise ValueError("a test point has three values")
        i = self._table.index.get(key)
        at = np.array([key], dtype=np.float64)
        if i is not None:
            column = self._table.column(i)
            self._tested[i] = True
            self._mismatches += column != bool(result)
        elif _DEFER_BELOW * self._alive.shape[0] < len(self.space):
            # only the survivors can stay survivors while one of them agrees with everything: the others are
            # counted if that stops being so
            column = self.space.evaluate_rows(self._alive, at)[:, 0]
            self._mismatches[self._alive] += column != bool(result)
            self._deferred.append((at, bool(result), self._alive))
        else:
            column = self.space.evaluate(at)[:, 0]

            self._mismatches += column != bool(result)
        self.history.append(((key[0], key[1], key[2]), bool(result)))
        self._information = None
        self._update_survivors()

    def exclude(self, index: int) -> None:
        """Never propose this candidate (e.g. the game refused it)."""
        self._tested[index] = True
        self._information = None

    def _update_survivors(self) -> None:
        before = self._alive
        mismatches = self._mismatches[before]
        if mismatches.min() == self._level:
            # some survivor is still at the fewest disagreements, and every other hypothesis has more
            keep = mismatches == self._level
            after, gone = before[keep], before[~keep]
            subset = True
        else:
            self._count_deferred()
            self._level = int(self._mismatches.min())
            after = np.flatnonzero(self._mismatches == self._level)
            gone = np.setdiff1d(before, after, assume_unique=True)
            subset = bool(np.isin(after, before, assume_unique=True).all())
        weights = self._table.weights
        if subset:
            self._total -= float(weights[gone].sum())
            if gone.shape[0]:
                self._gone.append(gone)
        else:
            self._total = float(weights[after].sum())
            self._true_weight, self._gone = None, []
        self._alive = after

    def _true(self) -> F:
        """The surviving weight that says True at each candidate, brought up to date only when the search reads
        it (exact either way: the weights are whole numbers and their sums stay below 2**53)."""
        if self._true_weight is None or self._gone:
            gone = np.concatenate(self._gone) if self._gone else np.zeros(0, dtype=np.intp)
            work = min(gone.shape[0], self._alive.shape[0]) if self._true_weight is not None else 0
            costly = max(work, self._alive.shape[0] if self._true_weight is None else 0) >= _BLOCK
            kept = self._table.true_after(self.history) if costly else None
            if kept is not None:
                self._true_weight = kept
            elif self._true_weight is not None and gone.shape[0] < self._alive.shape[0]:
                # subtract the eliminated weight: cheaper than summing the survivors again
                self._true_weight = self._true_weight - self._table.weighted(gone)
            else:
                self._true_weight = self._table.weighted(self._alive)
            if costly and kept is None:
                self._table.keep_true_after(self.history, self._true_weight)
            self._gone = []
        return self._true_weight

    def _count_deferred(self) -> None:
        """Count the deferred answers for the hypotheses they were not counted for."""
        if not self._deferred:
            return
        # every deferred point evaluated in one call
        truth = self.space.evaluate(np.concatenate([point for point, _, _ in self._deferred], axis=0))
        for k, (_, result, counted) in enumerate(self._deferred):
            wrong = truth[:, k] != result
            wrong[counted] = False
            self._mismatches += wrong
        self._deferred = []

    def guess(self) -> str:
        """The best surviving hypothesis as a lambda; when none is consistent, the constant True or False instead
        if it disagrees with fewer observations."""
        best, _ = self.posterior_top()
        if self.consistent:
            return best.lambda_text
        n_true = sum(result for _, result in self.history)
        n_false = self.tests_used - n_true
        if min(n_true, n_false) < int(self._mismatches[self._alive[0]]):
            return ALWAYS_TRUE if n_true > n_false else ALWAYS_FALSE
        return best.lambda_text
