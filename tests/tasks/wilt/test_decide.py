"""A WILT verdict is decided over the tests a player can type (issue 48): proved or refuted by z3, held to the
episode's own results, and sampled only where z3 cannot decide, saying so."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from wason.sandbox import Program, compile_rule
from wason.sandbox.exact import evaluate_exact, exact_point
from wason.tasks.wilt import FinalGuess, ProposeTest, WiltConfig, WiltGame, get_rule
from wason.tasks.wilt.decide import TYPEABLE, Domain, decide, enumerate_domain, typeable
from wason.tasks.wilt.judge import format_verdict, judge
from wason.tasks.wilt.rules import load_tests_file
from wason.tasks.wilt.values import InvalidValue, parse_value

SUM = "lambda x, y, z: x + y == z"


def _exactly(program: Program, point: tuple[float, float, float]) -> bool:
    return evaluate_exact(program.root, exact_point(*point))


def _accepted(point: tuple[float, float, float]) -> bool:
    """Whether the game takes this point as a test (each value as it would be typed)."""
    try:
        return all(parse_value(repr(v)) == v for v in point)
    except InvalidValue:
        return False


def _really_differ(rule: str, guess: str, point: tuple[float, float, float]) -> bool:
    r, g = compile_rule(rule), compile_rule(guess)
    return r(*point) != g(*point) and _exactly(r, point) != _exactly(g, point)


def test_a_guess_the_episodes_own_test_contradicts_is_wrong() -> None:
    game = WiltGame(get_rule("full", 15).program(), WiltConfig())
    obs = game.step(ProposeTest(("475", "475", "950")))
    assert obs.result is True
    end = game.step(FinalGuess("lambda x, y, z: x + y == z and abs(z) < 950"))
    assert end.correct is False
    v = game.verdict
    assert v is not None and v.method == "refuted"
    assert v.counterexamples[0] == ((475.0, 475.0, 950.0), True, False)
    assert "the episode's test (475, 475, 950)" in (v.evidence or "")


@pytest.mark.parametrize(
    ("rule", "guess"),
    [
        (SUM, "lambda x, y, z: x + y == z and abs(z) < 999"),
        (SUM, "lambda x, y, z: x + y == z and abs(z) < 990"),
        ("lambda x, y, z: x * y == z", "lambda x, y, z: x * y == z and abs(z) < 999"),
        (SUM, "lambda x, y, z: x + y == z and x * y != 0.25"),
        ("lambda x, y, z: x + z == y", "lambda x, y, z: x + z == y and abs(y) < 999"),
        ("lambda x, y, z: (x + y + z) == 0", "lambda x, y, z: x + y + z == 0 and abs(x) < 999"),
    ],
)
def test_range_caps_and_carve_outs_are_refuted_with_a_test_one_can_type(rule: str, guess: str) -> None:
    v = judge(rule, guess)
    assert not v.equivalent and v.method == "refuted"
    assert v.counterexamples
    for point, rule_value, guess_value in v.counterexamples:
        assert _accepted(point), point
        assert rule_value != guess_value and _really_differ(rule, guess, point)


@pytest.mark.parametrize(
    ("rule", "guess"),
    [
        ("lambda x, y, z: x < y < z", "lambda x, y, z: x < y < z and z < 1000"),
        ("lambda x, y, z: x < y < z", "lambda x, y, z: x < y < z and z <= 999"),
        ("lambda x, y, z: x < y < z", "lambda x, y, z: x < y < z and 0 < x + 1000"),
        ("lambda x, y, z: x == y and y == z", "lambda x, y, z: x == y == z and abs(x) < 1000"),
        ("lambda x, y, z: x > 0 and y > 0 and z > 0", "lambda x, y, z: min(x, y, z) >= 0.001"),
        (SUM, "lambda x, y, z: z - x == y"),
    ],
)
def test_what_agrees_on_every_test_the_game_accepts_is_proved(rule: str, guess: str) -> None:
    v = judge(rule, guess)
    assert v.equivalent and v.method == "proved", v.evidence
    assert v.counterexamples == []
    assert "CORRECT - proved" in format_verdict(v)


def test_a_guess_the_same_as_the_rule_is_proved_without_the_solver() -> None:
    v = judge(get_rule("full", 47).program(), get_rule("full", 47).text)
    assert v.method == "proved" and v.solver_resources == 0


def test_an_exactly_equal_guess_that_contradicts_a_shown_float_result_is_wrong() -> None:
    # the game answers as Python computes: 0.1 + 0.2 == 0.3 is False; the guess would have said True there
    guess = "lambda x, y, z: x + y == z or (x, y, z) == (0.1, 0.2, 0.3)"
    assert judge(SUM, guess).method == "proved"
    shown = [((0.1, 0.2, 0.3), False)]
    v = judge(SUM, guess, tests=shown)
    assert not v.equivalent and v.method == "refuted"
    assert v.counterexamples[0] == ((0.1, 0.2, 0.3), False, True)


def test_a_difference_only_exact_arithmetic_sees_is_no_counterexample() -> None:
    # at (0.1, 0.2, 0.3) the guess differs from the rule's arithmetic, but the game's answers agree there
    guess = "lambda x, y, z: x + y == z and (x, y, z) != (0.1, 0.2, 0.3)"
    v = judge(SUM, guess)
    assert v.equivalent and v.method == "proved"
    assert "apart from (0.1, 0.2, 0.3)" in (v.evidence or "") and "the game's answers agree" in (
        v.evidence or ""
    )


def test_what_z3_cannot_decide_is_sampled_and_says_so() -> None:
    v = judge("lambda x, y, z: x**2 + y**2 == z**2", "lambda x, y, z: math.sqrt(x**2 + y**2) == abs(z)")
    assert v.equivalent and v.method == "sampled"
    assert "not encoded: math.sqrt" in (v.evidence or "")
    assert "sampled, not proved" in format_verdict(v)
    # past the resource limit, the same
    capped = judge(SUM, "lambda x, y, z: z - x == y", rlimit=1)
    assert capped.method == "sampled" and "undecided" in (capped.evidence or "")
    assert judge(SUM, "lambda x, y, z: z - x == y", solve=False).method == "sampled"


def test_a_sampled_verdict_is_still_held_to_the_probes_and_the_tests() -> None:
    wrong = "lambda x, y, z: math.sqrt(x**2 + y**2) == abs(z) and z < 5"
    v = judge("lambda x, y, z: x**2 + y**2 == z**2", wrong, solve=False)
    assert v.method == "refuted" and v.counterexamples


@pytest.mark.parametrize(
    "rule",
    [
        "lambda x, y, z: math.gcd(int(y), int(z)) == 1",
        "lambda x, y, z: all(int(abs(n)**0.5)**2 == n for n in (x, y, z))",
    ],
)
def test_a_sampled_verdict_meets_a_carve_out_at_the_guess_constants(rule: str) -> None:
    # z3 cannot encode either rule, so only the probes can refute a guess that flips one point or one box
    body = rule.split(":", 1)[1].strip()
    for carve, point in [
        ("x == 97 and y == -41 and z == 13", (97.0, -41.0, 13.0)),
        ("x >= 97 and y <= -41 and z == 13", (97.0, -41.0, 13.0)),
        ("x == 7.5 and not y and z == -2", (7.5, 0.0, -2.0)),
    ]:
        v = judge(rule, f"lambda x, y, z: ({body}) != ({carve})")
        assert v.method == "refuted" and not v.equivalent, carve
        assert point in [p for p, _, _ in v.counterexamples], carve
    assert judge(rule, f"lambda x, y, z: {body}").equivalent


def test_the_bayesian_game_is_judged_on_its_own_tests_whole_numbers_from_1_to_100() -> None:
    config = WiltConfig(integer_range=(1, 100))
    game = WiltGame(get_rule("full", 2).program(), config)
    game.step(ProposeTest(("1", "2", "3")))
    game.step(FinalGuess("lambda x, y, z: x < y < z and z <= 100"))
    assert game.verdict is not None and game.verdict.equivalent and game.verdict.method == "proved"
    assert game.verdict.domain == "every triple of whole numbers from 1 to 100"
    # the same guess in the published game is wrong at (1, 2, 101)
    assert not judge(get_rule("full", 2).text, "lambda x, y, z: x < y < z and z <= 100").equivalent


def test_a_whole_number_domain_z3_cannot_decide_is_checked_point_by_point() -> None:
    box = Domain(integer_range=(1, 20))
    gcd = "lambda x, y, z: math.gcd(int(x), int(y)) == 1"
    v = judge(gcd, "lambda x, y, z: math.gcd(int(y), int(x)) == 1 and z < 1000", domain=box)
    assert v.method == "proved" and "checked every triple" in (v.evidence or "")
    v = judge(gcd, "lambda x, y, z: math.gcd(int(x), int(y)) == 1 and z < 20", domain=box)
    assert v.method == "refuted" and v.counterexamples[0][0][2] == 20
    wide = enumerate_domain(compile_rule(gcd), compile_rule(gcd), Domain(integer_range=(-999, 999)))
    assert wide.kind == "unknown"


def test_a_decision_is_deterministic_and_bounded_by_steps_not_seconds() -> None:
    r, g = compile_rule(SUM), compile_rule("lambda x, y, z: x + y == z and x * y != 0.25")
    first, second = decide(r, g), decide(r, g)
    assert first == second and first.kind == "refuted"
    assert decide(r, g, rlimit=10).kind == "unknown"


def test_decisions_in_threads_do_not_share_a_solver() -> None:
    results: list[str] = []

    def work(bound: str) -> None:
        results.append(judge(SUM, f"lambda x, y, z: x + y == z and abs(z) < {bound}").method or "")

    threads = [threading.Thread(target=work, args=(b,)) for b in ("999", "1000", "990", "1e6")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == ["proved", "proved", "refuted", "refuted"]


def test_the_domain_is_what_the_game_accepts() -> None:
    for v in (999.0, -999.0, 99.9, 9.99, 0.999, -0.001, 0.0, 12.5):
        assert typeable(v) and TYPEABLE.contains_value(v)
    for v in (1000.0, 999.5, 9.999, 0.0001, 1e-5, float("inf"), 0.1 + 0.2):
        assert not typeable(v)
    assert Domain(integer_range=(1, 100)).contains((1.0, 50.0, 100.0))
    assert not Domain(integer_range=(1, 100)).contains((0.0, 50.0, 100.0))
    with pytest.raises(ValueError, match="low <= high"):
        Domain(integer_range=(5, 1))


def test_a_tests_file_reads_what_the_test_swap_prompt_shows(tmp_path: Path) -> None:
    path = tmp_path / "tests.txt"
    path.write_text("# rule 15\n(475, 475, 950): True\n(1.0, 2.0, 4.0): False\n\n(-0.5, .5, 0):true\n")
    assert load_tests_file(path) == [
        ((475.0, 475.0, 950.0), True),
        ((1.0, 2.0, 4.0), False),
        ((-0.5, 0.5, 0.0), True),
    ]
    for bad, message in [
        ("(1, 2, 3)", "not a test and its result"),
        ("(1, 2): True", "not a test and its result"),
        ("(1, 2, 3): maybe", "not a test and its result"),
        ("(1000, 2, 3): True", "not a test the game accepts: 1000 has more than 3 digits"),
        ("(nan, 2, 3): True", "not a test the game accepts"),
    ]:
        path.write_text(bad + "\n")
        with pytest.raises(ValueError, match=message) as caught:
            load_tests_file(path)
        assert str(caught.value).startswith(f"{path}:1: ")
    path.write_text("(1, 2, 3): True\n" * 1001)
    with pytest.raises(ValueError, match="more than 1,000 tests"):
        load_tests_file(path)


@pytest.mark.parametrize(
    "guess",
    [
        "lambda x, y, z: 9**9**9**9 + 9**9**9**9 > x",
        "lambda x, y, z: x**9**9**9 > 1",
        "lambda x, y, z: 99**99**99 > x",
        "lambda x, y, z: 10**400 > x or y > 2**5000",
    ],
)
def test_numbers_too_large_for_exact_arithmetic_keep_their_float_verdict(guess: str) -> None:
    # exact arithmetic gives up on them (and z3 with it): the float value stands, and the guess is wrong
    v = judge("lambda x, y, z: x < y < z", guess)
    assert not v.equivalent and v.method == "refuted" and v.counterexamples
