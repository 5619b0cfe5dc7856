"""The guess language: what it accepts, what it rejects (and says why), and what a Program reports."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from wason.sandbox import (
    MAX_DEPTH,
    MAX_NODES,
    MAX_SLOW_OPS,
    MAX_SOURCE_CHARS,
    GuessRejected,
    Inputs,
    compile_rule,
)

ACCEPTED = [
    "lambda x, y, z: x < y < z",
    "lambda a, b, c: a < b < c",
    "lambda x, y, z, /: x < y",
    "x < y < z",
    "  lambda x,y,z: x + y == z  \n",
    "lambda x, y, z: (int(x) & int(y)) == int(z)",
    "lambda x, y, z: all([m % 1 == 0 for m in [x, y, z]]) and all(math.gcd(int(a), int(b)) == 1 "
    "for a, b in [(x, y), (y, z), (z, x)])",
    "lambda x, y, z: all(math.log2(n).is_integer() for n in (x, y, z))",
    "isinstance(x, int) and isinstance(y, float) and isinstance(z, (int, float))",
    "float(x).is_integer() and (y + z).is_integer()",
    "x == int(x) and round(y, 2) == y and round(z) == z",
    "min([x, y]) < max((y, z)) and sum(v for v in (x, y, z) if v > 0) > 1",
    "any(v < 0 for v in [x, y, z]) or all((x, y))",
    "x if y > 0 else -z",
    "not x or ~int(y) < 0 and x ** 2 >= 0",
    "math.sqrt(abs(x)) + math.isqrt(int(abs(y))) + math.floor(z) + math.ceil(z) + math.trunc(z) > math.pi",
    "math.log(abs(x) + 1) + math.log(abs(x) + 1, 2) + math.log10(abs(y) + 1) + math.exp(-abs(z)) > math.e",
    "math.fabs(x) + math.sin(x) + math.cos(y) + math.tan(z) + math.pow(abs(x), 0.5) > math.tau",
    "x in (1, 2, 3) or y not in [z, 4]",
    "bool(x) + int() + float() + abs(True) == 1",
    "(1 << int(abs(x) % 8)) >> 1 == 4 or int(x) | 1 == int(y) ^ 2",
    "pow(x, 2) == y",
    "True",
    # pure Python the reference accepts, rewritten before compiling (wason.sandbox.desugar)
    "(lambda: 1)()",
    "lambda x, y, z=1: x",
    "lambda *a: len(a) == 3 and a[-1] > a[0]",
    "lambda x, *rest: sum(rest) > x",
    "len({x, y, z}) == 2 or len(set((x, y))) == 1",
    "sorted([x, y, z], reverse=True)[0] == max(x, y, z)",
    "sorted((x, y)) == [x, y] != [y, x]",
    "math.hypot(x, y, z) > 1",
]


@pytest.mark.parametrize("text", ACCEPTED)
def test_accepted(text: str) -> None:
    program = compile_rule(text)
    assert program.source == text
    truth, errors = program.evaluate_with_errors(np.array([[1.0, 2.0, 3.0], [-1.5, 0.0, 4.0]]))
    assert truth.shape == errors.shape == (2,)
    assert truth.dtype == errors.dtype == np.bool_


REJECTED = [
    ("self.rule", "name 'self' is not allowed"),
    ("lambda x, y, z: self.rule(x, y, z)", "name 'self' is not allowed"),
    ("__import__('os').system('x')", "function '__import__' is not allowed"),
    ("(lambda f: f(f))(lambda f: f(f))", "more than 32 times"),
    ("(lambda a: (lambda x: a + x))(x)", "hides a name"),
    ("().__class__", "attribute '.__class__'"),
    ("x.__class__", "attribute '.__class__'"),
    ("open('f')", "function 'open'"),
    ("globals()", "function 'globals'"),
    ("'a' * 10 ** 9", "strings are not allowed"),
    ("[x for x in range(10**9)]", "comprehension is only allowed"),
    ("all(v > 0 for v in range(10**9))", "range() is not allowed"),
    ("math.factorial(10**6)", "math.factorial is not supported"),
    ("x[0]", "subscripts"),
    ("(x := 1)", "assignment expressions"),
    ("f'{x}'", "f-strings"),
    ("{x, y}", "sets are not allowed"),
    ("{x: y}", "dicts are not allowed"),
    ("x if y", "not a valid Python expression"),
    ("", "empty"),
    ("lambda x, y: x < y", "exactly three parameters"),
    ("lambda x, y, z, w: x", "exactly three parameters"),
    ("lambda *a: a[3] > 0", "out of range"),
    ("lambda x, y, z: sorted({x, y, z}) == [x, y, z]", "a set drops equal values"),
    ("lambda x, y, z: [x, y] < [y, z]", "comparing tuples or lists"),
    ("lambda x, y, math: x", "reserved"),
    ("lambda x, x, y: x", "distinct"),
    ("min(x)", "literal tuple/list or a comprehension"),
    ("max([])", "empty sequence"),
    ("sum(x, y)", "sum() takes 1 argument"),
    ("x is y", "'is' compares object identity"),
    ("(x, y) < (y, z)", "comparing tuples"),
    ("x @ y", "@ operator"),
    ("round(x, y)", "integer literal"),
    ("round(x, 23)", "between -22 and 22"),
    ("isinstance(x, bool)", "only int and float"),
    ("type(x) == int", "function 'type'"),
    ("int(x, 2)", "int() takes 0 to 1 arguments"),
    ("abs(x=1)", "keyword arguments"),
    ("math", "math.<function>"),
    ("abs", "can only be called"),
    ("math.floor", "must be called"),
    ("x.is_integer", "must be called"),
    ("x.real", "attribute '.real'"),
    ("1j", "complex numbers"),
    ("None", "None"),
    ("x(1)", "'x' is a number and cannot be called"),
    ("all(v for v in (x, y) for w in (x,))", "only one 'for'"),
    ("all(a for a, b in (x, y))", "cannot unpack"),
    ("all(v for v in x)", "literal tuple or list"),
    ("x in y", "'in' needs a literal tuple"),
    ("pow(x, y, z)", "pow() takes 2 arguments"),
    ("z < -x in (1, 2) < 3", "cannot be compared further"),
]


@pytest.mark.parametrize(("text", "reason"), REJECTED)
def test_rejected_with_reason(text: str, reason: str) -> None:
    with pytest.raises(GuessRejected) as info:
        compile_rule(text)
    assert reason in info.value.reason
    assert "\n" not in info.value.reason
    assert str(info.value) == info.value.reason


def test_guess_rejected_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        compile_rule("self.rule")


def test_non_text_is_rejected() -> None:
    with pytest.raises(GuessRejected, match="must be text"):
        compile_rule(42)  # type: ignore[arg-type]


def test_source_length_limit_is_checked_before_parsing() -> None:
    at_limit = "x < y" + " " * (MAX_SOURCE_CHARS - 5)
    assert compile_rule(at_limit).node_count == 3
    with pytest.raises(GuessRejected, match="characters long"):
        compile_rule(at_limit + " ")
    # far too long and also unparsable: the length is what is reported
    with pytest.raises(GuessRejected, match="characters long"):
        compile_rule("(" * 100_000)


def test_node_limit_counts_unrolled_comprehensions() -> None:
    body = " and ".join(["v > 0"] * 24)  # 3 nodes per comparison, 23 ands -> 73 nodes per element
    ok = compile_rule(f"all(({body}) for v in (x, y, z))")
    assert ok.node_count == 3 * 73 + 3 + 1
    with pytest.raises(GuessRejected, match=f"more than {MAX_NODES}"):
        compile_rule(f"all(({body}) for v in (x, y, z, x, y))")  # 5 * 73 + 5 + 1 nodes


def test_node_limit_exact_boundary() -> None:
    # min(x, x, ...) is the call plus one node per argument
    at_limit = "min(" + ", ".join(["x"] * (MAX_NODES - 1)) + ")"
    assert compile_rule(at_limit).node_count == MAX_NODES
    with pytest.raises(GuessRejected, match="too large"):
        compile_rule(at_limit.replace("min(", "min(x, "))


def test_depth_limit() -> None:
    nested = "x"
    for _ in range(MAX_DEPTH - 1):
        nested = f"abs({nested})"
    assert compile_rule(nested).node_count == MAX_DEPTH
    with pytest.raises(GuessRejected, match="nested"):
        compile_rule(f"abs({nested})")


def test_deep_parentheses_are_rejected_not_crashing() -> None:
    for depth in (199, 200, 1000):
        with pytest.raises(GuessRejected):
            compile_rule("(" * depth + "x" + ")" * depth + " and " + "-" * 1000 + "x")


def test_slow_operation_limit() -> None:
    ok = " + ".join(f"x ** {k}.5" for k in range(MAX_SLOW_OPS))
    assert compile_rule(ok).node_count > MAX_SLOW_OPS
    with pytest.raises(GuessRejected, match="powers, logarithms"):
        compile_rule(ok + f" + x ** {MAX_SLOW_OPS}.5")
    # the same power written many times is one operation
    assert compile_rule(" + ".join(["x ** 0.5"] * (MAX_SLOW_OPS + 5))).node_count > MAX_SLOW_OPS


def test_constants_fold_unary_minus_in_order_of_appearance() -> None:
    program = compile_rule(
        "lambda x, y, z: (x <= 5 and x >= -5) or y > 2.5 or z == -(-3) or x < 5 or y < math.pi"
    )
    assert program.constants == (5.0, -5.0, 2.5, 3.0, 3.141592653589793)


def test_constants_skip_booleans_and_non_finite() -> None:
    assert compile_rule("x == True or y < math.inf or z > 1" + "0" * 400).constants == ()
    assert compile_rule("x < 0.0 or y < -0.0").constants == (0.0, -0.0)


def test_operator_count_counts_syntax_not_substrings() -> None:
    assert compile_rule("lambda x, y, z: x < y < z").operator_count() == 2
    # 'or' inside 'floor' is not an operator; the call, the comparison and the and are
    assert compile_rule("math.floor(x) == y and z > -1").operator_count() == 4
    assert compile_rule("x + y * z - -x if True else 0").operator_count() == 5
    assert compile_rule("x or y or z").operator_count() == 2
    assert compile_rule("all(v > -1 for v in (x, y))").operator_count() == 2
    assert compile_rule("x").operator_count() == 0


def test_program_is_immutable() -> None:
    program = compile_rule("x < y")
    with pytest.raises(dataclasses.FrozenInstanceError):
        program.source = "y < x"  # type: ignore[misc]
    assert "x < y" in repr(program)


def test_call_one_point() -> None:
    program = compile_rule("lambda x, y, z: x < y < z")
    assert program(1, 2, 3) is True
    assert program(3, 2, 1) is False


def test_evaluate_rejects_wrong_shape() -> None:
    with pytest.raises(ValueError, match="shape"):
        compile_rule("x < y").evaluate(np.zeros((4, 2)))


def test_interning_shares_subexpressions_between_programs() -> None:
    rule = compile_rule("lambda x, y, z: x ** 2 + y ** 2 == z ** 2")
    guess = compile_rule("lambda a, b, c: c ** 2 == a ** 2 + b ** 2")
    points = np.array([[3.0, 4.0, 5.0], [0.3, 0.4, 0.5], [1.0, 1.0, 2.0], [0.1, 0.2, 0.3]])
    (r, _), (g, _) = rule.evaluate_together([guess], Inputs.from_points(points))
    expected = [
        3**2 + 4**2 == 5**2,
        0.3**2 + 0.4**2 == 0.5**2,
        1**2 + 1**2 == 2**2,
        0.1**2 + 0.2**2 == 0.3**2,
    ]
    assert r.tolist() == g.tolist() == expected
