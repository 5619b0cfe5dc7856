"""A reference solver for the list rules: an ideal scientist over a hypothesis space, five tests at a time.

The solver plays the list game (three positive examples, then rounds of five test lists, each labelled by the
hidden rule, then one stated hypothesis) without any text: it is the baseline row of every table and lets tests
play whole games without a model. Any space of :class:`HypothesisLike` (a key, a text, a ``lambda xs: ...``
source, a predicate and a complexity) will do. Algorithm, in the spirit of ``wason.tasks.wilt.elimination``:

* **Weights and elimination.** Each hypothesis has the prior weight ``2**-complexity``. Labels come from code and
  are never wrong, so a hypothesis that disagrees with an observation (the examples are positive observations) is
  eliminated and the survivors keep their prior weights.
* **A rich candidate pool each round**, from a ``random.Random`` seeded by the seed and the round: short lists
  (empty, one to three items, the first items of each example); mutations of the examples and of the positives
  found so far (change, nudge, insert, delete, swap, duplicate, reverse, sort, truncate, continue the pattern,
  move an amount or a factor between items, scale, shift, concatenate) and a few of negatives; structured random
  lists (:mod:`.draw`); lists the heaviest survivor *accepts*, by rejection sampling, so a narrow rule (a fixed
  sum or product, a recurrence) is tested on its positives too; lists on which the heaviest survivor and each of
  the next heaviest (and a few sampled by weight) disagree; and last round's most informative unchosen candidates.
* **Joint, greedy choice of the five tests.** The labels of the five tests partition the survivors; the expected
  information of the round is the weighted entropy of that partition (labels are noiseless). Each test is chosen
  greedily to maximise the entropy of the partition refined by it, so the five are not redundant. Ties go to the
  shortest, smallest list.
* **Scoring subset.** Predicates are evaluated only on survivors, and labels are cached per list. Tests are
  chosen for the :data:`SCORING_LIMIT` heaviest survivors (they carry nearly all the weight); the whole set is
  scored when that subset cannot be split. (Outside the space, half as many, widened to four times as many.)
* **Settling.** The survivors are *settled* when one extension class (survivors that agree on every candidate of
  the pool) holds at least ``confidence`` of the surviving weight (by default all of it). Before accepting that,
  a longer search (up to 1,500 lists per hypothesis, 20,000 in all) looks for lists on which the class's simplest
  member and each other member disagree; any found join the pool. The stated hypothesis is the simplest member
  of the heaviest class.
* **Confirmation and stopping.** Once settled, the solver spends ``confirm_rounds`` rounds (default 1) trying to
  refute the stated hypothesis: slots no informative test fills get lists it accepts (random, of lengths not
  tested yet in the round: a narrower rule shows up only there), then lists it rejects (edits of positives
  first: a broader rule shows up there); any round with spare slots is filled the same way. The solver is
  :attr:`~ListSolver.ready` when the stated hypothesis has come through ``confirm_rounds`` such rounds and the
  survivors are still settled, or when the rounds are used up (``confirm_rounds=0``: as soon as settled).
* **Rules outside the space.** When every hypothesis has been contradicted, the solver says so
  (``consistent=False``): the survivors are the least contradicted hypotheses, and tests are chosen for every
  hypothesis weighted by the prior and ``2**-(4 * disagreements beyond the fewest)``. Some candidate always
  splits those in practice, so it tests to the last round (more evidence, a better least-wrong choice) and
  states the simplest of the least contradicted. Its quiz answers are the labels it observed, else its
  hypothesis's.

Everything random comes from private ``random.Random`` instances seeded by strings built from the seed, so the
same space, examples, seed and labels give the same proposals byte for byte. A predicate that raises says False.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import numpy.typing as npt

from wason.tasks.lists import draw
from wason.tasks.lists.rules import as_int_list, holds

NAME = "wason.lists.solver"
VERSION = 1

CONFIDENCE = 1.0
"""Settle once one extension class (on the candidate pool) holds this share of the surviving weight."""

CONFIRM_ROUNDS = 1
"""Rounds spent trying to refute the stated hypothesis, once settled, before the solver is ready."""

SCORING_LIMIT = 256
"""Most surviving hypotheses the tests of a round are chosen for (the heaviest ones)."""

MISMATCH_BITS = 4.0
"""Outside the space, each disagreement beyond the fewest divides a hypothesis's weight by ``2**MISMATCH_BITS``."""

MAX_LENGTH = 10
MIN_LIMIT, MAX_LIMIT = 1000, 10**6
_CACHE_LIMIT = 6000  # cached label columns (one byte per hypothesis each)
_MIN_INFORMATION = 1e-9  # bits; below this a round tells nothing
_TIE = 1e-9  # gains this close are ties, broken by the simplicity of the list
_SHARE_TOLERANCE = 1e-12  # float sums of the same weights in another order
_CONFIRM_POSITIVES = 0.6  # share of a confirmation round's filler spent on lists the hypothesis accepts

_SHORT_LISTS: tuple[tuple[int, ...], ...] = (
    *((), (0,), (1,), (2,), (3,), (-1,), (7,), (10,)),
    *((0, 0), (1, 1), (0, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (-1, 1), (2, 4)),
    *((1, 2, 3), (3, 2, 1), (2, 4, 6), (5, 5, 5), (1, 0, 1), (-3, -2, -1)),
)
_CONSTANTS = (*range(14), 15, 16, 17, 20, 25, 30, 50, 100, -1, -2, -3, -5, -10)
_SEQUENCES: tuple[tuple[int, ...], ...] = (
    (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47),
    (0, 1, 1, 2, 3, 5, 8, 13, 21, 34, 55),
    (0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100),
    (1, 2, 4, 8, 16, 32, 64, 128),
    (0, 1, 3, 6, 10, 15, 21, 28, 36, 45),
    (1, 8, 27, 64, 125),
)
_LENGTHS = (0, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 7, 8)

# Pool sizes per round.
_POSITIVE_PARENTS = 10
_MUTATIONS_PER_POSITIVE = 12
_NEGATIVE_PARENTS = 5
_MUTATIONS_PER_NEGATIVE = 3
_RANDOM_LISTS = 60
_TARGETED_HEAVIEST = 8
_TARGETED_SAMPLED = 4
_TARGETED_FINDS = 2
_TARGETED_ATTEMPTS = 60
_CARRY = 30
_VERIFY_ATTEMPTS = 1500  # per hypothesis that the stated one could not be told from
_VERIFY_BUDGET = 20000  # in all, per round
_WIDE = 50  # short probe lists draw items from [-_WIDE, 3 * _WIDE]
_SHORT_RANDOM = draw.uniform(-_WIDE, 3 * _WIDE)
_GEOMETRIC = draw.geometric(starts=(1, 2, 3, -1, 5), ratios=(2, 3, -2, -1))
_RANDOM_KINDS: tuple[draw.Proposal, ...] = (
    draw.uniform(-10, 50),
    draw.uniform(0, 9),
    draw.arithmetic(start=(-10, 20), step=(-5, 8)),
    _GEOMETRIC,
    draw.sorted_either_way(-5, 40, descending=0.3),
    draw.repeats(0, 20),
    draw.multiples_of_one((2, 3, 4, 5, 7, 10), factors=(-2, 12)),
    draw.members(_SEQUENCES),
    draw.fibonacci_like(-3, 9),
    draw.constant(-5, 20),
    draw.uniform(-30, 30),
    draw.uniform(0, 200),
)
"""The structured random lists of each round's pool, one kind chosen uniformly per list (:mod:`.draw`)."""

IntList = tuple[int, ...]
Index = npt.NDArray[np.intp]
F = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]


class HypothesisLike(Protocol):
    """What the solver needs of a hypothesis (``wason.tasks.lists.hypotheses.Hypothesis`` is one): a stable key,
    the rule in words, the rule as ``lambda xs: ...`` in the list guess language, a predicate deciding a list
    of integers, and a description length (the prior weight is ``2**-complexity``)."""

    @property
    def key(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def predicate(self) -> Callable[[tuple[int, ...]], bool]: ...

    @property
    def complexity(self) -> int: ...


@dataclass(frozen=True)
class SolverHypothesis:
    """What the solver states at the end of a game: the rule in words and as ``lambda xs: ...``."""

    text: str
    source: str
    key: str | None  # in the space (``None`` if the solver had none to state)
    consistent: bool  # it fits every observation (the examples and every labelled test)


@dataclass(frozen=True)
class _Plan:
    tests: tuple[IntList, ...]
    best: int  # index of the hypothesis to state
    done: bool  # nothing left to test: the solver is ready
    # The hypothesis this round tries to refute, once the survivors are settled.
    confirming: int | None


def _xlog2x(p: F) -> F:
    with np.errstate(divide="ignore", invalid="ignore"):
        out: F = np.where(p > 0.0, p * np.log2(np.where(p > 0.0, p, 1.0)), 0.0)
    return out


def _cost(xs: IntList) -> float:
    """Simplicity of a test list for tie-breaking: short lists with small items first."""
    return len(xs) + sum(min(abs(x), 1000) for x in xs) / 1000.0


class ListSolver:
    """Plays the list game over a hypothesis ``space`` (distinct by extension, ideally) from the ``examples`` the
    game showed: five maximally informative tests a round, then a hypothesis. ``seed`` seeds every random choice
    (same inputs and seed, same proposals); :attr:`ready` turns true once ``max_rounds`` are used. ``confidence``
    is the share of the surviving weight one extension class (on the candidate pool) needs for the survivors to
    count as settled (1.0 waits until no candidate splits them); ``confirm_rounds`` are spent trying to refute the
    stated hypothesis once settled, before stopping. ValueError for an empty space, an example that is not a list
    of integers, ``tests_per_round`` or ``max_rounds`` below 1, ``confidence`` not in (0, 1], or a negative
    ``confirm_rounds``."""

    def __init__(
        self,
        space: Sequence[HypothesisLike],
        examples: Sequence[Sequence[int]],
        *,
        seed: int,
        tests_per_round: int = 5,
        max_rounds: int = 19,
        confidence: float = CONFIDENCE,
        confirm_rounds: int = CONFIRM_ROUNDS,
    ) -> None:
        if not space:
            raise ValueError("space must hold at least one hypothesis")
        if tests_per_round < 1:
            raise ValueError(f"tests_per_round must be at least 1, got {tests_per_round}")
        if max_rounds < 1:
            raise ValueError(f"max_rounds must be at least 1, got {max_rounds}")
        if not 0.0 < confidence <= 1.0:
            raise ValueError(f"confidence must be in (0, 1], got {confidence}")
        if confirm_rounds < 0:
            raise ValueError(f"confirm_rounds must be 0 or more, got {confirm_rounds}")
        self.space = tuple(space)
        self.seed = seed
        self.tests_per_round = tests_per_round
        self.max_rounds = max_rounds
        self.confidence = confidence
        self.confirm_rounds = confirm_rounds
        # Confirmation rounds each hypothesis came through without a new contradiction.
        self._passes: dict[int, int] = {}
        self.examples: tuple[IntList, ...] = tuple(self._as_list(xs, "example") for xs in examples)
        self._predicates = [h.predicate for h in self.space]
        self._complexity: F = np.array([float(h.complexity) for h in self.space], dtype=np.float64)
        self._cache: dict[IntList, npt.NDArray[np.int8]] = {}
        # Every labelled list, in order of observation (examples first, as positives); the last label wins.
        self._labels: dict[IntList, bool] = dict.fromkeys(self.examples, True)
        self._observations: list[tuple[IntList, bool]] = []
        self.history: list[tuple[tuple[IntList, ...], tuple[bool, ...]]] = []
        self._carry: list[IntList] = []
        self._near: set[IntList] = set()  # this round's candidates made by mutating a positive
        self._plan_cache: _Plan | None = None
        self._everyone: Index = np.arange(len(self.space), dtype=np.intp)
        self._alive = self._everyone
        self._consistent = True
        self._mismatch = np.zeros(len(self.space), dtype=np.int64)
        self._level = 0
        for xs in self.examples:
            self._observations.append((xs, True))
            self._eliminate(xs, True)
        limit = max((abs(x) for xs in self.examples for x in xs), default=0)
        self._limit = min(MAX_LIMIT, max(MIN_LIMIT, 2 * limit))

    # ---- state ----------------------------------------------------------------------------------------------

    @property
    def rounds_used(self) -> int:
        """Rounds observed so far."""
        return len(self.history)

    @property
    def consistent(self) -> bool:
        """True while some hypothesis fits every observation."""
        return self._consistent

    def survivors(self, limit: int = 10) -> list[tuple[HypothesisLike, float]]:
        """Up to ``limit`` (hypothesis, share of the surviving weight) pairs, heaviest first."""
        order = self._by_weight(self._alive)
        weights = self._weights(order)
        total = float(weights.sum())
        return [
            (self.space[int(h)], float(w) / total)
            for h, w in zip(order[:limit], weights[:limit], strict=False)
        ]

    @property
    def ready(self) -> bool:
        """True when the solver should stop testing and state its hypothesis."""
        return self.rounds_used >= self.max_rounds or self._plan().done

    # ---- the game -------------------------------------------------------------------------------------------

    def propose(self) -> list[tuple[int, ...]]:
        """The next round's tests: ``tests_per_round`` distinct lists, none tested before or an example."""
        return list(self._plan().tests)

    def observe(self, tests: Sequence[Sequence[int]], labels: Sequence[bool]) -> None:
        """Record a round's labels (for the proposed lists or any others): whether each test fits the rule
        (ValueError when the lengths differ or a test is not a list of integers)."""
        if len(tests) != len(labels):
            raise ValueError(f"{len(tests)} tests but {len(labels)} labels")
        lists = tuple(self._as_list(xs, "test") for xs in tests)
        answers = tuple(bool(label) for label in labels)
        plan, self._plan_cache = self._plan_cache, None
        confirming = plan.confirming if plan is not None else None
        was_consistent = self._consistent
        before = int(self._mismatch[confirming]) if confirming is not None else 0
        self.history.append((lists, answers))
        for xs, label in zip(lists, answers, strict=True):
            self._labels[xs] = label
            self._observations.append((xs, label))
            self._eliminate(xs, label)
        if confirming is not None:
            if was_consistent:
                passed = self._consistent and bool(np.isin(confirming, self._alive))
            else:
                passed = int(self._mismatch[confirming]) == before
            if passed:
                self._passes[confirming] = self._passes.get(confirming, 0) + 1

    def hypothesis(self) -> SolverHypothesis:
        """The hypothesis the solver states now: the simplest member of the heaviest extension class (outside the
        space, the simplest of the least contradicted hypotheses)."""
        h = self.space[self._plan().best]
        return SolverHypothesis(text=h.text, source=h.source, key=h.key, consistent=self._consistent)

    def predict(self, lists: Sequence[Sequence[int]]) -> list[bool]:
        """Quiz answers: the label observed for a list already seen, else the stated hypothesis's (anything but a
        list of integers is "No", as in the game)."""
        predicate = self.space[self._plan().best].predicate
        known = self._labels
        return [
            False if xs is None else known[xs] if xs in known else holds(predicate, xs)
            for xs in map(as_int_list, lists)
        ]

    # ---- hypotheses -----------------------------------------------------------------------------------------

    @staticmethod
    def _as_list(items: object, what: str) -> IntList:
        xs = as_int_list(items)
        if xs is None:
            raise ValueError(f"every {what} must be a list of integers, got {items!r}")
        return xs

    def _column(self, xs: IntList, rows: Index) -> B:
        """Each of ``rows``'s verdict on ``xs``, from the cache where known (-1 there means not yet computed)."""
        column = self._cache.get(xs)
        if column is None:
            if len(self._cache) >= _CACHE_LIMIT:
                del self._cache[next(iter(self._cache))]
            column = self._cache[xs] = np.full(len(self.space), -1, dtype=np.int8)
        known = column[rows]
        missing = rows[known < 0]
        if missing.shape[0]:
            predicates = self._predicates
            try:
                verdicts = [bool(predicates[h](xs)) for h in missing.tolist()]
            except Exception:
                # Some predicate cannot decide this list: ask each one apart, that one saying no.
                verdicts = [holds(predicates[h], xs) for h in missing.tolist()]
            column[missing] = verdicts
            known = column[rows]
        out: B = known > 0
        return out

    def _eliminate(self, xs: IntList, label: bool) -> None:
        if self._consistent:
            keep = self._column(xs, self._alive) == label
            if keep.any():
                self._alive = self._alive[keep]
                return
            # Every hypothesis is contradicted: count each one's disagreements with everything seen so far.
            self._consistent = False
            self._mismatch = np.zeros(len(self.space), dtype=np.int64)
            for seen, answer in self._observations:
                self._mismatch += self._column(seen, self._everyone) != answer
        else:
            self._mismatch += self._column(xs, self._everyone) != label
        self._level = int(self._mismatch.min())
        self._alive = np.flatnonzero(self._mismatch == self._level).astype(np.intp)

    def _in_play(self) -> Index:
        """The hypotheses tests are chosen for: the survivors; outside the space, every hypothesis (weighted by
        its disagreements)."""
        return self._alive if self._consistent else self._everyone

    def _log_weights(self, rows: Index) -> F:
        out: F = -self._complexity[rows]
        if not self._consistent:
            out = out - MISMATCH_BITS * (self._mismatch[rows] - self._level)
        return out

    def _weights(self, rows: Index) -> F:
        """Weights of ``rows`` relative to the heaviest hypothesis in play (so they never all underflow)."""
        top = float(self._log_weights(self._in_play()).max())
        out: F = np.exp2(self._log_weights(rows) - top)
        return out

    def _by_weight(self, rows: Index) -> Index:
        """``rows`` heaviest first; ties go to the simpler, then the earlier hypothesis."""
        logw = self._log_weights(rows)
        order = np.lexsort((rows, self._complexity[rows], -logw))
        out: Index = rows[order]
        return out

    # ---- planning -------------------------------------------------------------------------------------------

    def _plan(self) -> _Plan:
        if self._plan_cache is None:
            self._plan_cache = self._make_plan()
        return self._plan_cache

    def _make_plan(self) -> _Plan:
        rng = random.Random(f"{NAME}/{VERSION}/{self.seed}/{self.rounds_used}")
        in_play = self._by_weight(self._in_play())
        # Outside the space every hypothesis is in play but the weights fall steeply with disagreements.
        limit = SCORING_LIMIT if self._consistent else SCORING_LIMIT // 2
        scored = in_play[:limit]
        pool = self._pool(rng, scored)
        truth, scored, picks, information = self._score(pool, scored, in_play)
        top_share, members = self._heaviest_class(truth, scored, in_play)
        if self._consistent and self._settled(top_share, information) and self.rounds_used < self.max_rounds:
            # About to stop: look hard for lists on which the stated hypothesis and the others it could not be
            # told from (on this pool) disagree, before concluding that none exists.
            found = self._disagreements(rng, members, pool)
            if found:
                pool = pool + found
                truth, scored, picks, information = self._score(pool, scored, in_play)
                top_share, members = self._heaviest_class(truth, scored, in_play)
        best = members[0]
        if not self._consistent:
            # Outside the space the stated hypothesis is the simplest of the least contradicted.
            best = int(self._by_weight(self._alive)[0])
        settled = self._settled(top_share, information)
        done = settled and self._passes.get(best, 0) >= self.confirm_rounds
        tests = [pool[c] for c in picks]
        self._fill(tests, pool, best, rng)
        # The most informative candidates not chosen are offered again next round (their labels are cached).
        gains = self._single_gains(truth, scored)
        gains[picks] = -1.0
        ranked = np.argsort(-gains, kind="stable")[:_CARRY]
        self._carry = [pool[int(c)] for c in ranked if gains[c] > _MIN_INFORMATION]
        return _Plan(tuple(tests), best, done, best if settled and not done else None)

    def _settled(self, top_share: float, information: float) -> bool:
        """Whether the survivors are as good as told apart: one class holds the ``confidence`` share of the
        weight (outside the space: no candidate splits the least contradicted hypotheses)."""
        if self._consistent:
            return top_share >= self.confidence - _SHARE_TOLERANCE
        return information <= _MIN_INFORMATION

    def _score(self, pool: list[IntList], scored: Index, in_play: Index) -> tuple[B, Index, list[int], float]:
        """The truth table of the pool, and the round's tests chosen from it; the whole set in play is scored
        when its heaviest part cannot be split."""
        truth = self._truth(pool, scored)
        picks, information = self._choose(truth, self._weights(scored), pool)
        if information <= _MIN_INFORMATION and scored.shape[0] < in_play.shape[0]:
            # The heaviest hypotheses agree on the whole pool; the lighter ones may not.
            scored = in_play if self._consistent else in_play[: 4 * scored.shape[0]]
            truth = self._truth(pool, scored)
            picks, information = self._choose(truth, self._weights(scored), pool)
        return truth, scored, picks, information

    def _disagreements(
        self, rng: random.Random, members: Sequence[int], pool: Sequence[IntList]
    ) -> list[IntList]:
        """New lists on which the first of ``members`` and some other member disagree (a bounded search)."""
        if len(members) < 2:
            return []
        parents, values = self._parents()
        taken = set(pool)
        best = self._predicates[members[0]]
        found: list[IntList] = []
        budget = _VERIFY_BUDGET
        for h in members[1:]:
            other = self._predicates[h]
            for _ in range(min(_VERIFY_ATTEMPTS, budget)):
                budget -= 1
                xs = self._probe(rng, parents, values)
                if xs not in taken and self._fresh(xs) and holds(best, xs) != holds(other, xs):
                    found.append(xs)
                    taken.add(xs)
                    break
            if budget <= 0:
                break
        return found

    def _truth(self, pool: Sequence[IntList], rows: Index) -> B:
        """The (hypotheses x candidates) verdicts of ``rows`` on the pool."""
        if not pool:
            return np.zeros((rows.shape[0], 0), dtype=np.bool_)
        out: B = np.stack([self._column(xs, rows) for xs in pool], axis=1)
        return out

    def _single_gains(self, truth: B, rows: Index) -> F:
        """Expected information (bits) of each candidate tested alone."""
        w = self._weights(rows)
        total = float(w.sum())
        if truth.shape[1] == 0 or total <= 0.0:
            return np.zeros(truth.shape[1], dtype=np.float64)
        p = (w @ truth.astype(np.float64)) / total
        out: F = -(_xlog2x(p) + _xlog2x(1.0 - p))
        return out

    def _choose(self, truth: B, weights: F, pool: Sequence[IntList]) -> tuple[list[int], float]:
        """Greedily choose up to ``tests_per_round`` candidates maximising the entropy of the joint partition:
        the chosen candidate indices (only informative ones) and the partition's entropy in bits."""
        m, n = truth.shape
        total = float(weights.sum())
        if m == 0 or n == 0 or total <= 0.0:
            return [], 0.0
        w = weights / total
        values = truth.astype(np.float64)
        costs = np.array([_cost(xs) for xs in pool], dtype=np.float64)
        cell: npt.NDArray[np.int64] = np.zeros(m, dtype=np.int64)
        picks: list[int] = []
        entropy = 0.0
        for _ in range(min(self.tests_per_round, n)):
            refined = np.zeros(n, dtype=np.float64)
            for j in range(int(cell.max()) + 1):
                mask = cell == j
                if not mask.any():
                    continue
                wj = w[mask]
                yes = wj @ values[mask]
                refined -= _xlog2x(yes) + _xlog2x(float(wj.sum()) - yes)
            refined[picks] = -np.inf
            best_gain = float(refined.max()) - entropy
            if best_gain <= _MIN_INFORMATION:
                break
            near = np.flatnonzero(refined >= refined.max() - _TIE)
            c = int(near[np.argmin(costs[near])])
            picks.append(c)
            entropy = float(refined[c])
            _, inverse = np.unique(cell * 2 + truth[:, c], return_inverse=True)
            cell = inverse.astype(np.int64).reshape(m)
        return picks, max(entropy, 0.0)

    def _heaviest_class(self, truth: B, scored: Index, in_play: Index) -> tuple[float, list[int]]:
        """Share of the weight in play held by the heaviest extension class on the pool, and its members
        (heaviest first: the first is the one to state); the unscored count against it (their class is unknown)."""
        weights = self._weights(scored)
        total = float(self._weights(in_play).sum())
        classes: dict[bytes, tuple[float, list[int]]] = {}
        packed = np.packbits(truth, axis=1)
        for i, h in enumerate(scored.tolist()):
            key = packed[i].tobytes()
            weight, members = classes.get(key, (0.0, []))
            members.append(h)
            classes[key] = (weight + float(weights[i]), members)
        weight, members = max(classes.values(), key=lambda item: item[0])
        return (weight / total if total > 0 else 0.0), members

    def _fill(self, tests: list[IntList], pool: Sequence[IntList], best: int, rng: random.Random) -> None:
        """Complete the round with lists that could refute the stated hypothesis: mostly lists it accepts (a
        narrower rule shows up only there), at random from the pool, of lengths not used yet where possible; then
        lists it rejects, edits of positives first (a broader rule shows up there); random lists fill any gap."""
        need = self.tests_per_round
        taken = set(tests)
        if len(tests) < need:
            accepted = self._column_many(pool, best)
            lengths = {len(xs) for xs in tests}
            positives = [c for c in range(len(pool)) if accepted[c] and pool[c] not in taken]
            negatives = [c for c in range(len(pool)) if not accepted[c] and pool[c] not in taken]
            quota = len(tests) + max(1, round(_CONFIRM_POSITIVES * (need - len(tests))))
            # Random among the accepted lists of unused lengths: the simplest ones are accepted by too many rules.
            order = {c: rng.random() for c in positives}
            while len(tests) < min(need, quota) and positives:
                c = min(positives, key=lambda c: (len(pool[c]) in lengths, order[c]))
                positives.remove(c)
                tests.append(pool[c])
                taken.add(pool[c])
                lengths.add(len(pool[c]))
            # Then near misses: edits of positives that the hypothesis rejects, in random order.
            for c in negatives:
                order[c] = rng.random()
            rest = sorted(negatives, key=lambda c: (pool[c] not in self._near, order[c])) + positives
            for c in rest[: need - len(tests)]:  # (never more than ``need`` tests so far)
                tests.append(pool[c])
                taken.add(pool[c])
        while len(tests) < need:
            xs = tuple(self._random_list(rng))
            if xs not in taken and self._fresh(xs):
                tests.append(xs)
                taken.add(xs)

    def _column_many(self, pool: Sequence[IntList], h: int) -> list[bool]:
        rows: Index = np.array([h], dtype=np.intp)
        return [bool(self._column(xs, rows)[0]) for xs in pool]

    # ---- candidate pool -------------------------------------------------------------------------------------

    def _pool(self, rng: random.Random, scored: Index) -> list[IntList]:
        """This round's candidate tests, in a deterministic order, none already labelled."""
        out: dict[IntList, None] = {}

        def add(items: Sequence[int]) -> bool:
            xs = tuple(items)
            if not self._fresh(xs) or xs in out:
                return False
            out[xs] = None
            return True

        for xs in (*self._carry, *_SHORT_LISTS):
            add(xs)
        for xs in self.examples:  # (the empty list is among the short lists already)
            for part in (xs[:1], xs[-1:], xs[:2]):
                add(part)
        parents, values = self._parents()
        negatives = [xs for xs, label in self._labels.items() if not label]
        self._near = set()
        for parent in parents:
            for _ in range(_MUTATIONS_PER_POSITIVE):
                mutant = tuple(self._mutate(rng, parent, values, parents))
                if add(mutant):
                    self._near.add(mutant)
        for parent in negatives[-_NEGATIVE_PARENTS:]:
            for _ in range(_MUTATIONS_PER_NEGATIVE):
                add(self._mutate(rng, parent, values, parents))
        for _ in range(_RANDOM_LISTS):
            add(self._random_list(rng))
        if not scored.shape[0]:
            return list(out)
        # Lists the heaviest hypothesis accepts, so a narrow rule is tested on its positives and not only on the
        # lists almost nothing accepts; then, for the next heaviest (and a few sampled by weight), lists on which
        # they and the heaviest disagree.
        heaviest = self._predicates[int(scored[0])]

        def search(other: Callable[[IntList], bool] | None) -> None:
            """Add a few probes the heaviest accepts (no ``other``), or on which it and ``other`` disagree."""
            found = 0
            for _ in range(_TARGETED_ATTEMPTS):
                xs = self._probe(rng, parents, values)
                if xs in out:
                    continue
                wanted = holds(heaviest, xs) != (False if other is None else holds(other, xs))
                if wanted and add(xs):
                    found += 1
                    if found >= _TARGETED_FINDS:
                        break

        search(None)
        targets = scored[1 : _TARGETED_HEAVIEST + 1].tolist()
        rest = scored[_TARGETED_HEAVIEST + 1 :]
        if rest.shape[0]:
            w = self._weights(rest)
            k = min(_TARGETED_SAMPLED, rest.shape[0])
            targets += [int(h) for h in rng.choices(rest.tolist(), weights=w.tolist(), k=k)]
        for h in targets:
            search(self._predicates[h])
        return list(out)

    def _fresh(self, xs: IntList) -> bool:
        """Whether ``xs`` may be proposed: not labelled yet, and neither too long nor with too large an item."""
        return len(xs) <= MAX_LENGTH and all(abs(x) <= self._limit for x in xs) and xs not in self._labels

    def _parents(self) -> tuple[list[IntList], list[int]]:
        """Lists to mutate (the examples, then the latest positives found) and the values to mutate with."""
        positives = [xs for xs, label in self._labels.items() if label]
        recent = [xs for xs in reversed(positives) if xs not in self.examples]
        parents = [*self.examples, *recent][:_POSITIVE_PARENTS]
        seen = dict.fromkeys(_CONSTANTS)
        for xs in positives:
            seen.update(dict.fromkeys(xs))
        return parents, list(seen)

    def _probe(self, rng: random.Random, parents: Sequence[IntList], values: Sequence[int]) -> IntList:
        """One list for a targeted search: mostly a mutation of a positive, else a random or a short list."""
        r = rng.random()
        if r < 0.6 and parents:
            return tuple(self._mutate(rng, rng.choice(parents), values, parents))
        if r < 0.8:
            return tuple(_SHORT_RANDOM(rng, rng.randint(0, 3)))
        return tuple(self._random_list(rng))

    def _clamp(self, x: int) -> int:
        return max(-self._limit, min(self._limit, x))

    def _mutate(
        self, rng: random.Random, parent: IntList, values: Sequence[int], parents: Sequence[IntList]
    ) -> list[int]:
        xs = self._mutate_once(rng, list(parent), values, parents)
        if rng.random() < 0.25:
            xs = self._mutate_once(rng, xs, values, parents)
        return [self._clamp(x) for x in xs]

    @staticmethod
    def _mutate_once(
        rng: random.Random, xs: list[int], values: Sequence[int], parents: Sequence[IntList]
    ) -> list[int]:
        n = len(xs)
        if n == 0:
            return [rng.choice(values)]
        op = rng.randrange(16)
        i = rng.randrange(n)
        if op == 0:
            xs[i] = rng.choice(values) if rng.random() < 0.7 else rng.randint(-_WIDE, 3 * _WIDE)
        elif op == 1:
            xs[i] += rng.choice((-3, -2, -1, 1, 2, 3))
        elif op == 2:
            xs[i] = rng.choice((-xs[i], 2 * xs[i], xs[i] // 2, xs[i] * xs[i], xs[i] + 10, xs[i] - 10))
        elif op == 3:
            xs.insert(rng.randrange(n + 1), rng.choice(values))
        elif op == 4:
            xs.insert(i, xs[i])
        elif op == 5:
            del xs[i]
        elif op == 6:
            del xs[0 if rng.random() < 0.5 else -1]
        elif op == 7:
            j = rng.randrange(n)
            xs[i], xs[j] = xs[j], xs[i]
        elif op == 8:
            how = rng.randrange(4)  # reverse, sort either way or shuffle
            if how == 3:
                rng.shuffle(xs)
            else:
                xs = xs[::-1] if how == 0 else sorted(xs, reverse=how == 2)
        elif op == 9:
            # Continue the pattern at the end: the last difference, or the last ratio when it is whole.
            step = xs[-1] - xs[-2] if n >= 2 else rng.choice((1, 2))
            if n >= 2 and xs[-2] != 0 and xs[-1] % xs[-2] == 0 and rng.random() < 0.5:
                xs.append(xs[-1] * (xs[-1] // xs[-2]))
            elif n >= 2 and rng.random() < 0.3:
                xs.append(xs[-1] + xs[-2])
            else:
                xs.append(xs[-1] + step)
        elif op == 10:
            step = xs[1] - xs[0] if n >= 2 else rng.choice((1, 2))
            xs.insert(0, xs[0] - step)
        elif op == 11:
            del xs[rng.randint(1, n) :]
        elif op == 12:
            # Move an amount from one item to another: keeps the sum, changes everything else.
            j = rng.randrange(n)
            d = rng.choice((1, 2, 3, 5, 10))
            xs[i] += d
            xs[j] -= d
        elif op == 13:
            how = rng.randrange(3)
            if how == 0:
                k = rng.choice((2, 3, -1, 10))
                xs = [k * x for x in xs]
            elif how == 1:
                c = rng.choice((-2, -1, 1, 2, 5))
                xs = [x + c for x in xs]
            else:
                # Move a factor from one item to another: keeps the product.
                j = rng.randrange(n)
                k = rng.choice((2, 3, 5))
                if xs[j] % k == 0 and i != j:
                    xs[i] *= k
                    xs[j] //= k
                else:
                    xs[i] *= -1
                    xs[j] *= -1
        elif op == 14:
            xs.append(rng.choice(values) if rng.random() < 0.7 else rng.randint(-_WIDE, 3 * _WIDE))
        else:
            other = rng.choice(parents) if parents else tuple(xs)
            xs = xs + list(other) if rng.random() < 0.5 else list(other[: rng.randint(0, len(other))]) + xs
        return xs

    def _random_list(self, rng: random.Random) -> list[int]:
        n = rng.choice(_LENGTHS)
        proposal = _RANDOM_KINDS[rng.randrange(len(_RANDOM_KINDS))]
        xs = proposal(rng, n)
        # A geometric list can outgrow the item limit the solver keeps to.
        return [self._clamp(x) for x in xs] if proposal is _GEOMETRIC else xs


def play(solver: ListSolver, rule: Callable[[tuple[int, ...]], bool]) -> tuple[SolverHypothesis, int]:
    """Play a whole game with a fresh ``solver`` against a rule given as code (an exception counts as "No"):
    propose, label with the rule, observe, until ready. Returns the stated hypothesis and the rounds used."""
    while not solver.ready:
        tests = solver.propose()
        solver.observe(tests, [holds(rule, xs) for xs in tests])
    return solver.hypothesis(), solver.rounds_used
