"""The SMT encoding of the guess language means what the exact evaluator means, point by point.

Random expressions over every operator the encoding covers are encoded once and asked their truth value at
points of the typeable grid (integers, decimals, ties, zeros, halves for rounding); each answer must be the
exact evaluator's. What the encoding leaves out is refused with a reason, never encoded wrongly.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
import z3
from tests.reference import reference

from wason.sandbox import GuessRejected, compile_rule
from wason.sandbox.exact import Inexact, evaluate_exact, exact_point
from wason.sandbox.smt import Unsupported, Variable, encode

VARS = ("x", "y", "z")
CONSTS = ("0", "1", "2", "3", "-1", "0.5", "2.5", "10", "0.1", "-3", "999", "0.25", "7", "True")


def _number(rng: random.Random, d: int) -> str:
    if d <= 0 or rng.random() < 0.25:
        return rng.choice(VARS) if rng.random() < 0.7 else rng.choice(CONSTS)

    def a() -> str:
        return _number(rng, d - 1)

    forms = [
        lambda: f"({a()} + {a()})",
        lambda: f"({a()} - {a()})",
        lambda: f"({a()} * {a()})",
        lambda: f"({a()} / {a()})",
        lambda: f"({a()} // {a()})",
        lambda: f"({a()} % {a()})",
        lambda: f"({a()} ** {rng.choice(['2', '3', '0', '-1', '2.0'])})",
        lambda: f"abs({a()})",
        lambda: f"{rng.choice(['min', 'max'])}({a()}, {a()}{', ' + a() if rng.random() < 0.5 else ''})",
        lambda: f"round({a()})",
        lambda: f"round({a()}, {rng.choice(['0', '1', '2', '-1'])})",
        lambda: (
            f"{rng.choice(['int', 'float', 'math.floor', 'math.ceil', 'math.trunc', 'math.fabs'])}({a()})"
        ),
        lambda: f"math.isqrt({a()})",
        lambda: f"(int({a()}) {rng.choice(['&', '|', '^'])} int({a()}))",
        lambda: f"(int({a()}) {rng.choice(['<<', '>>'])} {rng.choice(['0', '1', '3'])})",
        lambda: f"(~int({a()}))",
        lambda: f"({a()} if {_boolean(rng, d - 1)} else {a()})",
        lambda: f"sum({rng.choice(['(', '['])}{a()}, {a()}{rng.choice([')', ']'])})",
        lambda: f"sum(v for v in ({a()}, {a()}, {a()}) if {rng.choice(['v > 0', 'v % 2 == 0', 'v != 1'])})",
        lambda: f"({a()} {rng.choice(['and', 'or'])} {a()})",
        lambda: f"{rng.choice(['min', 'max'])}(v * 2 for v in ({a()}, {a()}) if v > {rng.choice(CONSTS)})",
        lambda: f"(-{a()})",
    ]
    return rng.choice(forms)()


def _boolean(rng: random.Random, d: int) -> str:
    def a() -> str:
        return _number(rng, d - 1)

    cmp = ("<", "<=", ">", ">=", "==", "!=")
    if d <= 0:
        return f"{a()} {rng.choice(cmp)} {a()}"
    forms = [
        lambda: f"{a()} {rng.choice(cmp)} {a()}",
        lambda: f"{a()} {rng.choice(['<', '<='])} {a()} {rng.choice(['<', '<=', '=='])} {a()}",
        lambda: f"({_boolean(rng, d - 1)} {rng.choice(['and', 'or'])} {_boolean(rng, d - 1)})",
        lambda: f"not ({_boolean(rng, d - 1)})",
        lambda: f"{a()} {rng.choice(['in', 'not in'])} ({a()}, {a()}, {a()})",
        lambda: f"{rng.choice(['all', 'any'])}(v {rng.choice(['>', '<', '=='])} {a()} for v in (x, y, z))",
        lambda: f"{rng.choice(['all', 'any'])}([{a()} > 0, {_boolean(rng, d - 1)}])",
        lambda: f"isinstance({a()}, {rng.choice(['int', 'float', '(int, float)'])})",
        lambda: f"({a()}).is_integer()",
        lambda: f"bool({a()})",
        lambda: f"{a()} % {rng.choice(['2', '3', '1', '0.5'])} == {rng.choice(['0', '1'])}",
    ]
    return rng.choice(forms)()


def _typeable(rng: random.Random) -> float:
    places = rng.randrange(4)
    digits = rng.randint(-12, 12) if rng.random() < 0.3 else rng.randint(-999, 999)
    return float(Fraction(digits, 10**places))


SPECIAL = [
    (0.0, 0.0, 0.0),
    (1.0, 2.0, 3.0),
    (0.5, 0.5, 1.0),
    (3.0, 4.0, 5.0),
    (-1.0, -1.0, -2.0),
    (0.1, 0.2, 0.3),
    (2.0, 2.0, 2.0),
    (1.5, 2.5, -3.5),
    (-0.5, 0.5, 0.0),
    (-2.0, 0.0, 7.0),
    (999.0, -999.0, 0.001),
]


def _truth_at(text: str, point: tuple[float, float, float]) -> bool:
    """The encoding's truth value at a point (its helper variables solved for)."""
    ctx = z3.Context()
    variables = []
    for v in point:
        k = Fraction(repr(v)) * 1000
        assert k.denominator == 1
        variables.append(Variable(z3.IntVal(int(k), ctx), 1000, float(v).is_integer(), 999.0))
    (enc,) = encode([compile_rule(text).root], variables, ctx)
    solver = z3.Solver(ctx=ctx)
    solver.add(*enc.side)
    assert solver.check() == z3.sat  # the helper variables are defined at every point
    return bool(z3.is_true(solver.model().eval(enc.truth, model_completion=True)))


def _exact(text: str, point: tuple[float, float, float]) -> bool | None:
    try:
        return evaluate_exact(compile_rule(text).root, exact_point(*point))
    except Inexact:
        return None


def _programs(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        text = "lambda x, y, z: " + _boolean(rng, 3)
        try:
            compile_rule(text)
        except GuessRejected:
            continue
        out.append(text)
    return out


def _check(seed: int, n: int, random_points: int) -> int:
    rng = random.Random(seed + 1000)
    checked = 0
    for text in _programs(seed, n):
        points = SPECIAL + [(_typeable(rng), _typeable(rng), _typeable(rng)) for _ in range(random_points)]
        for point in points:
            exact = _exact(text, point)
            if exact is None:
                continue
            try:
                assert _truth_at(text, point) == exact, (text, point)
            except Unsupported:
                break  # not encoded: refused, which the tests below check
            checked += 1
    return checked


def test_random_expressions_mean_what_the_exact_evaluator_says() -> None:
    assert _check(seed=1, n=40, random_points=3) > 400


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3, 4, 5])
def test_many_random_expressions_mean_what_the_exact_evaluator_says(seed: int) -> None:
    assert _check(seed=seed, n=400, random_points=8) > 5000


@pytest.mark.parametrize(
    ("text", "point", "expected"),
    [
        ("round(x) == 2", (2.5, 0.0, 0.0), True),  # half to even
        ("round(x) == 4", (3.5, 0.0, 0.0), True),
        ("round(x, 1) == 0.2", (0.25, 0.0, 0.0), True),
        ("x // y == -1", (1.0, -3.0, 0.0), True),  # floor, not truncation
        ("x % y == -2", (1.0, -3.0, 0.0), True),  # the divisor's sign
        ("int(x) == -2", (-2.5, 0.0, 0.0), True),  # truncation
        ("isinstance(x, int) and not isinstance(y, int)", (3.0, 0.5, 0.0), True),
        ("x / y > 0 or x > 0", (1.0, 0.0, 0.0), False),  # ZeroDivisionError: the whole guess is False
        ("x > 0 or x / y > 0", (1.0, 0.0, 0.0), True),  # never evaluated
        ("(int(x) & int(y)) == 0", (-1.0, 4.0, 0.0), False),  # two's complement: -1 & 4 is 4
        ("(int(x) ^ int(y)) == -5", (-1.0, 4.0, 0.0), True),
        ("x & y == 0", (0.5, 1.0, 0.0), False),  # & on a float raises
        ("math.isqrt(x) == 3", (15.0, 0.0, 0.0), True),
        ("math.isqrt(x) == 3", (-1.0, 0.0, 0.0), False),
        ("min(v for v in (x, y) if v > 5) > 0", (1.0, 2.0, 0.0), False),  # empty min raises
        ("x in (y, z / 0)", (1.0, 1.0, 0.0), True),  # found before the error
        ("(int(x) & 100000) + (int(x) & int(y)) == 99999", (-1.0, -1.0, 0.0), True),  # one value, two widths
        ("(int(x) & int(y)) + (int(x) & 100000) == 100000", (-1.0, 0.0, 0.0), True),
        ("(x or 5) == 5", (0.0, 0.0, 0.0), True),  # or returns an operand
        ("x + y == z", (0.1, 0.2, 0.3), True),  # arithmetic, not binary floats
    ],
)
def test_python_semantics_case_by_case(text: str, point: tuple[float, float, float], expected: bool) -> None:
    assert _exact(f"lambda x, y, z: {text}", point) is expected
    assert _truth_at(f"lambda x, y, z: {text}", point) is expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("math.sqrt(x) == y", "math.sqrt"),
        ("math.log(x) > 0", "math.log"),
        ("math.gcd(int(x), int(y)) == 1", "math.gcd"),
        ("2 ** x > y", "exponent"),
        ("x ** 0.5 > y", "exponent"),
        ("x ** 13 > y", "beyond 12"),
        ("x < math.inf", "non-finite"),
        ("x > 10**10**10", "limits"),
        ("(int(x / y) & 1) == 0", "no bound"),
    ],
)
def test_what_is_not_encoded_is_refused_with_its_reason(text: str, reason: str) -> None:
    ctx = z3.Context()
    variables = [Variable(z3.Int(n, ctx), 1000, False, 999.0) for n in VARS]
    with pytest.raises(Unsupported) as caught:
        encode([compile_rule(f"lambda x, y, z: {text}").root], variables, ctx)
    assert reason in caught.value.reason


def test_the_published_rules_are_encoded_but_two() -> None:
    rules = json.loads(reference("wilt", "rules.json").read_text())["splits"]["full"]
    refused = []
    for rule in rules:
        ctx = z3.Context()
        variables = [Variable(z3.Int(n, ctx), 1000, False, 999.0) for n in VARS]
        try:
            encode([compile_rule(rule["rule"]).root], variables, ctx)
        except Unsupported:
            refused.append(int(rule["id"]))
    assert refused == [46, 47]  # gcd, and a square root through ** 0.5
