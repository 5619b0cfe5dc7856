"""Pure Python the reference accepts is rewritten with Python's meaning (wason.sandbox.desugar): each rewritten
guess is judged against a form in the core language, and near misses stay wrong."""

from __future__ import annotations

import pytest

from wason.tasks.wilt.judge import judge

SAME = [
    ("lambda x, y, z: len({x, y, z}) == 2", "lambda x, y, z: (x == y) + (y == z) + (x == z) == 1"),
    ("lambda x, y, z: sorted([x, y, z])[1] == y", "lambda x, y, z: x <= y <= z or z <= y <= x"),
    ("lambda x, y, z: sorted([x, y, z], reverse=True) == [z, y, x]", "lambda x, y, z: x <= y <= z"),
    ("lambda *a: a[0] + a[1] == a[2]", "lambda x, y, z: x + y == z"),
    ("lambda x, *r: x < min(r)", "lambda x, y, z: x < y and x < z"),
    ("lambda x, y, z, k=3: x * k > y", "lambda x, y, z: 3 * x > y"),
    (
        "lambda x, y, z: (lambda f, g: f(g(x), y))(lambda a, b: a < b, lambda v: v * 2)",
        "lambda x, y, z: 2 * x < y",
    ),
    ("lambda x, y, z: [x, y] == [y, x]", "lambda x, y, z: x == y"),
    ("lambda x, y, z: [x, y] == (x, y)", "lambda x, y, z: False"),  # a list never equals a tuple
    ("lambda x, y, z: x in {y, z}", "lambda x, y, z: x == y or x == z"),
]
DIFFERENT = [
    ("lambda x, y, z: len({x, y, z}) == 3", "lambda x, y, z: x != y and y != z"),
    ("lambda x, y, z: sorted([x, y, z]) == [x, y, z]", "lambda x, y, z: x < y < z"),
    ("lambda *a: a[-1] > a[0]", "lambda x, y, z: y > x"),
]


@pytest.mark.parametrize(("guess", "core"), SAME)
def test_rewritten_as_python_means_it(guess: str, core: str) -> None:
    verdict = judge(core, guess)
    assert verdict.accepted, verdict.rejection
    assert verdict.equivalent, verdict.counterexamples


@pytest.mark.parametrize(("guess", "core"), DIFFERENT)
def test_near_misses_stay_wrong(guess: str, core: str) -> None:
    verdict = judge(core, guess)
    assert verdict.accepted and not verdict.equivalent
