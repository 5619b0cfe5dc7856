"""Exact evaluation of the IR at single points: rationals for what is rational, floats only for the irrational.

Test values are decimals a person types, so a point is exact as a :class:`fractions.Fraction` (its shortest
decimal). Integers are Python ints and float-typed values are Fractions, so ``+ - * / // %``, comparisons,
``abs``, ``min``, ``max``, ``round``, ``floor`` and integer powers are exact; irrational functions (``sqrt`` of a
non-square, log/exp/trig, fractional powers) give floats, and a comparison involving such a float counts
values within :data:`TOLERANCE` (relative) as equal. A value beyond :data:`MAX_EXACT_BITS` bits gives up
(:class:`Inexact`), and the caller keeps the float result. A family's judge uses it on the points where a rule and
a guess disagree in floats.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Union, cast

from wason.sandbox.ir import (
    BINARY,
    BOOLOP,
    CALL,
    COMPARE,
    CONST,
    IFEXP,
    ISTYPE,
    REDUCE,
    UNARY,
    VAR,
    Node,
)

TOLERANCE = 1e-9
"""Relative tolerance of a comparison that involves an irrational (float) value."""
MAX_EXACT_BITS = 4096
"""Largest integer, numerator or denominator (in bits) carried exactly; beyond, the float result is kept."""

Num = Union[int, Fraction, float]  # noqa: UP007 - a runtime alias


class Inexact(Exception):
    """This point cannot be evaluated exactly within the bounds; keep the float result."""


class _Raised(Exception):
    """Python would raise here; the expression is False at this point."""


def exact_point(x: float, y: float, z: float) -> tuple[Num, Num, Num]:
    """A point's values as Python would see a typed decimal: ints when integral, else the shortest decimal."""
    return (_exact_input(x), _exact_input(y), _exact_input(z))


def _exact_input(v: float) -> Num:
    if not math.isfinite(v):
        return v
    if v.is_integer():
        return int(v)
    return Fraction(repr(v))


def evaluate_exact(root: Node, point: tuple[Num, Num, Num], shared: dict[int, Num] | None = None) -> bool:
    """Truth value of a compiled expression at one point, in exact arithmetic (False where Python raises).

    Args:
        root: the compiled IR.
        point: the exact values of x, y and z (:func:`exact_point`).
        shared: values of constant sub-expressions, kept across points by a caller evaluating many.

    Raises:
        Inexact: a value exceeded :data:`MAX_EXACT_BITS`; the caller keeps its float result.
    """
    try:
        return _truthy(_Exact(point, {} if shared is None else shared).run(root))
    except _Raised:
        return False
    except (ZeroDivisionError, ValueError, TypeError, OverflowError, ArithmeticError):
        return False


class Raises(Exception):
    """Python would raise evaluating this constant expression (:func:`constant_value`)."""


def constant_value(node: Node) -> Num:
    """The exact value of an expression that uses no variable (``node.free == 0``).

    Raises:
        Raises: Python would raise evaluating it.
        Inexact: a value exceeded :data:`MAX_EXACT_BITS`.
    """
    try:
        return _Exact((0, 0, 0), {}).run(node)
    except (_Raised, ZeroDivisionError, ValueError, TypeError, OverflowError, ArithmeticError):
        raise Raises from None


def _check(v: Num) -> Num:
    if isinstance(v, bool):
        return v
    if isinstance(v, int):
        if v.bit_length() > MAX_EXACT_BITS:
            raise Inexact
    elif isinstance(v, Fraction):
        if v.numerator.bit_length() > MAX_EXACT_BITS or v.denominator.bit_length() > MAX_EXACT_BITS:
            raise Inexact
    elif isinstance(v, complex):
        raise _Raised
    return v


def _truthy(v: Num) -> bool:
    if isinstance(v, float) and not isinstance(v, bool):
        return not math.isclose(v, 0.0, rel_tol=TOLERANCE, abs_tol=TOLERANCE) or math.isnan(v)
    return bool(v)


def _approx(v: Num) -> bool:
    return isinstance(v, float)


def _eq(a: Num, b: Num) -> bool:
    if _approx(a) or _approx(b):
        fa, fb = float(a), float(b)
        if math.isinf(fa) or math.isinf(fb) or math.isnan(fa) or math.isnan(fb):
            return fa == fb
        return math.isclose(fa, fb, rel_tol=TOLERANCE, abs_tol=TOLERANCE)
    return a == b


def _cmp(op: str, a: Num, b: Num) -> bool:
    if op == "eq":
        return _eq(a, b)
    if op == "ne":
        return not _eq(a, b)
    if (_approx(a) or _approx(b)) and _eq(a, b):
        return op in ("le", "ge")
    if op == "lt":
        return a < b
    if op == "le":
        return a <= b
    if op == "gt":
        return a > b
    return a >= b


def _is_int(v: Num) -> bool:
    return isinstance(v, int)


def _float_typed(v: Num) -> Num:
    """``float(v)``: exact values stay exact (as a float-typed Fraction)."""
    if isinstance(v, int):
        return Fraction(v)
    return v


def _sqrt(v: Num) -> Num:
    if v < 0:
        raise _Raised
    if isinstance(v, float):
        return math.sqrt(v)
    f = Fraction(v)
    n, d = math.isqrt(f.numerator), math.isqrt(f.denominator)
    if n * n == f.numerator and d * d == f.denominator:
        return Fraction(n, d)
    return (
        math.sqrt(f.numerator / f.denominator) if f.denominator.bit_length() < 1000 else math.sqrt(float(f))
    )


def _pow(a: Num, b: Num, force_float: bool = False) -> Num:
    if isinstance(b, int) and not _approx(a):
        if a not in (0, 1, -1) and abs(b) * max(1, _bits(a)) > MAX_EXACT_BITS:
            raise Inexact
        if b < 0 and a == 0:
            raise _Raised
        out: Num = a**b if (b >= 0 and isinstance(a, int) and not force_float) else Fraction(a) ** b
        return out
    if isinstance(b, Fraction) and b.denominator == 1 and not _approx(a):
        return _pow(a, int(b), force_float=True)
    fa, fb = float(a), float(b)
    if fa < 0:
        raise _Raised  # a negative base to a fractional power is complex (or a ValueError)
    if fa == 0 and fb < 0:
        raise _Raised
    try:
        return math.pow(fa, fb)
    except OverflowError:
        raise Inexact from None


def _bits(a: Num) -> int:
    if isinstance(a, int):
        return a.bit_length()
    f = Fraction(a)
    return max(f.numerator.bit_length(), f.denominator.bit_length())


def _approx_call(func: str, v: Num) -> float:
    fv = float(v)
    result: float = getattr(math, func)(fv)
    return result


class _Exact:
    def __init__(self, point: tuple[Num, Num, Num], shared: dict[int, Num]) -> None:
        self.point = point
        self.memo: dict[int, Num] = {}
        self.shared = shared

    def run(self, node: Node) -> Num:
        memo = self.shared if node.free == 0 else self.memo
        found = memo.get(id(node))
        if found is None:
            found = _check(self._eval(node))
            memo[id(node)] = found
        return found

    def _eval(self, node: Node) -> Num:
        kind = node.kind
        if kind == CONST:
            if not math.isfinite(node.value):
                return node.value
            if node.is_int:
                return int(node.value)
            return Fraction(repr(node.value))
        if kind == VAR:
            return self.point[node.index]
        if kind == UNARY:
            a = self.run(node.args[0])
            if node.op == "not":
                return not _truthy(a)
            if node.op == "neg":
                return -a
            if node.op == "pos":
                return +a
            if not _is_int(a):
                raise _Raised
            return ~int(a)
        if kind == BINARY:
            return self._binary(node)
        if kind == COMPARE:
            return self._compare(node)
        if kind == BOOLOP:
            value: Num = 0
            for arg in node.args:
                value = self.run(arg)
                if _truthy(value) != (node.op == "and"):
                    return value
            return value
        if kind == IFEXP:
            return self.run(node.args[1]) if _truthy(self.run(node.args[0])) else self.run(node.args[2])
        if kind == CALL:
            return self._call(node)
        if kind == REDUCE:
            return self._reduce(node)
        if kind == ISTYPE:
            a = self.run(node.args[0])
            if node.op == "int":
                return _is_int(a)
            if node.op == "float":
                return not _is_int(a)
            return True
        raise Inexact  # pragma: no cover - every kind is handled

    def _binary(self, node: Node) -> Num:
        a, b = self.run(node.args[0]), self.run(node.args[1])
        op = node.op
        if op == "add":
            return a + b
        if op == "sub":
            return a - b
        if op == "mul":
            return a * b
        if op in ("div", "floordiv", "mod"):
            if b == 0:
                raise _Raised
            both = _is_int(a) and _is_int(b)
            if op == "div":
                return a / b if (_approx(a) or _approx(b)) else Fraction(a) / Fraction(b)
            if op == "floordiv":
                q = a // b
                return q if both or _approx(q) else Fraction(q)
            r = a % b
            return r if both or _approx(r) else Fraction(r)
        if op == "pow":
            return _pow(a, b)
        if not (_is_int(a) and _is_int(b)):
            raise _Raised
        ia, ib = int(a), int(b)
        if op == "and":
            return ia & ib
        if op == "or":
            return ia | ib
        if op == "xor":
            return ia ^ ib
        if ib < 0:
            raise _Raised
        if op == "lshift":
            if ib + ia.bit_length() > MAX_EXACT_BITS:
                raise Inexact
            return ia << ib
        return ia >> min(ib, MAX_EXACT_BITS + 1)

    def _compare(self, node: Node) -> Num:
        left = self.run(node.args[0])
        for op, right_node in zip(node.ops, node.args[1:], strict=True):
            if op in ("in", "notin"):
                found = False
                for el_node in right_node.args:
                    if el_node is node.args[0] and el_node.kind in (VAR, CONST):
                        found = True
                        break
                    if _eq(left, self.run(el_node)):
                        found = True
                        break
                if found != (op == "in"):
                    return False
                continue
            right = self.run(right_node)
            if not _cmp(op, left, right):
                return False
            left = right
        return True

    def _call(self, node: Node) -> Num:
        args = [self.run(a) for a in node.args]
        name = node.op
        a = args[0] if args else 0
        if name in ("abs", "fabs"):
            magnitude: Num = -a if a < 0 else a
            return magnitude if name == "abs" else _float_typed(magnitude)
        if name in ("int", "trunc"):
            return math.trunc(a)
        if name == "float":
            return _float_typed(a)
        if name == "bool":
            return _truthy(a)
        if name == "round1":
            return round(a)
        if name == "round2":
            n = int(args[1])
            rounded = cast(Num, round(a, n)) if not _approx(a) else round(float(a), n)
            return rounded
        if name == "floor":
            return math.floor(a)
        if name == "ceil":
            return math.ceil(a)
        if name == "sqrt":
            return _sqrt(a)
        if name == "isqrt":
            if not _is_int(a) or a < 0:
                raise _Raised
            return math.isqrt(int(a))
        if name == "gcd":
            if not all(_is_int(v) for v in args):
                raise _Raised
            return math.gcd(*(int(v) for v in args))
        if name == "fpow":
            out = _pow(a, args[1], force_float=True)
            return _float_typed(out)
        if name == "is_integer":
            if _approx(a):
                return float(a).is_integer()
            return Fraction(a).denominator == 1
        if name in ("log", "log2", "log10"):
            if a <= 0:
                raise _Raised
            return _approx_call(name, a)
        if name == "logb":
            if a <= 0 or args[1] <= 0 or args[1] == 1:
                raise _Raised
            return math.log(float(a), float(args[1]))
        if name == "exp":
            try:
                return math.exp(float(a))
            except OverflowError:
                raise _Raised from None
        if name in ("sin", "cos", "tan"):
            return _approx_call(name, a)
        raise Inexact

    def _reduce(self, node: Node) -> Num:
        for p in node.pre:
            self.run(p)
        op = node.op
        values: list[Num] = []
        for item in node.items:
            if all(_truthy(self.run(c)) for c in item.conds):
                v = self.run(item.body)
                if node.lazy and (_truthy(v) != (op == "all")):
                    return op == "any"
                values.append(v)
        if op == "all":
            return all(_truthy(v) for v in values)
        if op == "any":
            return any(_truthy(v) for v in values)
        if op == "sum":
            total: Num = 0
            for v in values:
                total = total + v
            return total
        if not values:
            raise _Raised
        best = values[0]
        for v in values[1:]:
            if (v < best) if op == "min" else (v > best):
                best = v
        return best
