"""The judge decides in exact arithmetic on the decimals people type (issue 36)."""

import pytest

from wason.tasks.wilt.judge import JUDGE_VERSION, Verdict, judge

RULE = "lambda x, y, z: x + y == z"


@pytest.mark.parametrize(
    "guess", ["lambda x, y, z: z - x == y", "lambda x, y, z: z - y == x", "lambda x, y, z: -x == y - z"]
)
def test_float_artifacts_do_not_make_an_equivalent_guess_wrong(guess: str) -> None:
    v = judge(RULE, guess)
    assert v.equivalent, v.counterexamples
    assert v.judge_version == JUDGE_VERSION


@pytest.mark.parametrize(
    ("rule", "guess"),
    [
        ("lambda x, y, z: (x + y + z) % 2 == 0", "lambda x, y, z: (z + y + x) % 2 == 0"),
        ("lambda x, y, z: x * x + y * y == z * z", "lambda x, y, z: math.sqrt(x**2 + y**2) == abs(z)"),
        ("lambda x, y, z: (x / y > z) if y != 0 else False", "lambda x, y, z: y != 0 and x / y > z"),
        ("lambda x, y, z: True", "lambda x, y, z: 10**20 + 1 > 10**20"),
    ],
)
def test_rational_rules_are_exact(rule: str, guess: str) -> None:
    assert judge(rule, guess).equivalent


def test_a_real_difference_is_still_found() -> None:
    v = judge("lambda x, y, z: x < y < z", "lambda x, y, z: x < y < z and z < 500")
    assert not v.equivalent
    assert not judge(RULE, "lambda x, y, z: x - y == z").equivalent


def test_old_verdicts_without_a_version_read_as_float() -> None:
    data = judge(RULE, "lambda x, y, z: y + x == z").model_dump()
    del data["judge_version"]
    assert Verdict.model_validate(data).judge_version == "float-1"
