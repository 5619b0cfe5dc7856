"""The list guess language: what models write is accepted and means what Python means; hostile text is bounded.

Python's ``eval`` appears here only on this file's own trusted strings, to get the reference answers.
"""

from __future__ import annotations

import math
import random
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest
import sympy

from wason.tasks.lists.language import (
    LANGUAGE_SUMMARY,
    LANGUAGE_VERSION,
    MAX_FACTORIAL,
    MAX_INT_BITS,
    MAX_SOURCE_CHARS,
    MAX_STEPS,
    ListEvalError,
    ListGuessError,
    ListPredicate,
    compile_list_predicate,
    is_prime,
)


def _reference_is_prime(n: int) -> bool:
    return n >= 2 and all(n % d for d in range(2, math.isqrt(n) + 1))


REFERENCE_GLOBALS: dict[str, Any] = {"is_prime": _reference_is_prime, "math": math}


def _inputs(seed: int, count: int) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    out: list[tuple[int, ...]] = [(), (0,), (1,), (-1,), (2, 2), (1, 2, 3), (3, 2, 1), (10,), (5, 5)]
    while len(out) < count:
        n = rng.randint(0, 7)
        lo, hi = rng.choice(((-12, 12), (0, 30), (-200, 200), (0, 9)))
        out.append(tuple(rng.randint(lo, hi) for _ in range(n)))
    return out


INPUTS = _inputs(7, 250)


def _python(source: str) -> Callable[[list[int]], Any]:
    function: Callable[[list[int]], Any] = eval(source, dict(REFERENCE_GLOBALS))  # trusted test text only
    return function


def _outcome(function: Callable[[list[int]], Any], xs: tuple[int, ...]) -> bool | str:
    try:
        return bool(function(list(xs)))
    except Exception:
        return "error"


def _ours(predicate: ListPredicate, xs: tuple[int, ...]) -> bool | str:
    try:
        return predicate(xs)
    except ListEvalError:
        return "error"


# Predicates in the shapes models write them, for rules of the kind the list task uses.
MODEL_PREDICATES = [
    "lambda xs: all(a < b for a, b in zip(xs, xs[1:]))",
    "lambda xs: all(xs[i] < xs[i + 1] for i in range(len(xs) - 1))",
    "lambda xs: xs == sorted(xs) and len(set(xs)) == len(xs)",
    "lambda xs: len(set(xs)) == len(xs)",
    "lambda xs: all(xs.count(x) == 1 for x in xs)",
    "lambda xs: sum(1 for x in xs if x % 2 == 1) % 2 == 1",
    "lambda xs: len([x for x in xs if x % 2 != 0]) % 2 == 1",
    "lambda xs: is_prime(len(xs))",
    "lambda xs: len(xs) in (2, 3, 5, 7)",
    "lambda xs: sum(int(d) for x in xs for d in str(abs(x))) == 10",
    "lambda xs: sum(map(int, ''.join(str(abs(x)) for x in xs))) == 10",
    "lambda xs: sum(xs) == 10",
    "lambda xs: len(set(b - a for a, b in zip(xs, xs[1:]))) <= 1",
    "lambda xs: all(xs[i + 1] - xs[i] == xs[1] - xs[0] for i in range(len(xs) - 1))",
    "lambda xs: all(x % 3 == 0 or x % 5 == 0 for x in xs)",
    "lambda xs: all((x % 3 == 0) != (x % 5 == 0) for x in xs)",
    "lambda xs: all(is_prime(x) for x in xs)",
    "lambda xs: sum(1 for x in xs if is_prime(x)) == 1",
    "lambda xs: all(min(a, b) < c < max(a, b) for a, b, c in zip(xs, xs[1:], xs[2:]))",
    "lambda xs: all(b == (a // 2 if a % 2 == 0 else 5 * a + 1) for a, b in zip(xs, xs[1:]))",
    "lambda xs: len(xs) > 0 and xs[0] in xs[1:]",
    "lambda xs: len(xs) >= 2 and is_prime(xs[1])",
    "lambda xs: bool(xs) and xs[-1] % 2 == 0",
    "lambda xs: math.prod(xs) == 60",
    "lambda xs: all(math.isqrt(x + 1) ** 2 == x + 1 for x in xs if x >= -1) and min(xs, default=0) >= -1",
    "lambda xs: all(x % n == 0 for n, x in enumerate(xs, start=1))",
    "lambda xs: all(x % (i + 1) == 0 for i, x in enumerate(xs))",
    "lambda xs: any(2 * x == sum(xs) for x in xs)",
    "lambda xs: len(xs) in xs",
    "lambda xs: all(str(abs(b))[0] == str(abs(a))[-1] for a, b in zip(xs, xs[1:]))",
    "lambda xs: all(bin(abs(x)).count('1') % 2 == 0 for x in xs)",
    "lambda xs: all(c == a + b for a, b, c in zip(xs, xs[1:], xs[2:]))",
    "lambda xs: all(b - a in (1, -1) for a, b in zip(xs, xs[1:]))",
    "lambda xs: max(xs) - min(xs) < 10 if xs else True",
    "lambda xs: sorted(xs, reverse=True) == list(xs)",
    "lambda xs: xs == xs[::-1]",
    "lambda xs: [x for x in xs if x > 0] == xs",
    "lambda xs: {x % 3 for x in xs} <= {0, 1}",
    "lambda xs: len({x % 3 for x in xs}) <= 1",
    "lambda xs: all(math.gcd(a, b) == 1 for a, b in zip(xs, xs[1:]))",
    "lambda xs: all(x == y for i, (x, y) in enumerate(zip(xs, reversed(xs))) if i < len(xs) // 2)",
    "lambda xs: sum(x for x in xs if x > 0) > sum(-x for x in xs if x < 0)",
    "lambda xs: xs[0] < xs[-1]",
    "lambda xs: xs[len(xs) // 2] > 0",
    "lambda xs: 10 // xs[0] > 2",
    "lambda xs: all('7' not in str(x) for x in xs)",
    "lambda xs: all(str(x).startswith('1') or str(x).endswith('0') for x in xs)",
    "lambda xs: max(set(xs), key=xs.count) == xs[0]",
    "lambda xs: sorted(xs, key=abs) == xs",
    "lambda xs: list(filter(None, xs)) == xs",
    "lambda xs: all(divmod(x, 4)[1] == 1 for x in xs)",
    "lambda xs: sum(x ** 2 for x in xs) < 200",
    "lambda xs: any(a * b == c for a in xs for b in xs for c in xs)",
    "lambda xs: all(a != b for i, a in enumerate(xs) for b in xs[i + 1:])",
    "lambda xs: round(sum(xs) / len(xs)) == 3",
    "lambda xs: sum(xs) / max(len(xs), 1) > 2.5",
    "lambda xs: all(math.sqrt(x) == int(math.sqrt(x)) for x in xs)",
    "lambda xs: xs.index(max(xs)) == len(xs) - 1",
    "lambda xs: tuple(xs) in {(1, 2, 3), (2, 2)}",
    "lambda xs: [abs(x) for x in xs] == sorted(abs(x) for x in xs)",
    "lambda xs: all(x >> 1 << 1 == x for x in xs)",
    "lambda xs: all(x & 1 == 0 for x in xs)",
    "lambda xs: not any(x is None for x in xs)",
]


@pytest.mark.parametrize("source", MODEL_PREDICATES)
def test_model_predicates_agree_with_python(source: str) -> None:
    predicate = compile_list_predicate(source)
    reference = _python(source)
    for xs in INPUTS:
        assert _ours(predicate, xs) == _outcome(reference, xs), xs


# Expressions whose values are compared with Python's through an equality predicate.
EXPRESSIONS = [
    "[x // 3 for x in xs]",
    "[x % -4 for x in xs]",
    "[-x // 2 for x in xs]",
    "[x % 3 - 1 for x in xs]",
    "[divmod(x, -3) for x in xs]",
    "[x / 4 for x in xs]",
    "[2 ** x for x in xs if x >= 0]",
    "[x ** 2 - 10 for x in xs]",
    "[round(x / 3) for x in xs]",
    "[round(x / 8, 2) for x in xs]",
    "[round(x, -1) for x in xs]",
    "[int(x / 3) for x in xs]",
    "[math.floor(x / 3) for x in xs]",
    "[math.ceil(x / 3) for x in xs]",
    "[abs(x) for x in xs]",
    "[~x for x in xs]",
    "[x ^ 5 for x in xs]",
    "[x | 2 for x in xs]",
    "[bool(x) for x in xs]",
    "[x and 7 for x in xs]",
    "[x or -1 for x in xs]",
    "[0 < x < 5 for x in xs]",
    "[x < 3 > -x for x in xs]",
    "[1 < x == 2 for x in xs]",
    "[x in range(0, 10, 3) for x in xs]",
    "[x not in xs[1:] for x in xs]",
    "[str(x)[::-1] for x in xs]",
    "[str(x).count('1') for x in xs]",
    "[str(x).lstrip('-') for x in xs]",
    "[int(str(abs(x))[::-1]) for x in xs]",
    "[len(str(x)) for x in xs]",
    "[hex(x) for x in xs]",
    "[x if x > 0 else -x if x < 0 else None for x in xs]",
    "[(i, x) for i, x in enumerate(xs)]",
    "[(a, b) for a, b in zip(xs, xs[1:])]",
    "[(a, b) for a in xs[:3] for b in xs[:3] if a < b]",
    "[[y for y in xs if y > x] for x in xs[:3]]",
    "[x for x in xs if x > 0 if x % 2]",
    "[xs for xs in [xs, xs[:1]]]",
    "[x for x in [x for x in xs]]",
    "sorted(set(xs))",
    "sorted(xs, reverse=True)",
    "sorted(xs, key=abs)",
    "list(reversed(xs))",
    "xs[1:-1:2]",
    "xs[::-2]",
    "xs[-3:]",
    "xs * 2",
    "xs + [0]",
    "tuple(xs) + (1,)",
    "sum(xs)",
    "math.prod(xs)",
    "min(xs, default=None)",
    "max(xs + [0])",
    "max(1, 2, 3)",
    "list(map(abs, xs))",
    "list(map(pow, xs, [2] * len(xs)))",
    "list(filter(is_prime, xs))",
    "list(range(len(xs)))",
    "list(range(10, 0, -3))",
    "len(xs) and xs[0]",
    "len(xs) or 'empty'",
    "set(xs) - {1, 2}",
    "set(xs) & {0, 1, 2, 3}",
    "set(xs) | {0}",
    "set(xs) ^ {1}",
    "[math.gcd(x, 12) for x in xs]",
    "math.lcm(4, 6)",
    "[math.comb(abs(x) % 20, 3) for x in xs]",
    "[math.factorial(abs(x) % 15) for x in xs]",
    "math.isqrt(sum(x * x for x in xs))",
    "[math.log2(x) for x in xs if x > 0]",
    "[pow(x, 3, 7) for x in xs]",
    "[x * 1.5 for x in xs]",
    "[float(x) == x for x in xs]",
    "'-'.join(str(x) for x in xs)",
    "'ab'.replace('a', 'xyz')",
    "'12'.isdigit() and not '-1'.isdigit()",
    "[c for c in str(sum(xs))]",
    "xs[0] if xs else None",
    "xs.count(1)",
    "str(xs[0]).find('1') if xs else -2",
    "True + True",
    "3 - True",
]


@pytest.mark.parametrize("expression", EXPRESSIONS)
def test_expression_values_match_python(expression: str) -> None:
    reference = _python(f"lambda xs: {expression}")
    mine = compile_list_predicate(f"lambda xs: ({expression}, )")
    for xs in INPUTS[:80]:
        try:
            expected = reference(list(xs))
        except Exception:
            assert mine.evaluate(xs) is None, xs
            continue
        # The language has no way to print a value, so compare through an equality predicate.
        check = compile_list_predicate(f"lambda xs: ({expression}) == {expected!r}")
        assert check(xs) is True, (xs, expected)


def test_truthiness_of_non_bool_results() -> None:
    assert compile_list_predicate("lambda xs: xs")((1,)) is True
    assert compile_list_predicate("lambda xs: xs")(()) is False
    assert compile_list_predicate("lambda xs: len(xs) - 2")((1, 2)) is False
    assert compile_list_predicate("lambda xs: [x for x in xs if x > 5]")((1, 9)) is True
    assert compile_list_predicate("lambda xs: None")((1,)) is False
    assert compile_list_predicate("lambda xs: 'no'")(()) is True  # any non-empty string is truthy


def test_list_is_bound_as_a_list() -> None:
    assert compile_list_predicate("lambda xs: xs == sorted(xs)")((1, 2, 3)) is True
    assert compile_list_predicate("lambda xs: xs == [1, 2]")((1, 2)) is True
    assert compile_list_predicate("lambda xs: xs == (1, 2)")((1, 2)) is False  # as in Python: list != tuple
    assert compile_list_predicate("lambda xs: xs + [3] == [1, 2, 3]")([1, 2]) is True


def test_short_circuit_and_lazy_generators_as_in_python() -> None:
    guarded = compile_list_predicate("lambda xs: len(xs) > 0 and xs[0] == 1")
    assert guarded(()) is False
    assert guarded((1,)) is True
    lazy = compile_list_predicate("lambda xs: any(x == 1 or 1 // 0 for x in xs)")
    assert lazy((1, 0)) is True  # stops at the first True, as Python's any() of a generator
    with pytest.raises(ListEvalError, match="ZeroDivisionError"):
        lazy((0, 1))
    early = compile_list_predicate("lambda xs: all(xs[i] < xs[i + 1] for i in range(len(xs)))")
    assert early((2, 1)) is False  # the out-of-range index is never reached
    with pytest.raises(ListEvalError, match="IndexError"):
        early((1, 2))


def test_comprehension_scoping() -> None:
    # The loop variable does not leak; the first iterable is evaluated outside the comprehension.
    with pytest.raises(ListGuessError, match="name 'x' is not defined"):
        compile_list_predicate("lambda xs: [x for x in xs] and x")
    assert compile_list_predicate("lambda xs: [xs for xs in xs] == xs")((3, 4)) is True
    shadow = compile_list_predicate("lambda xs: [[x for x in range(x)] for x in xs] == [[0], [0, 1]]")
    assert shadow((1, 2)) is True
    with pytest.raises(ListGuessError, match="before the comprehension assigns it"):
        compile_list_predicate("lambda xs: [y for x in xs if y for y in xs]")


def test_generators_keep_their_own_loop_variables() -> None:
    # Two live instances of one generator expression interleave without sharing their loop variables.
    source = (
        "lambda xs: [list(zip(g, h, h)) for g, h in [[(a * 10 + b for a in xs for b in xs) for _ in 'ab']]]"
    )
    expected = _python(source)([1, 2])
    check = compile_list_predicate(source.replace("lambda xs: ", "lambda xs: (") + f") == {expected!r}")
    assert check((1, 2)) is True


@pytest.mark.parametrize(
    "source",
    [
        "lambda xs: sum(xs) == 10",
        "sum(xs) == 10",
        "  lambda xs: sum(xs) == 10  \n",
        "```python\nlambda xs: sum(xs) == 10\n```",
        "```\nlambda xs: sum(xs) == 10\n```",
        "`lambda xs: sum(xs) == 10`",
        "lambda lst: sum(lst) == 10",
        "rule = lambda xs: sum(xs) == 10",
        "def rule(xs):\n    return sum(xs) == 10",
        'def rule(xs: list[int]) -> bool:\n    """Sum is ten."""\n    return sum(xs) == 10',
        "```py\ndef f(nums):\n    return sum(nums) == 10\n```",
        "```python\nlambda xs: sum(xs) == 10",
        "```python lambda xs: sum(xs) == 10```",
        "def rule(xs, /):\n    return sum(xs) == 10",
    ],
)
def test_accepted_forms(source: str) -> None:
    predicate = compile_list_predicate(source)
    assert predicate.source == source
    assert predicate((3, 7)) is True
    assert predicate((3, 8)) is False


def test_evaluate_returns_none_on_errors() -> None:
    predicate = compile_list_predicate("lambda xs: xs[0] > 0")
    assert predicate.evaluate((1,)) is True
    assert predicate.evaluate(()) is None
    with pytest.raises(ListEvalError, match="IndexError"):
        predicate(())
    assert compile_list_predicate("lambda xs: 1 / len(xs) > 0").evaluate(()) is None


def test_inputs_must_be_integers() -> None:
    predicate = compile_list_predicate("lambda xs: True")
    with pytest.raises(ListEvalError, match="integers"):
        predicate((1, "2"))  # type: ignore[arg-type]
    with pytest.raises(ListEvalError, match="bits"):
        predicate((1 << (MAX_INT_BITS + 1),))


def test_is_prime_matches_sympy() -> None:
    for n in range(-20, 5000):
        assert is_prime(n) == _reference_is_prime(n), n
    rng = random.Random(3)
    special = [561, 1105, 41041, 3215031751, 2**61 - 1, 2**89 - 1, 2**127 - 1, (2**61 - 1) * (2**31 - 1)]
    for n in special + [rng.getrandbits(rng.randint(20, 200)) for _ in range(300)]:
        assert is_prime(n) == sympy.isprime(n), n
    assert compile_list_predicate("lambda xs: all(is_prime(x) for x in xs)")((2, 3, 2**61 - 1)) is True


def test_summary_and_version() -> None:
    lines = LANGUAGE_SUMMARY.splitlines()
    assert 3 <= len(lines) <= 6
    assert "lambda xs:" in LANGUAGE_SUMMARY
    assert "is_prime" in LANGUAGE_SUMMARY and "math." in LANGUAGE_SUMMARY
    assert LANGUAGE_VERSION == "wason-list-language-2"


# ------------------------------------------------------------------------------------------ rejections


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ("__import__('os')", "double underscores"),
        ("lambda xs: ().__class__", "double underscores"),
        ("lambda xs: ().__class__.__bases__[0].__subclasses__()", "double underscores"),
        ("lambda xs: xs.__len__()", "double underscores"),
        ("lambda xs: xs.append(1)", "method '.append()' is not allowed"),
        ("lambda xs: xs.real", "attribute '.real' is not allowed"),
        ("lambda xs: open('f')", "function 'open' is not allowed"),
        ("lambda xs: eval('1')", "function 'eval' is not allowed"),
        ("lambda xs: exec('import os')", "function 'exec' is not allowed"),
        ("lambda xs: getattr(xs, 'x')", "function 'getattr' is not allowed"),
        ("lambda xs: globals()", "function 'globals' is not allowed"),
        ("lambda xs: type(xs)", "function 'type' is not allowed"),
        ("lambda xs: math.system('x')", "math.system is not supported"),
        ("lambda xs: math.__dict__", "double underscores"),
        ("lambda xs: math", "'math' can only be used"),
        ("lambda xs: len", "is a function"),
        ("lambda xs: self.rule(xs)", "name 'self' is not defined"),
        ("lambda xs: os.system('x')", "name 'os' is not defined"),
        ("import os", "Import statements are not allowed"),
        ("from os import system", "ImportFrom statements are not allowed"),
        ("lambda xs: (lambda y: y)(xs)", "nested lambdas"),
        ("lambda xs: all(map(lambda x: x > 0, xs))", "nested lambdas"),
        ("lambda xs: sorted(xs, key=lambda x: -x)", "nested lambdas"),
        ("lambda xs: (y := xs)", ":="),
        ("lambda xs: f'{xs}'", "f-strings"),
        ("lambda xs: {1: 2}", "dicts are not allowed"),
        ("lambda xs: {x: 1 for x in xs}", "dict comprehensions"),
        ("lambda xs: max(*xs)", "starred"),
        ("lambda xs: b'x'", "bytes"),
        ("lambda xs: 1j", "complex"),
        ("lambda xs: xs is xs", "only allowed with None"),
        ("lambda xs: xs @ xs", "@ operator"),
        ("lambda xs: 'x' * 101 if False else '" + "x" * 101 + "'", "string literals"),
        ("lambda xs, ys: True", "exactly one parameter"),
        ("lambda: True", "exactly one parameter"),
        ("lambda *xs: True", "one plain parameter"),
        ("lambda xs=(): True", "default value"),
        ("lambda len: True", "reserved"),
        ("lambda xs: [1 for sum in xs]", "reserved"),
        ("lambda xs: [1 for *a, b in xs]", "starred"),
        ("lambda xs: sorted(xs, cmp=1)", "keyword 'cmp'"),
        ("lambda xs: len(xs, xs)", "len() takes exactly 1"),
        ("lambda xs: xs(1)", "cannot be called"),
        ("def f(xs):\n    y = 1\n    return y", "single `return"),
        ("@decorator\ndef f(xs):\n    return True", "decorators"),
        ("x = 1", "only `lambda xs: ...` may be assigned"),
        ("lambda xs: True\nlambda xs: False", "found 2 statements"),
        ("lambda xs: (", "not valid Python"),
        ("", "empty"),
        ("```python\n```", "empty"),
        ("xs\x00", "null bytes"),
        ("x" * (MAX_SOURCE_CHARS + 1), "characters long"),
        ("-" * 1990 + "xs", "nested more than"),
        ("not " * 400 + "xs", "nested more than"),
        ("xs" + " if xs else xs" * 100, "nested more than"),
        ("lambda xs: [" + ",".join(["1"] * 600) + "]", "too large"),
    ],
)
def test_rejected_with_a_reason(source: str, reason: str) -> None:
    with pytest.raises(ListGuessError, match=None) as info:
        compile_list_predicate(source)
    message = str(info.value)
    assert reason in message
    assert "\n" not in message


def test_non_text_is_rejected() -> None:
    with pytest.raises(ListGuessError, match="must be text"):
        compile_list_predicate(None)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------ bounded work

# Each of these compiles, then fails on the input with an evaluation error without computing the huge thing.
RUNAWAY = [
    ("lambda xs: 9 ** 9 ** 9 > 0", "integer too large"),
    ("lambda xs: 10 ** 10 ** 10 > 0", "integer too large"),
    ("lambda xs: 2 << 10 ** 9 > 0", "integer too large"),
    ("lambda xs: pow(7, 10 ** 100) > 0", "integer too large"),
    ("lambda xs: 3 ** 10000 > 0", "integer too large"),
    ("lambda xs: math.factorial(10 ** 6) > 0", "math.factorial"),
    ("lambda xs: math.comb(10 ** 6, 500000) > 0", "integer too large"),
    ("lambda xs: math.perm(10 ** 6) > 0", "integer too large"),
    ("lambda xs: math.prod(range(1, 5000)) > 0", "integer too large"),
    ("lambda xs: math.lcm(2 ** 9000, 3 ** 6000) > 0", "too large"),
    ("lambda xs: len(list(range(10 ** 12))) > 0", "sequence too long"),
    ("lambda xs: sum(range(10 ** 12)) > 0", "sequence too long"),
    ("lambda xs: max(range(10 ** 12)) > 0", "sequence too long"),
    ("lambda xs: sorted(range(10 ** 12)) == []", "sequence too long"),
    ("lambda xs: len('a' * 10 ** 9) > 0", "too long"),
    ("lambda xs: len([0] * 10 ** 9) > 0", "too long"),
    ("lambda xs: len('ab' * 50000 * 50000) > 0", "too long"),
    ("lambda xs: len(str(xs) * 2) > 0", "str() is supported"),
    ("lambda xs: '%0999999d' % 1 == ''", "string formatting"),
    ("lambda xs: ''.join(str(x) for x in range(10 ** 7)) == ''", "step budget"),
    ("lambda xs: [1 for a in range(10 ** 6) for b in range(10 ** 6)] == []", "step budget"),
    ("lambda xs: any(a == b for a in range(10 ** 9) for b in range(10 ** 9) if a > b)", "step budget"),
    ("lambda xs: 3 in zip(range(10 ** 12))", "step budget"),
    ("lambda xs: [[1] * 1000 for _ in range(1000)] == []", "step budget"),
    ("lambda xs: sum(range(10 ** 5)) + sum(range(10 ** 5)) > 0", "step budget"),
    ("lambda xs: pow(3, 10 ** 3000, 10 ** 3000 + 1) > 0", "step budget"),
    ("lambda xs: is_prime(2 ** 5000 + 1)", "is_prime"),
    ("lambda xs: int('9' * 20000) > 0", "too long"),
    ("lambda xs: round(1, -10 ** 9) == 0", "ndigits"),
    ("lambda xs: 'ab'.replace('', 'x' * 100) * 1000 == ''", "too long"),
    ("lambda xs: 10.0 ** 10 ** 10 > 0", "OverflowError"),
    ("lambda xs: len(range(10 ** 30)) > 0", "OverflowError"),
]


@pytest.mark.parametrize(("source", "reason"), RUNAWAY)
def test_runaway_work_fails_fast_with_bounded_memory(source: str, reason: str) -> None:
    predicate = compile_list_predicate(source)
    tracemalloc.start()
    try:
        verdict, error, steps = predicate.run((1, 2, 3))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert verdict is None
    assert error is not None and reason in error
    assert steps <= MAX_STEPS
    assert peak < 40_000_000  # bytes


def test_big_but_allowed_values_work() -> None:
    assert compile_list_predicate("lambda xs: len(str(2 ** 9999)) == 3010")(()) is True
    assert compile_list_predicate(f"lambda xs: math.factorial({MAX_FACTORIAL}) > 0")(()) is True
    assert compile_list_predicate("lambda xs: 1.5 not in range(10 ** 15)")(()) is True
    assert compile_list_predicate("lambda xs: 10 ** 14 in range(10 ** 15)")(()) is True
    assert compile_list_predicate("lambda xs: math.comb(10 ** 6, 2) == 499999500000")(()) is True
    assert compile_list_predicate("lambda xs: (-1) ** 10 ** 100 == 1")(()) is True
    assert compile_list_predicate("lambda xs: 0 << 10 ** 100 == 0")(()) is True


def test_step_budget_is_per_call_and_reported() -> None:
    predicate = compile_list_predicate("lambda xs: sum(1 for _ in range(1000)) == 1000")
    verdict, error, steps = predicate.run(())
    assert verdict is True and error is None
    assert 1000 < steps < 20_000
    small = predicate.run((), max_steps=500)
    assert small[0] is None and small[1] is not None and "step budget" in small[1]
    assert predicate(()) is True  # a fresh budget for every call
