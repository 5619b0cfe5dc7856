"""A hypothesis space for WILT: triple predicates from a small grammar, with a simplicity prior.

The space holds every published rule (as an expression the judge finds equivalent) and its near neighbours
(see the ``_orderings`` ... ``_spreads`` parts), and conjunctions of two primitives from chosen pairs of groups.

Every hypothesis is an expression of the guess language. :meth:`HypothesisSpace.evaluate` computes all of them
at once with numpy, reproducing the sandbox's (that is, Python's) semantics; the sandbox stays the reference,
and a test compares the two on every hypothesis. ``docs/solver.md`` describes the grammar, counts and prior.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from wason.tasks.wilt.values import InvalidValue, parse_value

SPACE_VERSION = "wilt-hypotheses-1"
"""Bump whenever the grammar, the prior, the candidate tests or the de-duplication points change."""

CONSTANTS: tuple[int, ...] = (-20, -10, -5, -2, -1, 0, 1, 2, 5, 10, 20)
"""Constants of the bound and interval hypotheses."""

PRIOR_DECAY = 0.7
"""Weights fall as exp(-PRIOR_DECAY * complexity): one more operator halves a hypothesis's weight."""

CONJUNCTION_SHARE = 0.25
"""Prior probability that the rule is a conjunction of two primitives."""

CONJUNCTION_COST = 1
"""Complexity of ``A and B`` is ``complexity(A) + complexity(B) + CONJUNCTION_COST``."""

F = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]
I64 = npt.NDArray[np.int64]
Index = npt.NDArray[np.intp]

_VARS = ("x", "y", "z")
_PERMS = (
    ("x", "y", "z"),
    ("x", "z", "y"),
    ("y", "x", "z"),
    ("y", "z", "x"),
    ("z", "x", "y"),
    ("z", "y", "x"),
)
_PAIRS = (("x", "y"), ("y", "z"), ("x", "z"))
_ORDERED_PAIRS = (("x", "y"), ("x", "z"), ("y", "x"), ("y", "z"), ("z", "x"), ("z", "y"))
_SPLITS = (("x", "y", "z"), ("x", "z", "y"), ("y", "z", "x"))  # (a, b, c) for symmetric a ∘ b against c
_CMP: dict[str, Callable[[F | float, F | float], B]] = {
    "<": np.less,
    "<=": np.less_equal,
    ">": np.greater,
    ">=": np.greater_equal,
    "==": np.equal,
    "!=": np.not_equal,
}
_OPS = tuple(_CMP)
_MIRROR = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}  # c op q is q mirrored c
_TWO63 = 2.0**63
# points evaluated at once, which bounds the (primitives x points) scratch matrix; a multiple of 8
_CHUNK = 8192
_FEW_PRIMITIVES = 64  # evaluate_rows calls each primitive's predicate up to this many, else the plan
_ROW_BLOCK = 2048  # hypotheses computed at once


class Guessable:
    """A rule written as a guess-language expression in ``x``, ``y`` and ``z`` (both spaces' hypotheses)."""

    expr: str

    @property
    def lambda_text(self) -> str:
        """The rule as a final guess: ``lambda x, y, z: <expr>``."""
        return f"lambda x, y, z: {self.expr}"


@dataclass(frozen=True)
class Hypothesis(Guessable):
    """One candidate rule: its grammar family (``"a+b"`` for a conjunction of families ``a`` and ``b``) and the
    simplicity score the prior decreases in (roughly the operator count)."""

    expr: str
    family: str
    complexity: int


# ---- numpy semantics --------------------------------------------------------------------------------------------


class _Cols:
    """One block of points: the columns, and every quantity computed on them, each computed once."""

    def __init__(self, points: F) -> None:
        self._values: dict[str, F] = {
            name: np.ascontiguousarray(points[:, k]) for k, name in enumerate(_VARS)
        }
        self._ints: dict[str, tuple[I64, B]] = {}

    def get(self, q: _Quantity) -> F:
        found = self._values.get(q.key)
        if found is None:
            found = self._values[q.key] = q.compute(self)
        return found

    def trunc(self, v: str) -> tuple[I64, B]:
        """``int(v)`` as int64, and where it is usable (the sandbox errs on bitwise and gcd of 2**63 or more)."""
        found = self._ints.get(v)
        if found is None:
            t = np.trunc(self.get(_VAR[v]))
            ok = np.isfinite(t) & (np.abs(t) < _TWO63)
            found = self._ints[v] = (np.where(ok, t, 0.0).astype(np.int64), ok)
        return found


@dataclass(frozen=True)
class _Quantity:
    """A number at each point, with the text that computes it (its cache key within a block)."""

    key: str
    compute: Callable[[_Cols], F]


Predicate = Callable[[_Cols], B]
Operand = _Quantity | float


def _var(v: str) -> _Quantity:
    def compute(k: _Cols) -> F:
        raise AssertionError(f"column {v} is always cached")  # pragma: no cover

    return _Quantity(v, compute)


_VAR = {v: _var(v) for v in _VARS}


def _binary(a: _Quantity, op: str, b: _Quantity | float) -> _Quantity:
    # float64 arithmetic is Python's: exact on ints below 2**53, IEEE on floats, int-to-float when mixed.
    ufunc = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.true_divide, "%": np.remainder}[op]
    b_key = b.key if isinstance(b, _Quantity) else repr(b)

    def compute(k: _Cols) -> F:
        out: F = ufunc(k.get(a), k.get(b) if isinstance(b, _Quantity) else b)
        return out

    return _Quantity(f"({a.key} {op} {b_key})", compute)


def _scaled(c: float, a: _Quantity) -> _Quantity:
    def compute(k: _Cols) -> F:
        out: F = c * k.get(a)
        return out

    return _Quantity(f"({c!r} * {a.key})", compute)


def _absolute(a: _Quantity) -> _Quantity:
    def compute(k: _Cols) -> F:
        out: F = np.abs(k.get(a))
        return out

    return _Quantity(f"abs({a.key})", compute)


def _fold(kind: str, *parts: _Quantity) -> _Quantity:
    """The least (``"min"``) or greatest (``"max"``) of the parts at each point."""
    ufunc = np.maximum if kind == "max" else np.minimum

    def compute(k: _Cols) -> F:
        out: F = k.get(parts[0])
        for p in parts[1:]:
            out = ufunc(out, k.get(p))
        return out

    return _Quantity(f"{kind}({', '.join(p.key for p in parts)})", compute)


def _square(a: _Quantity) -> _Quantity:
    return _power(a, 2)


def _power(a: _Quantity, n: int) -> _Quantity:
    """``a ** n`` as Python computes it; nan where Python raises (``OverflowError``), so an ``==`` is False there.

    Python's float ``pow`` differs from ``a * a`` in the last place for about one float in a thousand, so
    non-integral values are raised by Python itself, once per distinct value (as the sandbox does).
    """

    def compute(k: _Cols) -> F:
        v = k.get(a)
        out: F = v.copy()  # never the cached column itself
        for _ in range(n - 1):
            out *= v
        frac = np.isfinite(v) & (np.floor(v) != v)
        if frac.any():
            distinct, inverse = np.unique(v[frac], return_inverse=True)
            powers = np.empty(distinct.shape, dtype=np.float64)
            for i, u in enumerate(distinct.tolist()):
                try:
                    powers[i] = u**n
                except OverflowError:
                    powers[i] = math.nan
            out[frac] = powers[inverse.reshape(-1)]
        return out

    return _Quantity(f"({a.key} ** {n})", compute)


X, Y, Z = _VAR["x"], _VAR["y"], _VAR["z"]
_SUM = _binary(_binary(X, "+", Y), "+", Z)  # Python adds left to right: (x + y) + z
_PRODUCT = _binary(_binary(X, "*", Y), "*", Z)
_MAX, _MIN = _fold("max", X, Y, Z), _fold("min", X, Y, Z)


def _operand(k: _Cols, a: Operand) -> F | float:
    return k.get(a) if isinstance(a, _Quantity) else a


class _Compare:
    """``a op b`` at each point; it says what it compares, so :class:`_Plan` can batch it with others."""

    __slots__ = ("a", "b", "op")

    def __init__(self, a: Operand, op: str, b: Operand) -> None:
        self.a, self.op, self.b = a, op, b

    def __call__(self, k: _Cols) -> B:
        return _CMP[self.op](_operand(k, self.a), _operand(k, self.b))


class _AllOf:
    """Every one of the predicates (:class:`_AnyOf`: at least one)."""

    __slots__ = ("preds",)
    any_of = False

    def __init__(self, preds: Sequence[Predicate]) -> None:
        self.preds = tuple(preds)

    def __call__(self, k: _Cols) -> B:
        out = self.preds[0](k)
        for p in self.preds[1:]:
            out = (out | p(k)) if self.any_of else (out & p(k))
        return out


class _AnyOf(_AllOf):
    __slots__ = ()
    any_of = True


def _chain(*parts: Operand | str) -> Predicate:
    """A chained comparison ``a op b op c ...``, given as alternating operands and operators."""
    links = []
    for i in range(1, len(parts), 2):
        a, op, b = parts[i - 1], parts[i], parts[i + 1]
        assert isinstance(op, str) and not isinstance(a, str) and not isinstance(b, str)
        links.append(_Compare(a, op, b))
    return _AllOf(links)


def _bitwise(a: str, op: str, b: str, c: str) -> Predicate:
    ufunc = {"&": np.bitwise_and, "|": np.bitwise_or, "^": np.bitwise_xor}[op]

    def fn(k: _Cols) -> B:
        (ia, oka), (ib, okb), (ic, okc) = k.trunc(a), k.trunc(b), k.trunc(c)
        out: B = (ufunc(ia, ib) == ic) & oka & okb & okc
        return out

    return fn


def _coprime(a: str, b: str) -> Predicate:
    def fn(k: _Cols) -> B:
        (ia, oka), (ib, okb) = k.trunc(a), k.trunc(b)
        out: B = (np.gcd(ia, ib) == 1) & oka & okb
        return out

    return fn


def _perfect_square(v: str) -> Predicate:
    """``math.isqrt(v)**2 == v``: isqrt raises on floats and negative ints (False there); sqrt is exact on
    perfect squares, and a non-square never squares back to itself whatever the rounding."""

    def fn(k: _Cols) -> B:
        val = k.get(_VAR[v])
        ok = np.isfinite(val) & (np.floor(val) == val) & (val >= 0)
        root = np.floor(np.sqrt(np.where(ok, val, 0.0)))
        out: B = ok & (root * root == val)
        return out

    return fn


class Atom(NamedTuple):
    """A comparison: ``left op const`` when ``right`` is -1, else ``left op right`` (term indices); a named tuple,
    made in a third of a frozen dataclass's time (the grammar makes 70,000 in every process that plays)."""

    text: str
    cost: int
    left: int
    op: str
    right: int
    const: float


class _AtomPlan:
    """Atoms grouped so that many are compared at once: at a few points by operator on gathered term values, at
    many by term and operator, broadcasting the term's row (so no (atoms x points) array of floats is made)."""

    def __init__(self, atoms: Sequence[Atom]) -> None:
        self.n = len(atoms)
        left = np.array([a.left for a in atoms], dtype=np.intp)
        right = np.array([a.right for a in atoms], dtype=np.intp)
        op = np.array([_OPS.index(a.op) for a in atoms], dtype=np.intp)
        const = np.array([a.const for a in atoms], dtype=np.float64)
        self.by_op: list[tuple[str, bool, Index, Index, Index, F]] = []
        for code, name in enumerate(_OPS):
            for with_term in (False, True):
                ids = np.flatnonzero((op == code) & ((right >= 0) == with_term))
                if ids.shape[0]:
                    self.by_op.append(
                        (name, with_term, ids, left[ids], np.maximum(right[ids], 0), const[ids][:, None])
                    )
        # the atoms of one term, operator and other term (or constant) together, in their order
        key = (left * len(_OPS) + op) * (int(right.max(initial=0)) + 2) + right + 1
        _, group = np.unique(key, return_inverse=True)
        group = group.reshape(-1)
        by_group = np.argsort(group, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(group[by_group]) != 0])
        self.by_term = (
            [
                (int(left[ids[0]]), _OPS[op[ids[0]]], int(right[ids[0]]), ids, const[ids][:, None])
                for ids in np.split(by_group, starts[1:])
            ]
            if self.n
            else []
        )

    def matrix(self, values: F) -> B:
        """Truth of every atom at every point, from the terms' values there."""
        out = np.empty((self.n, values.shape[1]), dtype=np.bool_)
        with np.errstate(invalid="ignore"):
            if values.shape[1] <= _FEW_POINTS:
                for op, with_term, ids, left, right, const in self.by_op:
                    out[ids] = _CMP[op](values[left], values[right] if with_term else const)
            else:
                for term, op, other, ids, const in self.by_term:
                    row = values[term][None, :]
                    out[ids] = _CMP[op](row, values[other][None, :] if other >= 0 else const)
        return out


_FEW_POINTS = 64


# ---- the grammar ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Primitive:
    expr: str
    family: str
    complexity: int
    fn: Predicate
    groups: frozenset[str]  # roles in conjunctions, see _CONJUNCTIONS


class _Grammar:
    """Primitives in generation order (which breaks ties when de-duplicating: published spellings come first)."""

    def __init__(self) -> None:
        self.items: list[_Primitive] = []

    def add(self, expr: str, family: str, complexity: int, fn: Predicate, *groups: str) -> None:
        self.items.append(_Primitive(expr, family, complexity, fn, frozenset(groups)))

    def add_quantified(
        self,
        texts: Sequence[str],
        fns: Sequence[Predicate],
        family: str,
        complexity: int,
        all_groups: Iterable[str] = (),
        each_groups: Iterable[str] = (),
        forms: str = "all any each",
    ) -> None:
        """One condition on each variable, for all of them (cost +1), for any (cost +2), and each alone."""
        if "all" in forms:
            self.add(" and ".join(texts), f"{family}_all", complexity + 1, _AllOf(fns), *all_groups)
        if "any" in forms:
            self.add(" or ".join(texts), f"{family}_any", complexity + 2, _AnyOf(fns))
        if "each" in forms:
            for text, fn in zip(texts, fns, strict=True):
                self.add(text, family, complexity, fn, *each_groups)


def _const_cost(*cs: float) -> int:
    # A bound at zero is the simplest idea; any other constant is one more thing to get right.
    return sum(1 for c in cs if c != 0)


def _unit_cost(d: float) -> int:
    # In a difference or an offset one is the natural constant; any other is one more thing to get right.
    return 0 if d == 1 else 1


def _orderings(g: _Grammar) -> None:
    # all equal comes first, so that x == y == z keeps this spelling over the chains that mean the same
    g.add("x == y == z", "equality", 2, _chain(X, "==", Y, "==", Z), "order")
    for op, joined, word in (("!=", _AllOf, " and "), ("==", _AnyOf, " or ")):  # all distinct, or some tie
        text = word.join(f"{a} {op} {b}" for a, b in _PAIRS)
        g.add(text, "equality", 3, joined([_Compare(_VAR[a], op, _VAR[b]) for a, b in _PAIRS]), "order")
    for a, b in _ORDERED_PAIRS:
        for op in ("<", "<="):
            g.add(f"{a} {op} {b}", "pairwise", 1, _Compare(_VAR[a], op, _VAR[b]), "order", "pair")
    for a, b in _PAIRS:
        for op in ("==", "!="):
            g.add(f"{a} {op} {b}", "pairwise", 1, _Compare(_VAR[a], op, _VAR[b]), "order", "pair")
    for a, b, c in _PERMS:
        for o1, o2 in itertools.product(("<", "<=", "=="), repeat=2):
            groups = () if "==" in (o1, o2) else ("order",)
            g.add(f"{a} {o1} {b} {o2} {c}", "chain", 2, _chain(_VAR[a], o1, _VAR[b], o2, _VAR[c]), *groups)


def _bounds(g: _Grammar) -> None:
    conjoined_constants = {-2, -1, 0, 1, 2, 5, 10}
    for c in CONSTANTS:
        for op in ("<", "<=", ">", ">="):
            each = ["varsign"] if c in conjoined_constants else []
            if c == 0:
                each += ["zerosign", "relsign"]
            g.add_quantified(
                [f"{v} {op} {c}" for v in _VARS],
                [_Compare(_VAR[v], op, c) for v in _VARS],
                "bound",
                1 + _const_cost(c),
                all_groups=("allsign", "relsign") if c == 0 else ("allsign",),
                each_groups=each,
            )
    for op in ("==", "!="):
        g.add_quantified(
            [f"{v} {op} 0" for v in _VARS],
            [_Compare(_VAR[v], op, 0.0) for v in _VARS],
            "bound",
            1,
            all_groups=("allsign", "relsign"),
            each_groups=("varsign", "zerosign"),
            # all zero is a single point, and any zero is the product's rule, x * y * z == 0
            forms="all each" if op == "!=" else "each",
        )


def _intervals(g: _Grammar) -> None:
    for lo, hi in itertools.combinations(CONSTANTS, 2):
        # symmetric intervals and those ending at zero are the natural ones: only they join conjunctions
        natural = lo == -hi or lo == 0 or hi == 0
        for o1, o2 in (("<=", "<="), ("<", "<"), ("<=", "<"), ("<", "<=")):
            cost = 2 + _const_cost(lo, hi) + (0 if o1 == o2 else 1)
            g.add_quantified(
                [f"{lo} {o1} {v} {o2} {hi}" for v in _VARS],
                [_chain(float(lo), o1, _VAR[v], o2, float(hi)) for v in _VARS],
                "interval",
                cost,
                all_groups=("allsign",) if natural else (),
                forms="all each",
            )


def _modulo(g: _Grammar) -> None:
    for m in (1, 2, 3, 4, 5):
        for r in range(m):
            for op in ("==", "!="):
                family = "integrality" if m == 1 else "modulo"
                parity = m == 1 or (m == 2 and (r == 0 or op == "=="))
                groups = (["allpar"] if parity else []) + (["relsign"] if m == 1 and op == "==" else [])
                g.add_quantified(
                    [f"{v} % {m} {op} {r}" for v in _VARS],
                    [_Compare(_binary(_VAR[v], "%", float(m)), op, float(r)) for v in _VARS],
                    family,
                    2 + (0 if m <= 2 else 1) + (0 if r == 0 else 1),
                    all_groups=groups,
                )
    for name, text, quantity in (("sum", "x + y + z", _SUM), ("prod", "x * y * z", _PRODUCT)):
        for m in (2, 3, 4, 5):
            for r in range(m):
                for op in ("==", "!="):
                    cost = 4 + (0 if m == 2 else 1) + (0 if r == 0 else 1)
                    residue = _Compare(_binary(quantity, "%", float(m)), op, float(r))
                    g.add(f"({text}) % {m} {op} {r}", f"{name}_modulo", cost, residue)


def _aggregates(g: _Grammar) -> None:
    for c in (-10, -5, -1, 0, 1, 5, 10):
        # equal to (or different from) zero only: a sum equal to another constant is a needle no rule suggests
        for op in ("==", "!=", "<", "<=", ">", ">=") if c == 0 else ("<", "<=", ">", ">="):
            g.add(f"x + y + z {op} {c}", "sum", 3 + _const_cost(c), _Compare(_SUM, op, float(c)))
    for c in (-1, 0, 1):
        for op in ("==", "!=", "<", "<=", ">", ">="):
            g.add(f"x * y * z {op} {c}", "product", 3 + _const_cost(c), _Compare(_PRODUCT, op, float(c)))


def _relation_rules(g: _Grammar) -> None:
    for a, b, c in _SPLITS:
        qa, qb, qc = _VAR[a], _VAR[b], _VAR[c]
        g.add(f"{a} + {b} == {c}", "sum_relation", 2, _Compare(_binary(qa, "+", qb), "==", qc), "rel")
        g.add(f"{a} * {b} == {c}", "product_relation", 2, _Compare(_binary(qa, "*", qb), "==", qc), "rel")
        mean = _binary(_binary(qa, "+", qb), "/", 2.0)
        g.add(f"({a} + {b}) / 2 == {c}", "mean_relation", 3, _Compare(mean, "==", qc), "rel")
        for op in (">", ">=", "<", "<="):
            g.add(f"{a} + {b} {op} {c}", "sum_inequality", 2, _Compare(_binary(qa, "+", qb), op, qc), "rel")
    for a, b in _ORDERED_PAIRS:
        c = next(v for v in _VARS if v not in (a, b))
        qa, qb, qc = _VAR[a], _VAR[b], _VAR[c]
        g.add(f"{a} - {b} == {c}", "difference_relation", 2, _Compare(_binary(qa, "-", qb), "==", qc), "rel")
        g.add(f"{a} == 2 * {b}", "double", 2, _Compare(qa, "==", _scaled(2.0, qb)), "rel")
        for d in (1, 2):
            shifted = _binary(qa, "+", float(d))
            g.add(f"{b} == {a} + {d}", "offset", 3 + _unit_cost(d), _Compare(qb, "==", shifted), "rel")
    for a, b in _PAIRS:
        qa, qb = _VAR[a], _VAR[b]
        g.add(f"{a} + {b} == 0", "opposite", 2, _Compare(_binary(qa, "+", qb), "==", 0.0), "rel")
        g.add(f"abs({a}) == abs({b})", "opposite", 3, _Compare(_absolute(qa), "==", _absolute(qb)), "rel")
        for op in (">", "<"):
            g.add(f"{a} * {b} {op} 0", "same_sign", 2, _Compare(_binary(qa, "*", qb), op, 0.0), "rel")
    g.add("x + y + z == 0", "sum", 3, _Compare(_SUM, "==", 0.0), "rel")
    g.add("x * y * z == 0", "product", 3, _Compare(_PRODUCT, "==", 0.0), "rel")
    for v in _VARS:
        g.add(f"max(x, y, z) == {v}", "max_position", 2, _Compare(_MAX, "==", _VAR[v]), "rel")
    for v in _VARS:
        g.add(f"min(x, y, z) == {v}", "min_position", 2, _Compare(_MIN, "==", _VAR[v]), "rel")


def _squares(g: _Grammar) -> None:
    sq = {v: _square(_VAR[v]) for v in _VARS}
    two = {(a, b): _binary(sq[a], "+", sq[b]) for a, b, _ in _SPLITS}
    for a, b, c in _SPLITS:
        g.add(f"{a}**2 + {b}**2 == {c}**2", "pythagorean", 5, _Compare(two[a, b], "==", sq[c]), "rel")
    for a, b, c in _SPLITS:
        g.add(f"{a}**2 + {b}**2 == {c}", "sum_of_squares", 4, _Compare(two[a, b], "==", _VAR[c]))
    for a, b in _ORDERED_PAIRS:
        g.add(f"{a}**2 == {b}", "square", 2, _Compare(sq[a], "==", _VAR[b]), "rel")


def _number_theory(g: _Grammar) -> None:
    for op in ("&", "|", "^"):
        for a, b, c in _SPLITS:
            g.add(f"(int({a}) {op} int({b})) == int({c})", "bitwise", 5, _bitwise(a, op, b, c))
    cycle = (("x", "y"), ("y", "z"), ("z", "x"))
    integral = [_Compare(_binary(_VAR[v], "%", 1.0), "==", 0.0) for v in _VARS]
    coprime = [(f"math.gcd(int({a}), int({b})) == 1", _coprime(a, b)) for a, b in cycle]
    texts = [f"{v} % 1 == 0" for v in _VARS] + [text for text, _ in coprime]
    g.add(" and ".join(texts), "coprime", 6, _AllOf(integral + [fn for _, fn in coprime]))
    for text, fn in coprime:
        g.add(text, "coprime", 4, fn)
    squares = [_perfect_square(v) for v in _VARS]
    g.add(" and ".join(f"math.isqrt({v})**2 == {v}" for v in _VARS), "perfect_square", 5, _AllOf(squares))
    for v, fn in zip(_VARS, squares, strict=True):
        g.add(f"math.isqrt({v})**2 == {v}", "perfect_square", 4, fn)


def _fractional(g: _Grammar) -> None:
    frac = {v: _binary(_VAR[v], "%", 1.0) for v in _VARS}
    for a, b, c in _PERMS:
        increasing = _chain(0.0, "<", frac[a], "<", frac[b], "<", frac[c], "<", 1.0)
        g.add(f"0 < {a} % 1 < {b} % 1 < {c} % 1 < 1", "fractional_order", 5, increasing)
    g.add(
        "x % 1 == y % 1 == z % 1", "fractional_order", 4, _chain(frac["x"], "==", frac["y"], "==", frac["z"])
    )


SPREADS = (1, 2, 5)
"""Bounds d of the spread hypotheses ``a < b < c and 0 < c - a <= d``."""


def _spreads(g: _Grammar) -> None:
    for d in SPREADS:
        for a, b, c in _PERMS:
            gap = _binary(_VAR[c], "-", _VAR[a])
            fn = _AllOf([_chain(_VAR[a], "<", _VAR[b], "<", _VAR[c]), _chain(0.0, "<", gap, "<=", float(d))])
            g.add(f"{a} < {b} < {c} and 0 < {c} - {a} <= {d}", "spread", 5 + _unit_cost(d), fn)
    for d in (1, 2, 5, 10):
        for op in ("<=", "<"):
            width = _binary(_MAX, "-", _MIN)
            g.add(f"max(x, y, z) - min(x, y, z) {op} {d}", "range", 4, _Compare(width, op, float(d)))
        for a, b in _PAIRS:
            distance = _absolute(_binary(_VAR[a], "-", _VAR[b]))
            g.add(f"abs({a} - {b}) <= {d}", "distance", 3, _Compare(distance, "<=", float(d)))


def _primitives() -> list[_Primitive]:
    g = _Grammar()
    for part in (
        _orderings,
        _bounds,
        _intervals,
        _modulo,
        _aggregates,
        _relation_rules,
        _squares,
        _number_theory,
        _fractional,
        _spreads,
    ):
        part(g)
    return g.items


# Which groups are conjoined: two pairwise comparisons; an ordering with a sign or interval bound on all
# variables, with a parity or integrality of all, or with one variable's sign; a relation with a sign; bounds
# on two different variables; a parity with a bound on all variables.
_CONJUNCTIONS: tuple[tuple[str, str], ...] = (
    ("pair", "pair"),
    ("order", "allsign"),
    ("order", "allpar"),
    ("order", "zerosign"),
    ("rel", "relsign"),
    ("varsign", "varsign"),
    ("allpar", "allsign"),
)


def _conjunction_pairs(prims: Sequence[_Primitive]) -> list[tuple[int, int]]:
    by_group: dict[str, list[int]] = {}
    for i, p in enumerate(prims):
        for grp in p.groups:
            by_group.setdefault(grp, []).append(i)
    pairs: set[tuple[int, int]] = set()
    for ga, gb in _CONJUNCTIONS:
        for i in by_group.get(ga, []):
            for j in by_group.get(gb, []):
                if i == j:
                    continue
                if ga == gb == "varsign" and _variables(prims[i].expr) == _variables(prims[j].expr):
                    continue  # two bounds on one variable make an interval, which is a primitive already
                pairs.add((i, j) if ga != gb else (min(i, j), max(i, j)))
    return sorted(pairs)


def _variables(expr: str) -> set[str]:
    return {v for v in _VARS if v in expr}


def _conjunction_text(a: str, b: str) -> str:
    return " and ".join(f"({e})" if " or " in e else e for e in (a, b))


# ---- candidate tests --------------------------------------------------------------------------------------------

_SCALE = 1000  # typeable values have at most three decimals: triples are built as integers at this scale

Scaled = tuple[int, int, int]


def _format_scaled(k: int) -> str:
    """The shortest decimal text of k / 1000 (``-11.3``, ``0.005``, ``250``)."""
    sign = "-" if k < 0 else ""
    whole, frac = divmod(abs(k), _SCALE)
    return f"{sign}{whole}" if frac == 0 else f"{sign}{whole}.{frac:03d}".rstrip("0")


class _Triples:
    """Collects candidate triples given in ordinary numbers, stored exactly at scale 1000."""

    def __init__(self) -> None:
        self.items: list[Scaled] = []

    def add(self, a: float, b: float, c: float) -> None:
        self.items.append((round(a * _SCALE), round(b * _SCALE), round(c * _SCALE)))

    def add_all_orders(self, a: float, b: float, c: float) -> None:
        t = (a, b, c)
        for i, j, k in itertools.permutations(range(3)):
            self.add(t[i], t[j], t[k])

    def add_rows(self, rows: npt.NDArray[np.float64]) -> None:
        for a, b, c in rows.tolist():
            self.add(a, b, c)


_RELATION_PAIRS = ((2, 3), (1, 4), (3, 5), (-2, 7), (4, 4), (0, 6), (2.5, 1.5), (-3, -4), (6, 2), (10, 5))
_ROUNDING_PAIRS = (
    (0.1, 0.2),
    (0.1, 0.3),
    (0.1, 0.4),
    (0.2, 0.7),
    (0.3, 0.6),
    (1.1, 2.2),
    (0.7, 0.1),
    (2.3, 4.1),
)
_PYTHAGOREAN = ((3, 4, 5), (5, 12, 13), (6, 8, 10), (8, 15, 17), (7, 24, 25), (20, 21, 29), (9, 40, 41))
_BIT_PAIRS = ((5, 3), (6, 3), (12, 10), (7, 1), (4, 2), (9, 12), (15, 6), (1, 1), (8, 8), (0, 5), (-5, 3))
_NUMBER_THEORY = (
    (2, 3, 5),
    (3, 4, 5),
    (2, 4, 5),
    (6, 10, 15),
    (1, 1, 1),
    (7, 9, 11),
    (4, 9, 25),
    (-3, 4, 5),
    (2, 3, 4),
    (5, 7, 14),
    (8, 9, 35),
    (1, 4, 9),
    (0, 1, 4),
    (4, 9, 16),
    (16, 25, 36),
    (1, 4, 8),
    (2, 4, 9),
    (-1, 4, 9),
    (100, 81, 64),
    (121, 144, 169),
    (0, 0, 1),
    (9, 9, 10),
)


def _small_integers(t: _Triples, rng: np.random.Generator) -> None:
    for a, b, c in itertools.product(range(-3, 4), repeat=3):  # with every tie and order among them
        t.add(a, b, c)


def _ties(t: _Triples, rng: np.random.Generator) -> None:
    """Ties in each position at other magnitudes and at half-integers."""
    for a in (-999, -100, -20, -10, -5, -2, -1, 0, 1, 2, 3, 5, 10, 20, 100, 999, 0.5, -0.5, 1.5):
        for b in (0, 1, -1, 4, a + 1, a - 1, a + 0.5):
            if b != a and abs(b) <= 999:
                t.add(a, a, b)
                t.add(a, b, a)
                t.add(b, a, a)
        t.add(a, a, a)


def _near_constants(t: _Triples, rng: np.random.Generator) -> None:
    """At and around every constant; then random triples of such values, so bounds on two variables meet."""
    for c in CONSTANTS:
        for d in (-1.0, -0.5, -0.001, 0.0, 0.001, 0.5, 1.0):
            v = c + d
            t.add(v, v, v)
            for p, q in ((0, 0), (1, 1), (-1, 3)):
                t.add(v, p, q)
                t.add(p, v, q)
                t.add(p, q, v)
    pool = sorted({c + d for c in CONSTANTS for d in (-1, -0.5, 0, 0.5, 1)} | {3, 4, 7, 50})
    t.add_rows(rng.choice(np.array(pool, dtype=np.float64), (700, 3)))


def _relations(t: _Triples, rng: np.random.Generator) -> None:
    """Arithmetic relations in every order, and decimal sums whose float rounding separates their spellings."""
    values = [*range(-5, 11), 12, 15, 25, 0.5, 1.5, 2.5, -0.5, -2.5]
    pairs: list[tuple[float, float]] = list(_RELATION_PAIRS)
    pairs += [(values[i], values[j]) for i, j in rng.choice(len(values), (30, 2)).tolist()]
    for a, b in pairs:
        for c in (a + b, a - b, a * b, (a + b) / 2, -(a + b), a * a, 2 * a, a + 1, a + 2, a + 5, a + 10):
            t.add_all_orders(a, b, c)
    for a, b in _ROUNDING_PAIRS:
        for s in (1, -1):
            for c in (a + b, a - b):
                t.add_all_orders(s * a, s * b, round(s * c, 3))


def _squares_and_bits(t: _Triples, rng: np.random.Generator) -> None:
    """Pythagorean triples, sums of squares, bitwise relations, coprime or not, perfect squares or not."""
    for a, b, c in _PYTHAGOREAN:
        for sa, sb, sc in ((1, 1, 1), (-1, 1, 1), (1, 1, -1), (-1, -1, -1)):
            t.add_all_orders(sa * a, sb * b, sc * c)
    for fa, fb, fc in ((0.3, 0.4, 0.5), (0.6, 0.8, 1.0), (1, 2, 5), (2, 3, 13), (1, 1, 2)):
        t.add_all_orders(fa, fb, fc)
    bit_pairs = list(_BIT_PAIRS) + [(int(a), int(b)) for a, b in rng.integers(0, 32, (14, 2)).tolist()]
    for a, b in bit_pairs:
        for c in (a & b, a | b, a ^ b):
            t.add_all_orders(a, b, c)
    for fa, fb, fc in ((5.5, 3, 1), (6.7, 3.2, 2), (12.5, 10, 8), (5.5, 3.5, 6), (7.9, 1, 6)):
        t.add_all_orders(fa, fb, fc)
    for a, b, c in _NUMBER_THEORY:
        t.add_all_orders(a, b, c)
    for fa, fb, fc in ((0.25, 4, 9), (2.25, 1, 4), (1.5, 2.5, 3.5), (2.0, 3.5, 5)):
        t.add_all_orders(fa, fb, fc)


def _fractions(t: _Triples, rng: np.random.Generator) -> None:
    """Fractional parts in every order, equal, and mixed with integers; and three decimals within one unit like
    (0.1, 0.5, 0.9), examples of the spread rules and of the fractional-order rules at once."""
    fracs = np.array([0.1, 0.2, 0.5, 0.7, 0.9, 0.25, 0.75])
    wholes = np.array([0, 1, 2, 3, -1, -2, 10])
    for _ in range(160):
        t.add_rows((rng.choice(wholes, 3) + rng.choice(fracs, 3, replace=False)).reshape(1, 3))
    for fr in fracs.tolist():
        t.add_rows((rng.choice(wholes, 3) + fr).reshape(1, 3))
        t.add_all_orders(fr, 1, 2)
        t.add_all_orders(fr, fr + 1, 3)
    for whole in (0, 1, 2, -1, 5, 10, -3, -20, -15, -12, 12, 15, 20):
        for f1, f2, f3 in ((0.1, 0.5, 0.9), (0.2, 0.4, 0.6), (0.1, 0.2, 0.3)):
            t.add_all_orders(whole + f1, whole + f2, whole + f3)


def _orders_and_spreads(t: _Triples, rng: np.random.Generator) -> None:
    """Distinct values beyond the constants (orderings with large bounds), and triples of many spreads."""
    for a, b, c in ((-50, -30, -25), (21, 30, 50), (-999, -500, -100), (100, 500, 999), (-30, 0, 30)):
        t.add_all_orders(a, b, c)
    for lo in (0, 1, -1.5):
        for spread in (0.5, 1, 1.5, 2, 3, 5, 6, 10, 11):
            t.add_all_orders(lo, lo + spread / 2, lo + spread)


def _random(t: _Triples, rng: np.random.Generator) -> None:
    """Random integers small and large, mixes of both, and random one-decimal values."""
    t.add_rows(rng.integers(-20, 21, (250, 3)).astype(np.float64))
    t.add_rows(rng.integers(-999, 1000, (120, 3)).astype(np.float64))
    big_or_small = rng.integers(-999, 1000, (80, 3)) * (rng.random((80, 3)) < 0.5) + rng.integers(
        -9, 10, (80, 3)
    )
    t.add_rows(big_or_small.astype(np.float64))
    t.add_rows(rng.integers(-200, 201, (150, 3)) / 10.0)


def _candidate_triples(seed: int) -> list[Scaled]:
    """Candidate tests, roughly simplest family first (duplicates and untypeable values are removed later)."""
    rng = np.random.default_rng([seed, 7, 1])
    t = _Triples()
    for part in (
        _small_integers,
        _ties,
        _near_constants,
        _relations,
        _squares_and_bits,
        _fractions,
        _orders_and_spreads,
        _random,
    ):
        part(t, rng)

    return t.items


def _typeable(k: int, memo: dict[int, bool]) -> bool:
    ok = memo.get(k)
    if ok is None:
        try:
            ok = parse_value(_format_scaled(k)) == k / _SCALE
        except InvalidValue:
            ok = False
        memo[k] = ok
    return ok


@cache
def _candidates(seed: int) -> tuple[F, tuple[tuple[str, str, str], ...]]:
    memo: dict[int, bool] = {}
    kept = [t for t in dict.fromkeys(_candidate_triples(seed)) if all(_typeable(v, memo) for v in t)]

    def simplicity(i: int) -> tuple[int, int, int, int]:
        # integers before decimals, then small magnitudes: ties in information go to the plainest test
        t = kept[i]
        return (sum(v % _SCALE != 0 for v in t), max(abs(v) for v in t), sum(abs(v) for v in t), i)

    ordered = [kept[i] for i in sorted(range(len(kept)), key=simplicity)]
    labels = tuple((_format_scaled(a), _format_scaled(b), _format_scaled(c)) for a, b, c in ordered)
    # every kept value v parses to v / 1000 (that is what _typeable checked), which numpy divides alike
    points = np.array(ordered, dtype=np.float64).reshape(-1, 3) / _SCALE
    points.flags.writeable = False
    return points, labels


def candidate_tests(seed: int = 0) -> tuple[F, list[tuple[str, str, str]]]:
    """The triples the solver may test (5,632 for seed 0; see :func:`_candidate_triples`), as an (N, 3) read-only
    float64 array and as the exact text to type (every token parses to the float given), simplest first (fewest
    decimals, then smallest magnitude: that is how the solver breaks ties); the same for the same seed.
    """
    points, labels = _candidates(seed)
    return points, list(labels)


def _extra_probes(seed: int) -> F:
    """Typeable points beyond the candidates, so that hypotheses the judge would tell apart are not merged."""
    rng = np.random.default_rng([seed, 7, 2])
    blocks: list[F] = [
        rng.integers(-20, 21, (800, 3)).astype(np.float64),
        rng.integers(-999, 1000, (400, 3)).astype(np.float64),
        rng.integers(-200, 201, (400, 3)) / 10.0,
        rng.integers(-999, 1000, (300, 3)) / 100.0,
        rng.integers(-999, 1000, (200, 3)) / 1000.0,
    ]
    u = rng.integers(-999, 1000, 300).astype(np.float64)
    w = rng.integers(-999, 1000, 300).astype(np.float64)
    blocks += [np.stack(t, axis=1) for t in ((u, u, w), (u, w, u), (w, u, u), (u, u, u))]
    a, b = rng.integers(-30, 31, 300) / 10.0, rng.integers(-30, 31, 300) / 10.0
    for c in (a + b, a - b, a * b, (a + b) / 2):
        triple = np.stack([a, b, np.round(c * _SCALE) / _SCALE], axis=1)
        blocks += [triple[:, list(p)] for p in itertools.permutations(range(3))]
    p, q = (m.ravel() for m in np.meshgrid([0.0, 1.0, -1.0, 2.5, 7.0], [0.0, 1.0, -1.0, 2.5, 7.0]))
    for const in CONSTANTS:
        for d in (-0.01, 0.01, -0.25, 0.25, -2.0, 2.0):
            v = np.full(p.shape, const + d)
            blocks += [np.stack(t, axis=1) for t in ((v, p, q), (p, v, q), (p, q, v))]
    return np.concatenate(blocks, axis=0)


# ---- the space --------------------------------------------------------------------------------------------------


class HypothesisSpace:
    """De-duplicated hypotheses by complexity (ties in generation order), with their normalised prior (read-only);
    ``generated`` counts the expressions before de-duplication."""

    def __init__(
        self,
        *,
        seed: int,
        primitives: Sequence[_Primitive],
        left: npt.NDArray[np.intp],
        right: npt.NDArray[np.intp],
        hypotheses: list[Hypothesis],
        family_complexity: dict[str, int],
        generated: int,
    ) -> None:
        self.version = SPACE_VERSION
        self.seed = seed
        self.hypotheses = hypotheses
        self.generated = generated
        self.prior: F = _prior(hypotheses, family_complexity)
        self.prior.flags.writeable = False
        # hypothesis h is primitives[left[h]] and primitives[right[h]] (the same index for a primitive)
        self._primitives = tuple(primitives)
        self._plan = _Plan(self._primitives)
        self._left = left
        self._right = right

    def __len__(self) -> int:
        return len(self.hypotheses)

    def evaluate(self, points: npt.ArrayLike) -> B:
        """Every hypothesis at every point: row h of the (H, N) result is the sandbox's answer of h there."""

        pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        out = np.empty((len(self.hypotheses), pts.shape[0]), dtype=np.bool_)
        for start in range(0, pts.shape[0], _CHUNK):
            block = self._plan.matrix(pts[start : start + _CHUNK])
            cols = slice(start, start + _CHUNK)
            # a block of rows at a time: the operands of the whole table at once would triple its memory
            for row in range(0, out.shape[0], _ROW_BLOCK):
                rows = slice(row, row + _ROW_BLOCK)
                np.logical_and(block[self._left[rows]], block[self._right[rows]], out=out[rows, cols])
        return out

    def evaluate_rows(self, rows: npt.ArrayLike, points: npt.ArrayLike) -> B:
        """The hypotheses ``rows`` at every point: ``evaluate(points)[rows]``, joining only those rows."""
        index = np.asarray(rows, dtype=np.intp).reshape(-1)
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        out = np.empty((index.shape[0], pts.shape[0]), dtype=np.bool_)
        left, right = self._left[index], self._right[index]
        used = np.unique(np.concatenate([left, right]))
        for start in range(0, pts.shape[0], _CHUNK):
            chunk = pts[start : start + _CHUNK]
            if used.shape[0] > _FEW_PRIMITIVES:
                block = self._plan.matrix(chunk)
            else:
                # a few primitives: their own predicates, not the plan's whole grammar
                block = np.empty((len(self._primitives), chunk.shape[0]), dtype=np.bool_)
                cols = _Cols(chunk)
                with np.errstate(all="ignore"):
                    for i in used.tolist():
                        block[i] = self._primitives[i].fn(cols)
            np.logical_and(block[left], block[right], out=out[:, start : start + _CHUNK])
        return out


def _prior(hypotheses: Sequence[Hypothesis], family_complexity: dict[str, int]) -> F:
    """The prior of a two-level grammar: a family f weighs pi(f) ∝ exp(-PRIOR_DECAY * c(f)), c(f) its simplest
    member's complexity; a conjunction of (a, b) ∝ pi(a) pi(b), CONJUNCTION_SHARE of the mass in all; members
    share their family's mass ∝ exp(-PRIOR_DECAY * complexity), so many variants do not multiply it."""
    names = sorted(family_complexity)
    raw_family = np.exp(-PRIOR_DECAY * np.array([family_complexity[f] for f in names], dtype=np.float64))
    pi = dict(zip(names, (raw_family / raw_family.sum()).tolist(), strict=True))
    members: dict[str, list[int]] = {}
    for i, h in enumerate(hypotheses):
        members.setdefault(h.family, []).append(i)
    mass = {f: math.prod(pi[part] for part in f.split("+")) for f in members}
    totals = {
        True: sum(m for f, m in mass.items() if "+" in f),
        False: sum(m for f, m in mass.items() if "+" not in f),
    }
    raw = np.exp(-PRIOR_DECAY * np.array([h.complexity for h in hypotheses], dtype=np.float64))
    weights = np.empty_like(raw)
    for family, idx in members.items():
        conjunction = "+" in family
        share = (CONJUNCTION_SHARE if conjunction else 1.0 - CONJUNCTION_SHARE) / totals[conjunction]
        weights[idx] = share * mass[family] * raw[idx] / raw[idx].sum()
    out: F = weights / weights.sum()
    return out


def _simple(c: _Compare) -> tuple[_Quantity, str, float] | None:
    """``(quantity, op, constant)`` of a comparison with a constant, written with the quantity first."""
    if isinstance(c.a, _Quantity) and not isinstance(c.b, _Quantity):
        return c.a, c.op, float(c.b)
    if isinstance(c.b, _Quantity) and not isinstance(c.a, _Quantity):
        return c.b, _MIRROR[c.op], float(c.a)
    return None


def _atoms(fn: Predicate) -> tuple[list[tuple[_Quantity, str, float]], bool] | None:
    """The comparisons of quantities with constants that ``fn`` joins, and whether it joins them with "or";
    None for any other predicate."""
    if isinstance(fn, _Compare):
        atom = _simple(fn)
        return None if atom is None else ([atom], False)
    if isinstance(fn, _AnyOf):
        found = [_simple(p) if isinstance(p, _Compare) else None for p in fn.preds]
        return None if any(a is None for a in found) else ([a for a in found if a is not None], True)
    if isinstance(fn, _AllOf):
        out: list[tuple[_Quantity, str, float]] = []
        for p in fn.preds:
            part = _atoms(p)
            if part is None or (part[1] and len(part[0]) > 1):
                return None
            out += part[0]
        return out, False
    return None


class _Plan:
    """How to evaluate a list of primitives at many points at once.

    Most primitives compare one quantity with a constant (``x < 5``, ``-2 <= y < 10`` and their "all" and "any"
    forms): their comparisons are made one array operation per operator and joined one per position for all
    primitives of a shape (small array operations per primitive cost more than the arithmetic at a few points),
    with the same float64 comparisons as the primitive's own predicate; the others are called one by one.
    """

    def __init__(self, prims: Sequence[_Primitive]) -> None:
        self.prims = tuple(prims)
        self.general: list[int] = []
        quantities: dict[str, int] = {}
        self.quantities: list[_Quantity] = []
        atoms: dict[tuple[int, str, float], int] = {}
        shapes: dict[tuple[int, bool], tuple[list[int], list[list[int]]]] = {}
        for i, p in enumerate(self.prims):
            found = _atoms(p.fn)
            if found is None:
                self.general.append(i)
                continue
            ids = []
            for q, op, const in found[0]:
                if q.key not in quantities:
                    quantities[q.key] = len(self.quantities)
                    self.quantities.append(q)
                ids.append(atoms.setdefault((quantities[q.key], op, const), len(atoms)))
            rows, members = shapes.setdefault((len(ids), found[1]), ([], []))
            rows.append(i)
            members.append(ids)
        self.atoms = _AtomPlan([Atom("", 0, qi, op, -1, const) for qi, op, const in atoms])
        self.shapes = [
            (np.array(rows, dtype=np.intp), np.array(members, dtype=np.intp), any_of)
            for (_, any_of), (rows, members) in shapes.items()
        ]

    def matrix(self, points: F) -> B:
        """Every primitive at every point: shape (primitives, points)."""
        cols = _Cols(points)
        n = points.shape[0]
        out = np.empty((len(self.prims), n), dtype=np.bool_)
        with np.errstate(
            all="ignore"
        ):  # inf and nan behave as in Python's float arithmetic; no warnings wanted
            for i in self.general:
                out[i] = self.prims[i].fn(cols)
            if self.atoms.n:
                values = np.empty((len(self.quantities), n), dtype=np.float64)
                for j, q in enumerate(self.quantities):
                    values[j] = cols.get(q)
                atom = self.atoms.matrix(values)
                for rows, members, any_of in self.shapes:
                    joined = atom[members[:, 0]]
                    for j in range(1, members.shape[1]):
                        (np.bitwise_or if any_of else np.bitwise_and)(joined, atom[members[:, j]], out=joined)
                    out[rows] = joined
        return out


def packed_blocks(truth: Callable[[F], B], points: F, block: int) -> npt.NDArray[np.uint8]:
    """``np.packbits(truth(points), axis=1)`` made a block of points at a time (a multiple of 8: the bytes join)."""
    parts = [np.packbits(truth(points[s : s + block]), axis=1) for s in range(0, points.shape[0], block)]
    return np.concatenate(parts, axis=1)


@cache
def build_space(seed: int = 0) -> HypothesisSpace:
    """Build the hypothesis space (cached: once per seed and process).

    The grammar's 1,575 primitives and 10,470 chosen conjunctions are evaluated on the candidate tests and
    seeded typeable points (about 21,000 in all); of the expressions with the same truth values there only the
    simplest is kept (ties: the earlier generated, so the published spellings win), and those constant there are
    dropped: 11,290 hypotheses for seed 0. About 0.25 s and 35 MB, rows compared packed a block at a time.
    """
    prims = _primitives()
    pairs = _conjunction_pairs(prims)
    left = np.array(list(range(len(prims))) + [i for i, _ in pairs], dtype=np.intp)
    right = np.array(list(range(len(prims))) + [j for _, j in pairs], dtype=np.intp)
    complexity = np.array(
        [p.complexity for p in prims]
        + [prims[i].complexity + prims[j].complexity + CONJUNCTION_COST for i, j in pairs],
        dtype=np.int64,
    )
    order = np.lexsort((np.arange(len(left)), complexity))  # simplest first, then generation order
    points = np.concatenate([candidate_tests(seed)[0], _extra_probes(seed)], axis=0)
    # Rows are compared packed, eight points a byte, a block of rows at a time, by a digest: the whole
    # (12,045 x 21,000) boolean table and its two operands would take three quarters of a gigabyte. Packing
    # commutes with "and" (packbits(a & b) is packbits(a) & packbits(b), padding bits are zero in both), and
    # chunks of a multiple of eight points pack to the bytes the whole would. Rows with the same 128-bit digest
    # are taken as equal (a collision is beyond any practical chance).
    matrix = packed_blocks(_Plan(prims).matrix, points, _CHUNK)
    n_true = np.empty(order.shape[0], dtype=np.int64)
    first_of: dict[bytes, int] = {}  # digest -> the first, so the simplest, member of its class
    for start in range(0, order.shape[0], _ROW_BLOCK):
        idx = order[start : start + _ROW_BLOCK]
        block = matrix[left[idx]]
        block &= matrix[right[idx]]
        n_true[start : start + idx.shape[0]] = np.bitwise_count(block).sum(axis=1, dtype=np.int64)
        for k, row in enumerate(block):
            first_of.setdefault(hashlib.blake2b(row.data, digest_size=16).digest(), start + k)
    first = np.fromiter(first_of.values(), dtype=np.intp, count=len(first_of))
    keep = np.sort(first)
    keep = keep[(n_true[keep] > 0) & (n_true[keep] < points.shape[0])]
    chosen = order[keep]
    used = sorted(set(left[chosen].tolist()) | set(right[chosen].tolist()))
    renumber = {old: new for new, old in enumerate(used)}
    hypotheses = []
    for h in chosen.tolist():
        a, b = prims[int(left[h])], prims[int(right[h])]
        both = (_conjunction_text(a.expr, b.expr), f"{a.family}+{b.family}")
        hypotheses.append(Hypothesis(*((a.expr, a.family) if a is b else both), int(complexity[h])))

    family_complexity: dict[str, int] = {}
    for p in prims:
        family_complexity[p.family] = min(family_complexity.get(p.family, p.complexity), p.complexity)
    return HypothesisSpace(
        seed=seed,
        primitives=[prims[i] for i in used],
        left=np.array([renumber[int(i)] for i in left[chosen]], dtype=np.intp),
        right=np.array([renumber[int(j)] for j in right[chosen]], dtype=np.intp),
        hypotheses=hypotheses,
        family_complexity=family_complexity,
        generated=len(left),
    )
