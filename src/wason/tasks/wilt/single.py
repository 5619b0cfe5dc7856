"""The single-variable WILT game of the reference's ``instruction_single.txt``: one whole number from 1 to 100 in,
True or False out, 5 tests, then one ``lambda x: ...`` guess.

The published rule sets are all three-argument, so the one-variable rules here are ours (:data:`SINGLE_RULES`,
of the paper's kinds: comparisons with constants, parity and multiples, ranges, squares, digits, disjunctions).
A one-argument lambda is lifted into the three-argument guess language (``lambda x, y_, z_: BODY``: the sandbox
parses and checks it as any guess), and, since the prompt fixes the domain, a guess is judged on every whole
number from 1 to 100: equivalence there is exact, not sampled.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from wason.core.game import Move
from wason.sandbox import GuessRejected, Program, compile_rule
from wason.tasks.wilt.judge import APPROX_JACCARD_THRESHOLD, Verdict

DOMAIN = (1, 100)
"""The whole numbers a test and the rule range over, as the prompt states."""
MAX_TESTS = 5
"""Tests before the guess, as the prompt states."""
JUDGE_VERSION = "single-1..100-v1"
_FILLERS = ("y_unused", "z_unused")


@dataclass(frozen=True)
class SingleRule:
    """One hidden rule of one variable: its id, its lambda as written, and its kind."""

    id: int
    rule: str
    kind: str


SINGLE_RULES: tuple[SingleRule, ...] = (
    SingleRule(1, "lambda x: x > 50", "comparison with a constant"),
    SingleRule(2, "lambda x: x % 2 == 0", "parity"),
    SingleRule(3, "lambda x: x % 3 == 0", "multiple"),
    SingleRule(4, "lambda x: 20 <= x <= 40", "range"),
    SingleRule(5, "lambda x: x < 10 or x > 90", "disjunction of comparisons"),
    SingleRule(6, "lambda x: x % 10 == 7", "last digit"),
    SingleRule(7, "lambda x: int(x ** 0.5) ** 2 == x", "perfect square"),
    SingleRule(8, "lambda x: x % 5 == 0 and x % 2 == 1", "conjunction of multiples"),
    SingleRule(9, "lambda x: x <= 17", "comparison with a constant"),
    SingleRule(10, "lambda x: x // 10 == x % 10", "digits equal"),
    SingleRule(11, "lambda x: x % 4 == 1", "residue"),
    SingleRule(12, "lambda x: x > 30 and x % 2 == 1", "conjunction"),
)
"""Our one-variable rules (none is published: the reference ships the prompt without rules of one variable)."""


def lift(text: str) -> str:
    """A one-argument guess ``lambda x: BODY`` as the three-argument lambda the guess language reads.

    Raises:
        GuessRejected: not a lambda of exactly one plain parameter.
    """
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise GuessRejected(f"not a Python expression: {exc.msg}") from None
    node = tree.body
    if not isinstance(node, ast.Lambda):
        raise GuessRejected("the guess must be a lambda of one parameter, e.g. lambda x: x < 50")
    a = node.args
    params = [*a.posonlyargs, *a.args]
    if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or len(params) != 1:
        raise GuessRejected(
            f"the lambda must take exactly one plain parameter (x), not {len(params) or 'none'}"
        )
    body = ast.get_source_segment(text.strip(), node.body)
    if body is None:  # pragma: no cover - the segment of a parsed node is always there
        raise GuessRejected("the lambda's body cannot be read")
    names = {n.id for n in ast.walk(node.body) if isinstance(n, ast.Name)}
    if names & set(_FILLERS):
        raise GuessRejected(f"the names {', '.join(_FILLERS)} are reserved")
    return f"lambda {params[0].arg}, {_FILLERS[0]}, {_FILLERS[1]}: {body}"


def compile_single(text: str) -> Program:
    """A one-argument rule or guess, compiled (lifted to three arguments).

    Raises:
        GuessRejected: not a one-argument lambda in the guess language.
    """
    return compile_rule(lift(text))


def domain_points() -> npt.NDArray[np.float64]:
    """Every whole number of the domain as a point ``(x, 0, 0)``."""
    low, high = DOMAIN
    xs = np.arange(low, high + 1, dtype=np.float64)
    return np.stack([xs, np.zeros_like(xs), np.zeros_like(xs)], axis=1)


def judge_single(rule: Program, guess: str) -> Verdict:
    """Judge a one-argument guess on every whole number from 1 to 100 (the whole domain)."""
    try:
        program = compile_single(guess)
    except GuessRejected as exc:
        return Verdict.rejected(rule.source, guess, exc.reason, probe_seed=0, probe_version=JUDGE_VERSION)
    points = domain_points()
    r = rule.evaluate(points)
    g = program.evaluate(points)
    disagree = r != g
    n = len(points)
    n_disagree = int(np.count_nonzero(disagree))
    union = int(np.count_nonzero(r | g))
    jaccard = int(np.count_nonzero(r & g)) / union if union else None
    n_rule = int(np.count_nonzero(r))
    nested = not np.any(g & ~r) or not np.any(r & ~g)
    inclusion = int(np.count_nonzero(g)) / n_rule if n_rule and nested else None
    wrong = np.flatnonzero(disagree)[:5]
    return Verdict(
        rule=rule.source,
        guess=guess,
        accepted=True,
        rejection=None,
        equivalent=n_disagree == 0,
        agreement=1.0 - n_disagree / n,
        n_probes=n,
        n_disagree=n_disagree,
        jaccard=jaccard,
        set_inclusion=inclusion,
        approximately_correct=n_disagree > 0 and jaccard is not None and jaccard >= APPROX_JACCARD_THRESHOLD,
        counterexamples=[((float(points[i, 0]), 0.0, 0.0), bool(r[i]), bool(g[i])) for i in wrong],
        probe_seed=0,
        probe_version=JUDGE_VERSION,
    )


# -- the solver ------------------------------------------------------------------------------------------------
def _hypotheses() -> list[tuple[str, npt.NDArray[np.bool_]]]:
    """One-variable hypotheses as (lambda, truth on 1..100), simplest first, de-duplicated by their truth
    table (the first, simplest, text of each extension is kept)."""
    low, high = DOMAIN
    x = np.arange(low, high + 1)
    found: dict[bytes, tuple[str, npt.NDArray[np.bool_]]] = {}

    def add(text: str, truth: npt.NDArray[np.bool_]) -> None:
        found.setdefault(truth.tobytes(), (text, truth))

    add("lambda x: True", np.ones_like(x, dtype=bool))
    for m in range(2, 11):
        for r in range(m):
            add(f"lambda x: x % {m} == {r}", x % m == r)
    for c in range(low, high + 1):
        add(f"lambda x: x > {c}", x > c)
        add(f"lambda x: x < {c}", x < c)
    squares = np.array([int(v**0.5) ** 2 == v for v in x])
    add("lambda x: int(x ** 0.5) ** 2 == x", squares)
    add("lambda x: x // 10 == x % 10", x // 10 == x % 10)
    for r in range(2):
        for c in range(low, high, 5):
            add(f"lambda x: x > {c} and x % 2 == {r}", (x > c) & (x % 2 == r))
            add(f"lambda x: x < {c} and x % 2 == {r}", (x < c) & (x % 2 == r))
    add("lambda x: x % 5 == 0 and x % 2 == 1", (x % 5 == 0) & (x % 2 == 1))
    for a in range(low, high + 1, 5):
        for b in range(a + 5, high + 1, 5):
            add(f"lambda x: {a} <= x <= {b}", (x >= a) & (x <= b))
            add(f"lambda x: x < {a} or x > {b}", (x < a) | (x > b))
    return list(found.values())


class SingleSolver:
    """The ideal scientist of the one-variable game: a prior of 1/k on the k-th hypothesis of :func:`_hypotheses`
    (simplest first), tests that split the surviving prior mass most evenly,
    then the most probable survivor as the guess. Five tests cannot single out one of ~1,000 hypotheses, so it
    guesses the simplest rule the evidence leaves."""

    def __init__(self, max_tests: int = MAX_TESTS) -> None:
        self.space = _hypotheses()
        self.truth = np.stack([t for _, t in self.space])
        n = len(self.space)
        self.weight = 1.0 / np.arange(1, n + 1)  # simpler hypotheses first, and heavier
        self.alive = np.ones(n, dtype=bool)
        self.max_tests = max_tests
        self.tested: list[int] = []

    def observe(self, x: int, result: bool) -> None:
        self.tested.append(x)
        self.alive &= self.truth[:, x - DOMAIN[0]] == result

    def next_test(self) -> int | None:
        if len(self.tested) >= self.max_tests or int(self.alive.sum()) <= 1:
            return None
        w = np.where(self.alive, self.weight, 0.0)
        true_mass = w @ self.truth
        balance = np.abs(true_mass - w.sum() / 2)
        for x in self.tested:
            balance[x - DOMAIN[0]] = np.inf
        return int(np.argmin(balance)) + DOMAIN[0]

    def guess(self) -> str:
        alive = np.flatnonzero(self.alive)
        return self.space[int(alive[0])][0] if alive.size else "lambda x: True"


class SingleSolverPlayer:
    """Plays the one-variable game with :class:`SingleSolver` (no text, no model)."""

    def __init__(self, max_tests: int = MAX_TESTS) -> None:
        self.solver = SingleSolver(max_tests)

    async def act(self, observation: Any) -> Move[Any]:
        from wason.tasks.wilt.game import FinalGuess, ProposeTest

        if observation.kind == "result" and observation.values is not None and observation.result is not None:
            self.solver.observe(int(observation.values[0]), bool(observation.result))
        test = None if observation.must_guess or observation.remaining <= 0 else self.solver.next_test()
        if test is None:
            return Move(FinalGuess(self.solver.guess()), meta={"alive": int(self.solver.alive.sum())})
        return Move(ProposeTest((str(test),)), meta={"alive": int(self.solver.alive.sum())})
