"""Hostile guesses: each is rejected with a reason, or evaluated on the whole probe set with bounded work.

There are no timing assertions here (bench/bench_judge.py times the worst cases); a test that hangs or runs out
of memory is the failure this file guards against.
"""

from __future__ import annotations

import numpy as np
import pytest

from wason.sandbox import MAX_NODES, MAX_SLOW_OPS, GuessRejected, compile_rule
from wason.tasks.wilt.judge import judge
from wason.tasks.wilt.probes import probe_set

# Attempts to reach Python itself: always rejected.
ESCAPES = [
    "self.rule",
    "lambda x, y, z: self.rule(x, y, z)",
    "__import__('os').system('x')",
    "(lambda f: f(f))(lambda f: f(f))",  # lambdas are inlined, a bounded number of times
    "().__class__",
    "().__class__.__bases__[0].__subclasses__()",
    "open('f')",
    "x.__class__",
    "globals()",
    "locals()['self']",
    "eval('1')",
    "exec('import os')",
    "[x for x in range(10**9)]",
    "math.factorial(10**6)",
    "math.__dict__",
    "getattr(x, 'real')",
    "type(x).__mro__",
    "'a' * 10**9",
    "b'x' * 10**9",
    "x.__add__(1)",
    "(y := x)",
    "breakpoint()",
    "math.gcd(*[x, y])",
    "lambda x, y, z: [].append(x)",
    "x\x00",
]

# Expensive-looking text: rejected, or evaluated with bounded work.
HEAVY = [
    "10**10**10 > x",
    "9**9**9**9 > x",
    "(2 << 100000) > x",
    "x ** 10 ** 10 > y",
    "10 ** -10 ** 10 < x",
    "(-1) ** 10 ** 100 == 1",
    "int(x) << 10 ** 18 > 0",
    "1" * 1999,
    "x < 1e999",
    "(" * 10_000 + "x" + ")" * 10_000,
    "x + " * 25_000 + "x",
    "-" * 1999 + "x",
    "not " * 400 + "x",
    "x" + " if x else x" * 100,
    "min(" + ", ".join(["x"] * (MAX_NODES - 1)) + ") > 0",
    " + ".join(f"(x + {k}.5) ** 1.5 + math.log(y + {k + 300})" for k in range(MAX_SLOW_OPS // 2)),
    " + ".join(f"(2 + x * 1e-13 + {k}e-12) ** 1023.99999999" for k in range(MAX_SLOW_OPS)),
    " + ".join(f"round(x * 1e15 + {k}, 1)" for k in range(MAX_SLOW_OPS)),
    " + ".join(f"math.exp(709.78271289 + x * 1e-14 + {k}e-13)" for k in range(MAX_SLOW_OPS)),
    " + ".join(f"(x + {k}) ** y" for k in range(MAX_SLOW_OPS)),
    " and ".join(f"(x if y > {k} else z) or {k} < x ** 2 < {k + 1}" for k in range(12)),
    "all(all(all(a + b + c > 0 for a in (x, y, z)) for b in (x, y, z)) for c in (x, y, z))",
    "all(all(all(all(a + b + c + d > 0 for a in (x, y, z)) for b in (x, y, z)) for c in (x, y, z)) for d in (x, y, z))",
    "sum(" + " + ".join(["x"] * 150) + " for v in (x,))",
    " | ".join(f"(int(x) << {k})" for k in range(0, 140, 2)) + " > 0",
    "math.gcd(" + ", ".join(["int(x)", "int(y)", "int(z)"] * 40) + ") > 1",
    "round(x, -22) + round(y, 22) + round(z * 1e300, 3) > 0",
    "1e308 * 10 > x and x // 1e-320 > 0 and x % 1e-320 >= 0",
    "math.isqrt(int(abs(x)) ** 40) > 0",
]


@pytest.mark.parametrize("text", ESCAPES, ids=range(len(ESCAPES)))
def test_escape_attempts_are_rejected(text: str) -> None:
    with pytest.raises(GuessRejected):
        compile_rule(text)


@pytest.mark.parametrize("text", ESCAPES, ids=range(len(ESCAPES)))
def test_escape_attempts_are_judged_wrong(text: str) -> None:
    verdict = judge("lambda x, y, z: x < y < z", text)
    assert not verdict.accepted
    assert not verdict.equivalent
    assert verdict.rejection


def test_self_rule_cannot_score() -> None:
    verdict = judge("lambda x, y, z: x < y < z", "self.rule")
    assert (verdict.accepted, verdict.equivalent, verdict.approximately_correct) == (False, False, False)
    assert verdict.rejection == "name 'self' is not allowed"


@pytest.mark.parametrize("text", HEAVY, ids=range(len(HEAVY)))
def test_heavy_guesses_are_bounded(text: str) -> None:
    try:
        program = compile_rule(text)
    except GuessRejected as exc:
        assert exc.reason
        return
    assert program.node_count <= MAX_NODES
    probes = probe_set(0, program.constants)
    truth, errors = program.evaluate_inputs(probes.inputs)
    assert truth.shape == errors.shape == (probes.n,)
    assert not (truth & errors).any()
    verdict = judge("lambda x, y, z: x < y < z", text)
    assert verdict.accepted and verdict.n_probes > 0


def test_heavy_corpus_exercises_both_outcomes() -> None:
    outcomes = set()
    for text in HEAVY:
        try:
            compile_rule(text)
            outcomes.add("evaluated")
        except GuessRejected:
            outcomes.add("rejected")
    assert outcomes == {"evaluated", "rejected"}


def test_slow_call_budget_turns_excess_points_into_errors() -> None:
    # every point of every term sits in the overflow band of pow, where CPython is asked point by point
    # (each power is finite, so any error comes from the budget)
    text = (
        " + ".join(f"(2 - abs(x) * 1e-13 - {k}e-12) ** 1023.99999999" for k in range(MAX_SLOW_OPS)) + " > 0"
    )
    probes = probe_set(0)
    _, errors = compile_rule(text).evaluate_inputs(probes.inputs)
    assert errors.any()
    # within the budget the same band is computed exactly, without errors
    one = compile_rule("(2 - abs(x) * 1e-13) ** 1023.99999999 > 0")
    assert not one.evaluate_with_errors(probes.points[:1000])[1].any()


def test_huge_exponents_are_exact_where_python_is() -> None:
    program = compile_rule("(-1) ** 10 ** 100 == 1 and 0 ** 10 ** 100 == 0 and (-2) ** 3 == -8")
    assert program(0, 0, 0)
    assert compile_rule("x ** 10 ** 10 > y")(2, 5, 0)
    assert np.all(compile_rule("10 ** -10 ** 10 < x").evaluate(np.array([[1e-300, 0, 0], [0.5, 0, 0]])))
