"""Random expressions of the guess language, checked against CPython point by point.

Each generated expression is built twice from the same choices: as guess text for the sandbox, and as a
composition of ordinary Python closures (no eval) that *is* Python's semantics. Points where CPython leaves the
sandbox's documented domain (an int beyond 2**53, a complex result) are skipped; the test asserts that most
points are not skipped, so the comparison cannot silently become empty.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wason.sandbox import compile_rule

Env = tuple[float, float, float]
Fn = Callable[[Env], object]


class OutOfDomain(Exception):
    """CPython produced a value the sandbox documents it does not represent exactly."""


def _check(value: object) -> object:
    if isinstance(value, complex):
        raise OutOfDomain
    if isinstance(value, int) and abs(value) > 2**53:
        raise OutOfDomain
    return value


@dataclass(frozen=True)
class Expr:
    text: str
    fn: Fn


def _var(i: int) -> Expr:
    return Expr("xyz"[i], lambda env: env[i])


CONSTANTS = ["0", "1", "2", "3", "-1", "10", "0.5", "-2.5", "0.1", "999", "True", "1e300"]


def _const(text: str) -> Expr:
    value = {"True": True}.get(text)
    v: object = value if value is not None else (float(text) if "." in text or "e" in text else int(text))
    return Expr(text, lambda env: v)


# int64-based in the sandbox: operands beyond 2**53 are outside its exact domain
_WIDE_INT_OPS = frozenset({"&", "|", "^", "math.gcd"})


def _binop(symbol: str, op: Callable[[object, object], object]) -> Callable[[Expr, Expr], Expr]:
    def build(a: Expr, b: Expr) -> Expr:
        def fn(env: Env) -> object:
            left, right = a.fn(env), b.fn(env)
            if symbol in _WIDE_INT_OPS:
                _check(left)
                _check(right)
            return _check(op(left, right))

        return Expr(f"({a.text} {symbol} {b.text})", fn)

    return build


def _call(name: str, func: Callable[..., object]) -> Callable[..., Expr]:
    def build(*args: Expr) -> Expr:
        def fn(env: Env) -> object:
            values = [a.fn(env) for a in args]
            if name in _WIDE_INT_OPS:
                for v in values:
                    _check(v)
            return _check(func(*values))

        return Expr(f"{name}({', '.join(a.text for a in args)})", fn)

    return build


def _and(a: Expr, b: Expr) -> Expr:
    return Expr(f"({a.text} and {b.text})", lambda env: a.fn(env) and b.fn(env))


def _or(a: Expr, b: Expr) -> Expr:
    return Expr(f"({a.text} or {b.text})", lambda env: a.fn(env) or b.fn(env))


def _not(a: Expr) -> Expr:
    return Expr(f"(not {a.text})", lambda env: not a.fn(env))


def _neg(a: Expr) -> Expr:
    return Expr(f"(-{a.text})", lambda env: _check(-a.fn(env)))  # type: ignore[operator]


def _invert(a: Expr) -> Expr:
    return Expr(f"(~{a.text})", lambda env: _check(~a.fn(env)))  # type: ignore[operator]


def _ifexp(c: Expr, a: Expr, b: Expr) -> Expr:
    return Expr(f"({a.text} if {c.text} else {b.text})", lambda env: a.fn(env) if c.fn(env) else b.fn(env))


def _chain(a: Expr, op1: str, b: Expr, op2: str, c: Expr) -> Expr:
    ops = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt}
    f1, f2 = ops[op1], ops[op2]

    def fn(env: Env) -> object:
        left, middle = a.fn(env), b.fn(env)
        return f1(left, middle) and f2(middle, c.fn(env))

    return Expr(f"({a.text} {op1} {b.text} {op2} {c.text})", fn)


def _is_integer(a: Expr) -> Expr:
    # Python 3.12 semantics (int.is_integer() exists), which the sandbox documents
    def fn(env: Env) -> object:
        v = a.fn(env)
        return True if isinstance(v, int) else v.is_integer()  # type: ignore[attr-defined]

    return Expr(f"({a.text}).is_integer()", fn)


def _isinstance(a: Expr, kind: str) -> Expr:
    types = {"int": int, "float": float}[kind]
    return Expr(f"isinstance({a.text}, {kind})", lambda env: isinstance(a.fn(env), types))


def _all_gen(body: Callable[[Expr], Expr], lazy: bool) -> Expr:
    probe = body(Expr("v", lambda env: env[3]))  # type: ignore[misc]
    text = f"all({probe.text} for v in (x, y, z))" if lazy else f"all([{probe.text} for v in (x, y, z)])"

    def fn(env: Env) -> object:
        if lazy:
            return all(probe.fn((*env, env[k])) for k in range(3))  # type: ignore[arg-type]
        return all([probe.fn((*env, env[k])) for k in range(3)])  # type: ignore[arg-type]

    return Expr(text, fn)


def _min_max(name: str, args: list[Expr]) -> Expr:
    func = min if name == "min" else max
    return Expr(f"{name}({', '.join(a.text for a in args)})", lambda env: func(*(a.fn(env) for a in args)))  # type: ignore[type-var]


def _sum(args: list[Expr]) -> Expr:
    def fn(env: Env) -> object:
        total: object = 0
        for a in args:  # Python 3.11's sum (3.12 compensates float rounding); the sandbox documents 3.11's
            total = _check(total + a.fn(env))  # type: ignore[operator]
        return total

    return Expr(f"sum([{', '.join(a.text for a in args)}])", fn)


def _round(a: Expr, digits: int | None) -> Expr:
    if digits is None:
        return Expr(f"round({a.text})", lambda env: _check(round(a.fn(env))))  # type: ignore[call-overload]
    return Expr(f"round({a.text}, {digits})", lambda env: _check(round(a.fn(env), digits)))  # type: ignore[call-overload]


def _pow_const(a: Expr, exponent: str) -> Expr:
    e: float = float(exponent) if "." in exponent else int(exponent)
    return Expr(f"({a.text}) ** {exponent}", lambda env: _check(a.fn(env) ** e))  # type: ignore[operator]


def _shift(a: Expr, symbol: str, amount: int) -> Expr:
    op = operator.lshift if symbol == "<<" else operator.rshift
    return Expr(f"(int({a.text}) {symbol} {amount})", lambda env: _check(op(int(a.fn(env)), amount)))  # type: ignore[call-overload]


ARITH = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
}
UNARY_CALLS: dict[str, Callable[..., object]] = {
    "abs": abs,
    "int": int,
    "float": float,
    "bool": bool,
    "math.floor": math.floor,
    "math.ceil": math.ceil,
    "math.trunc": math.trunc,
    "math.sqrt": math.sqrt,
    "math.fabs": math.fabs,
    "math.isqrt": math.isqrt,
}


def expressions(depth: int) -> st.SearchStrategy[Expr]:
    leaf = st.one_of(st.integers(0, 2).map(_var), st.sampled_from(CONSTANTS).map(_const))
    if depth == 0:
        return leaf
    sub = expressions(depth - 1)
    return st.one_of(
        leaf,
        st.builds(lambda s, a, b: _binop(s, ARITH[s])(a, b), st.sampled_from(sorted(ARITH)), sub, sub),
        st.builds(lambda n, a: _call(n, UNARY_CALLS[n])(a), st.sampled_from(sorted(UNARY_CALLS)), sub),
        st.builds(_and, sub, sub),
        st.builds(_or, sub, sub),
        st.builds(_not, sub),
        st.builds(_neg, sub),
        st.builds(_invert, sub),
        st.builds(_ifexp, sub, sub, sub),
        st.builds(
            _chain, sub, st.sampled_from(["<", "<=", "==", "!=", ">"]), sub, st.sampled_from(["<", "<="]), sub
        ),
        st.builds(_is_integer, sub),
        st.builds(_isinstance, sub, st.sampled_from(["int", "float"])),
        st.builds(_min_max, st.sampled_from(["min", "max"]), st.lists(sub, min_size=2, max_size=3)),
        st.builds(_sum, st.lists(sub, min_size=0, max_size=3)),
        st.builds(_round, sub, st.sampled_from([None, 0, 1, 2, -1])),
        st.builds(_pow_const, sub, st.sampled_from(["2", "3", "0", "-1", "0.5", "1.5", "-2"])),
        st.builds(_shift, sub, st.sampled_from(["<<", ">>"]), st.integers(0, 6)),
        st.builds(lambda a, b: _call("math.gcd", math.gcd)(a, b), sub, sub),
        st.builds(
            _all_gen,
            st.sampled_from(
                [
                    lambda v: _binop(">", operator.gt)(v, _const("0")),
                    lambda v: _binop("!=", operator.ne)(
                        _binop("%", operator.mod)(v, _const("2")), _const("0")
                    ),
                    lambda v: _binop(">", operator.gt)(
                        _binop("/", operator.truediv)(_const("1"), v), _const("0")
                    ),
                ]
            ),
            st.booleans(),
        ),
    )


FIXED_POINTS = [
    (0, 0, 0),
    (1, 2, 3),
    (3, 2, 1),
    (-1, -1, 2),
    (0.5, -2.5, 0.5),
    (2.5, 3.5, -0.5),
    (-0.0, 7, -7),
    (999, -999, 1),
    (0.1, 0.2, 0.3),
    (1e300, -1e300, 2),
    (4, 16, 2),
    (6, 9, 15),
]
NUMBERS = st.one_of(
    st.integers(-1000, 1000),
    st.floats(-1000, 1000, allow_nan=False, allow_infinity=False),
    st.sampled_from([0.5, -0.5, 2.5, 1e-300, 1e16 + 2, float("inf"), float("-inf"), 2.0**53 - 1]),
)


def _python(expr: Expr, point: Env) -> bool | None:
    env = tuple(int(v) if isinstance(v, float) and v.is_integer() else v for v in point)
    try:
        return bool(expr.fn(env))  # type: ignore[arg-type]
    except OutOfDomain:
        return None
    except (ArithmeticError, ValueError, TypeError):
        return False


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expr=expressions(3), extra=st.lists(st.tuples(NUMBERS, NUMBERS, NUMBERS), min_size=0, max_size=8))
def test_random_expressions_match_python(expr: Expr, extra: list[Env]) -> None:
    points = [tuple(float(v) for v in p) for p in FIXED_POINTS + extra]
    program = compile_rule(f"lambda x, y, z: {expr.text}")
    # repeated points also exercise the once-per-distinct-value path of costly one-variable operations
    copies = 8
    tiled = program.evaluate(np.tile(np.array(points, dtype=np.float64), (copies, 1))).reshape(copies, -1)
    assert (tiled == tiled[0]).all()
    got = tiled[0]
    checked = 0
    for point, value in zip(points, got.tolist(), strict=True):
        expected = _python(expr, point)  # type: ignore[arg-type]
        if expected is None:
            continue
        checked += 1
        assert value == expected, f"{expr.text} at {point}: sandbox {value}, Python {expected}"
    _COVERAGE.append((checked, len(points)))


_COVERAGE: list[tuple[int, int]] = []


def test_most_points_were_compared() -> None:
    test_random_expressions_match_python()
    checked = sum(c for c, _ in _COVERAGE)
    total = sum(t for _, t in _COVERAGE)
    assert total > 0 and checked / total > 0.8, f"only {checked} of {total} points were comparable"
