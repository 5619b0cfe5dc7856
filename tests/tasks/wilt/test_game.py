"""The WILT game as pure logic: the published protocol and the reference's defects fixed."""

import json

import pytest

from tests.reference import reference
from wason.core.game import Malformed
from wason.tasks.wilt import (
    FinalGuess,
    ProposeTest,
    WiltConfig,
    WiltGame,
    WiltRunConfig,
    get_rule,
    load_split,
)


def game(rule_id: int = 2, split: str = "full", **config: int) -> WiltGame:
    return WiltGame(get_rule(split, rule_id).program(), WiltConfig(**config))


def tcase(*values: object) -> ProposeTest:
    return ProposeTest(tuple(str(v) for v in values))


def test_splits_are_the_published_ones() -> None:
    published = json.loads(reference("wilt", "rules.json").read_text())["splits"]
    for split in ("lite", "full"):
        ours = [(r.id, r.text) for r in load_split(split)]
        assert ours == [(int(r["id"]), r["rule"]) for r in published[split]]
    assert len(load_split("lite")) == 10 and len(load_split("full")) == 50


def test_remaining_count_is_the_true_one() -> None:
    g = game()
    assert g.start().remaining == 30
    first = g.step(tcase(1, 2, 3))
    assert (first.kind, first.result, first.remaining) == ("result", True, 29)
    second = g.step(tcase(3, 2, 1))
    assert (second.result, second.remaining) == (False, 28)


def test_thirty_tests_then_forced_guess_then_verdict() -> None:
    g = game()
    for i in range(30):
        obs = g.step(tcase(i, i + 1, i + 2))
    assert obs.remaining == 0 and obs.must_guess and not g.done
    verdict = g.step(FinalGuess("lambda x, y, z: x < y < z"))
    assert g.done and verdict.kind == "verdict" and verdict.correct is True
    out = g.outcome()
    assert out.success and out.metrics["attempts"] == 30 and out.metrics["tests"] == 30


def test_refusing_the_forced_guess_ends_the_episode() -> None:
    g = game()
    for i in range(30):
        g.step(tcase(i, 0, 0))
    end = g.step(tcase(5, 5, 5))
    assert g.done and end.kind == "ended" and end.end_reason == "refused_forced_guess"
    assert not g.outcome().success and g.outcome().metrics["guessed"] is False
    with pytest.raises(RuntimeError):
        g.step(FinalGuess("lambda x, y, z: True"))


def test_one_guess_only_ends_the_episode_wrong() -> None:
    g = game()
    g.step(tcase(1, 2, 3))
    obs = g.step(FinalGuess("lambda x, y, z: x <= y <= z"))
    assert g.done and obs.correct is False
    m = g.outcome().metrics
    assert m["approximately_correct"] is True and m["correct"] is False


def test_invalid_values_cost_an_attempt_and_are_counted() -> None:
    g = game()
    obs = g.step(tcase(1000, 2, 3))
    assert obs.kind == "invalid_test" and obs.remaining == 29 and "1000" in (obs.reason or "")
    obs = g.step(tcase("nan", 2, 3))
    assert obs.kind == "invalid_test" and "finite" in (obs.reason or "")
    obs = g.step(ProposeTest(("1", "2")))
    assert obs.kind == "invalid_test" and "exactly 3" in (obs.reason or "")
    m = g.outcome().metrics
    assert m["invalid_tests"] == 3 and m["tests"] == 0 and m["attempts"] == 3


def test_repeats_are_counted_numerically() -> None:
    g = game()
    g.step(tcase(1, 2, 3))
    again = g.step(tcase("1.0", "2.00", "3"))
    assert again.repeat is True
    g.step(tcase(1, 2, 3))
    g.step(tcase(3, 2, 1))
    assert g.outcome().metrics["repeats"] == 2


def test_format_errors_cost_an_attempt_and_two_in_a_row_end_the_episode() -> None:
    g = game()
    first = g.step(Malformed("no marker"))
    assert first.kind == "format_error" and first.remaining == 29 and not g.done
    g.step(tcase(1, 2, 3))  # engaging again resets the count
    g.step(Malformed("no marker"))
    assert not g.done
    end = g.step(Malformed("no marker"))
    assert g.done and end.end_reason == "format_errors"
    assert g.outcome().metrics["format_errors"] == 3


def test_format_error_limit_zero_never_ends_but_attempts_run_out() -> None:
    g = game(format_error_limit=0)
    for _ in range(30):
        obs = g.step(Malformed("no marker"))
    assert obs.must_guess and not g.done
    g.step(Malformed("still nothing"))
    assert g.done and g.end_reason == "refused_forced_guess"


def test_self_rule_guess_scores_wrong_with_zero_tests() -> None:
    g = game()
    obs = g.step(FinalGuess("self.rule"))
    assert g.done and obs.correct is False and obs.reason
    assert g.outcome().metrics["verdict"]["accepted"] is False


def test_rule_answers_follow_the_published_lambdas() -> None:
    # rule 46 (pairwise coprime integers) and 43 (bitwise and) on a few hand-checked triples
    g = game(46)
    assert g.step(tcase(3, 4, 5)).result is True
    assert g.step(tcase(2, 4, 5)).result is False
    assert g.step(tcase(3.5, 4, 5)).result is False
    g = game(43)
    assert g.step(tcase(6, 3, 2)).result is True  # 6 & 3 == 2
    assert g.step(tcase(6.9, 3.2, 2.5)).result is True  # int() truncates
    assert g.step(tcase(6, 3, 3)).result is False


def test_config_is_validated() -> None:
    with pytest.raises(ValueError, match="max_tests"):
        WiltConfig(max_tests=-1)
    # 0 tests is the test swap's game (the tests are given); a run of the published protocol refuses it
    assert WiltConfig(max_tests=0).max_tests == 0
    with pytest.raises(ValueError, match="max_tests must be at least 1"):
        WiltRunConfig(max_tests=0)
    with pytest.raises(ValueError, match="format_error_limit"):
        WiltConfig(format_error_limit=-1)
