"""A procedurally generated WILT split (the paper's "future work"), so no model can have memorised the rules.

Rules are drawn from the solver's grammar space (``listed_space.build_space``) by difficulty tier, in rotation
easy / medium / hard, where the tier is the complexity third of the rule's grammar entry; within a tier a family is
drawn first, then a rule of that family, so the many conjunctions do not crowd out single ideas. A drawn rule is
kept only if it is

* new: its extension on the judge's probe set differs from every rule kept before (de-duplication by meaning,
  not by text);
* not near-constant: among the test triples a player can type (the solver's candidates), both True and False
  answers make up at least ``MIN_SHARE`` of them;
* identifiable within 30 tests: the ideal-scientist solver, playing the real game, ends with a guess the judge
  finds equivalent.

Same seed, same rules, byte for byte; every rule records the generator, its version, the seed, its tier, family
and complexity.
"""

from __future__ import annotations

import hashlib
import random
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from wason.sandbox import Inputs, Program, compile_rule
from wason.tasks.wilt.game import WiltConfig
from wason.tasks.wilt.judge import judge
from wason.tasks.wilt.probes import probe_set
from wason.tasks.wilt.rules import WiltRule, _compiled

if TYPE_CHECKING:
    from wason.tasks.wilt.elimination import IdealSolver
    from wason.tasks.wilt.listed_space import HypothesisSpace

GENERATOR = "wilt-grammar"
GENERATOR_VERSION = "1"
TIERS = ("easy", "medium", "hard")
MIN_SHARE = 0.005
MAX_N = 9_519
"""The most rules of a generated split (``--n``): every usable rule of the grammar, so that any seed yields this
many. Of the 10,470 hypotheses whose share of True is neither tiny nor overwhelming, 9,519 are identifiable and
differ in meaning on the probe set. Neither check depends on the seed (the seed only orders the draw), so every
seed yields the same number; a ``slow`` test draws them all for two seeds (about 25-55 s each) and finds the
grammar used up after exactly this many. The first ``k`` rules of a split are the same whatever its ``n``."""

SERVED_N = 200
"""The most rules of a generated split asked for over HTTP (``wason serve``): about a second to draw, so that any
game or run a request asks for starts within seconds; four times the published full split."""


def tier_of(complexity: int, cuts: tuple[float, float]) -> str:
    """easy / medium / hard by complexity thirds of the grammar space."""
    if complexity <= cuts[0]:
        return "easy"
    return "medium" if complexity <= cuts[1] else "hard"


@cache
def generate_split(*, seed: int, n: int) -> list[WiltRule]:
    """``n`` generated rules for ``seed`` (deterministic)."""
    if not 1 <= n <= MAX_N:
        raise ValueError(f"--n must be between 1 and {MAX_N}")
    from wason.tasks.wilt.elimination import _table
    from wason.tasks.wilt.listed_space import build_space, candidate_tests

    space = build_space(0)
    candidates, _typed = candidate_tests(0)
    table = _table(space, candidates)  # computed once and shared with the solver
    # the share of True among the candidates, as the mean of the unpacked rows would give it
    share_true = np.bitwise_count(table.packed).sum(axis=1, dtype=np.int64) / table.n_columns
    complexity = np.array([h.complexity for h in space.hypotheses], dtype=np.float64)
    cuts = (float(np.quantile(complexity, 1 / 3)), float(np.quantile(complexity, 2 / 3)))
    # tier -> family -> hypotheses; a family is drawn first so that the many conjunctions do not crowd out
    # the single-idea families
    by_tier: dict[str, dict[str, list[int]]] = {t: {} for t in TIERS}
    for i, h in enumerate(space.hypotheses):
        if MIN_SHARE <= share_true[i] <= 1 - MIN_SHARE:
            by_tier[tier_of(h.complexity, cuts)].setdefault(h.family, []).append(i)
    rng = random.Random(seed)
    for families in by_tier.values():
        for pool in families.values():
            rng.shuffle(pool)

    probes = probe_set(0).inputs
    identifiable = _Identifiability(space)
    draws = _draws(by_tier, rng)
    seen: set[bytes] = set()
    rules: list[WiltRule] = []
    # A worker thread computes the extensions of the next rules while this one plays their games: both are
    # mostly array work, which leaves the interpreter free.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="wilt-extensions") as worker:
        ahead: deque[tuple[str, int, Program, Future[bytes]]] = deque()
        while len(rules) < n:
            while len(ahead) < AHEAD and (drawn := next(draws, None)) is not None:
                tier, index = drawn
                program = _compiled(space.hypotheses[index].lambda_text)  # the run's games compile it again
                ahead.append((tier, index, program, worker.submit(_extension, program, probes)))
            if not ahead:
                raise ValueError(f"the grammar yields only {len(rules)} usable rules; ask for fewer")
            tier, index, program, future = ahead.popleft()
            h = space.hypotheses[index]
            # (both checks are pure, so their order does not matter)
            if not identifiable(index, program) or (extension := future.result()) in seen:
                continue
            seen.add(extension)
            rules.append(
                WiltRule(
                    split="generated",
                    id=len(rules) + 1,
                    text=h.lambda_text,
                    tier=tier,
                    meta={
                        "generator": GENERATOR,
                        "generator_version": GENERATOR_VERSION,
                        "seed": seed,
                        "family": h.family,
                        "complexity": h.complexity,
                        "hypothesis_space": space.version,
                    },
                )
            )
        for _, _, _, future in ahead:
            future.cancel()
    return rules


AHEAD = 32
"""Drawn rules whose extensions are computed ahead."""


def _draws(by_tier: dict[str, dict[str, list[int]]], rng: random.Random) -> Iterator[tuple[str, int]]:
    """The drawn rules as (tier, hypothesis index), in order, until every tier is used up.

    Which rule comes next never depends on whether an earlier one was kept, so rules may be drawn ahead.
    """
    turn = 0
    while True:
        live = [t for t in TIERS if by_tier[t]]
        if not live:
            return
        tier = TIERS[turn % len(TIERS)] if TIERS[turn % len(TIERS)] in live else live[0]
        turn += 1
        families = by_tier[tier]
        family = rng.choice(sorted(families))
        index = families[family].pop()
        if not families[family]:
            del families[family]
        yield tier, index


def _extension(program: Program, probes: Inputs) -> bytes:
    """A digest of the rule's truth values on the judge's probe set: equal for rules that mean the same there.
    (The values themselves, packed, are 17 KB a rule: 160 MB kept for a split of every usable rule.)"""
    return hashlib.blake2b(np.packbits(program.evaluate_inputs(probes)[0]).tobytes(), digest_size=16).digest()


SNAPSHOT_DEPTH = 6
"""The solver's state is kept after each of the first this many answers (at most 2**7 - 1 states)."""


class _Identifiability:
    """Whether the ideal solver, playing the real game on a rule of the space, ends with an equivalent guess;
    :func:`_identifiable` answers the same, one whole game per rule, several times slower.

    The solver is deterministic: what it does next depends only on the answers so far, so every rule walks
    down one decision tree. Its decisions are remembered by answer history, and its state at the shallow nodes,
    where most of the work is (the first answers eliminate most hypotheses), so a rule replays only the part of
    its path no earlier rule took. The answers are read from the space's truth table on the candidates, then
    checked with the sandbox, which the game asks: on any disagreement the rule is played as a whole game.
    """

    def __init__(self, space: HypothesisSpace) -> None:
        from wason.tasks.wilt.elimination import IdealSolver, _table
        from wason.tasks.wilt.listed_space import candidate_tests

        self.points, _ = candidate_tests(0)
        self.truth = _table(space, self.points)
        self.space = space
        root = IdealSolver(space, self.points)
        self.max_tests = WiltConfig().max_tests
        if root.max_tests != self.max_tests:  # pragma: no cover - both are the published 30
            raise AssertionError("the solver and the game allow different numbers of tests")
        # answers so far -> the next test (a candidate's index), or the final guess
        self.decisions: dict[tuple[bool, ...], int | str] = {}
        self.snapshots: dict[tuple[bool, ...], IdealSolver] = {(): root}

    def __call__(self, index: int, program: Program) -> bool:
        path: tuple[bool, ...] = ()
        tests: list[int] = []
        solver: IdealSolver | None = None  # the solver's state at ``path``, once it was needed
        while True:
            decision = self.decisions.get(path)
            if decision is None:
                if solver is None:
                    solver = self._restore(path, tests)
                # what the game loop of _identifiable does at this point
                choice = solver.choose()
                decision = self.decisions[path] = solver.guess() if choice is None else choice
            if isinstance(decision, str):
                break
            answer = bool(self.truth.packed[index, decision >> 3] >> (7 - (decision & 7)) & 1)
            tests.append(decision)
            if solver is not None:
                solver.observe(self.points[decision], answer)
            path = (*path, answer)
            if solver is not None and len(path) <= SNAPSHOT_DEPTH:
                self.snapshots.setdefault(path, solver.copy())
        # the game asks the sandbox, not the truth table: the walk holds only if the two agree
        if not np.array_equal(program.evaluate(self.points[tests]), np.array(path, dtype=np.bool_)):
            return _identifiable(program.source)
        if decision == program.source:
            return True  # the rule itself: equivalent on every probe
        return judge(program, decision, seed=WiltConfig().probe_seed).equivalent

    def _restore(self, path: tuple[bool, ...], tests: list[int]) -> IdealSolver:
        """The solver's state after the answers ``path`` to ``tests``, from the deepest state kept on the way."""
        depth = min(len(path), SNAPSHOT_DEPTH)
        while path[:depth] not in self.snapshots:
            depth -= 1
        solver = self.snapshots[path[:depth]].copy()
        for k in range(depth, len(path)):
            solver.observe(self.points[tests[k]], path[k])
            if k + 1 <= SNAPSHOT_DEPTH:
                self.snapshots[path[: k + 1]] = solver.copy()
        return solver


def _identifiable(text: str) -> bool:
    """Whether the ideal solver, playing the real game on this rule, ends with an equivalent guess."""
    from wason.tasks.wilt.elimination import IdealSolver
    from wason.tasks.wilt.game import FinalGuess, ProposeTest, WiltGame
    from wason.tasks.wilt.listed_space import build_space, candidate_tests

    points, typed = candidate_tests(0)
    solver = IdealSolver(build_space(0), points)
    game = WiltGame(compile_rule(text))
    while not game.done:
        choice = None if solver.should_guess() else solver.next_test()
        if choice is None:
            game.step(FinalGuess(solver.guess()))
            break
        obs = game.step(ProposeTest(typed[choice]))
        if obs.values is not None and obs.result is not None:
            solver.observe(obs.values, obs.result)
        else:  # the game refused the test: never propose it again
            solver.exclude(choice)
    return bool(game.verdict and game.verdict.equivalent)
