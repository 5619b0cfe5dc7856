"""The list guess language: a model's final rule as a Python predicate over a list ``xs``, never run by Python.

A list-rules player ends by stating its rule as ``lambda xs: <expression>``. The text is parsed with
:mod:`ast`, every node is checked against a whitelist, and the accepted tree is compiled into nested Python
closures (one per node) that implement the allowed operations themselves: nothing is passed to ``eval``,
``exec`` or ``compile``, no attribute of a value is looked up by a name the text chose, and every operation that
could take unbounded time or memory (big powers, shifts, repetition, ranges, long loops) is checked before it
runs. See ``docs/list-predicates.md`` for the language, its limits and the differences from Python.
"""

from __future__ import annotations

import ast
import functools
import math
import operator
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from wason.sandbox.pyast import parse

LANGUAGE_VERSION = "wason-list-language-2"
"""Bumped whenever the same text could evaluate differently on some list (2: ``is_prime`` of a number over 512
bits that is negative or has a prime factor up to 37 is False instead of an error)."""

LANGUAGE_SUMMARY = """\
State the rule as ONE Python expression `lambda xs: <expression>` returning True or False; xs is the list.
Allowed: numbers, strings, True/False/None, arithmetic, comparisons (chained too), and/or/not, `a if c else b`, \
indexing and slicing, list/tuple/set literals, and list/set/generator comprehensions (nested `for`, `if`).
Functions: len sum min max abs all any sorted reversed set list tuple range zip enumerate map filter int float \
bool str divmod pow round bin; math.isqrt gcd lcm sqrt floor ceil log log2 log10 prod comb perm factorial; \
and is_prime(n).
Strings: str(n) gives the digits (iterate or index them); methods .count .startswith .endswith .join .strip \
.replace .isdigit; lists have .count and .index.
Not allowed: statements, imports, assignments or :=, nested lambdas (use a comprehension), other names or \
attributes. A result that is not a bool counts by its truthiness."""
"""Plain-English description of the language for a model's prompt."""

MAX_SOURCE_CHARS = 2_000
"""Longest accepted text (fences included); checked before parsing."""
MAX_AST_NODES = 500
"""Most expression nodes (plus comprehension clauses, keywords and parameters) in the parsed text."""
MAX_AST_DEPTH = 64
"""Deepest nesting of the parsed tree (every AST node counts one level)."""
MAX_STRING_LITERAL = 100
"""Longest string literal, in characters."""
MAX_STEPS = 200_000
"""Work budget of one call: node evaluations plus elements handled by built-ins (see the docs for the costs)."""
MAX_INT_BITS = 10_000
"""Largest integer any operation may produce (about 3,000 decimal digits)."""
MAX_ITEMS = 100_000
"""Most elements in a list, tuple, set or range that is materialised."""
MAX_STR_CHARS = 100_000
"""Longest string any operation may produce."""
MAX_FACTORIAL = 1_000
"""Largest n for math.factorial(n) (1000! has about 8,500 bits)."""
MAX_ROUND_DIGITS = 400
"""Largest |ndigits| for round(v, ndigits)."""
MAX_PRIME_BITS = 512
"""Largest n (in bits) is_prime tests in full; above it, only n < 2 and n with a prime factor up to 37 are decided."""

# Frame layout: [budget, parent frame, slot 0, slot 1, ...]; a comprehension instance gets its own frame whose
# parent is the frame it was created in, so inner names shadow outer ones and never leak out (as in Python).
Frame = list[Any]
Eval = Callable[[Frame], Any]
_FIRST_SLOT = 2
_BIG = 1 << 64  # below this magnitude an int needs no size check or extra charge


class ListGuessError(ValueError):
    """The text is not in the list guess language or is over one of its limits (``str(error)``: one line why)."""


class ListEvalError(Exception):
    """Evaluating a predicate on one input failed (IndexError, ZeroDivisionError, budget exceeded, ...)."""


class _Budget:
    __slots__ = ("left", "limit")

    def __init__(self, steps: int, limit: int) -> None:
        self.left = steps
        self.limit = limit


def _charge(fr: Frame, n: int) -> None:
    budget: _Budget = fr[0]
    budget.left -= n
    if budget.left < 0:
        raise ListEvalError(f"step budget exceeded (the limit is {budget.limit:,} steps per list)")


def _int_ok(r: int, fr: Frame) -> int:
    if -_BIG < r < _BIG:
        return r
    bits = r.bit_length()
    if bits > MAX_INT_BITS:
        raise ListEvalError(f"integer too large: more than {MAX_INT_BITS} bits")
    _charge(fr, bits >> 6)  # big integers cost time and memory in proportion to their size
    return r


def _limbs(v: Any) -> int:
    """Size of an integer in 64-bit words, for charging big-integer arithmetic (1 for anything else)."""
    return (v.bit_length() >> 6) + 1 if isinstance(v, int) else 1


def _charge_product(a: Any, b: Any, fr: Frame) -> None:
    # Schoolbook multiplication and division of big integers cost about limbs(a) * limbs(b) word operations;
    # one step is charged per 32 of them (measured: a step is worth about 0.1 microseconds).
    _charge(fr, (_limbs(a) * _limbs(b)) >> 5)


def _charge_decimal(digits: int, fr: Frame) -> None:
    # CPython 3.11 converts between int and decimal text in quadratic time (3,000 digits: about 0.1 ms).
    _charge(fr, digits * digits // 9_000)


def _num_ok(r: Any, fr: Frame) -> Any:
    if isinstance(r, int):
        return _int_ok(r, fr)
    return r


def _too_long(n: int, limit: int, what: str) -> None:
    if n > limit:
        raise ListEvalError(f"{what} too long: more than {limit:,}")


def _sized_ok(r: Any, fr: Frame) -> Any:
    """Check and charge a freshly built sequence, set or string."""
    n = len(r)
    if type(r) is str:
        _too_long(n, MAX_STR_CHARS, "string")
        _charge(fr, n >> 4)
    else:
        _too_long(n, MAX_ITEMS, "sequence")
        _charge(fr, n)
    return r


_CONTAINERS = frozenset({list, tuple, set, frozenset})


def _charge_deep(v: Any, fr: Frame) -> int:
    """Charge an operation that may walk all of ``v`` (comparing, hashing, searching), and return the charge.

    Nested containers are walked, following a repeated reference every time it occurs, because that is what
    CPython's comparison and hashing do: ``[[L] * 1000] * 1000`` is cheap to build but costs a million
    comparisons of ``L``. The walk itself is charged as it goes, so it stops when the budget runs out.
    """
    t = type(v)
    if t is str:
        n = len(v) >> 4
        _charge(fr, n)
        return n
    if t not in _CONTAINERS:
        return 0
    n = len(v)
    _charge(fr, n)
    if n and not _CONTAINERS.isdisjoint(set(map(type, v))):  # the type scan runs in C: flat data stays cheap
        for item in v:
            n += _charge_deep(item, fr)
    return n


# ------------------------------------------------------------------------------------------ operators


def _add(a: Any, b: Any, fr: Frame) -> Any:
    if type(a) is int and type(b) is int:
        r = a + b
        return r if -_BIG < r < _BIG else _int_ok(r, fr)
    t = type(a)
    if t is type(b) and (t is str or t is list or t is tuple):
        _too_long(len(a) + len(b), MAX_STR_CHARS if t is str else MAX_ITEMS, "result")
        return _sized_ok(a + b, fr)
    return _num_ok(a + b, fr)


def _sub(a: Any, b: Any, fr: Frame) -> Any:
    if type(a) is int and type(b) is int:
        r = a - b
        return r if -_BIG < r < _BIG else _int_ok(r, fr)
    _charge_deep(a, fr)
    _charge_deep(b, fr)
    return _num_ok(a - b, fr)


def _repeat(seq: Any, count: int, fr: Frame) -> Any:
    n = len(seq) * count if count > 0 else 0
    _too_long(n, MAX_STR_CHARS if type(seq) is str else MAX_ITEMS, "repetition")
    return _sized_ok(seq * count, fr)


_REPEATABLE = (str, list, tuple)


def _mul(a: Any, b: Any, fr: Frame) -> Any:
    if type(a) is int and type(b) is int:
        if -_BIG < a < _BIG and -_BIG < b < _BIG:
            return a * b
        if a.bit_length() + b.bit_length() > MAX_INT_BITS + 1:
            raise ListEvalError(f"integer too large: more than {MAX_INT_BITS} bits")
        _charge_product(a, b, fr)
        return _int_ok(a * b, fr)
    if isinstance(a, _REPEATABLE) and isinstance(b, int):
        return _repeat(a, b, fr)
    if isinstance(b, _REPEATABLE) and isinstance(a, int):
        return _repeat(b, a, fr)
    return _num_ok(a * b, fr)


def _truediv(a: Any, b: Any, fr: Frame) -> Any:
    if type(a) is not int or not -_BIG < a < _BIG:
        _charge_product(a, b, fr)
    return a / b


def _floordiv(a: Any, b: Any, fr: Frame) -> Any:
    if type(a) is int and type(b) is int and -_BIG < a < _BIG:
        return a // b
    _charge_product(a, b, fr)
    return _num_ok(a // b, fr)


def _mod(a: Any, b: Any, fr: Frame) -> Any:
    if type(a) is int and type(b) is int and -_BIG < a < _BIG:
        return a % b
    if isinstance(a, str):
        raise ListEvalError("string formatting with % is not allowed")
    _charge_product(a, b, fr)
    return _num_ok(a % b, fr)


def _pow(a: Any, b: Any, fr: Frame) -> Any:
    if isinstance(a, int) and isinstance(b, int) and b > 1 and not -1 <= a <= 1:
        # |a| >= 2**(bits - 1), so the result has more than (bits - 1) * b bits: refuse before computing.
        if (a.bit_length() - 1) * b > MAX_INT_BITS:
            raise ListEvalError(f"integer too large: more than {MAX_INT_BITS} bits")
        words = (a.bit_length() * b >> 6) + 1
        _charge(fr, words * words >> 5)  # the last squarings dominate
        return _int_ok(a**b, fr)
    return _num_ok(a**b, fr)


def _lshift(a: Any, b: Any, fr: Frame) -> Any:
    if isinstance(a, int) and isinstance(b, int) and a and b > 0 and a.bit_length() + b > MAX_INT_BITS:
        raise ListEvalError(f"integer too large: more than {MAX_INT_BITS} bits")
    return _num_ok(a << b, fr)


def _deep(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any, Frame], Any]:
    """A set or bitwise operator: it may walk both operands."""

    def apply(a: Any, b: Any, fr: Frame) -> Any:
        _charge_deep(a, fr)
        _charge_deep(b, fr)
        return op(a, b)

    return apply


_BINOPS: dict[type[ast.operator], Callable[[Any, Any, Frame], Any]] = {
    ast.Add: _add,
    ast.Sub: _sub,
    ast.Mult: _mul,
    ast.Div: _truediv,
    ast.FloorDiv: _floordiv,
    ast.Mod: _mod,
    ast.Pow: _pow,
    ast.LShift: _lshift,
    ast.RShift: lambda a, b, fr: a >> b,
    ast.BitAnd: _deep(operator.and_),
    ast.BitOr: _deep(operator.or_),
    ast.BitXor: _deep(operator.xor),
}


def _ordering(op: Callable[[Any, Any], Any]) -> Callable[[Any, Any, Frame], bool]:
    def compare(a: Any, b: Any, fr: Frame) -> bool:
        if type(a) is not int or type(b) is not int:
            _charge_deep(a, fr)
        return bool(op(a, b))

    return compare


def _contains(container: Any, item: Any, fr: Frame) -> bool:
    t = type(container)
    if t is list or t is tuple or t is str:
        _charge_deep(container, fr)
        return item in container
    if t is set or t is frozenset:
        _charge_deep(item, fr)  # hashing the item
        return item in container
    if t is range:
        # CPython answers `int in range` arithmetically but scans every element for any other type.
        if isinstance(item, int):
            return item in container
        if isinstance(item, float | complex) and item == item.real and float(item.real).is_integer():
            return int(item.real) in container
        return False
    per_item = 1 + _charge_deep(item, fr)
    for v in iter(container):  # an iterator (zip, map, generator...): walked here, charged per element
        _charge(fr, per_item)
        if v is item or v == item:
            return True
    return False


_CMPOPS: dict[type[ast.cmpop], Callable[[Any, Any, Frame], bool]] = {
    ast.Lt: _ordering(operator.lt),
    ast.LtE: _ordering(operator.le),
    ast.Gt: _ordering(operator.gt),
    ast.GtE: _ordering(operator.ge),
    ast.Eq: _ordering(operator.eq),
    ast.NotEq: _ordering(operator.ne),
    ast.In: lambda a, b, fr: _contains(b, a, fr),
    ast.NotIn: lambda a, b, fr: not _contains(b, a, fr),
    ast.Is: lambda a, b, fr: a is b,
    ast.IsNot: lambda a, b, fr: a is not b,
}
_UNARYOPS: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Invert: operator.invert,
}


# ------------------------------------------------------------------------------------------ iteration


def _collect(fr: Frame, iterable: Any) -> Any:
    """``iterable`` as a bounded sized collection, each element charged one step."""
    t = type(iterable)
    if t is list or t is tuple or t is set or t is frozenset or t is str or t is range:
        n = len(iterable)  # len(range(10**30)) raises OverflowError, which becomes an evaluation error
        _too_long(n, MAX_ITEMS, "sequence")
        _charge(fr, n)
        return iterable
    out: list[Any] = []
    budget: _Budget = fr[0]
    for v in iter(iterable):
        budget.left -= 1
        if budget.left < 0:
            _charge(fr, 0)
        out.append(v)
        if len(out) > MAX_ITEMS:
            _too_long(len(out), MAX_ITEMS, "sequence")
    return out


def _unpack(value: Any, n: int, fr: Frame) -> Sequence[Any]:
    t = type(value)
    if t is tuple or t is list:
        items: Sequence[Any] = value
    else:
        got: list[Any] = []
        for v in iter(value):  # never more than n + 1 elements, whatever the iterable's length
            _charge(fr, 1)
            got.append(v)
            if len(got) > n:
                break
        items = got
    if len(items) != n:
        many = "too many" if len(items) > n else "not enough"
        raise ListEvalError(f"ValueError: {many} values to unpack (expected {n})")
    return items


# ------------------------------------------------------------------------------------------ built-ins
# Every implementation takes the frame first (for the budget), then the arguments as Python would.

_MISSING: Any = object()
_CALL_COST = 4  # a built-in called by map(), filter() or key=, which no static cost covers


def _plain(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A built-in whose static cost covers it: called as Python would, without the frame."""
    return lambda fr, *args, **kwargs: fn(*args, **kwargs)


def _f_sum(fr: Frame, iterable: Any, start: Any = 0) -> Any:
    if not isinstance(start, int | float | complex):
        raise ListEvalError("sum() here adds numbers only; its start value must be a number")
    return _num_ok(sum(_collect(fr, iterable), start), fr)


def _extreme(pick: Callable[..., Any]) -> Callable[..., Any]:
    """min() or max(), charged for comparing the items (and for calling ``key`` on each)."""

    def extreme(fr: Frame, *args: Any, key: Any = None, default: Any = _MISSING) -> Any:
        if len(args) == 1:
            items = _collect(fr, args[0])
        elif default is not _MISSING:
            raise ListEvalError("TypeError: cannot give a default to min() or max() with several arguments")
        else:
            items = args
        _charge_deep(items, fr)
        kwargs: dict[str, Any] = {} if default is _MISSING else {"default": default}
        if key is not None:
            _charge(fr, _CALL_COST * len(items))  # one call of the key function per item
            kwargs["key"] = key
        return pick(items, **kwargs)

    return extreme


def _all_any(settled_by: bool) -> Callable[[Frame, Any], bool]:
    """all() (settled by the first false item) or any() (by the first true one), charged per item seen."""

    def check(fr: Frame, iterable: Any) -> bool:
        t = type(iterable)
        if t is list or t is tuple or t is set or t is frozenset or t is str:
            _charge(fr, len(iterable))
            return any(iterable) if settled_by else all(iterable)
        for v in iter(iterable):
            _charge(fr, 1)
            if bool(v) is settled_by:
                return settled_by
        return not settled_by

    return check


def _f_sorted(fr: Frame, iterable: Any, key: Any = None, reverse: Any = False) -> list[Any]:
    items = _collect(fr, iterable)
    _charge(fr, _charge_deep(items, fr) * (len(items).bit_length() >> 2))  # about n log n comparisons
    if key is not None:
        _charge(fr, _CALL_COST * len(items))  # one call of the key function per item
    return sorted(items, key=key, reverse=reverse)


def _collected(kind: Callable[[Any], Any], hashed: bool = False) -> Callable[..., Any]:
    """list(), tuple(), set() or frozenset() of a bounded collection (a set also charged for hashing)."""

    def build(fr: Frame, iterable: Any = ()) -> Any:
        items = _collect(fr, iterable)
        if hashed:
            _charge_deep(items, fr)
        return kind(items)

    return build


_f_set = _collected(set, hashed=True)


def _f_int(fr: Frame, *args: Any, base: Any = _MISSING) -> int:
    if base is not _MISSING:
        args = (*args, base)
    if args and isinstance(args[0], str):
        # CPython's own digit limit applies too, but an explicit one keeps conversion time bounded everywhere.
        _too_long(len(args[0]), MAX_INT_BITS + 16, "integer string")
        _charge_decimal(len(args[0]), fr)
    return _int_ok(int(*args), fr)


def _f_float(fr: Frame, *args: Any) -> float:
    if args:
        _charge_deep(args[0], fr)  # parsing a string is linear in its length
    return float(*args)


def _f_str(fr: Frame, v: Any = "") -> str:
    if isinstance(v, int) and not -_BIG < v < _BIG:
        _charge_decimal(v.bit_length() * 30103 // 100000 + 1, fr)
    if v is None or isinstance(v, int | float | str | complex):
        return str(_sized_ok(str(v), fr))
    raise ListEvalError(
        f"str() is supported for numbers and strings, not {type(v).__name__}; use ''.join(str(x) for x in xs)"
    )


def _f_divmod(fr: Frame, a: Any, b: Any) -> Any:
    _charge_product(a, b, fr)
    return divmod(a, b)


def _f_pow(fr: Frame, a: Any, b: Any, mod: Any = None) -> Any:
    if mod is None:
        return _pow(a, b, fr)
    if isinstance(b, int) and isinstance(mod, int):
        # modular exponentiation costs about one multiplication of mod-sized numbers per bit of the exponent;
        # a negative exponent first inverts the base, which is gcd-like (quadratic)
        _charge(fr, b.bit_length() * (mod.bit_length() // 64 + 1))
        if b < 0:  # measured: inverting modulo a 10,000-bit number takes about 1 ms
            _charge(fr, _limbs(mod) * _limbs(mod) // 2)
    return pow(a, b, mod)


def _f_round(fr: Frame, v: Any, ndigits: Any = None) -> Any:
    if ndigits is None:
        return _num_ok(round(v), fr)
    if isinstance(ndigits, int) and abs(ndigits) > MAX_ROUND_DIGITS:
        raise ListEvalError(f"round()'s ndigits must be between -{MAX_ROUND_DIGITS} and {MAX_ROUND_DIGITS}")
    return _num_ok(round(v, ndigits), fr)


def _digits_text(fn: Callable[[Any], str]) -> Callable[[Frame, Any], str]:
    return lambda fr, v: str(_sized_ok(fn(v), fr))


def _f_map(fr: Frame, fn: Callable[..., Any], *iterables: Any) -> Iterator[Any]:
    iterators = [iter(it) for it in iterables]  # as Python: a non-iterable argument fails at once

    def gen() -> Iterator[Any]:
        for args in zip(*iterators, strict=False):
            _charge(fr, _CALL_COST)
            yield fn(*args)

    return gen()


def _f_filter(fr: Frame, fn: Callable[..., Any] | None, iterable: Any) -> Iterator[Any]:
    iterator = iter(iterable)

    def gen() -> Iterator[Any]:
        for v in iterator:
            _charge(fr, 1 if fn is None else _CALL_COST)
            if v if fn is None else fn(v):
                yield v

    return gen()


_PRIME_BASES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
# Below each bound the first few bases already decide every n (Jaeschke 1993; Sorenson and Webster 2015).
_BASES_FOR: tuple[tuple[int, int], ...] = ((3_215_031_751, 4), (341_550_071_728_321, 7))


def is_prime(n: int) -> bool:
    """Whether ``n`` is prime (never below 2): trial division by the primes below 41, then Miller-Rabin.

    The twelve Miller-Rabin bases 2..37 decide every n below 3.3 * 10**24 exactly; above that the answer is a
    deterministic strong-probable-prime test (no composite passing all twelve bases is used by any rule).
    """
    if n < 2:
        return False
    for p in _PRIME_BASES:
        if n % p == 0:
            return n == p
    if n < 41 * 41:
        return True
    d, s = n - 1, 0
    while not d & 1:
        d >>= 1
        s += 1
    count = next((k for bound, k in _BASES_FOR if n < bound), len(_PRIME_BASES))
    for a in _PRIME_BASES[:count]:
        x = pow(a, d, n)
        if x == 1 or x == n - 1:
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _f_is_prime(fr: Frame, n: Any) -> bool:
    if not isinstance(n, int):
        raise ListEvalError(f"is_prime() needs an integer, not {type(n).__name__}")
    bits = n.bit_length()
    if bits > MAX_PRIME_BITS:
        # Beyond the full test's bound, a number below 2 or with a prime factor up to 37 is still decided
        # (trial division, as for any n): the game's test lists may hold integers of 1,000 digits.
        _charge(fr, len(_PRIME_BASES) * ((bits >> 6) + 1))
        if n < 2 or any(n % p == 0 for p in _PRIME_BASES):
            return False
        raise ListEvalError(
            f"is_prime() decides numbers over {MAX_PRIME_BITS} bits only when they are negative or have a "
            "prime factor up to 37"
        )
    if bits > 11:  # Miller-Rabin: per base, `bits` modular squarings (measured: 512 bits, 12 bases: 5 ms)
        words = (bits >> 6) + 1
        _charge(fr, (4 if bits < 32 else 12) * (bits + 10) * words * words >> 2)
    return is_prime(n)


def _m_isqrt(fr: Frame, n: Any) -> int:
    _charge_product(n, n, fr)
    return math.isqrt(n)


def _m_gcd(fr: Frame, *args: Any) -> int:
    for v in args:
        _charge_product(v, v, fr)  # Lehmer's gcd is quadratic in the size of the operands
    return math.gcd(*args)


def _m_lcm(fr: Frame, *args: Any) -> int:
    acc = 1
    for v in args:
        _charge(fr, 4 * (_limbs(acc) * _limbs(v) >> 5))
        acc = _int_ok(math.lcm(acc, v), fr)
    return acc


def _rounding(fn: Callable[[Any], Any]) -> Callable[[Frame, Any], Any]:
    return lambda fr, v: _num_ok(fn(v), fr)


def _m_prod(fr: Frame, iterable: Any, start: Any = 1) -> Any:
    acc = start
    for v in _collect(fr, iterable):
        acc = _mul(acc, v, fr)
    return acc


def _m_comb(fr: Frame, n: Any, k: Any) -> int:
    if isinstance(n, int) and isinstance(k, int) and 0 <= k <= n:
        kk = min(k, n - k)
        # C(n, k) <= n**k (and <= 2**n, which is why n <= MAX_INT_BITS is always fine)
        if n > MAX_INT_BITS and kk * n.bit_length() > MAX_INT_BITS:
            raise ListEvalError(f"integer too large: more than {MAX_INT_BITS} bits")
        _charge_products(kk, min(n, kk * n.bit_length()), fr)
    return _int_ok(math.comb(n, k), fr)


def _m_perm(fr: Frame, n: Any, k: Any = None) -> int:
    kk = n if k is None else k
    if isinstance(n, int) and isinstance(kk, int) and 0 <= kk <= n:
        if n > MAX_FACTORIAL and kk * n.bit_length() > MAX_INT_BITS:
            raise ListEvalError(f"integer too large: more than {MAX_INT_BITS} bits")
        _charge_products(kk, kk * n.bit_length(), fr)
    return _int_ok(math.perm(n, k), fr)


def _m_factorial(fr: Frame, n: Any) -> int:
    if isinstance(n, int) and n > MAX_FACTORIAL:
        raise ListEvalError(f"math.factorial() accepts n up to {MAX_FACTORIAL}")
    if isinstance(n, int) and n > 0:
        _charge_products(n, n * n.bit_length(), fr)
    return _int_ok(math.factorial(n), fr)


def _charge_products(count: int, result_bits: int, fr: Frame) -> None:
    # factorial, comb and perm multiply about `count` small factors into a result of up to result_bits bits
    _charge(fr, count * ((min(result_bits, MAX_INT_BITS) >> 6) + 1) >> 5)


@dataclass(frozen=True)
class _Function:
    impl: Callable[..., Any]
    min_args: int
    max_args: int | None
    keywords: frozenset[str] = frozenset()
    takes_function: bool = False  # the first argument is a function name (map, filter)


def _fn(
    impl: Callable[..., Any], lo: int, hi: int | None, kw: str = "", takes_function: bool = False
) -> _Function:
    return _Function(impl, lo, hi, frozenset(kw.split()), takes_function)


_FUNCTIONS: dict[str, _Function] = {
    "len": _fn(_plain(len), 1, 1),
    "sum": _fn(_f_sum, 1, 2, "start"),
    "min": _fn(_extreme(min), 1, None, "key default"),
    "max": _fn(_extreme(max), 1, None, "key default"),
    "abs": _fn(_plain(abs), 1, 1),
    "all": _fn(_all_any(False), 1, 1),
    "any": _fn(_all_any(True), 1, 1),
    "sorted": _fn(_f_sorted, 1, 1, "key reverse"),
    "reversed": _fn(_plain(reversed), 1, 1),
    "list": _fn(_collected(list), 0, 1),
    "tuple": _fn(_collected(tuple), 0, 1),
    "set": _fn(_f_set, 0, 1),
    "frozenset": _fn(_collected(frozenset, hashed=True), 0, 1),
    "range": _fn(_plain(range), 1, 3),  # lazy: its length is only checked when something materialises it
    "zip": _fn(_plain(zip), 0, None),
    "enumerate": _fn(_plain(enumerate), 1, 2, "start"),
    "int": _fn(_f_int, 0, 2, "base"),
    "float": _fn(_f_float, 0, 1),
    "bool": _fn(_plain(bool), 0, 1),
    "str": _fn(_f_str, 0, 1),
    "divmod": _fn(_f_divmod, 2, 2),
    "pow": _fn(_f_pow, 2, 3),
    "round": _fn(_f_round, 1, 2, "ndigits"),
    "bin": _fn(_digits_text(bin), 1, 1),
    "hex": _fn(_digits_text(hex), 1, 1),
    "oct": _fn(_digits_text(oct), 1, 1),
    "map": _fn(_f_map, 2, None, takes_function=True),
    "filter": _fn(_f_filter, 2, 2, takes_function=True),
    "is_prime": _fn(_f_is_prime, 1, 1),
}
_MATH_FUNCTIONS: dict[str, _Function] = {
    "isqrt": _fn(_m_isqrt, 1, 1),
    "gcd": _fn(_m_gcd, 0, None),
    "lcm": _fn(_m_lcm, 0, None),
    "sqrt": _fn(_plain(math.sqrt), 1, 1),
    "floor": _fn(_rounding(math.floor), 1, 1),
    "ceil": _fn(_rounding(math.ceil), 1, 1),
    "trunc": _fn(_rounding(math.trunc), 1, 1),
    "fabs": _fn(_plain(math.fabs), 1, 1),
    "log": _fn(_plain(math.log), 1, 2),
    "log2": _fn(_plain(math.log2), 1, 1),
    "log10": _fn(_plain(math.log10), 1, 1),
    "prod": _fn(_m_prod, 1, 1, "start"),
    "comb": _fn(_m_comb, 2, 2),
    "perm": _fn(_m_perm, 1, 2),
    "factorial": _fn(_m_factorial, 1, 1),
}
_MATH_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}


# ------------------------------------------------------------------------------------------ methods


def _scan(method: Callable[..., Any], charge_args: bool = False) -> Callable[..., Any]:
    """A method that may read all of its receiver (and of its arguments)."""

    def call(fr: Frame, s: Any, *args: Any) -> Any:
        _charge_deep(s, fr)
        if charge_args:
            _charge_deep(args, fr)
        return method(s, *args)

    return call


def _s_join(fr: Frame, sep: str, iterable: Any) -> str:
    items = _collect(fr, iterable)
    total = len(sep) * max(len(items) - 1, 0)
    for item in items:
        if not isinstance(item, str):
            raise ListEvalError(f"TypeError: join() needs strings, found {type(item).__name__}")
        total += len(item)
    _too_long(total, MAX_STR_CHARS, "string")
    return str(_sized_ok(sep.join(items), fr))


def _s_replace(fr: Frame, s: str, old: Any, new: Any, count: Any = -1) -> str:
    if not isinstance(old, str) or not isinstance(new, str):
        raise ListEvalError("TypeError: replace() needs string arguments")
    hits = len(s) + 1 if old == "" else s.count(old)
    if isinstance(count, int) and count >= 0:
        hits = min(hits, count)
    _too_long(len(s) + hits * max(len(new) - len(old), 0), MAX_STR_CHARS, "string")
    return str(_sized_ok(s.replace(old, new, count), fr))


# method name -> receiver type -> (implementation, min args, max args)
_METHODS: dict[str, dict[type, tuple[Callable[..., Any], int, int]]] = {
    "count": {str: (_scan(str.count), 1, 3)} | {t: (_scan(t.count), 1, 1) for t in (list, tuple)},
    "index": {t: (_scan(t.index), 1, 3) for t in (str, list, tuple)},
    "find": {str: (_scan(str.find), 1, 3)},
    "startswith": {str: (_scan(str.startswith, True), 1, 3)},
    "endswith": {str: (_scan(str.endswith, True), 1, 3)},
    "strip": {str: (_scan(str.strip, True), 0, 1)},
    "lstrip": {str: (_scan(str.lstrip, True), 0, 1)},
    "rstrip": {str: (_scan(str.rstrip, True), 0, 1)},
    "isdigit": {str: (_scan(str.isdigit), 0, 0)},
    "join": {str: (_s_join, 1, 1)},
    "replace": {str: (_s_replace, 2, 3)},
}


def _call_method(name: str, fr: Frame, receiver: Any, args: list[Any]) -> Any:
    found = _METHODS[name].get(type(receiver))
    if found is None:
        raise ListEvalError(f"AttributeError: {type(receiver).__name__} has no method .{name}() here")
    impl, lo, hi = found
    if not lo <= len(args) <= hi:
        raise ListEvalError(f"TypeError: .{name}() takes {lo} to {hi} arguments, got {len(args)}")
    return impl(fr, receiver, *args)


def _bound_method(name: str, fr: Frame, receiver: Any, *args: Any) -> Any:
    return _call_method(name, fr, receiver, list(args))


# ------------------------------------------------------------------------------------------ compiler

_RESERVED = frozenset({*_FUNCTIONS, "math", "True", "False", "None"})

_FORBIDDEN: dict[type[ast.AST], str] = {
    ast.Lambda: "nested lambdas are not allowed; use a comprehension instead",
    ast.NamedExpr: "assignment expressions (:=) are not allowed",
    ast.JoinedStr: "f-strings are not allowed",
    ast.FormattedValue: "f-strings are not allowed",
    ast.Dict: "dicts are not allowed",
    ast.DictComp: "dict comprehensions are not allowed",
    ast.Starred: "starred expressions (*x) are not allowed",
    ast.Await: "await is not allowed",
    ast.Yield: "yield is not allowed",
    ast.YieldFrom: "yield is not allowed",
    ast.Slice: "a slice is only allowed inside brackets",
}


class _Scope:
    """Names visible at a point of the text: slot numbers in this scope's frame, then the enclosing scope's."""

    def __init__(self, parent: _Scope | None) -> None:
        self.parent = parent
        self.slots: dict[str, int] = {}
        self.pending: set[str] = set()  # bound later in this comprehension: reading them now is an error

    def add(self, name: str) -> int:
        if name not in self.slots:
            self.slots[name] = _FIRST_SLOT + len(self.slots)
        return self.slots[name]

    def lookup(self, name: str) -> tuple[int, int] | None:
        scope: _Scope | None = self
        depth = 0
        while scope is not None:
            if name in scope.slots:
                if name in scope.pending:
                    raise ListGuessError(f"'{name}' is used before the comprehension assigns it")
                return depth, scope.slots[name]
            scope = scope.parent
            depth += 1
        return None


def _variable(depth: int, slot: int) -> Eval:
    if depth == 0:
        return lambda fr: fr[slot]
    if depth == 1:
        return lambda fr: fr[1][slot]
    if depth == 2:
        return lambda fr: fr[1][1][slot]

    def get(fr: Frame) -> Any:
        for _ in range(depth):
            fr = fr[1]
        return fr[slot]

    return get


def _constant(value: Any) -> Eval:
    return lambda fr: value


def _size(node: ast.AST) -> int:
    return sum(1 for n in ast.walk(node) if isinstance(n, ast.expr))


def _is_math(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "math"


def _no_dunder(name: str, dot: str = "") -> None:
    if name.startswith("__"):
        raise ListGuessError(f"names with double underscores ('{dot}{name}') are not allowed")


def _check_name(name: str, what: str) -> None:
    _no_dunder(name)
    if name in _RESERVED:
        raise ListGuessError(f"{what} name '{name}' is reserved (it is a built-in)")


class _Compiler:
    """Whitelist check and compilation of an expression tree into closures over frames."""

    def expr(self, node: ast.expr, scope: _Scope) -> Eval:
        handler = _HANDLERS.get(type(node))
        if handler is None:
            reason = _FORBIDDEN.get(type(node))
            raise ListGuessError(reason or f"{type(node).__name__} expressions are not allowed")
        return handler(self, node, scope)

    # ---- leaves ------------------------------------------------------------------------------------------

    def _Constant(self, node: ast.Constant, scope: _Scope) -> Eval:
        v = node.value
        if isinstance(v, int) and v.bit_length() > MAX_INT_BITS:
            raise ListGuessError(f"an integer literal has more than {MAX_INT_BITS} bits")
        if isinstance(v, str) and len(v) > MAX_STRING_LITERAL:
            raise ListGuessError(f"string literals may be at most {MAX_STRING_LITERAL} characters long")
        if v is None or isinstance(v, int | float | str):
            return _constant(v)
        kind = {complex: "complex", bytes: "bytes"}.get(type(v))
        raise ListGuessError(
            f"{kind} literals are not allowed" if kind else f"the constant {v!r} is not allowed"
        )

    def _Name(self, node: ast.Name, scope: _Scope) -> Eval:
        found = scope.lookup(node.id)
        if found is not None:
            return _variable(*found)
        _no_dunder(node.id)
        if node.id == "math":
            raise ListGuessError("'math' can only be used as math.<function>(...), e.g. math.isqrt(x)")
        if node.id in _FUNCTIONS:
            raise ListGuessError(f"'{node.id}' is a function: call it, e.g. {node.id}(xs)")
        raise ListGuessError(
            f"name '{node.id}' is not defined (only the lambda's parameter and comprehension variables are)"
        )

    def _Attribute(self, node: ast.Attribute, scope: _Scope) -> Eval:
        _no_dunder(node.attr, ".")
        if _is_math(node.value):
            if node.attr in _MATH_CONSTANTS:
                return _constant(_MATH_CONSTANTS[node.attr])
            if node.attr in _MATH_FUNCTIONS:
                raise ListGuessError(f"math.{node.attr} must be called, e.g. math.{node.attr}(x)")
            raise ListGuessError(f"math.{node.attr} is not supported")
        self.expr(node.value, scope)  # first, so `self.rule` blames the unknown name 'self'
        if node.attr in _METHODS:
            raise ListGuessError(f"the method .{node.attr} must be called")
        raise ListGuessError(
            f"attribute '.{node.attr}' is not allowed (only math.<function> and the string/list methods "
            f"{', '.join(sorted(_METHODS))})"
        )

    # ---- operators ---------------------------------------------------------------------------------------

    def _UnaryOp(self, node: ast.UnaryOp, scope: _Scope) -> Eval:
        operand = self.expr(node.operand, scope)
        if isinstance(node.op, ast.Not):
            return lambda fr: not operand(fr)
        op = _UNARYOPS[type(node.op)]
        return lambda fr: _num_ok(op(operand(fr)), fr)

    def _BinOp(self, node: ast.BinOp, scope: _Scope) -> Eval:
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise ListGuessError("the @ operator is not allowed")
        left = self.expr(node.left, scope)
        right = self.expr(node.right, scope)
        return lambda fr: op(left(fr), right(fr), fr)

    def _BoolOp(self, node: ast.BoolOp, scope: _Scope) -> Eval:
        first, *rest = [self.expr(v, scope) for v in node.values]
        settled_by = isinstance(
            node.op, ast.Or
        )  # the truth value that decides: True for `or`, False for `and`

        def boolop(fr: Frame) -> Any:
            v = first(fr)
            for f in rest:
                if bool(v) is settled_by:
                    return v
                v = f(fr)
            return v

        return boolop

    def _Compare(self, node: ast.Compare, scope: _Scope) -> Eval:
        operands = [node.left, *node.comparators]
        for i, op_node in enumerate(node.ops):
            if isinstance(op_node, ast.Is | ast.IsNot) and not any(
                isinstance(o, ast.Constant) and o.value is None for o in operands[i : i + 2]
            ):
                raise ListGuessError("'is' and 'is not' are only allowed with None; use == or !=")
        first = self.expr(node.left, scope)
        ops = [_CMPOPS[type(o)] for o in node.ops]
        rights = [self.expr(c, scope) for c in node.comparators]
        if len(ops) == 1:
            op, right = ops[0], rights[0]
            return lambda fr: op(first(fr), right(fr), fr)
        pairs = list(zip(ops, rights, strict=True))

        def chain(fr: Frame) -> bool:
            left = first(fr)
            for op, f in pairs:
                right = f(fr)
                if not op(left, right, fr):
                    return False
                left = right
            return True

        return chain

    def _IfExp(self, node: ast.IfExp, scope: _Scope) -> Eval:
        test, body, orelse = (self.expr(n, scope) for n in (node.test, node.body, node.orelse))
        return lambda fr: body(fr) if test(fr) else orelse(fr)

    # ---- containers --------------------------------------------------------------------------------------

    def _Subscript(self, node: ast.Subscript, scope: _Scope) -> Eval:
        value = self.expr(node.value, scope)
        s = node.slice
        if isinstance(s, ast.Slice):
            parts = [None if p is None else self.expr(p, scope) for p in (s.lower, s.upper, s.step)]

            def sliced(fr: Frame) -> Any:
                obj = value(fr)
                bounds = [None if p is None else p(fr) for p in parts]
                r = obj[slice(*bounds)]
                return r if type(r) is range else _sized_ok(r, fr)

            return sliced
        index = self.expr(s, scope)
        return lambda fr: value(fr)[index(fr)]

    def _display(self, node: ast.List | ast.Tuple | ast.Set, scope: _Scope) -> Eval:
        fs = [self.expr(e, scope) for e in node.elts]
        if isinstance(node, ast.List):
            return lambda fr: [f(fr) for f in fs]
        if isinstance(node, ast.Tuple):
            return lambda fr: tuple(f(fr) for f in fs)
        return lambda fr: _f_set(fr, [f(fr) for f in fs])

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp, scope: _Scope) -> Eval:
        """A generator of the comprehension's values; list and set comprehensions collect it at once."""
        make = self._generator(node.elt, node.generators, scope)
        if isinstance(node, ast.ListComp):
            return lambda fr: _collect(fr, make(fr))  # a fresh list: the comprehension is a generator
        if isinstance(node, ast.SetComp):
            return lambda fr: _f_set(fr, make(fr))
        return make

    def _generator(self, elt: ast.expr, generators: list[ast.comprehension], scope: _Scope) -> Eval:
        if any(g.is_async for g in generators):
            raise ListGuessError("async comprehensions are not allowed")
        # As in Python, the first iterable is evaluated in the enclosing scope, everything else inside.
        first_iter = self.expr(generators[0].iter, scope)
        inner = _Scope(scope)
        for g in generators:
            for name in _target_names(g.target):
                inner.add(name)
                inner.pending.add(name)
        levels: list[_Level] = []
        for g in generators:
            if levels:  # this iterable is evaluated once per iteration of the loop before it
                levels[-1].next_iter = self.expr(g.iter, inner)
                levels[-1].cost += _size(g.iter)
            assign = self._target(g.target, inner)
            inner.pending.difference_update(_target_names(g.target))
            conds = [self.expr(c, inner) for c in g.ifs]
            levels.append(_Level(assign, conds, 1 + sum(_size(c) for c in g.ifs)))
        body = self.expr(elt, inner)
        levels[-1].cost += _size(elt)
        run = _build_levels(levels, body)
        n_slots = len(inner.slots)

        def make(fr: Frame) -> Iterator[Any]:
            iterator = iter(first_iter(fr))
            return run([fr[0], fr, *([None] * n_slots)], iterator)

        return make

    def _target(self, node: ast.expr, scope: _Scope) -> Callable[[Frame, Any], None]:
        if isinstance(node, ast.Name):
            slot = scope.slots[node.id]

            def assign(fr: Frame, v: Any) -> None:
                fr[slot] = v

            return assign
        if isinstance(node, ast.Tuple | ast.List):
            subs = [self._target(t, scope) for t in node.elts]
            n = len(subs)

            def unpack(fr: Frame, v: Any) -> None:
                for sub, item in zip(subs, _unpack(v, n, fr), strict=True):
                    sub(fr, item)

            return unpack
        raise ListGuessError(_BAD_TARGET)  # pragma: no cover

    # ---- calls -------------------------------------------------------------------------------------------

    def _Call(self, node: ast.Call, scope: _Scope) -> Eval:
        func = node.func
        if isinstance(func, ast.Attribute) and not _is_math(func.value):
            return self._method(node, func, scope)
        name, spec = self._function(func, scope)
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise ListGuessError("starred arguments (*args) are not allowed")
        n = len(node.args)
        if n < spec.min_args or (spec.max_args is not None and n > spec.max_args):
            if spec.max_args is None:
                expected = f"at least {spec.min_args}"
            elif spec.min_args == spec.max_args:
                expected = f"exactly {spec.min_args}"
            else:
                expected = f"{spec.min_args} to {spec.max_args}"
            raise ListGuessError(f"{name}() takes {expected} positional arguments here, not {n}")
        fn_args = node.args[:1] if spec.takes_function else []
        args = [self._function_value(a, scope, allow_none=name == "filter") for a in fn_args]
        args += [self.expr(a, scope) for a in node.args[len(fn_args) :]]
        kwargs: dict[str, Eval] = {}
        for kw in node.keywords:
            if kw.arg is None:
                raise ListGuessError("**keyword arguments are not allowed")
            if kw.arg not in spec.keywords:
                allowed = ", ".join(sorted(spec.keywords)) or "none"
                raise ListGuessError(
                    f"{name}() does not take the keyword '{kw.arg}' here (allowed: {allowed})"
                )
            if kw.arg == "key":
                kwargs[kw.arg] = self._function_value(kw.value, scope, allow_none=True)
            else:
                kwargs[kw.arg] = self.expr(kw.value, scope)
        impl = spec.impl
        if not kwargs:
            if n == 1:
                only = args[0]
                return lambda fr: impl(fr, only(fr))
            return lambda fr: impl(fr, *[a(fr) for a in args])
        items = list(kwargs.items())
        return lambda fr: impl(fr, *[a(fr) for a in args], **{k: v(fr) for k, v in items})

    def _function(self, func: ast.expr, scope: _Scope) -> tuple[str, _Function]:
        if isinstance(func, ast.Name):
            if scope.lookup(func.id) is not None:
                raise ListGuessError(f"'{func.id}' is a value and cannot be called")
            _no_dunder(func.id)
            spec = _FUNCTIONS.get(func.id)
            if spec is None:
                raise ListGuessError(
                    f"function '{func.id}' is not allowed; allowed: {', '.join(sorted(_FUNCTIONS))} "
                    "and math.<function>"
                )
            return func.id, spec
        if isinstance(func, ast.Attribute) and _is_math(func.value):
            _no_dunder(func.attr, ".")
            found = _MATH_FUNCTIONS.get(func.attr)
            if found is None:
                raise ListGuessError(
                    f"math.{func.attr} is not supported; allowed: {', '.join(sorted(_MATH_FUNCTIONS))}"
                )
            return f"math.{func.attr}", found
        if isinstance(func, ast.Lambda):
            raise ListGuessError("nested lambdas are not allowed; use a comprehension instead")
        raise ListGuessError("only the allowed functions can be called, by name")

    def _function_value(self, node: ast.expr, scope: _Scope, *, allow_none: bool) -> Eval:
        """A function passed as a value (map/filter's first argument, key=): only an allowed name."""
        if allow_none and isinstance(node, ast.Constant) and node.value is None:
            return _constant(None)
        if isinstance(node, ast.Lambda):
            raise ListGuessError("nested lambdas are not allowed; use a comprehension instead")
        if isinstance(node, ast.Attribute) and not _is_math(node.value) and node.attr in _METHODS:
            name, receiver = node.attr, self.expr(node.value, scope)  # e.g. max(xs, key=xs.count)
            return lambda fr: functools.partial(_bound_method, name, fr, receiver(fr))
        if not isinstance(node, ast.Name | ast.Attribute):
            raise ListGuessError(
                "a function argument must be the name of an allowed function, e.g. map(int, s)"
            )
        _, spec = self._function(node, scope)
        impl = spec.impl
        return lambda fr: functools.partial(impl, fr)

    def _method(self, node: ast.Call, func: ast.Attribute, scope: _Scope) -> Eval:
        name = func.attr
        _no_dunder(name, ".")
        receiver = self.expr(func.value, scope)  # first, so `os.system(...)` blames the unknown name 'os'
        if name not in _METHODS:
            raise ListGuessError(
                f"method '.{name}()' is not allowed; allowed methods: {', '.join(sorted(_METHODS))}"
            )
        if node.keywords:
            raise ListGuessError(f"keyword arguments are not allowed in .{name}()")
        if any(isinstance(a, ast.Starred) for a in node.args):
            raise ListGuessError("starred arguments (*args) are not allowed")
        args = [self.expr(a, scope) for a in node.args]
        return lambda fr: _call_method(name, fr, receiver(fr), [a(fr) for a in args])


_HANDLERS: dict[type[ast.expr], Callable[[_Compiler, Any, _Scope], Eval]] = {
    ast.Constant: _Compiler._Constant,
    ast.Name: _Compiler._Name,
    ast.Attribute: _Compiler._Attribute,
    ast.UnaryOp: _Compiler._UnaryOp,
    ast.BinOp: _Compiler._BinOp,
    ast.BoolOp: _Compiler._BoolOp,
    ast.Compare: _Compiler._Compare,
    ast.IfExp: _Compiler._IfExp,
    ast.Subscript: _Compiler._Subscript,
    ast.List: _Compiler._display,
    ast.Tuple: _Compiler._display,
    ast.Set: _Compiler._display,
    ast.ListComp: _Compiler._comprehension,
    ast.SetComp: _Compiler._comprehension,
    ast.GeneratorExp: _Compiler._comprehension,
    ast.Call: _Compiler._Call,
}


_BAD_TARGET = "a comprehension's target must be a name or a tuple of names"


def _target_names(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Name):
        _check_name(node.id, "loop variable")
        return [node.id]
    if isinstance(node, ast.Tuple | ast.List):
        return [name for t in node.elts for name in _target_names(t)]
    if isinstance(node, ast.Starred):
        raise ListGuessError("starred targets (*rest) are not allowed")
    raise ListGuessError(_BAD_TARGET)


@dataclass
class _Level:
    """One ``for`` clause of a comprehension: bind the target, test the ``if``s, then go one level deeper."""

    assign: Callable[[Frame, Any], None]
    conds: list[Eval]
    cost: int  # static steps charged per iteration: this clause's tests plus the next iterable or the element
    next_iter: Eval | None = None


def _build_levels(levels: list[_Level], body: Eval) -> Callable[[Frame, Iterator[Any]], Iterator[Any]]:
    """Nested loops of a comprehension, innermost last; each iteration is charged its static cost."""
    spec = levels[0]
    assign, conds, cost, next_iter = spec.assign, spec.conds, spec.cost, spec.next_iter
    inner = _build_levels(levels[1:], body) if len(levels) > 1 else None

    def level(fr: Frame, iterator: Iterator[Any]) -> Iterator[Any]:
        budget: _Budget = fr[0]
        for v in iterator:
            budget.left -= cost
            if budget.left < 0:
                _charge(fr, 0)
            assign(fr, v)
            if conds and not all(c(fr) for c in conds):
                continue
            if inner is None or next_iter is None:
                yield body(fr)
            else:
                yield from inner(fr, iter(next_iter(fr)))

    return level


# ------------------------------------------------------------------------------------------ parsing

_OPEN_FENCE = re.compile(r"```[ \t]*(?:(?:python3?|py)\b)?[ \t]*\n?", re.IGNORECASE)


def _strip_text(source: str) -> str:
    """The text without surrounding whitespace, Markdown code fence (closed or not) or backticks."""
    text = source.strip()
    fence = _OPEN_FENCE.match(text)
    if fence:
        text = text[fence.end() :].rstrip()
        return (text[:-3] if text.endswith("```") else text).strip()
    if len(text) >= 2 and text[0] == "`" and text[-1] == "`":
        return text.strip("`").strip()
    return text


def _check_tree(tree: ast.AST) -> None:
    # Iterative, so a pathological tree cannot exhaust the stack before the limits are checked.
    stack: list[tuple[ast.AST, int]] = [(tree, 1)]
    nodes = 0
    while stack:
        node, depth = stack.pop()
        if depth > MAX_AST_DEPTH:
            raise ListGuessError(f"the predicate is nested more than {MAX_AST_DEPTH} levels deep")
        if isinstance(node, ast.expr | ast.comprehension | ast.keyword | ast.arg):
            nodes += 1
            if nodes > MAX_AST_NODES:
                raise ListGuessError(
                    f"the predicate is too large: more than {MAX_AST_NODES} expression nodes"
                )
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _single_param(args: ast.arguments, what: str) -> str:
    if args.vararg or args.kwarg or args.kwonlyargs:
        raise ListGuessError(f"the {what} must take one plain parameter, the list (no *args, **kwargs)")
    if args.defaults or args.kw_defaults:
        raise ListGuessError(f"the {what}'s parameter may not have a default value")
    params = [*args.posonlyargs, *args.args]
    if len(params) != 1:
        raise ListGuessError(f"the {what} must take exactly one parameter, the list, not {len(params)}")
    name = params[0].arg
    _check_name(name, "parameter")
    return name


def _split(tree: ast.Module) -> tuple[str, ast.expr]:
    """The parameter name and the body expression of the one accepted statement."""
    if len(tree.body) != 1:
        raise ListGuessError(
            f"expected one expression `lambda xs: ...`, found {len(tree.body)} statements"
            if tree.body
            else "the predicate is empty"
        )
    stmt = tree.body[0]
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        value: ast.expr = stmt.value  # `rule = lambda xs: ...`: the name is ignored
        if not isinstance(value, ast.Lambda):
            raise ListGuessError("only `lambda xs: ...` may be assigned to a name")
    elif isinstance(stmt, ast.Expr):
        value = stmt.value
    elif isinstance(stmt, ast.FunctionDef):
        if stmt.decorator_list:
            raise ListGuessError("decorators are not allowed")
        param = _single_param(stmt.args, "function")
        body = list(stmt.body)
        if (  # a docstring is harmless text
            len(body) == 2
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            body = body[1:]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
            raise ListGuessError("a def is accepted only with a single `return <expression>` statement")
        return param, body[0].value
    else:
        raise ListGuessError(
            f"{type(stmt).__name__} statements are not allowed; write one expression `lambda xs: ...`"
        )
    if isinstance(value, ast.Lambda):
        return _single_param(value.args, "lambda"), value.body
    return "xs", value


def compile_list_predicate(source: str) -> ListPredicate:
    """Check a model-written predicate over a list and compile it, without executing anything.

    Accepted forms: ``lambda xs: <expr>`` (any parameter name), a bare expression using ``xs``,
    ``def f(xs): return <expr>``, and ``name = lambda xs: <expr>``; surrounding whitespace and a Markdown code
    fence (with an optional ``python`` tag) or backticks are stripped. Raises :class:`ListGuessError` (saying
    why) if the text is not in the language or exceeds a limit.
    """
    if not isinstance(source, str):
        raise ListGuessError(f"a predicate must be text, not {type(source).__name__}")
    if len(source) > MAX_SOURCE_CHARS:
        raise ListGuessError(
            f"the predicate is {len(source):,} characters long; the limit is {MAX_SOURCE_CHARS:,}"
        )
    text = _strip_text(source)
    if not text:
        raise ListGuessError("the predicate is empty")
    try:
        tree = parse(text, mode="exec")
    except SyntaxError as exc:
        where = f" (line {exc.lineno}, column {exc.offset})" if exc.lineno else ""
        raise ListGuessError(f"not valid Python: {' '.join(str(exc.msg).split())}{where}") from None
    except (RecursionError, MemoryError, ValueError, OverflowError) as exc:
        raise ListGuessError(f"the predicate could not be parsed: {type(exc).__name__}") from None
    _check_tree(tree)
    param, body = _split(tree)
    root = _Scope(None)
    root.add(param)
    run = _Compiler().expr(body, root)
    return ListPredicate(source=source, parameter=param, _run=run, _static_cost=_size(body))


@dataclass(frozen=True)
class ListPredicate:
    """A compiled list predicate; build one with :func:`compile_list_predicate`."""

    source: str  # the text it was compiled from, exactly as given
    parameter: str = "xs"  # the name the text gave the list (``xs`` for a bare expression)
    _run: Eval = field(default=_constant(False), repr=False, compare=False)
    _static_cost: int = field(default=0, repr=False, compare=False)

    def __call__(self, xs: Sequence[int]) -> bool:
        """The verdict on one list of integers, bound as a fresh ``list`` (so ``xs == sorted(xs)`` works).

        A result that is not a bool counts by its truthiness; a failure on this input (any Python error such
        as IndexError, or one of the limits) raises :class:`ListEvalError` with a one-line message.
        """
        verdict, error, _ = self.run(xs)
        if verdict is None:
            raise ListEvalError(error)
        return verdict

    def evaluate(self, xs: Sequence[int]) -> bool | None:
        """Like calling the predicate, but None instead of raising :class:`ListEvalError`."""
        return self.run(xs)[0]

    def run(self, xs: Sequence[int], *, max_steps: int = MAX_STEPS) -> tuple[bool | None, str | None, int]:
        """Evaluate on one list with a step budget (at most :data:`MAX_STEPS` is sensible), counting steps.

        Returns ``(verdict, None, steps)`` or, when the evaluation failed, ``(None, message, steps)``; steps
        count the whole static cost of the expression plus every charged operation (for a caller's budget).
        """
        items = list(xs)
        for v in items:
            if not isinstance(v, int):
                return None, f"the input must hold integers, found {type(v).__name__}", 0
            if not -_BIG < v < _BIG and v.bit_length() > MAX_INT_BITS:
                return None, f"an input integer has more than {MAX_INT_BITS} bits", 0
        budget = _Budget(max_steps - self._static_cost, max_steps)
        frame: Frame = [budget, None, items]
        try:
            if budget.left < 0:
                _charge(frame, 0)
            verdict = bool(self._run(frame))
        except ListEvalError as exc:
            return None, str(exc), max_steps - max(budget.left, 0)
        except Exception as exc:  # any failure of the text on this input is the text's, not the caller's
            message = " ".join(str(exc).split())[:200]
            error = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
            return None, error, max_steps - max(budget.left, 0)
        return verdict, None, max_steps - budget.left
