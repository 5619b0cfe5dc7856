"""Vectorised evaluation of the IR with Python's semantics, one numpy array per node.

Every node evaluates to a :class:`Val`: float64 values, a per-point "is a Python int" mask and a per-point
"Python would have raised here" mask. Branches Python would not evaluate at a point (short-circuit) are still
computed on every point, but their errors are masked out where Python would not have reached them.

Integers are carried as float64: exact up to 2**53, approximated beyond and +-inf past the float range, so no
model-controlled value ever reaches Python's big-integer arithmetic. Functions whose exact result depends on
the C library (``**`` on floats, log/exp/trig, 2-argument ``round`` in rare cases) call CPython's own
implementation point by point, on only the points that need it, so they agree with Python bit for bit.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from wason.sandbox.ir import (
    BINARY,
    BOOLOP,
    CALL,
    COMPARE,
    CONST,
    IFEXP,
    ISTYPE,
    REDUCE,
    SEQ,
    UNARY,
    VAR,
    Node,
)

F = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]
G = TypeVar("G", bound=np.generic)

_TWO53 = 2.0**53
_TWO52 = 2.0**52
_TWO63 = 2.0**63
_INT_POW_MAX_EXP = 2048.0  # beyond this any |base| >= 2 overflows float64 anyway
_LOG2_MAX = 1024.0  # pow(b, e) overflows exactly when e * log2(b) >= 1024 (up to rounding)
_LN_MAX = math.log(np.finfo(np.float64).max)  # 709.78...: math.exp overflows just above this
_BAND = 1e-6  # estimates this close to an overflow threshold are settled by calling CPython itself
_SPLITTER = 134217729.0  # 2**27 + 1, Dekker's splitting constant
_TABLE_RADIUS = 1024  # integer arguments up to this size are looked up in per-function tables
_TABLE_MIN_POINTS = 4096  # a table costs 2 * radius + 1 calls; use it only when it saves more

SLOW_CALL_BUDGET = 50_000
"""Most distinct point-by-point fallback calls (overflow bands, rare roundings) one evaluation may make.

Beyond it the remaining such points evaluate as errors; only deliberately hostile guesses get there.
"""
_budget: ContextVar[list[int]] = ContextVar("_budget")

_TRUE: B = np.ones((), dtype=np.bool_)
_FALSE: B = np.zeros((), dtype=np.bool_)


class Val(NamedTuple):
    """A node's value at every point (arrays may be 0-d for constants and broadcast later).

    Attributes:
        v: the numeric value: float64, or a bool array for comparisons and other 0/1 results (converted by
            :func:`_numval` before any arithmetic, so numpy's bool arithmetic never applies).
        i: True where the value is a Python int (or bool).
        e: True where Python would have raised; None when it cannot raise anywhere.
    """

    v: npt.NDArray[Any]
    i: B
    e: B | None


@dataclass(frozen=True)
class Inputs:
    """The three input columns and their int masks, ready for evaluation.

    Attributes:
        values: x, y and z as float64 arrays of shape (N,).
        ints: where each value is integral (Python would see an int there).
        n: number of points.
    """

    values: tuple[F, F, F]
    ints: tuple[B, B, B]
    n: int
    _distinct: dict[int, tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def distinct(self, var: int) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """One representative point per distinct value of a variable, and each point's representative.

        Returns:
            ``(first, inverse)``: ``values[var][first]`` are the distinct values and
            ``values[var] == values[var][first][inverse]``. Computed once per inputs.
        """
        found = self._distinct.get(var)
        if found is None:
            _, first, inverse = np.unique(self.values[var], return_index=True, return_inverse=True)
            found = (first.astype(np.intp), inverse.reshape(-1).astype(np.intp))
            self._distinct[var] = found
        return found

    @classmethod
    def from_points(cls, xyz: npt.ArrayLike) -> Inputs:
        """Split an (N, 3) array into columns; integral values are treated as Python ints.

        Args:
            xyz: array-like of shape (N, 3).

        Returns:
            The prepared inputs.

        Raises:
            ValueError: the array does not have shape (N, 3).
        """
        pts = np.asarray(xyz, dtype=np.float64)
        if pts.ndim != 2 or pts.shape[1] != 3:
            raise ValueError(f"expected points of shape (N, 3), got {pts.shape}")
        cols = tuple(np.ascontiguousarray(pts[:, k]) for k in range(3))
        with np.errstate(all="ignore"):
            ints = tuple(np.isfinite(c) & (np.floor(c) == c) for c in cols)
        return cls((cols[0], cols[1], cols[2]), (ints[0], ints[1], ints[2]), int(pts.shape[0]))

    @classmethod
    def concatenate(cls, parts: list[Inputs]) -> Inputs:
        """Join prepared inputs end to end (cheaper than preparing the joined points again)."""
        values = tuple(np.concatenate([p.values[k] for p in parts]) for k in range(3))
        ints = tuple(np.concatenate([p.ints[k] for p in parts]) for k in range(3))
        return cls((values[0], values[1], values[2]), (ints[0], ints[1], ints[2]), sum(p.n for p in parts))


def evaluate_node(root: Node, inputs: Inputs) -> tuple[B, B]:
    """Evaluate a compiled expression on every point.

    Args:
        root: the compiled IR.
        inputs: the points.

    Returns:
        ``(truth, error)`` boolean arrays of shape (N,); truth is False where error is True.
    """
    return evaluate_nodes([root], inputs)[0]


def evaluate_nodes(roots: list[Node], inputs: Inputs) -> list[tuple[B, B]]:
    """Evaluate several expressions on the same points, computing shared sub-expressions once.

    Args:
        roots: compiled IRs (a rule and a guess, say).
        inputs: the points.

    Returns:
        One ``(truth, error)`` pair per root, as :func:`evaluate_node` returns.
    """
    token = _budget.set([SLOW_CALL_BUDGET])
    out: list[tuple[B, B]] = []
    try:
        with np.errstate(all="ignore"):
            ev = _Evaluator(roots, inputs)
            for root in roots:
                val = ev.run(root)
                truth = np.broadcast_to(_truthy(val), (inputs.n,))
                if val.e is None:
                    out.append((truth.copy(), np.zeros(inputs.n, dtype=np.bool_)))
                else:
                    err = np.broadcast_to(val.e, (inputs.n,))
                    out.append((truth & ~err, err.copy()))
    finally:
        _budget.reset(token)
    return out


class _Evaluator:
    def __init__(self, roots: list[Node], inputs: Inputs) -> None:
        self.inputs = inputs
        self.memo: dict[int, Val] = {}
        # how many parents still need each shared node, so its arrays can be freed after the last one;
        # each root counts as needed once more, so a root shared by two programs is computed once
        self.pending: dict[int, int] = {}
        for root in roots:
            self.pending[id(root)] = self.pending.get(id(root), 0) + 1
        seen: set[int] = set()
        stack = list(roots)
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            for child in node.children():
                self.pending[id(child)] = self.pending.get(id(child), 0) + 1
                stack.append(child)

    def run(self, node: Node) -> Val:
        found = self.memo.get(id(node))
        if found is None:
            found = self._single_variable(node) if node.op in _POINTWISE_SLOW else None
            if found is None:
                found = _HANDLERS[node.kind](self, node)
            if self.pending.get(id(node), 0) > 1:
                self.memo[id(node)] = found
            for child in node.children():
                left = self.pending.get(id(child), 0) - 1
                self.pending[id(child)] = left
                if left <= 0:
                    self.memo.pop(id(child), None)
        return found

    def _single_variable(self, node: Node) -> Val | None:
        """Evaluate a costly node of one variable once per distinct value of that variable, then spread it.

        Its value is a function of that variable alone, so points sharing the value share the result; the
        probe set repeats values a lot (the grid, integers), which saves most point-by-point C-library calls.
        """
        if node.kind not in (BINARY, CALL) or node.free not in (1, 2, 4) or self.inputs.n < 64:
            return None
        first, inverse = self.inputs.distinct(node.free.bit_length() - 1)
        if 2 * first.size > self.inputs.n:
            return None
        args = [self.run(a) for a in node.args]
        small = [
            Val(_take(a.v, first), _take(a.i, first), None if a.e is None else _take(a.e, first))
            for a in args
        ]
        sub = _Evaluator.__new__(_Evaluator)
        sub.inputs, sub.memo, sub.pending = self.inputs, {}, {}
        for arg, val in zip(node.args, small, strict=True):
            sub.memo[id(arg)] = val
        out = _HANDLERS[node.kind](sub, node)
        return Val(
            _take(out.v, inverse), _take(out.i, inverse), None if out.e is None else _take(out.e, inverse)
        )


# the operations worth evaluating once per distinct input value: they call CPython point by point
_POINTWISE_SLOW = frozenset(
    {"pow", "fpow", "log", "log2", "log10", "logb", "exp", "sin", "cos", "tan", "round2"}
)


def _take(a: npt.NDArray[G], idx: npt.NDArray[np.intp]) -> npt.NDArray[G]:
    return a if a.ndim == 0 else a[idx]


# ---- helpers --------------------------------------------------------------------------------------------------


def _any_err(*errs: B | None) -> B | None:
    out: B | None = None
    for e in errs:
        if e is None:
            continue
        out = e if out is None else out | e
    return out


def _masked(mask: B, err: B | None) -> B | None:
    return None if err is None else mask & err


def _truthy(a: Val) -> B:
    if a.v.dtype == np.bool_:
        return a.v
    # nan is truthy in Python, and nan != 0 is True
    out: B = a.v != 0
    return out


def _numval(a: Val) -> Val:
    return a if a.v.dtype != np.bool_ else Val(a.v.astype(np.float64), a.i, a.e)


def _to_float_err(a: Val) -> B | None:
    """Where converting an int operand to float would overflow (the int is beyond the float range)."""
    if bool(np.all(np.isfinite(a.v))):
        return None
    bad: B = a.i & ~np.isfinite(a.v)
    return bad if bool(bad.any()) else None


def _mixed_err(a: Val, b: Val) -> B | None:
    """OverflowError of int -> float conversion when an int meets a float."""
    ea, eb = _to_float_err(a), _to_float_err(b)
    return _any_err(None if ea is None else ea & ~b.i, None if eb is None else eb & ~a.i)


def _flat(a: npt.NDArray[G], shape: tuple[int, ...]) -> npt.NDArray[G]:
    return np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1)


def _shape(*arrays: npt.NDArray[np.generic]) -> tuple[int, ...]:
    return tuple(np.broadcast_shapes(*(a.shape for a in arrays)))


def _is_odd(w: F) -> B:
    # DOUBLE_IS_ODD_INTEGER in CPython's floatobject.c
    out: B = np.fmod(np.abs(w), 2.0) == 1.0
    return out


_TABLE_FUNCS: dict[str, Callable[..., float]] = {
    "log": math.log,
    "log2": math.log2,
    "log10": math.log10,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "pow": math.pow,
}


@lru_cache(maxsize=64)
def _table(name: str, param: float | None, reverse: bool) -> tuple[F, B]:
    """CPython's results at the integers -R..R: f(k), or pow(k, param), or pow(param, k) when reversed."""
    func = _TABLE_FUNCS[name]
    ks = range(-_TABLE_RADIUS, _TABLE_RADIUS + 1)
    values = np.full(len(ks), np.nan)
    errors = np.zeros(len(ks), dtype=np.bool_)
    for j, k in enumerate(ks):
        try:
            if param is None:
                values[j] = func(float(k))
            else:
                values[j] = func(param, float(k)) if reverse else func(float(k), param)
        except (OverflowError, ValueError):
            errors[j] = True
    values.flags.writeable = False
    errors.flags.writeable = False
    return values, errors


def _table_points(x: F, mask: B) -> B:
    out: B = mask & (np.abs(x) <= _TABLE_RADIUS) & (np.floor(x) == x)
    return out if int(np.count_nonzero(out)) >= _TABLE_MIN_POINTS else np.zeros_like(out)


def _libm(name: str, x: F, mask: B) -> F:
    """Apply a CPython math function at the masked points (it must not raise there); nan elsewhere."""
    func = _TABLE_FUNCS[name]
    shape = _shape(x, mask)
    xf = _flat(x, shape)
    m = _flat(mask, shape)
    out = np.full(xf.shape, np.nan)
    tabled = _table_points(xf, m)
    if bool(tabled.any()):
        values, _ = _table(name, None, False)
        out[tabled] = values[(xf[tabled] + _TABLE_RADIUS).astype(np.intp)]
        m = m & ~tabled
    idx = np.flatnonzero(m)
    if idx.size:
        out[idx] = np.fromiter(map(func, xf[idx].tolist()), dtype=np.float64, count=idx.size)
    return out.reshape(shape)


def _unique_rows(cols: list[F]) -> tuple[F, npt.NDArray[np.intp]]:
    """Distinct argument tuples (sorted) and, for each point, the index of its tuple."""
    order = np.lexsort(cols[::-1])
    ordered = np.stack([c[order] for c in cols], axis=1)
    starts = np.ones(len(order), dtype=np.bool_)
    if len(order) > 1:
        starts[1:] = np.any(ordered[1:] != ordered[:-1], axis=1)
    inverse = np.empty(len(order), dtype=np.intp)
    inverse[order] = np.cumsum(starts) - 1
    return ordered[starts], inverse


def _libm_checked(func: Callable[..., float], mask: B, *xs: F) -> tuple[F, B]:
    """Call a CPython function point by point, catching its errors: the slow path for rare points.

    One evaluation makes at most :data:`SLOW_CALL_BUDGET` such calls (equal arguments are computed once when
    there are more points than budget left); points beyond the budget count as errors.
    """
    shape = _shape(mask, *xs)
    out = np.full(shape, np.nan).reshape(-1)
    err = np.zeros(shape, dtype=np.bool_).reshape(-1)
    idx = np.flatnonzero(_flat(mask, shape))
    if idx.size == 0:
        return out.reshape(shape), err.reshape(shape)
    budget = _budget.get([SLOW_CALL_BUDGET])
    if budget[0] <= 0:  # spent: every remaining point is an error, at no cost
        err[idx] = True
        return out.reshape(shape), err.reshape(shape)
    cols = [_flat(x, shape)[idx] for x in xs]
    if idx.size <= budget[0]:
        unique, inverse = np.stack(cols, axis=1), np.arange(idx.size)
    else:
        unique, inverse = _unique_rows(cols)
    allowed = min(len(unique), budget[0])
    budget[0] -= allowed
    u_val = np.full(len(unique), np.nan)
    u_err = np.ones(len(unique), dtype=np.bool_)  # past the budget: counted as errors
    for j, row in enumerate(unique[:allowed].tolist()):
        try:
            u_val[j] = func(*row)
            u_err[j] = False
        except (OverflowError, ValueError, ZeroDivisionError):
            pass
    out[idx] = u_val[inverse]
    err[idx] = u_err[inverse]
    return out.reshape(shape), err.reshape(shape)


# ---- leaves and operators -------------------------------------------------------------------------------------


def _const(ev: _Evaluator, node: Node) -> Val:
    return Val(np.array(node.value, dtype=np.float64), _TRUE if node.is_int else _FALSE, None)


def _var(ev: _Evaluator, node: Node) -> Val:
    return Val(ev.inputs.values[node.index], ev.inputs.ints[node.index], None)


def _unary(ev: _Evaluator, node: Node) -> Val:
    a = ev.run(node.args[0])
    if node.op == "not":
        return Val(~_truthy(a), _TRUE, a.e)
    a = _numval(a)
    if node.op == "neg":
        return Val(-a.v, a.i, a.e)
    if node.op == "pos":
        return a
    # ~ is defined on ints only (TypeError on floats)
    return Val(-a.v - 1.0, _TRUE, _any_err(a.e, ~a.i))


def _binary(ev: _Evaluator, node: Node) -> Val:
    a = _numval(ev.run(node.args[0]))
    b = _numval(ev.run(node.args[1]))
    op = node.op
    if op in ("add", "sub", "mul"):
        tag = a.i & b.i
        if op == "add":
            v = a.v + b.v
        elif op == "sub":
            v = a.v - b.v
        else:
            v = a.v * b.v
        return Val(v, tag, _any_err(a.e, b.e, _mixed_err(a, b)))
    if op in ("div", "floordiv", "mod"):
        zero = b.v == 0
        safe = np.where(zero, 1.0, b.v)
        err = _any_err(a.e, b.e, zero if bool(zero.any()) else None, _mixed_err(a, b))
        if op == "div":
            # int / int with ints beyond the float range is approximated (documented), not an error
            return Val(a.v / safe, _FALSE, err)
        return Val(_floor_mod(a.v, safe, op == "floordiv"), a.i & b.i, err)
    if op == "pow":
        return _pow(a, b)
    if op in ("and", "or", "xor"):
        return _bitwise(a, b, op)
    return _shift(a, b, op)


def _floor_mod(a: F, b: F, floordiv: bool) -> F:
    """Python's float // and % (numpy's match them); dividing by a power of two takes an exact shortcut."""
    if np.ndim(b) == 0 and b != 0 and math.isfinite(float(b)) and math.frexp(abs(float(b)))[0] == 0.5:
        # a / 2**k is exact, hence so are floor(a / b) and (a / b - floor(a / b)) * b, which is how Python's
        # fmod-and-adjust rounds too; tiny or huge a (inexact quotient) use the general path
        q = a / b
        ok = (np.abs(q) < 2.0**1000) & ((np.abs(a) > 2.0**-1000) | (a == 0))
        fq = np.floor(q)
        fast = fq if floordiv else (q - fq) * b
        if bool(np.all(ok | ~np.isfinite(a))):
            return fast
        slow = np.floor_divide(a, b) if floordiv else np.remainder(a, b)
        return np.where(ok, fast, slow)
    return np.floor_divide(a, b) if floordiv else np.remainder(a, b)


def _bitwise(a: Val, b: Val, op: str) -> Val:
    # Python's ints are unbounded two's complement; int64 agrees while the operands fit, which we require.
    ok = a.i & b.i & (np.abs(a.v) < _TWO63) & (np.abs(b.v) < _TWO63)
    ai = np.where(ok, a.v, 0.0).astype(np.int64)
    bi = np.where(ok, b.v, 0.0).astype(np.int64)
    if op == "and":
        r = ai & bi
    elif op == "or":
        r = ai | bi
    else:
        r = ai ^ bi
    return Val(r.astype(np.float64), _TRUE, _any_err(a.e, b.e, ~ok))


def _shift(a: Val, b: Val, op: str) -> Val:
    ok = a.i & b.i & (b.v >= 0)  # float operands: TypeError; negative count: ValueError
    count = np.where(ok, np.minimum(b.v, 4000.0), 0.0).astype(np.int32)
    if op == "lshift":
        v = np.ldexp(a.v, count)  # 2 << 100000 becomes inf (an int too big for a float), instantly
    else:
        t = np.ldexp(a.v, -count)
        # floor of an exact quotient; a negative value shifted to nothing is -1, as in Python
        v = np.where((t == 0) & (a.v < 0), -1.0, np.floor(t))
    return Val(v, _TRUE, _any_err(a.e, b.e, ~ok))


def _pow(a: Val, b: Val, force_float: bool = False) -> Val:
    shape = _shape(a.v, b.v, a.i, b.i)
    err = _any_err(a.e, b.e)
    int_path = np.broadcast_to(_FALSE if force_float else a.i & b.i & (b.v >= 0), shape)
    n_int = int(np.count_nonzero(int_path))
    if n_int == int_path.size:
        return Val(_int_pow(a.v, b.v), _TRUE, err)
    # Python converts both operands to float for everything but int ** non-negative int.
    conv = _any_err(_to_float_err(a), _to_float_err(b))
    if n_int == 0:
        fv, ferr = _float_pow(a.v, b.v)
        return Val(fv, _FALSE, _any_err(err, ferr if bool(ferr.any()) else None, conv))
    # Mixed: each path runs on its own points only; scalars stay scalars so constant exponents hit the tables.
    ii = np.flatnonzero(int_path.reshape(-1))
    fi = np.flatnonzero(~int_path.reshape(-1))
    v = np.empty(int_path.size)
    ferr_all = np.zeros(int_path.size, dtype=np.bool_)
    v[ii] = _int_pow(_subset(a.v, ii, shape), _subset(b.v, ii, shape))
    fv, ferr = _float_pow(_subset(a.v, fi, shape), _subset(b.v, fi, shape))
    v[fi] = fv
    ferr_all[fi] = ferr
    conv = None if conv is None else conv & ~int_path
    return Val(v.reshape(shape), int_path, _any_err(err, ferr_all.reshape(shape), conv))


def _subset(arr: F, idx: npt.NDArray[np.intp], shape: tuple[int, ...]) -> F:
    out: F = arr if arr.ndim == 0 else _flat(arr, shape)[idx]
    return out


def _int_pow(base: F, exp: F) -> F:
    """int ** non-negative int by repeated squaring in float64 (exact while results stay below 2**53)."""
    if np.ndim(exp) == 0 and float(exp) <= _INT_POW_MAX_EXP:
        # a constant exponent: square-and-multiply steered by its bits, no per-point bookkeeping
        e = int(exp)
        result: F = np.ones(np.shape(base))
        sq = base
        while e:
            if e & 1:
                result = result * sq
            e >>= 1
            if e:
                sq = sq * sq
        return result
    shape = _shape(base, exp)
    big = exp > _INT_POW_MAX_EXP
    small = np.where(big, 0.0, exp)
    result = np.ones(shape)
    sq = np.broadcast_to(base, shape).astype(np.float64)
    while True:
        odd = np.fmod(small, 2.0) == 1.0
        if bool(odd.any()):
            result = np.where(odd, result * sq, result)
        small = np.floor(small / 2.0)
        if not bool(small.any()):
            break
        sq = sq * sq
    if bool(big.any()):
        mag = np.abs(base)
        huge = np.where(mag >= 2.0, np.inf, np.where(mag == 1.0, 1.0, 0.0))
        sign = np.where((base < 0) & (np.fmod(exp, 2.0) == 1.0), -1.0, 1.0)
        result = np.where(big, huge * sign, result)
    return result


def _float_pow(iv_in: F, iw_in: F) -> tuple[F, B]:
    """float ** float exactly as CPython's float_pow; returns (value, error)."""
    if np.ndim(iw_in) == 0 and math.isfinite(float(iw_in)) and float(iw_in) != 0:
        return _float_pow_const(iv_in, float(iw_in))
    shape = _shape(iv_in, iw_in)
    iv = _flat(iv_in, shape)
    iw = _flat(iw_in, shape)
    mag = np.abs(iv)
    plain = np.isfinite(iv) & np.isfinite(iw) & (iw != 0) & (iv != 0) & (mag != 1.0)
    # A negative base with a fractional exponent gives a complex number in Python; we count it as an error.
    negative = plain & (iv < 0)
    complex_pts = negative & (iw != np.floor(iw))
    general = plain & ~complex_pts
    res = np.full(iv.shape, np.nan)
    err = complex_pts
    special = ~plain
    if bool(special.any()):
        res[special], err[special] = _pow_special(iv[special], iw[special])
    if bool(general.any()):
        # the original operands keep a constant base a scalar (table lookups)
        gidx = np.flatnonzero(general)
        val, overflow = _libm_pow(_subset(np.abs(iv_in), gidx, shape), _subset(iw_in, gidx, shape))
        negate = negative[gidx] & _is_odd(iw[gidx])
        res[gidx] = np.where(negate, -val, val)
        err[gidx] = overflow
    return res.reshape(shape), err.reshape(shape)


def _float_pow_const(iv_in: F, w: float) -> tuple[F, B]:
    """float_pow with a constant, finite, non-zero exponent: the common case (x ** 2, n ** 0.5)."""
    shape = np.shape(iv_in)
    iv = np.asarray(iv_in, dtype=np.float64).reshape(-1)
    mag = np.abs(iv)
    plain = np.isfinite(iv) & (iv != 0) & (mag != 1.0)
    res = np.empty(iv.shape)
    err = np.zeros(iv.shape, dtype=np.bool_)
    fractional = w != math.floor(w)
    if fractional:
        # a negative base with a fractional exponent gives a complex number in Python; we count it as an error
        err = plain & (iv < 0)
        general = plain & ~err
    else:
        general = plain
    special = ~plain
    if bool(special.any()):
        res[special], err[special] = _pow_special(iv[special], np.full(int(np.count_nonzero(special)), w))
    if bool(general.any()):
        all_general = bool(general.all())
        val, overflow = _libm_pow(mag if all_general else mag[general], np.array(w))
        if not fractional and math.fmod(abs(w), 2.0) == 1.0:
            val = np.where((iv if all_general else iv[general]) < 0, -val, val)
        if all_general:
            res, err = val, overflow
        else:
            res[general] = val
            err[general] = overflow
    return res.reshape(shape), err.reshape(shape)


def _exp2(e: float) -> float:
    return math.inf if e > 1100 else 0.0 if e < -1100 else 2.0**e


def _pow_special(iv: F, iw: F) -> tuple[F, B]:
    """CPython's float_pow special cases, in its order: zero exponent, nans, infinities, zero base, |base| 1."""
    res = np.full(iv.shape, np.nan)
    err = np.zeros(iv.shape, dtype=np.bool_)
    done = np.zeros(iv.shape, dtype=np.bool_)
    odd = _is_odd(iw)
    mag = np.abs(iv)

    def settle(cond: B, value: F | float) -> None:
        nonlocal done
        np.copyto(res, value, where=cond)
        done = done | cond

    settle(iw == 0, 1.0)  # v**0 is 1, even 0**0 and nan**0
    settle(~done & np.isnan(iv), iv)
    settle(~done & np.isnan(iw), np.where(iv == 1.0, 1.0, np.nan))
    settle(~done & np.isinf(iw), np.where(mag == 1.0, 1.0, np.where((iw > 0) == (mag > 1.0), np.inf, 0.0)))
    inf_v = ~done & np.isinf(iv)
    settle(inf_v, np.where(iw > 0, np.where(odd, iv, mag), np.where(odd, np.copysign(0.0, iv), 0.0)))
    zero_v = ~done & (iv == 0)
    err |= zero_v & (iw < 0)  # ZeroDivisionError: 0.0 cannot be raised to a negative power
    settle(zero_v, np.where(odd, iv, 0.0))
    # what is left has |base| == 1: (-1) ** integer keeps its sign, (-1) ** fraction is complex
    left = ~done
    err |= left & (iv < 0) & (iw != np.floor(iw))
    np.copyto(res, np.where((iv < 0) & odd, -1.0, 1.0), where=left)
    return res, err


def _libm_pow(base: F, exp: F) -> tuple[F, B]:
    """C pow() through CPython for positive finite bases != 1 and finite non-zero exponents: (value, overflow).

    ``base`` and ``exp`` are 1-d arrays of the points to compute, or 0-d when constant.
    """
    shape = _shape(base, exp)
    const_exp = np.ndim(exp) == 0
    bf = _flat(base, shape)
    ef = exp if const_exp else _flat(exp, shape)
    out = np.full(bf.shape, np.nan)
    err = np.zeros(bf.shape, dtype=np.bool_)
    todo = np.ones(bf.shape, dtype=np.bool_)
    # integer arguments against a constant are looked up in a table of CPython's own results
    for scalar, varying, reverse in ((exp, bf, False), (base, ef, True)):
        if np.ndim(scalar) == 0 and np.ndim(varying) == 1:
            tabled = _table_points(varying, todo)
            if bool(tabled.any()):
                values, errors = _table("pow", float(scalar), reverse)
                pos = (varying[tabled] + _TABLE_RADIUS).astype(np.intp)
                out[tabled] = values[pos]
                err[tabled] = errors[pos]
                todo = todo & ~tabled
    if not bool(todo.any()):
        return out, err
    # pow overflows iff e * log2(b) >= 1024; numpy's estimate decides all but a thin band around it
    if const_exp:
        w = float(exp)
        # e * log2(b) crosses 1024 -+ band at these bases (b > 1 for w > 0, b < 1 for w < 0)
        lo_b, hi_b = sorted((_exp2((_LOG2_MAX - _BAND) / w), _exp2((_LOG2_MAX + _BAND) / w)))
        if w > 0:
            over, fast = todo & (bf > hi_b), todo & (bf < lo_b)
        else:
            over, fast = todo & (bf < lo_b), todo & (bf > hi_b)
    else:
        t = ef * np.log2(bf)
        over = todo & (t > _LOG2_MAX + _BAND)
        fast = todo & (t < _LOG2_MAX - _BAND)
    band = todo & ~over & ~fast
    err |= over
    idx = np.flatnonzero(fast)
    if idx.size:
        bases = bf[idx].tolist()
        exps = itertools.repeat(float(exp)) if const_exp else ef[idx].tolist()
        out[idx] = np.fromiter(map(math.pow, bases, exps), np.float64, idx.size)
    if bool(band.any()):
        val, bad = _libm_checked(math.pow, band, bf, np.asarray(ef))
        out[band] = val[band]
        err[band] = bad[band]
    return out, err


# ---- comparisons, boolean operators, conditionals ----------------------------------------------------------

_CMP: dict[str, Callable[[F, F], B]] = {
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
    "eq": np.equal,
    "ne": np.not_equal,
}


def _compare(ev: _Evaluator, node: Node) -> Val:
    left_node = node.args[0]
    left = ev.run(left_node)
    err = left.e
    result: B | None = None
    for op, right_node in zip(node.ops, node.args[1:], strict=True):
        if op in ("in", "notin"):
            elements = [ev.run(e) for e in right_node.args]
            right_err = _any_err(*(e.e for e in elements))
            found: B = np.zeros((), dtype=np.bool_)
            for el_node, el in zip(right_node.args, elements, strict=True):
                if el_node is left_node and left_node.kind in (VAR, CONST):
                    # `in` tests identity before equality: x in (x, y) is True even for nan
                    found = found | np.ones((), dtype=np.bool_)
                else:
                    found = found | (left.v == el.v)
            t = found if op == "in" else ~found
        else:
            right = ev.run(right_node)
            right_err = right.e
            t = _CMP[op](left.v, right.v)
            left, left_node = right, right_node
        # the right operand is evaluated only while the chain so far is True
        err = _any_err(err, right_err if result is None else _masked(result, right_err))
        result = t if result is None else result & t
    assert result is not None
    return Val(result, _TRUE, err)


def _boolop(ev: _Evaluator, node: Node) -> Val:
    # `a and b` is a if a is falsy else b (values, not bools); later operands only run while undecided.
    is_and = node.op == "and"
    if node.boolean:
        return _boolop_bools(ev, node, is_and)
    first = ev.run(node.args[0])
    v, tag, err = first.v, first.i, first.e
    undecided = _truthy(first) if is_and else ~_truthy(first)
    for arg in node.args[1:]:
        nxt = ev.run(arg)
        err = _any_err(err, _masked(undecided, nxt.e))
        v = np.where(undecided, nxt.v, v)
        tag = np.where(undecided, nxt.i, tag)
        undecided = undecided & (_truthy(nxt) if is_and else ~_truthy(nxt))
    return Val(v, tag, err)


def _boolop_bools(ev: _Evaluator, node: Node, is_and: bool) -> Val:
    # every operand is 0/1 and int-typed, so the returned operand is just the logical and/or
    first = ev.run(node.args[0])
    acc = _truthy(first)
    err = first.e
    for arg in node.args[1:]:
        nxt = ev.run(arg)
        err = _any_err(err, _masked(acc if is_and else ~acc, nxt.e))
        acc = acc & _truthy(nxt) if is_and else acc | _truthy(nxt)
    return Val(acc, _TRUE, err)


def _ifexp(ev: _Evaluator, node: Node) -> Val:
    test = ev.run(node.args[0])
    body = ev.run(node.args[1])
    other = ev.run(node.args[2])
    t = _truthy(test)
    err = _any_err(test.e, _masked(t, body.e), _masked(~t, other.e))
    return Val(np.where(t, body.v, other.v), np.where(t, body.i, other.i), err)


def _istype(ev: _Evaluator, node: Node) -> Val:
    a = ev.run(node.args[0])
    if node.op == "int":
        kind = a.i
    elif node.op == "float":
        kind = ~a.i
    else:
        kind = np.ones_like(a.i)
    return Val(kind, _TRUE, a.e)


# ---- reductions (all / any / sum / min / max), unrolled at compile time ------------------------------------


def _reduce(ev: _Evaluator, node: Node) -> Val:
    err = _any_err(*(ev.run(p).e for p in node.pre))
    op = node.op
    if op in ("all", "any"):
        return _all_any(ev, node, err)
    acc_v: F = np.zeros((), dtype=np.float64)
    acc_i: B = _TRUE
    have: B = _TRUE if op == "sum" else _FALSE
    for item in node.items:
        included, err = _item_filter(ev, item.conds, _TRUE, err)
        body = _numval(ev.run(item.body))
        err = _any_err(err, _masked(included, body.e))
        if op == "sum":
            # Python 3.11's sum adds left to right starting from the int 0
            acc_v = np.where(included, acc_v + body.v, acc_v)
            acc_i = np.where(included, acc_i & body.i, acc_i)
        else:
            better = body.v < acc_v if op == "min" else body.v > acc_v
            take = included & (~have | better)  # Python keeps the first of equal values
            acc_v = np.where(take, body.v, acc_v)
            acc_i = np.where(take, body.i, acc_i)
            have = have | included
    if op != "sum":
        err = _any_err(err, ~have)  # min()/max() of an empty sequence raise ValueError
    return Val(acc_v, acc_i, err)


def _item_filter(ev: _Evaluator, conds: tuple[Node, ...], start: B, err: B | None) -> tuple[B, B | None]:
    included = start
    for cond in conds:
        c = ev.run(cond)
        err = _any_err(err, _masked(included, c.e))
        included = included & _truthy(c)
    return included, err


def _all_any(ev: _Evaluator, node: Node, err: B | None) -> Val:
    is_all = node.op == "all"
    running: B = _TRUE  # still iterating (a generator stops at the first deciding element)
    for item in node.items:
        start = running if node.lazy else _TRUE
        included, err = _item_filter(ev, item.conds, start, err)
        body = ev.run(item.body)
        err = _any_err(err, _masked(included, body.e))
        decides = included & (~_truthy(body) if is_all else _truthy(body))
        running = running & ~decides
    result = running if is_all else ~running
    return Val(np.asarray(result, dtype=np.bool_), _TRUE, err)


# ---- calls -------------------------------------------------------------------------------------------------


def _call(ev: _Evaluator, node: Node) -> Val:
    args = [_numval(ev.run(a)) for a in node.args]
    return _CALLS[node.op](args)


def _abs(args: list[Val]) -> Val:
    a = args[0]
    return Val(np.abs(a.v), a.i, a.e)


def _int(args: list[Val]) -> Val:
    a = args[0]
    bad = ~a.i & ~np.isfinite(a.v)  # int(inf): OverflowError, int(nan): ValueError
    return Val(np.where(a.i, a.v, np.trunc(a.v)), _TRUE, _any_err(a.e, bad))


def _float(args: list[Val]) -> Val:
    a = args[0]
    return Val(a.v, _FALSE, _any_err(a.e, _to_float_err(a)))


def _bool_call(args: list[Val]) -> Val:
    a = args[0]
    return Val(_truthy(a), _TRUE, a.e)


def _round1(args: list[Val]) -> Val:
    a = args[0]
    bad = ~a.i & ~np.isfinite(a.v)
    # np.rint rounds half to even, like Python's round() of a float
    return Val(np.where(a.i, a.v, np.rint(a.v)), _TRUE, _any_err(a.e, bad))


def _round2(args: list[Val]) -> Val:
    a, nd = args
    n = int(nd.v)
    if bool(np.all(a.i)):
        return Val(_round_int(a.v, n), _TRUE, a.e)
    fv, ferr = _round_float(a.v, ~a.i, n)
    if bool(np.any(a.i)):
        fv = np.where(a.i, _round_int(a.v, n), fv)
        ferr = ferr & ~a.i
    return Val(fv, a.i, _any_err(a.e, ferr if bool(ferr.any()) else None))


def _round_int(v: F, n: int) -> F:
    """round(int, n): exact for |v| < 2**53, half to even at the 10**-n digit."""
    if n >= 0:
        return v
    k = -n
    if k > 22:  # 10**k exceeds every int we represent exactly; half of it does too
        return np.where(np.abs(v) * 2.0 > 10.0**k, v, 0.0)
    p = 10.0**k
    r = np.fmod(v, p)
    rem = np.where(r < 0, r + p, r)
    q = (v - rem) / p
    up = (2.0 * rem > p) | ((2.0 * rem == p) & (np.fmod(q, 2.0) != 0))
    out: F = (q + up) * p
    return out


def _two_product(a: F, b: float) -> tuple[F, F]:
    """Dekker's exact product: a * b == hi + lo exactly (no fma needed)."""
    hi = a * b
    t = _SPLITTER * a
    a_hi = t - (t - a)
    a_lo = a - a_hi
    tb = _SPLITTER * b
    b_hi = tb - (tb - b)
    b_lo = b - b_hi
    lo = ((a_hi * b_hi - hi) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    return hi, lo


def _round_float(x: F, mask: B, n: int) -> tuple[F, B]:
    """round(float, n) for |n| <= 22 as CPython does it: correctly rounded decimal, half to even on exact ties."""
    shape = _shape(x, mask)
    xs = np.broadcast_to(x, shape)
    # round(inf, n), round(nan, n) and round(0.0, n) return them unchanged
    out = np.array(xs, dtype=np.float64)
    err = np.zeros(shape, dtype=np.bool_)
    work = np.broadcast_to(mask, shape) & np.isfinite(xs) & (xs != 0)
    if not bool(work.any()):
        return out, err
    p = 10.0 ** abs(n)  # exact for |n| <= 22
    small = work & (np.abs(xs) < 1e290)
    safe = np.where(small, xs, 1.0)
    if n >= 0:
        y, lo = _two_product(safe, p)  # the exact x * 10**n is y + lo
        k = np.rint(y)
        d = y - k
        # rint broke a tie in y; the exact value may lie just off it
        k = k + np.where((d == 0.5) & (lo > 0), 1.0, 0.0) - np.where((d == -0.5) & (lo < 0), 1.0, 0.0)
        val = k / p
    else:
        y = safe / p
        hi, lo = _two_product(y, p)
        resid = (safe - hi) - lo  # exact x - y * 10**-n: which side of y the true quotient lies
        k = np.rint(y)
        d = y - k
        k = k + np.where((d == 0.5) & (resid > 0), 1.0, 0.0) - np.where((d == -0.5) & (resid < 0), 1.0, 0.0)
        val = k * p
    exact = small & (np.abs(y) < _TWO52)
    np.copyto(out, val, where=exact)
    # When |x * 10**n| >= 10 * 2**53 the rounding moves x by under a twentieth of its ulp: the result is x.
    unchanged = work & (~small | (np.abs(y) >= 10.0 * _TWO53))
    slow = work & ~exact & ~unchanged
    if bool(slow.any()):
        sv, bad = _libm_checked(_py_round, slow, xs, np.array(float(n)))
        np.copyto(out, sv, where=slow)
        err = slow & bad
    return out, err


def _py_round(x: float, n: float) -> float:
    return round(x, int(n))


def _float_unary(args: list[Val]) -> tuple[F, B | None]:
    """The argument of a float-only function, and where converting it to float raises (a huge int)."""
    a = args[0]
    return a.v, _any_err(a.e, _to_float_err(a))


def _sqrt(args: list[Val]) -> Val:
    x, err = _float_unary(args)
    neg = x < 0
    return Val(np.sqrt(np.where(neg, 0.0, x)), _FALSE, _any_err(err, neg if bool(neg.any()) else None))


def _fabs(args: list[Val]) -> Val:
    x, err = _float_unary(args)
    return Val(np.abs(x), _FALSE, err)


def _rounding(func: Callable[[F], F]) -> Callable[[list[Val]], Val]:
    def apply(args: list[Val]) -> Val:
        a = args[0]
        bad = ~a.i & ~np.isfinite(a.v)  # math.floor(inf): OverflowError, math.floor(nan): ValueError
        return Val(np.where(a.i, a.v, func(a.v)), _TRUE, _any_err(a.e, bad))

    return apply


def _isqrt(args: list[Val]) -> Val:
    a = args[0]
    ok = a.i & (a.v >= 0)  # TypeError on floats (even 4.0), ValueError on negatives
    x = np.where(ok, a.v, 0.0)
    r = np.floor(np.sqrt(x))
    r = np.where(r * r > x, r - 1.0, r)
    r = np.where((r + 1.0) * (r + 1.0) <= x, r + 1.0, r)
    return Val(r, _TRUE, _any_err(a.e, ~ok))


_GCD_TABLE_SIZE = 1025


@lru_cache(maxsize=1)
def _gcd_table() -> npt.NDArray[np.int16]:
    r = np.arange(_GCD_TABLE_SIZE, dtype=np.int16)
    table = np.gcd.outer(r, r).astype(np.int16)
    table.flags.writeable = False
    return table


def _gcd2(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    a, b = np.abs(a), np.abs(b)
    small = (a < _GCD_TABLE_SIZE) & (b < _GCD_TABLE_SIZE)
    if not bool(small.all()):
        return np.gcd(a, b)
    # most probes are small integers: one lookup instead of a Euclid loop per point
    out: npt.NDArray[np.int64] = _gcd_table()[a, b].astype(np.int64)
    return out


def _gcd(args: list[Val]) -> Val:
    if not args:
        return Val(np.zeros((), dtype=np.float64), _TRUE, None)
    ok: B = _TRUE
    for a in args:
        ok = ok & a.i & (np.abs(a.v) < _TWO63)  # TypeError on floats
    acc = np.abs(np.where(ok, args[0].v, 0.0).astype(np.int64))
    for a in args[1:]:
        acc = _gcd2(acc, np.where(ok, a.v, 0.0).astype(np.int64))
    return Val(acc.astype(np.float64), _TRUE, _any_err(*(a.e for a in args), ~ok))


def _log_values(a: Val, name: str) -> tuple[F, B | None]:
    x = a.v
    bad = (x <= 0) | np.isneginf(x)  # ValueError: math domain error (log(0) too)
    v = _libm(name, x, (x > 0) & np.isfinite(x))
    v = np.where(np.isposinf(x), np.inf, np.where(np.isnan(x), np.nan, v))
    return v, _any_err(a.e, bad if bool(bad.any()) else None)


def _log_func(name: str) -> Callable[[list[Val]], Val]:
    def apply(args: list[Val]) -> Val:
        v, err = _log_values(args[0], name)
        return Val(v, _FALSE, err)

    return apply


def _logb(args: list[Val]) -> Val:
    num, e1 = _log_values(args[0], "log")
    den, e2 = _log_values(args[1], "log")
    zero = den == 0  # math.log(x, 1): ZeroDivisionError
    return Val(num / np.where(zero, 1.0, den), _FALSE, _any_err(e1, e2, zero if bool(zero.any()) else None))


def _exp(args: list[Val]) -> Val:
    x, err = _float_unary(args)
    fast = np.isfinite(x) & (x < _LN_MAX - _BAND)
    over = np.isfinite(x) & (x > _LN_MAX + _BAND)  # OverflowError
    v = _libm("exp", x, fast)
    v = np.where(np.isposinf(x), np.inf, np.where(np.isneginf(x), 0.0, np.where(np.isnan(x), np.nan, v)))
    err = _any_err(err, over if bool(over.any()) else None)
    check = np.isfinite(x) & ~fast & ~over
    if bool(check.any()):
        cv, bad = _libm_checked(math.exp, check, x)
        v = np.where(check, cv, v)
        err = _any_err(err, check & bad)
    return Val(v, _FALSE, err)


def _trig(name: str) -> Callable[[list[Val]], Val]:
    def apply(args: list[Val]) -> Val:
        x, err = _float_unary(args)
        bad = np.isinf(x)  # math.sin(inf): ValueError
        v = _libm(name, x, np.isfinite(x))
        return Val(v, _FALSE, _any_err(err, bad if bool(bad.any()) else None))

    return apply


def _fpow(args: list[Val]) -> Val:
    return _pow(args[0], args[1], force_float=True)


def _is_integer(args: list[Val]) -> Val:
    a = args[0]
    # int.is_integer() exists from Python 3.12 and is always True; float.is_integer() needs a finite integral value
    kind = a.i | (np.isfinite(a.v) & (np.floor(a.v) == a.v))
    return Val(kind, _TRUE, a.e)


_CALLS: dict[str, Callable[[list[Val]], Val]] = {
    "abs": _abs,
    "int": _int,
    "float": _float,
    "bool": _bool_call,
    "round1": _round1,
    "round2": _round2,
    "sqrt": _sqrt,
    "fabs": _fabs,
    "floor": _rounding(np.floor),
    "ceil": _rounding(np.ceil),
    "trunc": _rounding(np.trunc),
    "isqrt": _isqrt,
    "gcd": _gcd,
    "log": _log_func("log"),
    "log2": _log_func("log2"),
    "log10": _log_func("log10"),
    "logb": _logb,
    "exp": _exp,
    "sin": _trig("sin"),
    "cos": _trig("cos"),
    "tan": _trig("tan"),
    "fpow": _fpow,
    "is_integer": _is_integer,
}


def _seq(ev: _Evaluator, node: Node) -> Val:  # pragma: no cover - SEQ is only read by _compare
    raise AssertionError("a literal sequence is evaluated by its comparison")


_HANDLERS: dict[str, Callable[[_Evaluator, Node], Val]] = {
    CONST: _const,
    VAR: _var,
    UNARY: _unary,
    BINARY: _binary,
    COMPARE: _compare,
    SEQ: _seq,
    BOOLOP: _boolop,
    IFEXP: _ifexp,
    CALL: _call,
    REDUCE: _reduce,
    ISTYPE: _istype,
}
