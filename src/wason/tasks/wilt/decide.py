"""Decide a WILT guess over the game's own domain: every triple a player can type, by an SMT solver (z3).

The domain is what the game accepts as a test: each number has at most three digits, sign and decimal point
not counted (-999..999 in steps of 1, -99.9..99.9 in steps of 0.1, -9.99..9.99 in steps of 0.01, -.999...999 in
steps of 0.001), or, for the prompts that ask for whole numbers in a range (the Bayesian prompt's 1 to 100),
those whole numbers. The rule and the guess are encoded by :mod:`wason.sandbox.smt` and z3 is asked for a point
of the domain where they differ: none (unsatisfiable) is a proof of equivalence; a point is a counterexample a
player could have typed, checked again by the exact evaluator before it is believed. z3 works within a resource
limit (:data:`RLIMIT`, a count of its own steps, not seconds, so the same question gets the same answer on a busy
machine); past it, or for what the encoding does not cover, the decision is left to the probes (``unknown``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from wason.sandbox import Inputs, Program
from wason.sandbox.exact import Inexact, evaluate_exact, exact_point

if TYPE_CHECKING:
    from wason.sandbox.smt import Variable

RLIMIT = 4_000_000
"""z3's resource limit per decision (its ``rlimit``, counted in its own steps). The hardest questions of the
judge benchmark that z3 settles take about a tenth of it; at the limit a decision takes about 1 s here."""
SOLVER_VERSION = "z3-5.4.1.0"
"""The SMT solver a decision was made with (pinned in the package's dependencies)."""

DecisionKind = Literal["proved", "refuted", "unknown"]
Point = tuple[float, float, float]

MAX_TYPEABLE = 999
"""The largest number of three digits."""
_SCALES = (1, 10, 100, 1000)  # a typeable value is m / scale with |m| <= 999
_SCALE = 1000


@dataclass(frozen=True)
class Domain:
    """The triples a player can test: whole numbers in ``integer_range`` (inclusive) for each of x, y and z, or
    with None every number of at most three digits (the published game)."""

    integer_range: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if self.integer_range is not None:
            low, high = self.integer_range
            if low > high:
                raise ValueError("integer_range must have low <= high")

    def describe(self) -> str:
        """One phrase naming the domain."""
        if self.integer_range is None:
            return "every triple of numbers with at most three digits"
        low, high = self.integer_range
        return f"every triple of whole numbers from {low} to {high}"

    def contains(self, point: Point) -> bool:
        return all(self.contains_value(v) for v in point)

    def contains_value(self, v: float) -> bool:
        """Whether a player can type this value."""

        if self.integer_range is not None:
            low, high = self.integer_range
            return float(v).is_integer() and low <= v <= high
        return typeable(v)


TYPEABLE = Domain()
"""The published game's domain."""


def typeable(v: float) -> bool:
    """Whether ``v`` has at most three digits (the game's rule for a test value)."""
    try:
        f = Fraction(repr(float(v)))
    except (ValueError, OverflowError):
        return False
    return any((f * scale).denominator == 1 and abs(f * scale) <= MAX_TYPEABLE for scale in _SCALES)


@dataclass(frozen=True)
class Decision:
    """What the solver decided: ``proved`` (no point of the domain tells them apart), ``refuted`` (``point``
    does), or ``unknown`` (not encoded, or past the resource limit: ``reason`` says which)."""

    kind: DecisionKind
    point: Point | None = None
    reason: str | None = None
    resources: int = 0  # z3's resource count spent (0 when it did not run)


def decide(
    rule: Program,
    guess: Program,
    domain: Domain = TYPEABLE,
    *,
    rlimit: int = RLIMIT,
    exclude: Sequence[Point] = (),
) -> Decision:
    """Decide whether ``guess`` (already accepted by the sandbox) agrees with ``rule`` on every point of
    ``domain`` less ``exclude`` (counterexamples found before), within z3's resource limit ``rlimit``; a
    ``refuted`` point has been checked by the exact evaluator."""
    if rule.root is guess.root:
        return Decision("proved")  # the compiler interns expressions: the same node is the same expression
    import z3  # here: importing it costs a tenth of a second, and only a verdict needs it

    from wason.sandbox.smt import Unsupported, encode

    # z3's bindings keep a global default context: every decision makes its own, so decisions in several threads
    # never share one
    ctx = z3.Context()
    variables, constraints = _variables(domain, ctx)
    try:
        encoded = encode([rule.root, guess.root], variables, ctx)
    except Unsupported as exc:
        return Decision("unknown", reason=f"not encoded: {exc.reason}")
    try:
        spent = 0
        answer = z3.unknown
        solver = None
        for strategy, share in _STRATEGIES:
            solver = _solver(strategy, ctx)
            solver.set("rlimit", max(1, int(rlimit * share)))
            solver.add(*constraints, *encoded[-1].side, encoded[0].truth != encoded[1].truth)
            for point in exclude:
                solver.add(
                    z3.Or(*[v.numerator != _numerator(c, v) for v, c in zip(variables, point, strict=True)])
                )
            answer = solver.check()
            spent += _resources(solver)
            if answer != z3.unknown:
                break
        assert solver is not None
        if answer == z3.unsat:
            return Decision("proved", resources=spent)
        if answer == z3.unknown:
            return Decision("unknown", reason=f"undecided: {solver.reason_unknown()}", resources=spent)
        model = solver.model()
        x, y, z = (_model_value(model, v) for v in variables)
        if not _differ_exactly(rule, guess, (x, y, z)):
            return Decision("unknown", reason="the solver's counterexample did not hold", resources=spent)
        return Decision("refuted", point=(x, y, z), resources=spent)
    except z3.Z3Exception as exc:  # z3 refusing a formula is no verdict: the probes decide
        return Decision("unknown", reason=f"z3 failed: {' '.join(str(exc).split())[:200]}")


MAX_ENUMERATED = 1_000_000
"""Largest whole-number domain checked point by point when z3 does not decide (the Bayesian prompt's 100**3)."""
_CHUNK = 125_000


def enumerate_domain(rule: Program, guess: Program, domain: Domain) -> Decision:
    """Decide over a whole-number domain by checking every point (``unknown`` when it is not one, or too big);
    a counterexample is a point where the game's floats differ and exact arithmetic agrees."""
    if domain.integer_range is None:
        return Decision("unknown", reason="not a whole-number domain")
    low, high = domain.integer_range
    side = high - low + 1
    if side**3 > MAX_ENUMERATED:
        return Decision("unknown", reason=f"more than {MAX_ENUMERATED:,} triples to check")
    values = np.arange(low, high + 1, dtype=np.float64)
    grid = np.stack(np.meshgrid(values, values, values, indexing="ij"), axis=-1).reshape(-1, 3)
    for start in range(0, grid.shape[0], _CHUNK):
        block = grid[start : start + _CHUNK]
        inputs = Inputs.from_points(block)
        (r, _), (g, _) = rule.evaluate_together([guess], inputs)
        for row in block[np.flatnonzero(r != g)].tolist():
            point = (float(row[0]), float(row[1]), float(row[2]))
            if _differ_exactly(rule, guess, point):
                return Decision("refuted", point=point)
    return Decision("proved")


def _variables(domain: Domain, ctx: Any) -> tuple[list[Variable], list[Any]]:
    import z3

    from wason.sandbox.smt import Variable

    variables: list[Variable] = []
    constraints: list[Any] = []
    for name in "xyz":
        k = z3.Int(name, ctx)
        if domain.integer_range is not None:
            low, high = domain.integer_range
            constraints += [k >= low, k <= high]
            variables.append(Variable(k, 1, True, float(max(abs(low), abs(high)))))
            continue
        # v = k / 1000 with k = m * 10**(3 - p), |m| <= 999: integer arithmetic, which z3 settles best
        m = z3.Int(f"{name}_digits", ctx)
        constraints += [m >= -MAX_TYPEABLE, m <= MAX_TYPEABLE]
        constraints.append(z3.Or(*[k == m * (_SCALE // scale) for scale in _SCALES]))
        variables.append(Variable(k, _SCALE, k % _SCALE == 0, float(MAX_TYPEABLE)))
    return variables, constraints


_STRATEGIES = (("polynomial", 0.2), ("default", 0.8))
"""How z3 is asked, in turn, each with its share of the resource limit: first with both sides' polynomials
multiplied out and collected (``x * y - z == 0`` is then ``x * y == z`` at once; most questions end here), then
z3's default strategy, which settles some nonlinear questions the first one does not."""


def _solver(strategy: str, ctx: Any) -> Any:
    import z3

    if strategy == "polynomial":
        simplify = z3.With(z3.Tactic("simplify", ctx), som=True, arith_lhs=True)
        return z3.Then(simplify, z3.Tactic("propagate-values", ctx), z3.Tactic("smt", ctx), ctx=ctx).solver()
    return z3.Solver(ctx=ctx)


def _numerator(v: float, variable: Variable) -> int:
    f = Fraction(repr(float(v))) * variable.denominator
    return f.numerator // f.denominator


def _model_value(model: Any, variable: Variable) -> float:
    value = model.eval(variable.numerator, model_completion=True)
    return float(Fraction(value.as_long(), variable.denominator))


def _resources(solver: Any) -> int:
    stats = solver.statistics()
    for key in stats.keys():  # noqa: SIM118 - z3.Statistics is no mapping
        if key == "rlimit count":
            return int(stats.get_key_value(key))
    return 0


def _differ_exactly(rule: Program, guess: Program, point: tuple[float, ...]) -> bool:
    exact = exact_point(point[0], point[1], point[2])
    try:
        return evaluate_exact(rule.root, exact) != evaluate_exact(guess.root, exact)
    except Inexact:
        return False
