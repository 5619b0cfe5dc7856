"""The single-variable WILT game of the reference's ``instruction_single.txt``: one whole number from 1 to 100 in,
True or False out, 5 tests, then one ``lambda x: ...`` guess.

The published rule sets are all three-argument, so the one-variable rules here are ours (:data:`SINGLE_RULES`,
read from ``data/single_rules.json``; of the paper's kinds: comparisons with constants, parity and multiples,
ranges, squares, digits, disjunctions). A one-argument lambda is lifted into the three-argument guess language
(``lambda x, y_, z_: BODY``: the sandbox parses and checks it as any guess), and, since the prompt fixes the
domain, a guess is judged on every whole number from 1 to 100: equivalence there is exact, not sampled.
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

import numpy as np
import numpy.typing as npt

from wason.sandbox import GuessRejected, Program, compile_rule
from wason.sandbox.pyast import parse
from wason.tasks.wilt.judge import Verdict, _set_inclusion, scored
from wason.tasks.wilt.listed_space import _CMP

DOMAIN = (1, 100)
"""The whole numbers a test and the rule range over, as the prompt states."""
MAX_TESTS = 5
"""Tests before the guess, as the prompt states."""
JUDGE_VERSION = "single-1..100-v1"
_FILLERS = ("y_unused", "z_unused")
_xs = np.arange(DOMAIN[0], DOMAIN[1] + 1, dtype=np.float64)


@dataclass(frozen=True)
class SingleRule:
    """One hidden rule of one variable: its id, its lambda as written, and its kind."""

    id: int
    rule: str
    kind: str


def load_single_rules() -> tuple[SingleRule, ...]:
    """Our one-variable rules, from ``data/single_rules.json`` in this package (none is published: the reference
    ships the prompt without rules of one variable; the file says so in its ``source``)."""
    text = (resources.files("wason.tasks.wilt") / "data" / "single_rules.json").read_text(encoding="utf-8")
    return tuple(SingleRule(int(r["id"]), str(r["rule"]), str(r["kind"])) for r in json.loads(text)["rules"])


SINGLE_RULES: tuple[SingleRule, ...] = load_single_rules()
"""Our one-variable rules (none is published), as :func:`load_single_rules` reads them."""


def lift(text: str) -> str:
    """A one-argument guess ``lambda x: BODY`` as the three-argument lambda the guess language reads
    (GuessRejected: not a lambda of exactly one plain parameter)."""
    try:
        tree = parse(text.strip(), mode="eval")
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
    """A one-argument rule or guess, compiled (lifted to three arguments; GuessRejected if it cannot be)."""
    return compile_rule(lift(text))


def domain_points() -> npt.NDArray[np.float64]:
    """Every whole number of the domain as a point ``(x, 0, 0)``."""
    return np.stack([_xs, np.zeros_like(_xs), np.zeros_like(_xs)], axis=1)


def judge_single(rule: Program, guess: str) -> Verdict:
    """Judge a one-argument guess on every whole number from 1 to 100 (the whole domain)."""
    try:
        program = compile_single(guess)
    except GuessRejected as exc:
        return Verdict.rejected(rule.source, guess, exc.reason, probe_seed=0, probe_version=JUDGE_VERSION)
    points = domain_points()
    r, g = rule.evaluate(points), program.evaluate(points)
    wrong = np.flatnonzero(r != g)
    return scored(
        rule.source,
        guess,
        r,
        g,
        equivalent=wrong.size == 0,
        set_inclusion=_set_inclusion(r, g),
        counterexamples=[((float(points[i, 0]), 0.0, 0.0), bool(r[i]), bool(g[i])) for i in wrong[:5]],
        probe_seed=0,
        probe_version=JUDGE_VERSION,
    )


# -- the solver ------------------------------------------------------------------------------------------------


def _number_cost(c: int) -> float:
    """Description length of a constant: small and round numbers are simpler (a person says 50 before 47)."""
    if 0 <= c <= 10 or c % 10 == 0:
        return 1.0
    return 1.5 if c % 5 == 0 else 2.5


def _known_sets() -> list[tuple[str, npt.NDArray[np.bool_]]]:
    """Named sets of ordinary mathematics on 1..100, each as the lambda that states it."""
    numbers = range(DOMAIN[0], DOMAIN[1] + 1)
    squares = [v for v in numbers if int(v**0.5) ** 2 == v]
    primes = [v for v in numbers if v > 1 and all(v % d for d in range(2, int(v**0.5) + 1))]
    cubes = [v**3 for v in range(1, 5)]
    powers = [2**k for k in range(7)]
    triangular = [k * (k + 1) // 2 for k in range(1, 14)]
    fibonacci = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89]
    named: list[tuple[str, list[int]]] = [
        ("lambda x: int(x ** 0.5) ** 2 == x", squares),
        ("lambda x: x // 10 == x % 10", [v for v in numbers if v // 10 == v % 10]),
    ]
    for values in (primes, cubes, powers, triangular, fibonacci):
        named.append((f"lambda x: x in ({', '.join(map(str, values))})", values))
    return [(text, np.isin(_xs, values)) for text, values in named]


def _hypotheses() -> tuple[list[str], npt.NDArray[np.bool_], npt.NDArray[np.float64]]:
    """The one-variable hypothesis space: texts, truth tables on 1..100 and prior weights.

    A grammar of the paper's kinds at full resolution: comparisons (and equality) with every constant, residues
    (m from 2 to 12), every range and its complement, a comparison and a residue together, two residues either
    way, and named sets (:func:`_known_sets`). Each text's prior is exp(-description length), a constant costing
    less when small or round; texts with one truth table on the domain are one hypothesis whose prior is their
    sum, written as its shortest text."""
    found: dict[bytes, list[Any]] = {}

    def add(text: str, truth: npt.NDArray[np.bool_], cost: float) -> None:
        weight = float(np.exp(-cost))
        entry = found.get(truth.tobytes())
        if entry is None:
            found[truth.tobytes()] = [text, truth, weight, cost]
            return
        entry[2] += weight
        if cost < entry[3]:
            entry[0], entry[3] = text, cost

    low, high = DOMAIN
    add("lambda x: True", np.ones(_xs.shape, dtype=bool), 1.0)
    residues: list[tuple[str, npt.NDArray[np.bool_], float]] = []
    for m in range(2, 13):
        for r in range(m):
            residues.append((f"x % {m} == {r}", _xs % m == r, 1.0 + _number_cost(m) + _number_cost(r)))
    comparisons: list[tuple[str, npt.NDArray[np.bool_], float]] = []
    for c in range(low, high + 1):
        for op, cost in ((">", 1.0), ("<", 1.0), (">=", 1.5), ("<=", 1.5), ("==", 1.5), ("!=", 1.5)):
            comparisons.append((f"x {op} {c}", _CMP[op](_xs, c), cost + _number_cost(c)))
    for text, truth, cost in (*comparisons, *residues):
        add(f"lambda x: {text}", truth, cost)
    for text, truth in _known_sets():
        add(text, truth, 3.0)
    for a in range(low, high + 1):
        for b in range(a + 1, high + 1):
            cost = _number_cost(a) + _number_cost(b)
            add(f"lambda x: {a} <= x <= {b}", (_xs >= a) & (_xs <= b), 2.0 + cost)
            add(f"lambda x: x < {a} or x > {b}", (_xs < a) | (_xs > b), 2.5 + cost)
    for ctext, ctruth, ccost in comparisons:
        for rtext, rtruth, rcost in residues:
            add(f"lambda x: {ctext} and {rtext}", ctruth & rtruth, 1.0 + ccost + rcost)
    for i, (atext, atruth, acost) in enumerate(residues):
        for btext, btruth, bcost in residues[i + 1 :]:
            add(f"lambda x: {atext} or {btext}", atruth | btruth, 1.5 + acost + bcost)
            add(f"lambda x: {atext} and {btext}", atruth & btruth, 1.5 + acost + bcost)
    entries = [e for e in found.values() if e[1].any() or e[0] == "lambda x: True"]
    entries.sort(key=lambda e: -e[2])
    return (
        [e[0] for e in entries],
        np.stack([e[1] for e in entries]),
        np.array([e[2] for e in entries], dtype=np.float64),
    )


hypothesis_space = cache(_hypotheses)
"""The one-variable hypothesis space, built once per process (it never changes)."""


class SingleSolver:
    """The ideal scientist of the one-variable game.

    It holds every hypothesis of :func:`hypothesis_space` consistent with its results, weighted by its prior, and
    tests the untested number that splits the surviving weight most evenly. Tests cost nothing but the budget, so
    once one hypothesis is left it goes on checking it where the hypotheses its results refuted only once
    disagree with it (the near misses), in case the rule is of no kind it knows. It guesses the heaviest survivor,
    which always agrees with its results; if none survives, it tests the numbers in order and guesses the set of
    numbers found true (exact once it has tested all 100).
    """

    def __init__(self, max_tests: int = MAX_TESTS) -> None:
        self.texts, self.truth, self.weight = hypothesis_space()
        self.misses = np.zeros(len(self.texts), dtype=np.int64)
        self.max_tests = max_tests
        self.tested: dict[int, bool] = {}

    @property
    def alive(self) -> npt.NDArray[np.bool_]:
        """Which hypotheses agree with every result so far."""
        alive: npt.NDArray[np.bool_] = self.misses == 0
        return alive

    def observe(self, x: int, result: bool) -> None:
        self.tested[x] = result
        self.misses += self.truth[:, x - DOMAIN[0]] != result

    def next_test(self) -> int | None:
        untested = np.ones(DOMAIN[1] - DOMAIN[0] + 1, dtype=bool)
        untested[[x - DOMAIN[0] for x in self.tested]] = False
        if len(self.tested) >= self.max_tests or not untested.any():
            return None
        alive = self.alive
        if not alive.any():
            return int(np.flatnonzero(untested)[0]) + DOMAIN[0]
        if int(alive.sum()) == 1:
            survivor = self.truth[int(np.flatnonzero(alive)[0])]
            near = np.where(self.misses == 1, self.weight, 0.0)
            score = -(near @ (self.truth != survivor))
        else:
            w = np.where(alive, self.weight, 0.0)
            score = np.abs(w @ self.truth - w.sum() / 2)
        score[~untested] = np.inf
        return int(np.argmin(score)) + DOMAIN[0]

    def guess(self) -> str:
        alive = np.flatnonzero(self.alive)
        if alive.size:
            return self.texts[int(alive[np.argmax(self.weight[alive])])]
        true = sorted(x for x, result in self.tested.items() if result)
        return f"lambda x: x in ({', '.join(map(str, true))}{',' if len(true) == 1 else ''})"
