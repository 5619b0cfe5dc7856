"""The WILT scientist: the ideal solver's elimination, then its tests spent on trying to break its hypothesis.

:class:`~wason.tasks.wilt.elimination.IdealSolver` finds the rule fast when the rule is in the listed space, and is
sure of a wrong rule when it is not. The scientist plays it until it would guess (or two thirds of the tests are
gone, or no listed hypothesis fits any more), and then, while tests remain:

1. **Gathers alternatives.** The listed hypotheses still consistent with every observation, and the simplest
   formulas of the built space (:mod:`wason.tasks.wilt.built_space`) consistent with them; when neither space has one,
   the built space fits thresholds to the observations. They are weighed in two levels (listed ones by their
   prior, built ones by family and simplicity) and gathered again every few tests.
2. **Designs tests.** Beside the listed candidate tests it makes tests for the heaviest alternatives: points
   where each holds (an equality solved for one variable: how ``x + y == 10`` gets its first positive) and the
   two sides of each boundary, narrowed by subdivision over typeable numbers (how ``x * y > 20`` is told from
   ``x * y >= 21``).
3. **Tests where they disagree**: the test whose answer is most uncertain over the surviving alternatives'
   weight. While one answer is rare (given at most three times) it hunts for it with integer triples chosen
   over the simple equalities (:mod:`wason.tasks.wilt.hunt`); once sure of its guess, and whenever the
   alternatives agree everywhere, it probes the guess beside its boundaries and far from everything tested
   (other magnitudes, signs and decimals).
4. **Tells spellings apart.** Once a positive is known, the last tests go to decimal points where the ways of
   writing the guess's linear equalities disagree in Python's floats, or where its thresholds' ways of writing
   that agree on whole numbers (``z > 6``, ``z >= 7``) do not (:mod:`wason.tasks.wilt.spelling`).

The guess is the heaviest consistent alternative (a listed one on a tie) in the spelling the answers allow, and
:meth:`Scientist.certainty` is its share of the surviving weight. With ``falsify=False`` it stops when the ideal
solver would, as the ideal solver. ``docs/solver.md`` gives the numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
import numpy.typing as npt

from wason.sandbox import Program, compile_rule
from wason.tasks.wilt.built_space import BuiltSpace, Formula, _term_values, formula_truth, shared_space
from wason.tasks.wilt.elimination import CONFIDENCE, IdealSolver, binary_entropy, weighted_rows
from wason.tasks.wilt.hunt import hunting_test
from wason.tasks.wilt.listed_space import _SCALE, HypothesisSpace, _format_scaled
from wason.tasks.wilt.spelling import (
    band_sides,
    beside,
    conjuncts,
    on_the_lines,
    thresholds,
    weighted_spellings,
)

F = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]
Point = tuple[float, float, float]

PRIOR_DECAY = 0.7
"""Weights of the alternatives fall as exp(-PRIOR_DECAY * complexity), as in the listed space."""

MAX_LISTED = 1000
"""At most this many consistent listed hypotheses join the alternatives (the heaviest by their prior)."""

MAX_BUILT = 1500
"""At most this many consistent built formulas join the alternatives (simplest first)."""

LISTED_MASS = 0.2
"""Share of the alternatives' weight held by the listed space's survivors (when there are both kinds)."""

JOINED_SHARE = 0.25
"""A rule of two ideas joined weighs this much of a single idea of the same complexity (as in the listed
space's prior, where conjunctions share a quarter of the mass)."""

PROBE_EVERY = 5
"""Once falsifying and sure of its guess (half the surviving weight), one test in this many is a probe of the
guess beside its boundaries or far from everything tested, chosen without asking the alternatives."""

SAME_HAND_OVER = 3
"""While every answer has been the same, the listed space's search stops once 1/SAME_HAND_OVER of the tests
are gone: a rarely true rule is more often outside it (an equality with any constant)."""

REWIDEN_EVERY = 6
"""The alternatives are gathered again after this many tests (and whenever none is left)."""

SURE_ENOUGH = 0.5
"""...unless the guess holds this share of the surviving weight."""

DESIGNED_FOR = 8
"""Tests along lines and across boundaries are designed for this many of the heaviest alternatives."""

SOLVED_FOR = 60
"""Tests that make its equalities hold are designed for this many of the heaviest alternatives with one."""

REGATHER_AFTER_FALL = 3
"""When the guess is refuted the alternatives are gathered again, if at least this many tests were made since they
last were (the survivors were gathered on other evidence: the simplest rule consistent with everything may not
be among them)."""

HUNT_FROM = 5
"""While one answer has been given at most HUNT_MINORITY times, three tests in four from a fifth of the budget on
hunt for it (:mod:`wason.tasks.wilt.hunt`)."""

HUNT_MINORITY = 3
"""Hunting goes on while the rarer answer has been given this often or less: ``z == 4 * x`` says yes at
(0, 0, 0), (0, 1, 0) and (0, -1, 0) before a test with x not 0 tells which multiple it is."""

EARLY_EVERY = 2
EARLY_BITS = 0.5
"""Until the ideal solver hands over, while its own search still expects this many bits from a test, only one
test in EARLY_EVERY hunts: its search tests ``(-20.5, -20.5, -20.5)`` for ``(x + y) / 2 == z and x < 0 and
y < 0 and z < 0``, which no hunted equality is."""

SPELL_TESTS = 3
"""The last tests, once a positive is known, tell apart the spellings of the guess's linear equalities and
thresholds that agree with every answer (:mod:`wason.tasks.wilt.spelling`)."""

SPELL_BAND = 1
"""...and this many more when two of its thresholds are on one side, a band (``y >= 5 and y <= 15``): each end
has its own ways (``y > 4``, ``y < 16``), and three tests did not tell both ends' ways apart."""

SPELL_SURE_FROM = 2
"""While the rarer answer has come fewer times than this, the last tests spell the guess only if it holds at least
half the surviving weight: after a single yes at (1, 9, 15) with two tests left, ``x + y == 10`` and
``y == z - x - 5`` are still to be told apart."""

FIRST_HUNT: Point = (1.0, 2.0, 3.0)
"""The first hunting test: counting, the triple a person tries first (``x + 1 == y and y + 1 == z``)."""

SCATTERED: tuple[Point, ...] = tuple(
    (float(a), float(b), float(c))
    for a, b, c in np.random.default_rng(16).integers(-25, 26, (12, 3)).tolist()
)
"""Plain triples of moderate size in no pattern (seeded): the hunting tests once no equality hunted for is left
(a rule true only in some range, ``10 < z < 20``, is more often true of them than of small or patterned triples)."""

_GRID: tuple[float, ...] = tuple(
    sorted(
        set(range(-20, 21))
        | {25, 30, 40, 50, 60, 75, 99, 100, 150, 200, 500, 999}
        | {-25, -30, -50, -100, -200, -999}
        | {k / 2 for k in range(-11, 12, 2)}
        | {0.1, 0.2, 0.3, -0.1, -0.3}
    )
)
_BASES: tuple[tuple[float, float], ...] = ((0, 0), (1, 2), (3, 3), (-2, 5), (7, 4), (10, -3))


def label(v: float) -> str:
    """How a typeable value is typed (``5``, ``-0.25``), as the listed candidates' labels are written."""
    return _format_scaled(round(v * _SCALE))


@dataclass
class _Alternative:
    text: str  # lambda
    complexity: int
    listed: int  # index in the listed space, or -1
    formula: Formula | None
    joined: bool  # two ideas joined by "and" or "or"


class Scientist:
    """Plays WILT: the ideal solver first (over the listed space and its typeable (C, 3) candidates, stopping at
    ``confidence``), then falsification over a widened space: ``falsify=False`` guesses when the ideal solver
    would, for protocols that reward fewer tests. ``built``: the built space (default: the process's one for
    the seed, :func:`~wason.tasks.wilt.built_space.shared_space`)."""

    def __init__(
        self,
        space: HypothesisSpace,
        candidates: npt.ArrayLike,
        *,
        max_tests: int = 30,
        falsify: bool = True,
        confidence: float = CONFIDENCE,
        built: BuiltSpace | None = None,
    ) -> None:
        self.ideal = IdealSolver(space, candidates, max_tests=max_tests, confidence=confidence)
        self.space = space
        self.candidates = self.ideal.candidates
        self._candidate_columns = np.ascontiguousarray(self.candidates.T)  # x, y and z of every candidate
        self.max_tests = max_tests
        self.falsify = falsify
        self._built = built
        self.history: list[tuple[Point, bool]] = []
        self.widened = 0  # how many times the alternatives were gathered
        self.last_information = 0.0  # expected bits of the last test proposed (0 for a far test)
        self._alts: list[_Alternative] = []
        self._table: B = np.zeros((0, 0), dtype=np.bool_)  # alternatives x columns
        self._columns: F = np.zeros((0, 3))
        self._designed_index: dict[tuple[float, ...], int] = {}
        self._edges: dict[int, F] = {}  # alternative -> typeable points on both sides of its boundaries
        self._weights: F = np.zeros(0)
        self._alive: B = np.zeros(0, dtype=np.bool_)
        self._tested: B = np.zeros(0, dtype=np.bool_)
        self._stale = True
        self._since_widened = 0
        self._exhausted = False  # widened on the current evidence and nothing disagreed
        self._spelled: dict[str, list[tuple[str, Program, float]]] = {}
        self._spell_base: str | None = None  # the guess whose spellings the last tests tell apart
        self._far_side = True  # the guess's answer wanted at the next far candidate (they alternate)
        self._distance: tuple[F, int, F] | None = None  # scale, tests counted, candidates' distance to them

    # ---- state ----------------------------------------------------------------------------------------------

    @property
    def tests_used(self) -> int:
        """Observations made so far."""
        return len(self.history)

    @property
    def falsifying(self) -> bool:
        """True once the ideal solver would have guessed and the tests go to falsification."""
        return self.widened > 0

    def built(self) -> BuiltSpace:
        """The built space (the process's one for the seed unless one was given)."""
        if self._built is None:
            self._built = shared_space(self.space.seed)
        return self._built

    def certainty(self) -> float:
        """The guessed hypothesis's share of the surviving weight (the ideal solver's, before widening)."""
        if not self.falsifying or not self._alive.any():
            return self.ideal.posterior_top()[1]
        w = self._weights[self._alive]
        return float(w.max() / w.sum())

    # ---- the game -------------------------------------------------------------------------------------------

    def next_test(self) -> Point | None:
        """The next point to test, or None when it is time to guess."""
        if self.tests_used >= self.max_tests:
            return None
        left = self.max_tests - self.tests_used
        # (the guess is read only where a band's extra test could begin)
        spell = left <= SPELL_TESTS or (left <= SPELL_TESTS + SPELL_BAND and left <= self._spelling_tests())
        chosen = self._spelling_test() if spell and self._spelling_due() else None
        if chosen is None and self._hunting():
            chosen = self._hunting_test()
        if chosen is not None:
            self.last_information = 0.0
            return chosen
        if not self.falsifying:
            # the listed space holds the rule while some hypothesis agrees with everything seen
            index = self.ideal.choose() if self.ideal.consistent and not self._hand_over() else None
            if index is not None:
                self.last_information = float(self.ideal.information()[index])
                return _point(self.candidates[index])
            if not self.falsify and self.ideal.consistent:
                return None
        if self.falsifying and self.tests_used % PROBE_EVERY == PROBE_EVERY - 1 and self._sure():
            # a falsification probe whatever the alternatives say: beside the guess's boundaries or far from
            # everything tested (other magnitudes, signs, decimals), for rules no alternative anticipates
            self.last_information = 0.0
            probe = self._far_test()
            if probe is not None:
                return probe
        for _ in range(2):
            if self._stale:
                self._widen()
            best = self._most_informative()
            if best is not None:
                return best
            if self._exhausted:
                break
            self._stale = True
        self.last_information = 0.0
        return self._far_test()

    def _spelling_tests(self) -> int:
        """How many of the last tests go to the guess's spellings: SPELL_TESTS, and SPELL_BAND more for a band
        (two thresholds on one side)."""
        base = self._spell_base if self._spell_base is not None else self._guess()
        return SPELL_TESTS + (SPELL_BAND if band_sides(thresholds(base)) else 0)

    def _spelling_due(self) -> bool:
        """Whether the last tests go to the guess's spellings: once a positive is known, unless the rarer answer
        came only once and the guess holds less than half the surviving weight (then many equalities pass
        through that one point, and telling them apart comes first)."""
        return any(r for _, r in self.history) and (self._rarer() >= SPELL_SURE_FROM or self._sure())

    def _sure(self) -> bool:
        """Whether the guess holds at least half the surviving weight (so probing it is what is left to do)."""
        if self._stale:
            self._widen()
        return bool(self._alts) and bool(self._alive.any()) and self.certainty() >= 0.5

    def _hunting(self) -> bool:
        """Whether the next test hunts for the rarer answer: three tests in four once a fifth of the tests are
        gone while it has been given at most HUNT_MINORITY times (how a rarely true or rarely false rule
        looks)."""
        if not (
            self.falsify
            and HUNT_FROM * self.tests_used >= self.max_tests
            and self.tests_used % 4 != 0
            and self._rarer() <= HUNT_MINORITY
        ):
            return False
        early = not self.falsifying and not self._hand_over() and self.ideal.consistent
        if early and self.ideal.information().max() >= EARLY_BITS:
            # until the ideal solver hands over, its own search keeps half the tests while it still expects to
            # learn enough from one
            return self.tests_used % EARLY_EVERY == EARLY_EVERY - 1
        return True

    def _points(self) -> F:
        """The tested points, shape (tests, 3)."""
        return np.array([p for p, _ in self.history], dtype=np.float64).reshape(-1, 3)

    def _all_same(self) -> bool:
        """Whether every answer so far has been the same."""
        return len({r for _, r in self.history}) < 2

    def _rarer(self) -> int:
        """How many answers were the rarer one."""
        yes = sum(1 for _, r in self.history if r)
        return min(yes, len(self.history) - yes)

    def _hand_over(self) -> bool:
        """Whether the listed space's search should stop before the ideal solver would: half the tests are
        gone (two thirds of them: the ideal solver's own search finds most of its rules by then)."""
        if not self.falsify:
            return False
        if 3 * self.tests_used >= 2 * self.max_tests:
            return True
        return self._all_same() and SAME_HAND_OVER * self.tests_used >= self.max_tests

    def observe(self, point: Sequence[float], result: bool) -> None:
        """Record the rule's answer at a point."""
        key = _point(point)
        self.ideal.observe(key, result)
        self.history.append((key, bool(result)))
        if self._alts:
            column = self._column(key)
            if column is not None:
                truth = self._table[:, column]
                self._tested[column] = True
            else:
                truth = self._truth_at(np.array([key]))[:, 0]
            # the guess before this answer, needed only if a fall would be reason enough to gather again
            guessed = self._best() if self._since_widened + 1 >= REGATHER_AFTER_FALL else None
            self._alive &= truth == bool(result)
            self._since_widened += 1
            if (
                not self._alive.any()
                or (
                    self._since_widened >= REGATHER_AFTER_FALL
                    and guessed is not None
                    and not self._alive[guessed]
                )
                or (self._since_widened >= REWIDEN_EVERY and self.certainty() < SURE_ENOUGH)
            ):
                # nothing is left, the guess has just been refuted (the survivors were gathered on other
                # evidence), or it is time to look again while unsure
                self._stale = True
        self._exhausted = False

    def _best(self) -> int | None:
        """The heaviest surviving alternative (a listed one on a tie), if any."""
        if not (self._alts and self._alive.any()):
            return None
        alive = np.flatnonzero(self._alive)
        return min(alive.tolist(), key=lambda i: (-self._weights[i], self._alts[i].listed < 0, i))

    def exclude(self, point: Sequence[float]) -> None:
        """Never propose this point again (e.g. the game refused it)."""
        key = _point(point)
        index = self.ideal._table.index.get(key)
        if index is not None:
            self.ideal.exclude(index)
        column = self._column(key) if self._alts else None
        if column is not None:
            self._tested[column] = True

    def guess(self) -> str:
        """The guess, spelled the first usual way that agrees with every answer (see :mod:`.spelling`), chosen
        among alternatives gathered again if the last answers made them stale (a ball fitted only to every
        answer beats a conjunction that survived from fewer); the ideal solver's guess while it kept the
        tests."""
        if self._stale and self.falsifying:
            self._widen()
        if self._spell_base is not None:
            # the spellings the spelling tests were for that weigh 1: the guess's and its parts' that agree with
            # them on whole numbers (not a way that moves a threshold past a whole number)
            alive = [option for option in self._spellings_alive(self._spell_base) if option[2] >= 1.0]
            if alive:
                return alive[0][0]
        base = self._guess()
        alive = self._spellings_alive(base)
        return alive[0][0] if alive else base

    def _spellings_alive(self, base: str) -> list[tuple[str, Program, float]]:
        """The spellings of the guess that agree with every answer, with their weights (none when it has only
        one)."""
        options = self._spelled.get(base)
        if options is None:
            texts = weighted_spellings(base)
            # its own spelling first: kept unless an answer refutes it
            texts = [(base, 1.0)] + [(t, w) for t, w in texts if t != base]
            if len(texts) > 1:
                # before it, the spellings of each part of a conjunction alone: simpler, if they agree with
                # every answer
                parts = [way for part in conjuncts(base) for way in weighted_spellings(part)]
                first: dict[str, float] = {}
                for t, w in parts + texts:
                    first.setdefault(t, w)
                texts = list(first.items())
            options = [(t, compile_rule(t), w) for t, w in texts] if len(texts) > 1 else []
            self._spelled[base] = options
        if not options or not self.history:
            return options
        points, answers = self._points(), np.array([r for _, r in self.history], dtype=np.bool_)
        return [option for option in options if np.array_equal(option[1].evaluate(points), answers)]

    def _spelling_test(self) -> Point | None:
        """A decimal point on the guess's lines, or a step beside a tested point, where the spellings that agree
        with every answer disagree most evenly by weight (None when they agree everywhere tried)."""
        # the guess before the first spelling test (those tests refute the built space's own spelling)
        base = self._spell_base if self._spell_base is not None else self._guess()
        alive = self._spellings_alive(base)
        if len(alive) < 2:
            return None
        points = np.concatenate(
            [on_the_lines(base, seed=self.tests_used), typeable_points(beside(self._points()))]
        )
        seen = {p for p, _ in self.history}
        points = points[[tuple(p) not in seen for p in points.tolist()]]
        if points.shape[0] == 0:
            return None
        weights = np.array([w for _, _, w in alive])
        truth = np.array([prog.evaluate(points) for _, prog, _ in alive], dtype=np.float64)
        h = binary_entropy(weights @ truth / weights.sum())
        best = int(np.argmax(h))
        if h[best] <= 1e-9:
            return None
        self._spell_base = base
        return _point(points[best])

    def _guess(self) -> str:
        """The simplest consistent hypothesis (listed first on a tie); the ideal solver's guess when nothing the
        scientist gathered is consistent."""
        best = self._best()
        if best is not None:
            return self._alts[best].text
        if self.history and not self.ideal.consistent:
            found = self._consistent_built(MAX_BUILT)
            if found:
                return found[0].lambda_text
        return self.ideal.guess()

    # ---- widening -----------------------------------------------------------------------------------------

    def _consistent_built(self, limit: int) -> list[Formula]:
        # thresholds are fitted to the observations only when the listed space has nothing consistent either
        answers = [r for _, r in self.history]
        return self.built().consistent(self._points(), answers, limit, widen=not self.ideal.consistent)

    def _widen(self) -> None:
        self.widened += 1
        self._stale = False
        self._since_widened = 0
        alts: list[_Alternative] = []
        if self.ideal.consistent:
            alive = self.ideal._alive
            # the heaviest first, the first listed on a tie
            listed = alive[np.lexsort((alive, -self.space.prior[alive]))][:MAX_LISTED].tolist()
            for h in listed:
                hyp = self.space.hypotheses[h]
                alts.append(_Alternative(hyp.lambda_text, hyp.complexity, h, None, "+" in hyp.family))
        for f in self._consistent_built(MAX_BUILT):
            alts.append(_Alternative(f.lambda_text, f.complexity, -1, f, len(f.atoms) > 1))
        self._alts = alts
        if not alts:
            self._table = np.zeros((0, 0), dtype=np.bool_)
            self._alive = np.zeros(0, dtype=np.bool_)
            self._exhausted = True
            return
        self._weights = self._prior(alts)
        self._alive = np.ones(len(alts), dtype=np.bool_)
        designed = self._design()
        self._columns = np.concatenate([self.candidates, designed], axis=0)
        n = self.candidates.shape[0]
        self._designed_index = {tuple(row): n + i for i, row in enumerate(designed.tolist())}
        self._table = np.concatenate(
            [self._truth_at(self.candidates, on_candidates=True), self._truth_at(designed)], axis=1
        )
        self._tested = np.zeros(self._columns.shape[0], dtype=np.bool_)
        for p, _ in self.history:
            i = self._column(p)
            if i is not None:
                self._tested[i] = True
        # candidates the ideal solver was told never to propose stay excluded
        self._tested[: self.candidates.shape[0]] |= self.ideal._tested

    def _column(self, point: tuple[float, ...]) -> int | None:
        """The column of a point in the alternatives' table, if it is one."""
        found = self.ideal._table.index.get(point)
        return found if found is not None else self._designed_index.get(point)

    def _prior(self, alts: Sequence[_Alternative]) -> F:
        """Weights of the alternatives.

        The listed ones share LISTED_MASS in proportion to their prior in the listed space. The built ones share
        the rest with the listed space's two-level shape: a family (the same atoms but for their constants,
        ``x + y == c``) weighs ``exp(-PRIOR_DECAY * complexity)`` of its simplest member (a joined formula
        JOINED_SHARE of that), and its members share it by their own simplicity. So the many constants of one
        idea do not outweigh another idea, and a test that rules out one constant of each of many equalities
        is worth what it is.
        """
        listed = np.array([a.listed >= 0 for a in alts], dtype=np.bool_)
        weights = np.zeros(len(alts), dtype=np.float64)
        if listed.any():
            prior = self.space.prior[[a.listed for a in alts if a.listed >= 0]]
            weights[listed] = prior / prior.sum() * (LISTED_MASS if not listed.all() else 1.0)
        if not listed.all():
            built_ids = np.flatnonzero(~listed)
            formulas = [alts[k].formula for k in built_ids.tolist()]
            first = self.built().shapes([f.atoms[0] for f in formulas if f is not None])
            second = self.built().shapes([f.atoms[-1] for f in formulas if f is not None])
            kind = np.array([0 if len(f.atoms) == 1 else 1 + (f.connective == "or") for f in formulas if f])
            # a family: the same connective and atom shapes, whatever the constants
            # numbered in the order of (kind, lower shape, higher shape), as sorting those rows would: the shapes
            # ranked first, so that one number per formula keeps that order and cannot overflow
            shapes, rank = np.unique(np.concatenate([first, second]), return_inverse=True)
            lower = np.minimum(rank[: first.shape[0]], rank[first.shape[0] :])
            higher = np.maximum(rank[: first.shape[0]], rank[first.shape[0] :])
            keys = (kind * shapes.shape[0] + lower) * shapes.shape[0] + higher
            _, family = np.unique(keys, return_inverse=True)
            raw = np.exp(
                -PRIOR_DECAY * np.array([alts[k].complexity for k in built_ids.tolist()], dtype=np.float64)
            )
            most = np.zeros(family.max() + 1)
            np.maximum.at(most, family, raw)
            total = np.bincount(family, weights=raw)
            mass = most[family] * np.where(kind > 0, JOINED_SHARE, 1.0)
            built = mass * raw / total[family]
            weights[~listed] = built / built.sum() * ((1.0 - LISTED_MASS) if listed.any() else 1.0)
        return weights

    def _truth_at(self, points: F, *, on_candidates: bool = False) -> B:
        """Every alternative at each point (``on_candidates``: the points are the listed candidates, whose
        truth table the ideal solver holds)."""
        out = np.empty((len(self._alts), points.shape[0]), dtype=np.bool_)
        if points.shape[0] == 0:
            return out
        listed = [k for k, a in enumerate(self._alts) if a.listed >= 0]
        built = [k for k, a in enumerate(self._alts) if a.formula is not None]
        if listed:
            rows = np.array([self._alts[k].listed for k in listed], dtype=np.intp)
            out[listed] = (
                self.ideal._table.rows(rows) if on_candidates else self.space.evaluate_rows(rows, points)
            )
        if built:
            formulas = [a.formula for a in self._alts if a.formula is not None]
            out[built] = formula_truth(self.built(), formulas, points, keep=on_candidates)
        return out

    def _design(self) -> F:
        """Tests made for the heaviest alternatives: where each holds, and both sides of its boundary."""
        self._edges = {}
        order = np.argsort(-self._weights, kind="stable")[:DESIGNED_FOR]
        bases = list(_BASES) + [(p[1], p[2]) for p, r in self.history[-4:] if r]
        grid = np.array(_GRID, dtype=np.float64)
        n = grid.shape[0]
        base_array = np.array(bases, dtype=np.float64)
        # the lines through each base point along each variable
        lines = [np.insert(np.tile(ab, (n, 1)), at, grid, axis=1) for ab in base_array for at in range(3)]
        line_points = np.concatenate(lines, axis=0)
        made: list[F] = []
        for k in order.tolist():
            program = partial(self._truth_of, k)
            truth = program(line_points)
            hits = np.flatnonzero(truth)
            made.append(line_points[hits[:: max(1, hits.shape[0] // 3)][:3]])
            per_line = truth.reshape(len(lines), n)
            li, fi = np.nonzero(per_line[:, 1:] != per_line[:, :-1])
            if li.shape[0]:
                # the first and the last flip of a few lines (a band, 5 < z <= 50, has a boundary at each end)
                # (np.nonzero gives the lines in order: a line's flips are a run, each run's ends are wanted)
                change = li[1:] != li[:-1]
                firsts = np.flatnonzero(np.r_[True, change])[:_FLIPS]
                lasts = np.flatnonzero(np.r_[change, True])[:_FLIPS]
                pick = np.union1d(firsts, lasts)
                lo = line_points[li[pick] * n + fi[pick]]
                hi = line_points[li[pick] * n + fi[pick] + 1]
                edges = _bisect(program, lo, hi)
                made.append(edges)
                self._edges[k] = typeable_points(edges)
        atoms = self.built().atoms
        heaviest = [self._alts[k].formula for k in np.argsort(-self._weights, kind="stable").tolist()]
        with_equality = [f for f in heaviest if f is not None and any(atoms[a].op == "==" for a in f.atoms)]
        made.extend(self._solve(with_equality[:SOLVED_FOR], base_array))
        pts = typeable_points(np.concatenate(made, axis=0)) if made else np.zeros((0, 3))
        return unique_points(pts)

    def _solve(self, formulas: Sequence[Formula], bases: F) -> list[F]:
        """Points where each formula's equalities hold: each is solved for one variable in turn, along lines
        through the base points (a linear side is solved exactly by its secant; others are found when close).
        The formulas' first equalities are solved together."""
        atoms = self.built().atoms
        seeds = np.concatenate(
            [np.insert(bases, k, 0.0, axis=1) for k in range(3)] + [np.array(_DECIMAL_SEEDS)], axis=0
        )
        equalities = [[a for a in f.atoms if atoms[a].op == "=="] for f in formulas]
        firsts = sorted({e[0] for e in equalities if e})
        at_seeds = dict(zip(firsts, self._solved(firsts, seeds[-_SOLVED:]), strict=True))
        out: list[F] = []
        for eqs in equalities:
            if not eqs:
                continue
            found = [seeds, at_seeds[eqs[0]]]
            for a in eqs[1:]:
                found.append(self._solved([a], np.concatenate(found, axis=0)[-_SOLVED:])[0])
            out.append(np.concatenate(found[1:], axis=0))
        return out

    def _solved(self, equalities: Sequence[int], pts: F) -> list[F]:
        """For each equality atom, the points ``pts`` with one coordinate (each in turn) replaced by the
        secant's root of ``left - right`` along it."""
        if not equalities:
            return []
        space = self.built()
        atoms = [space.atoms[a] for a in equalities]
        term_ids = sorted({t for atom in atoms for t in (atom.left, atom.right) if t >= 0})
        row = {t: k for k, t in enumerate(term_ids)}
        left = np.array([row[atom.left] for atom in atoms], dtype=np.intp)
        right = np.array([row.get(atom.right, 0) for atom in atoms], dtype=np.intp)
        has_right = np.array([atom.right >= 0 for atom in atoms], dtype=np.bool_)[:, None]
        const = np.array([atom.const for atom in atoms], dtype=np.float64)[:, None]
        # the grammar's terms, or terms made for observations (a fitted relation's sides)
        terms = [space.terms[t] for t in term_ids]
        parts: list[list[F]] = [[] for _ in atoms]
        for position in range(3):
            at0, at1 = pts.copy(), pts.copy()
            at0[:, position], at1[:, position] = 0.0, 1.0
            with np.errstate(all="ignore"):
                v0, v1 = _term_values(terms, at0), _term_values(terms, at1)
                g0 = v0[left] - np.where(has_right, v0[right], const)
                g1 = v1[left] - np.where(has_right, v1[right], const)
                root = -g0 / (g1 - g0)
            for k in range(len(atoms)):
                ok = np.isfinite(root[k])
                solved = pts[ok].copy()
                solved[:, position] = root[k][ok]
                parts[k].append(solved)
        return [np.concatenate(p, axis=0) for p in parts]

    def _most_informative(self) -> Point | None:
        if not self._alts or not self._alive.any():
            return None
        w = self._weights[self._alive]
        p = weighted_rows(self._table, np.flatnonzero(self._alive), self._weights) / w.sum()
        h = binary_entropy(p)
        h[self._tested] = -1.0
        best = int(np.argmax(h))
        if h[best] <= 1e-9:
            self._exhausted = True
            return None
        self.last_information = float(h[best])
        return _point(self._columns[best])

    def _hunting_test(self) -> Point | None:
        """While every answer has been the same, :data:`FIRST_HUNT`, then the integer triple that makes true the
        most prior weight of the equalities no test has made true (:func:`~wason.tasks.wilt.hunt.hunting_test`),
        then :data:`SCATTERED` in turn; after a rarer answer, the triple that splits the weight of the
        equalities still possible most evenly (None when none is)."""
        tested = {p for p, _ in self.history}
        if self._all_same() and FIRST_HUNT not in tested:
            return FIRST_HUNT
        found = hunting_test(self._points(), [r for _, r in self.history])
        if found is not None or not self._all_same():
            return found
        return next((t for t in SCATTERED if t not in tested), None)

    def _far_test(self) -> Point | None:
        """A test of the guess where nothing gathered disagrees with it: in turn, an untested point beside one
        of its boundaries, on the side where the guess says the opposite of the last answer, and an untested
        candidate, where the guess says yes and no in turn (not the opposite of the last answer: that would put
        every far candidate on one side, the boundary points taking the other); either way the one farthest from
        everything tested."""
        tested = self._points()
        best = self._best()
        seen = {p for p, _ in self.history}
        if best is not None and best in self._edges and self.tests_used % 2 == 0:
            edges = self._edges[best]
            fresh = np.array([tuple(e) not in seen for e in edges.tolist()], dtype=np.bool_)
            if fresh.any():
                pool = edges[fresh]
                says = self._truth_of(best, pool)
                want = not self.history[-1][1] if self.history else True
                return _point(pool[_farthest(pool, tested, says, want)])
        free = ~self.ideal._tested
        if not free.any():
            return None
        if best is not None:
            says = self._table[best, : self.candidates.shape[0]]
        else:
            says = compile_rule(self._guess()).evaluate(self.candidates)
        idx = np.flatnonzero(free)
        want = self._far_side
        self._far_side = not want
        dist = self._candidate_distance(tested)[idx] if tested.shape[0] else None
        return _point(self.candidates[idx[_farthest(self.candidates[idx], tested, says[idx], want, dist)]])

    def _candidate_distance(self, tested: F) -> F:
        """Each candidate's scaled distance to the nearest tested point (see :func:`_farthest`), kept up to date
        from the last call while the scale stays the same."""
        scale = np.abs(tested).max(axis=0) + 1.0
        kept = self._distance
        if kept is not None and np.array_equal(kept[0], scale) and kept[1] <= tested.shape[0]:
            dist, start = kept[2], kept[1]
        else:
            dist, start = np.full(self.candidates.shape[0], np.inf), 0
        columns = self._candidate_columns
        for t in tested[start:]:
            # the scaled distances summed x, then y, then z, as a row sum adds them
            d = np.abs(columns[0] - t[0]) / scale[0]
            d += np.abs(columns[1] - t[1]) / scale[1]
            d += np.abs(columns[2] - t[2]) / scale[2]
            np.minimum(dist, d, out=dist)
        self._distance = (scale, tested.shape[0], dist)
        return dist

    def _truth_of(self, k: int, points: F) -> B:
        alt = self._alts[k]
        if alt.formula is not None:
            table = formula_truth(self.built(), [alt.formula], points)
        else:
            table = self.space.evaluate_rows([alt.listed], points)
        out: B = table[0]
        return out


def _farthest(pool: F, tested: F, says: B, want: bool, distance: F | None = None) -> int:
    """Index of the point of ``pool`` farthest from every tested point (scaled by the tested magnitudes), among
    those where the guess says ``want`` if any (``distance``: the pool's, if known)."""
    choice = np.flatnonzero(says == want)
    if choice.shape[0] == 0:
        choice = np.arange(pool.shape[0])
    if tested.shape[0] == 0:
        return int(choice[0])
    if distance is not None:
        return int(choice[int(np.argmax(distance[choice]))])
    scale = np.abs(tested).max(axis=0) + 1.0
    candidates = pool[choice]
    dist = np.full(choice.shape[0], np.inf)
    for t in tested:  # a tested point at a time: no (pool x tested x 3) array
        np.minimum(dist, np.abs((candidates - t) / scale).sum(axis=1), out=dist)
    return int(choice[int(np.argmax(dist))])


def _point(row: npt.ArrayLike) -> Point:
    a, b, c = (float(v) for v in np.asarray(row, dtype=np.float64).reshape(3))
    return (a, b, c)


def typeable_values(v: F) -> F:
    """Each value rounded to the nearest typeable one (three significant digits, at most three decimals);
    nan where none is near (beyond 999, or not finite)."""
    out = np.full(v.shape, np.nan)
    finite = np.isfinite(v) & (np.abs(v) < 999.5)
    a = np.abs(np.where(finite, v, 1.0))
    magnitude = np.floor(np.log10(np.where(a > 0, a, 1.0)))
    decimals = np.clip(2 - magnitude, 0, 3)
    scale = 10.0**decimals
    # an integer over a power of ten: the nearest double to the decimal, as parsing its text gives
    out[finite] = (np.round(v * scale) / scale)[finite]
    out[out == 0] = 0.0  # no negative zero
    return out


def unique_points(points: F) -> F:
    """``np.unique(points, axis=0)`` for finite points without negative zeros (typeable ones), sorting the
    columns instead of the rows as records (ten times faster)."""
    if points.shape[0] == 0:
        return points
    ordered = points[np.lexsort((points[:, 2], points[:, 1], points[:, 0]))]
    fresh = np.r_[True, (ordered[1:] != ordered[:-1]).any(axis=1)]
    out: F = ordered[fresh]
    return out


def typeable_points(points: F) -> F:
    """The rows of ``points`` rounded to typeable values; rows with a value that cannot be typed dropped."""
    t = typeable_values(np.asarray(points, dtype=np.float64).reshape(-1, 3))
    return t[np.isfinite(t).all(axis=1)]


_FLIPS = 6  # lines per alternative whose first and last boundaries are narrowed
_SOLVED = 40  # points an equality is solved from
_DECIMAL_SEEDS = (
    (0.1, 0.2, 0.3),
    (1.5, 2.3, 0.7),
    (2.5, 0.1, 1.2),
    (-0.3, 0.6, 4.1),
    (0.7, 1.1, 2.2),
    (3.3, 0.2, 1.9),
)


def _bisect(program: Callable[[F], B], lo: F, hi: F) -> F:
    """Typeable points on both sides of each boundary between ``lo[i]`` and ``hi[i]`` (which differ in one
    coordinate and where the program's answers differ), narrowed three times by ten-step subdivision."""
    steps = np.linspace(0.0, 1.0, 11)[None, :, None]
    for _ in range(3):
        pts = typeable_values(lo[:, None, :] + steps * (hi - lo)[:, None, :])  # (pairs, 11, 3)
        ok = np.all(np.isfinite(pts), axis=(1, 2))
        lo, hi, pts = lo[ok], hi[ok], pts[ok]
        if lo.shape[0] == 0:
            break
        truth = program(pts.reshape(-1, 3)).reshape(pts.shape[0], 11)
        flip = truth[:, 1:] != truth[:, :-1]
        has = flip.any(axis=1)
        first = np.argmax(flip, axis=1)
        rows = np.arange(pts.shape[0])
        lo = np.where(has[:, None], pts[rows, first], lo)
        hi = np.where(has[:, None], pts[rows, first + 1], hi)
    return np.concatenate([lo, hi], axis=0)
