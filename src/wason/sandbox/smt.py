"""The guess language's meaning as an SMT formula (z3): what a compiled expression says at a symbolic point.

:func:`encode` turns the IR of :mod:`wason.sandbox.ir` into one z3 formula that holds exactly where the
expression is true in the exact semantics of :mod:`wason.sandbox.exact`: rationals for ``+ - * / // %``,
comparisons, ``abs``, ``min``/``max``, ``round``, ``floor``/``ceil``/``int``, integer powers, bitwise operators on
bounded integers and ``math.isqrt``; integral values are Python ints, others floats (``isinstance``, ``/``,
``round`` and the bitwise operators depend on it); a point where Python would raise makes the whole expression
false, except where Python never evaluates the part that raises (``and``/``or``, conditional expressions,
chained comparisons, ``in``, generators given to ``all``/``any``). A family's judge asks z3 whether two
expressions differ anywhere on its own domain, which it states as constraints on the variables.

Values are kept as an integer term over a denominator known here (``k / 1000`` for a typed decimal, and so on
through sums, products, division by constants and ``floor``), so that most questions are integer arithmetic,
which z3 settles far better than mixed integer and real arithmetic; only a division by a variable makes a
real-valued term.

Irrational values (``sqrt`` of a non-square, fractional powers, logarithms, exponentials, trigonometry), ``gcd``,
powers with a variable or large exponent, non-finite constants and bitwise operators whose operands have no
bound are not encoded: :class:`Unsupported` says which, and the caller decides on samples instead.

Every helper variable the encoding introduces (the bits of a bitwise operand, an integer square root) is
determined by the point wherever its value is used, and constrained only where it is, so it never rules a
point out of the search.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Union

import z3

from wason.sandbox.exact import Inexact, Raises, constant_value
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

MAX_POWER = 12
"""Largest constant exponent encoded (``v ** 12``); larger ones are :class:`Unsupported`."""
MAX_DEGREE = 24
"""Largest polynomial degree encoded (products and powers of the variables); beyond it, :class:`Unsupported`."""
MAX_BITS = 64
"""Widest two's-complement range a bitwise operand may need (by its static bound)."""
MAX_SHIFT = 64
"""Largest constant shift encoded."""
MAX_MAGNITUDE = 1e100
"""Largest magnitude of a constant, or of a value by its static bound, encoded (the exact evaluator carries
4,096 bits; far below that, nothing it gives up on is encoded)."""
MAX_DENOMINATOR = 10**60
"""Largest denominator kept exact; a value with a larger one becomes a real-valued term."""

Bool = Union[bool, z3.BoolRef]  # noqa: UP007 - a runtime alias


class Unsupported(Exception):
    """The expression uses something the encoding does not cover; ``reason`` says what (one line)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Variable:
    """One variable of the domain as the encoding sees it: ``numerator / denominator``.

    Attributes:
        numerator: its z3 integer term.
        denominator: a positive whole number (1000 for decimals of at most three places, 1 for whole numbers).
        is_int: where it is a Python int (integral values are ints): a z3 formula or a constant.
        bound: the largest magnitude it takes on the domain (for the bitwise operators' widths).
    """

    numerator: Any
    denominator: int
    is_int: Bool
    bound: float


@dataclass(frozen=True)
class _Q:
    """A number: ``n / d`` with ``n`` an integer term and ``d`` a whole number known here, or a real term."""

    n: Any = None
    d: int = 1
    r: Any = None

    @property
    def exact(self) -> bool:
        return self.r is None


@dataclass(frozen=True)
class _Val:
    num: _Q  # the value (a truth value as 0 or 1)
    is_int: Bool
    err: Bool  # Python raised at or below this node (on the paths it evaluates)
    truth: Bool | None  # the truth value itself, when known more simply than num != 0
    bound: float | None  # the largest magnitude on the domain where no error is raised; None: unknown
    degree: int  # polynomial degree in the variables (an upper bound)
    bits: tuple[Any, ...] | None = None  # a bitwise result's own two's-complement bits


def _join(xs: tuple[Bool, ...], unit: bool, join: Callable[..., Any]) -> Bool:
    """``z3.Or`` (unit False) or ``z3.And`` (unit True) of ``xs``, with Python constants folded away."""
    rest = [x for x in xs if x is not unit]
    if any(x is (not unit) for x in rest):
        return not unit
    if not rest:
        return unit
    return rest[0] if len(rest) == 1 else join(*rest)


def _or(*xs: Bool) -> Bool:
    return _join(xs, False, z3.Or)


def _and(*xs: Bool) -> Bool:
    return _join(xs, True, z3.And)


def _not(x: Bool) -> Bool:
    if isinstance(x, bool):
        return not x
    return z3.Not(x)


class _Encoder:
    def __init__(self, variables: Sequence[Variable], ctx: z3.Context) -> None:
        self.vars = variables
        self.ctx = ctx
        self.memo: dict[int, _Val] = {}
        self.bit_memo: dict[int, list[Any]] = {}
        self.side: list[Any] = []  # constraints defining helper variables (guarded, see the module)
        self.fresh = 0

    # ---- numbers ---------------------------------------------------------------------------------------

    def const(self, value: int | Fraction) -> _Q:
        f = Fraction(value)
        return _Q(z3.IntVal(f.numerator, self.ctx), f.denominator)

    def real(self, a: _Q) -> Any:
        if a.r is not None:
            return a.r
        n = z3.ToReal(a.n)
        return n if a.d == 1 else n / z3.RealVal(a.d, self.ctx)

    def scaled(self, a: _Q, d: int) -> Any:
        """``a.n`` over the denominator ``d`` (a multiple of ``a.d``)."""
        factor = d // a.d
        return a.n if factor == 1 else a.n * factor

    def common(self, a: _Q, b: _Q) -> tuple[Any, Any, int] | None:
        """Both over one denominator, or None when one is real-valued."""
        if not (a.exact and b.exact):
            return None
        d = math.lcm(a.d, b.d)
        return self.scaled(a, d), self.scaled(b, d), d

    def fits(self, d: int) -> bool:
        return d <= MAX_DENOMINATOR

    def add(self, a: _Q, b: _Q, sign: int = 1) -> _Q:
        both = self.common(a, b)
        if both is not None and self.fits(both[2]):
            na, nb, d = both
            return _Q(na + nb if sign > 0 else na - nb, d)
        ra, rb = self.real(a), self.real(b)
        return _Q(r=ra + rb if sign > 0 else ra - rb)

    def neg(self, a: _Q) -> _Q:
        return _Q(-a.n, a.d) if a.exact else _Q(r=-a.r)

    def mul(self, a: _Q, b: _Q) -> _Q:
        if a.exact and b.exact and self.fits(a.d * b.d):
            return _Q(a.n * b.n, a.d * b.d)
        return _Q(r=self.real(a) * self.real(b))

    def div(self, a: _Q, b: _Q, constant: Fraction | None) -> _Q:
        """``a / b``; ``constant``: b's value, when it is a constant (then no division is needed)."""
        if constant is not None and constant != 0 and a.exact:
            p, q = constant.numerator, constant.denominator
            d = a.d * abs(p)
            if self.fits(d):
                n = a.n * q if q != 1 else a.n
                return _Q(-n if p < 0 else n, d)
        return _Q(r=self.real(a) / self.real(b))

    def floor(self, a: _Q) -> _Q:
        if a.exact:
            return _Q(a.n if a.d == 1 else a.n / a.d, 1)  # z3's integer division by a positive number floors
        return _Q(z3.ToInt(a.r), 1)

    def whole(self, a: _Q) -> Any:
        """The integer term of a value that is a whole number (where it is used)."""
        return self.floor(a).n

    def is_whole(self, a: _Q) -> Bool:
        if a.exact:
            return True if a.d == 1 else a.n % a.d == 0
        return z3.IsInt(a.r)

    def compare(self, op: str, a: _Q, b: _Q) -> Any:
        both = self.common(a, b)
        x, y = (both[0], both[1]) if both is not None else (self.real(a), self.real(b))
        if op == "lt":
            return x < y
        if op == "le":
            return x <= y
        if op == "gt":
            return x > y
        if op == "ge":
            return x >= y
        if op == "eq":
            return x == y
        return x != y

    def nonzero(self, a: _Q) -> Any:
        return a.n != 0 if a.exact else a.r != 0

    def ite(self, c: Bool, a: Any, b: Any) -> Any:
        if c is True:
            return a
        if c is False:
            return b
        if isinstance(a, _Q):
            both = self.common(a, b)
            if both is not None:
                na, nb, d = both
                return _Q(na if na.eq(nb) else z3.If(c, na, nb), d)
            ra, rb = self.real(a), self.real(b)
            return _Q(r=ra if ra.eq(rb) else z3.If(c, ra, rb))
        if isinstance(a, bool) and isinstance(b, bool):
            if a == b:
                return a
            return c if a else _not(c)
        a = self.boolean(a)
        b = self.boolean(b)
        return a if a.eq(b) else z3.If(c, a, b)

    def boolean(self, b: Bool) -> Any:
        return z3.BoolVal(b, self.ctx) if isinstance(b, bool) else b

    def truthy(self, v: _Val) -> Bool:
        return v.truth if v.truth is not None else self.nonzero(v.num)

    def of_truth(self, t: Bool, err: Bool) -> _Val:
        one, zero = self.const(1), self.const(0)
        num = (one if t else zero) if isinstance(t, bool) else _Q(z3.If(t, one.n, zero.n), 1)
        return _Val(num, True, err, t, 1.0, 0)

    def name(self, stem: str) -> str:
        self.fresh += 1
        return f"_{stem}{self.fresh}"

    # ---- nodes -----------------------------------------------------------------------------------------

    def run(self, node: Node) -> _Val:
        found = self.memo.get(id(node))
        if found is None:
            found = self._constant(node) if node.free == 0 and node.kind != CONST else self._eval(node)
            if found.degree > MAX_DEGREE:
                raise Unsupported(f"a polynomial of degree over {MAX_DEGREE}")
            if found.bound is not None and found.bound > MAX_MAGNITUDE:
                raise Unsupported("values beyond 1e100")
            self.memo[id(node)] = found
        return found

    def _constant(self, node: Node) -> _Val:
        """A part that uses no variable, folded by the exact evaluator (its own errors and limits)."""
        try:
            value = constant_value(node)
        except Raises:
            return _Val(self.const(0), True, True, False, 0.0, 0)
        except Inexact:
            raise Unsupported("a constant beyond the exact evaluator's limits") from None
        if isinstance(value, float):
            raise Unsupported("an irrational or non-finite constant")
        exact = Fraction(value)
        return self._literal(exact, isinstance(value, int))  # bool is an int

    def _literal(self, value: Fraction, is_int: bool) -> _Val:
        if value != 0 and not 1 / MAX_MAGNITUDE <= abs(value) <= MAX_MAGNITUDE:
            raise Unsupported("a constant beyond 1e100 or below 1e-100")
        return _Val(self.const(value), is_int, False, value != 0, float(abs(value)), 0)

    def _eval(self, node: Node) -> _Val:
        kind = node.kind
        if kind == CONST:
            if not math.isfinite(node.value):
                raise Unsupported("a non-finite constant (inf, nan, or an integer beyond the float range)")
            value = Fraction(int(node.value)) if node.is_int else Fraction(repr(node.value))
            return self._literal(value, node.is_int)
        if kind == VAR:
            var = self.vars[node.index]
            return _Val(_Q(var.numerator, var.denominator), var.is_int, False, None, var.bound, 1)
        if kind == UNARY:
            return self._unary(node)
        if kind == BINARY:
            return self._binary(node)
        if kind == COMPARE:
            return self._compare(node)
        if kind == BOOLOP:
            return self._boolop(node)
        if kind == IFEXP:
            c, a, b = (self.run(n) for n in node.args)
            t = self.truthy(c)
            return _Val(
                self.ite(t, a.num, b.num),
                self.ite(t, a.is_int, b.is_int),
                _or(c.err, _and(t, a.err), _and(_not(t), b.err)),
                self.ite(t, self.truthy(a), self.truthy(b)),
                _max_bound(a.bound, b.bound),
                max(a.degree, b.degree),
            )
        if kind == CALL:
            return self._call(node)
        if kind == REDUCE:
            return self._reduce(node)
        if kind == ISTYPE:
            a = self.run(node.args[0])
            t = a.is_int if node.op == "int" else _not(a.is_int) if node.op == "float" else True
            return self.of_truth(t, a.err)
        raise Unsupported(f"the {kind} form")

    def _unary(self, node: Node) -> _Val:
        a = self.run(node.args[0])
        if node.op == "not":
            return self.of_truth(_not(self.truthy(a)), a.err)
        if node.op == "neg":
            return _Val(self.neg(a.num), a.is_int, a.err, a.truth, a.bound, a.degree)
        if node.op == "pos":
            return _Val(a.num, a.is_int, a.err, a.truth, a.bound, a.degree)
        # ~a: ints only, -a - 1
        bound = None if a.bound is None else a.bound + 1
        num = self.add(self.neg(a.num), self.const(1), -1)
        return _Val(num, True, _or(a.err, _not(a.is_int)), None, bound, a.degree)

    def _divisor(self, node: Node) -> Fraction | None:
        """The value of a constant divisor (an exact one), else None."""
        if node.free != 0:
            return None
        try:
            value = constant_value(node)
        except (Raises, Inexact):
            return None
        return None if isinstance(value, float) else Fraction(value)

    def _binary(self, node: Node) -> _Val:
        op = node.op
        if op == "pow":
            return self._pow(node)
        a, b = self.run(node.args[0]), self.run(node.args[1])
        both = _and(a.is_int, b.is_int)
        err = _or(a.err, b.err)
        if op in ("add", "sub"):
            num = self.add(a.num, b.num, 1 if op == "add" else -1)
            return _Val(num, both, err, None, _sum_bound(a.bound, b.bound), max(a.degree, b.degree))
        if op == "mul":
            return _Val(
                self.mul(a.num, b.num), both, err, None, _product_bound(a.bound, b.bound), a.degree + b.degree
            )
        if op in ("div", "floordiv", "mod"):
            err = _or(err, _not(self.nonzero(b.num)))
            divisor = self._divisor(node.args[1])
            quotient = self.div(a.num, b.num, divisor)
            degree = a.degree + b.degree
            if op == "div":
                bound = a.bound / abs(float(divisor)) if divisor and a.bound is not None else None
                return _Val(quotient, False, err, None, bound, degree)
            whole = self.floor(quotient)
            if op == "floordiv":
                bound = a.bound / abs(float(divisor)) + 1 if divisor and a.bound is not None else None
                return _Val(whole, both, err, None, bound, degree)
            rest = self.add(a.num, self.mul(b.num, whole), -1)
            bound = b.bound if divisor is not None else _max_bound(a.bound, b.bound)
            return _Val(rest, both, err, None, bound, max(a.degree, b.degree))
        if op in ("and", "or", "xor"):
            return self._bitwise(op, a, b, _or(err, _not(both)))
        if op in ("lshift", "rshift"):
            return self._shift(node, op, a, _or(err, _not(both)))
        raise Unsupported(f"the operator {op}")

    def _pow(self, node: Node) -> _Val:
        base_node, exp_node = node.args
        if (
            exp_node.kind != CONST
            or not math.isfinite(exp_node.value)
            or not float(exp_node.value).is_integer()
        ):
            raise Unsupported("a power whose exponent is not a whole-number constant")
        n = int(exp_node.value)
        if abs(n) > MAX_POWER:
            raise Unsupported(f"a power with an exponent beyond {MAX_POWER}")
        return self.power(self.run(base_node), n, exponent_is_int=exp_node.is_int)

    def power(self, a: _Val, n: int, *, exponent_is_int: bool) -> _Val:
        num = self.const(1)
        for _ in range(abs(n)):
            num = self.mul(num, a.num)
        if n >= 0:
            bound = None if a.bound is None else a.bound**n
            return _Val(num, _and(a.is_int, exponent_is_int), a.err, None, bound, a.degree * n)
        # a negative exponent: a float, and 0 ** -n raises
        inverse = self.div(self.const(1), num, None)
        return _Val(inverse, False, _or(a.err, _not(self.nonzero(a.num))), None, None, a.degree * -n)

    def _width(self, *vals: _Val) -> int:
        # a value's bits already made (its own, or for another use) set the least width
        known = [len(v.bits) if v.bits is not None else len(self.bit_memo.get(id(v), ())) for v in vals]
        bounds = [v.bound for v in vals if v.bits is None]
        if any(b is None for b in bounds):
            raise Unsupported("a bitwise operator on a value with no bound")
        largest = max((math.floor(b) + 1 for b in bounds if b is not None), default=0)
        width = max([largest.bit_length() + 1, *known])
        if width > MAX_BITS:
            raise Unsupported(f"a bitwise operator on values beyond {MAX_BITS} bits")
        return width

    def bits(self, a: _Val, width: int) -> list[Any]:
        """Two's-complement bits of the integer ``a`` (least significant first), defined where it fits; one set
        of bits per value (a bitwise result's own), sign-extended to wider uses, so that ``x & y`` and
        ``y & x``, or ``(x ^ y) ^ z``, are seen for what they are."""
        found = list(a.bits) if a.bits is not None else self.bit_memo.get(id(a))
        if found is None:
            whole = self.whole(a.num)
            names = self.name("bit")
            found = [z3.Bool(f"{names}_{i}", self.ctx) for i in range(width)]
            self.side.append(z3.Implies(self._fits(whole, width), whole == self._from_bits(found)))
            self.bit_memo[id(a)] = found
        return found + [found[-1]] * (width - len(found))  # a narrower value's sign, repeated

    def _fits(self, whole: Any, width: int) -> Any:
        return z3.And(whole >= -(2 ** (width - 1)), whole <= 2 ** (width - 1) - 1)

    def _from_bits(self, bits: list[Any]) -> Any:
        width = len(bits)
        total = z3.Sum(*[z3.If(bits[i], 2**i, 0) for i in range(width - 1)], z3.IntVal(0, self.ctx))
        return total - z3.If(bits[width - 1], 2 ** (width - 1), 0)

    def _bitwise(self, op: str, a: _Val, b: _Val, err: Bool) -> _Val:
        width = self._width(a, b)
        ba, bb = self.bits(a, width), self.bits(b, width)
        if op == "and":
            rb = [z3.And(p, q) for p, q in zip(ba, bb, strict=True)]
        elif op == "or":
            rb = [z3.Or(p, q) for p, q in zip(ba, bb, strict=True)]
        else:
            rb = [z3.Xor(p, q) for p, q in zip(ba, bb, strict=True)]
        return _Val(_Q(self._from_bits(rb), 1), True, err, None, float(2 ** (width - 1)), 0, tuple(rb))

    def _shift(self, node: Node, op: str, a: _Val, err: Bool) -> _Val:
        shift_node = node.args[1]
        if shift_node.kind != CONST or not shift_node.is_int:
            raise Unsupported("a shift by a value that is not a whole-number constant")
        n = int(shift_node.value)
        if n < 0:
            return _Val(self.const(0), True, True, None, 0.0, 0)  # Python raises on a negative shift count
        if n > MAX_SHIFT:
            raise Unsupported(f"a shift beyond {MAX_SHIFT} bits")
        if op == "lshift":
            bound = None if a.bound is None else a.bound * 2**n
            return _Val(self.mul(a.num, self.const(2**n)), True, err, None, bound, a.degree)
        shifted = self.floor(self.div(a.num, self.const(2**n), Fraction(2**n)))
        return _Val(shifted, True, err, None, a.bound, a.degree)

    def _compare(self, node: Node) -> _Val:
        left = self.run(node.args[0])
        err: Bool = left.err
        held: Bool = True  # every comparison so far held (Python goes on only then)
        for op, right_node in zip(node.ops, node.args[1:], strict=True):
            if op in ("in", "notin"):
                found: Bool = False
                for el_node in right_node.args:
                    el = self.run(el_node)
                    err = _or(err, _and(held, _not(found), el.err))
                    same = True if el_node is node.args[0] else self.compare("eq", el.num, left.num)
                    found = _or(found, same)
                held = _and(held, found if op == "in" else _not(found))
                continue
            right = self.run(right_node)
            err = _or(err, _and(held, right.err))
            held = _and(held, self.compare(op, left.num, right.num))
            left = right
        return self.of_truth(held, err)

    def _boolop(self, node: Node) -> _Val:
        # the value of the first operand that decides (falsy for and, truthy for or), else the last one
        vals = [self.run(a) for a in node.args]
        last = vals[-1]
        num, is_int, truth = last.num, last.is_int, self.truthy(last)
        for v in reversed(vals[:-1]):
            decides = _not(self.truthy(v)) if node.op == "and" else self.truthy(v)
            num = self.ite(decides, v.num, num)
            is_int = self.ite(decides, v.is_int, is_int)
            truth = self.ite(decides, self.truthy(v), truth)
        err: Bool = False
        reached: Bool = True
        for v in vals:
            err = _or(err, _and(reached, v.err))
            reached = _and(reached, self.truthy(v) if node.op == "and" else _not(self.truthy(v)))
        bound = _max_bound(*(v.bound for v in vals))
        return _Val(num, is_int, err, truth, bound, max(v.degree for v in vals))

    def _call(self, node: Node) -> _Val:
        name = node.op
        if name in ("sqrt", "log", "log2", "log10", "logb", "exp", "sin", "cos", "tan", "gcd"):
            raise Unsupported(f"math.{name}")
        if name == "fpow":
            exp_node = node.args[1]
            if exp_node.kind != CONST or not float(exp_node.value).is_integer():
                raise Unsupported("math.pow with an exponent that is not a whole-number constant")
            n = int(exp_node.value)
            if abs(n) > MAX_POWER:
                raise Unsupported(f"a power with an exponent beyond {MAX_POWER}")
            p = self.power(self.run(node.args[0]), n, exponent_is_int=True)
            return _Val(p.num, False, p.err, None, p.bound, p.degree)
        args = [self.run(a) for a in node.args]
        a = args[0]
        if name in ("abs", "fabs"):
            negative = self.compare("lt", a.num, self.const(0))
            num = self.ite(negative, self.neg(a.num), a.num)
            return _Val(num, a.is_int if name == "abs" else False, a.err, a.truth, a.bound, a.degree)
        if name in ("int", "trunc", "floor", "ceil"):
            if name == "floor":
                num = self.floor(a.num)
            elif name == "ceil":
                num = self.neg(self.floor(self.neg(a.num)))
            else:
                below = self.compare("lt", a.num, self.const(0))
                num = self.ite(below, self.neg(self.floor(self.neg(a.num))), self.floor(a.num))
            bound = None if a.bound is None else math.floor(a.bound) + 1.0
            return _Val(num, True, a.err, None, bound, a.degree)
        if name == "float":
            return _Val(a.num, False, a.err, a.truth, a.bound, a.degree)
        if name == "bool":
            return self.of_truth(self.truthy(a), a.err)
        if name == "round1":
            bound = None if a.bound is None else math.floor(a.bound) + 1.0
            return _Val(self.round_half_even(a.num), True, a.err, None, bound, a.degree)
        if name == "round2":
            digits = int(node.args[1].value)
            scale = Fraction(10) ** digits
            rounded = self.round_half_even(self.mul(a.num, self.const(scale)))
            num = self.div(rounded, self.const(scale), scale)
            bound = None if a.bound is None else a.bound + float(Fraction(10) ** -digits)
            return _Val(num, a.is_int, a.err, None, bound, a.degree)
        if name == "isqrt":
            return self._isqrt(a)
        if name == "is_integer":
            return self.of_truth(self.is_whole(a.num), a.err)
        raise Unsupported(f"the function {name}")

    def round_half_even(self, v: _Q) -> _Q:
        f = self.floor(v)
        twice_frac = self.mul(self.add(v, f, -1), self.const(2))  # 2 * (v - floor(v)), in [0, 2)
        one = self.const(1)
        up = self.add(f, one)
        f_even = f.n % 2 == 0
        at_half = self.ite(f_even, f, up)
        rounded: _Q = self.ite(
            self.compare("gt", twice_frac, one), up, self.ite(self.compare("lt", twice_frac, one), f, at_half)
        )
        return rounded

    def _isqrt(self, a: _Val) -> _Val:
        root = z3.Int(self.name("isqrt"), self.ctx)
        whole = self.whole(a.num)
        defined = _and(a.is_int, self.compare("ge", a.num, self.const(0)))
        self.side.append(
            z3.Implies(
                self.boolean(defined),
                z3.And(root >= 0, root * root <= whole, whole < (root + 1) * (root + 1)),
            )
        )
        bound = None if a.bound is None else math.isqrt(int(a.bound)) + 1.0
        return _Val(_Q(root, 1), True, _or(a.err, _not(defined)), None, bound, a.degree)

    def _reduce(self, node: Node) -> _Val:
        op = node.op
        err: Bool = False
        for p in node.pre:
            err = _or(err, self.run(p).err)
        going: Bool = True  # a lazy all/any has not stopped yet
        included: list[tuple[Bool, _Val]] = []
        for item in node.items:
            held: Bool = True
            for c in item.conds:
                cv = self.run(c)
                err = _or(err, _and(going, held, cv.err))
                held = _and(held, self.truthy(cv))
            body = self.run(item.body)
            err = _or(err, _and(going, held, body.err))
            included.append((_and(going, held), body))
            if node.lazy:
                decisive = _not(self.truthy(body)) if op == "all" else self.truthy(body)
                going = _and(going, _not(_and(held, decisive)))
        if op in ("all", "any"):
            if op == "all":
                truth = _and(*(_or(_not(inc), self.truthy(v)) for inc, v in included))
            else:
                truth = _or(*(_and(inc, self.truthy(v)) for inc, v in included))
            return self.of_truth(truth, err)
        degree = max((v.degree for _, v in included), default=0)
        if op == "sum":
            total = self.const(0)
            is_int: Bool = True
            for inc, v in included:
                total = self.add(total, self.ite(inc, v.num, self.const(0)))
                is_int = _and(is_int, _or(_not(inc), v.is_int))
            bound = _sum_bound(*(v.bound for _, v in included)) if included else 0.0
            return _Val(total, is_int, err, None, bound, degree)
        # min / max: the first best of the included values; none included raises
        have: Bool = False
        best = self.const(0)
        best_int: Bool = True
        for inc, v in included:
            better = self.compare("lt" if op == "min" else "gt", v.num, best)
            take = _and(inc, _or(_not(have), better))
            best = self.ite(take, v.num, best)
            best_int = self.ite(take, v.is_int, best_int)
            have = _or(have, inc)
        bound = _max_bound(*(v.bound for _, v in included))
        return _Val(best, best_int, _or(err, _not(have)), None, bound, degree)


def _max_bound(*bounds: float | None) -> float | None:
    if any(b is None for b in bounds):
        return None
    return max((b for b in bounds if b is not None), default=0.0)


def _sum_bound(*bounds: float | None) -> float | None:
    if any(b is None for b in bounds):
        return None
    return sum(b for b in bounds if b is not None)


def _product_bound(a: float | None, b: float | None) -> float | None:
    if a is None or b is None:
        return None
    return a * b


@dataclass(frozen=True)
class Encoded:
    """An expression as a formula.

    Attributes:
        truth: holds exactly where the expression is true (no error raised, and a truthy value).
        side: constraints defining the helper variables; assert them with ``truth``.
    """

    truth: Any
    side: tuple[Any, ...]


def encode(roots: Sequence[Node], variables: Sequence[Variable], ctx: z3.Context) -> list[Encoded]:
    """Encode compiled expressions over the given variables (one encoding, so shared parts are shared).

    Args:
        roots: compiled IR roots (:attr:`wason.sandbox.Program.root`).
        variables: the terms of x, y and z, in order.
        ctx: the z3 context every term belongs to.

    Returns:
        One :class:`Encoded` per root, in order; each carries every side constraint made so far.

    Raises:
        Unsupported: an expression uses something not encoded.
    """
    enc = _Encoder(variables, ctx)
    out: list[Encoded] = []
    for root in roots:
        v = enc.run(root)
        truth = _and(_not(v.err), enc.truthy(v))
        out.append(Encoded(enc.boolean(truth), tuple(enc.side)))
    return out
