"""The game's rules: turns counted from zero, format errors counted, one verdict per guess, the follow-ups,
the LLM judge beside the code."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from typing import Any

import pytest

from wason.core.game import Malformed
from wason.tasks.math_rules.game import (
    ExpressionAnswer,
    GiveUp,
    Guess,
    MathConfig,
    MathGame,
    More,
    QuizAnswer,
)
from wason.tasks.math_rules.rules import MathRule, Op, draw_sequences, sequence

RULE = MathRule(Op("add", 3), Op("add", 3))
RIGHT = "lambda v, i: v + 3"


def new_game(**config: Any) -> MathGame:
    examples = tuple(tuple(s) for s in draw_sequences(RULE, "L1", random.Random(0), 5))
    judge = config.pop("judge", None)
    return MathGame(RULE, "L1", examples, MathConfig(**config), judge=judge)


def test_a_game_has_exactly_max_turns_moves() -> None:
    # the published harness started counting at 1 and so allowed max_turns - 1 moves
    game = new_game(max_turns=10)
    game.start()
    for turn in range(1, 10):
        obs = game.step(More())
        assert obs.kind == "examples" and obs.turn == turn and obs.turns_left == 10 - turn
        assert len(obs.sequences) == 5
    obs = game.step(More())
    assert game.done and obs.end_reason == "turns" and game.turns == 10
    assert game.outcome().success is False
    with pytest.raises(RuntimeError):
        game.step(More())


def test_unreadable_replies_are_counted_turns_that_still_bring_sequences() -> None:
    game = new_game(max_turns=3)
    game.start()
    obs = game.step(Malformed("neither"))
    assert obs.kind == "format_error" and obs.turn == 1 and len(obs.sequences) == 5
    game.step(Malformed("again"))
    obs = game.step(Malformed("and again"))
    assert game.done and obs.end_reason == "turns"
    assert game.outcome().metrics["format_errors"] == 3


def test_a_reply_cut_at_the_token_limit_costs_a_turn_and_is_counted_apart() -> None:
    game = new_game(max_turns=3)
    game.start()
    obs = game.step(Malformed("cut off", truncated=True))
    assert obs.kind == "format_error" and obs.turn == 1 and len(obs.sequences) == 5
    game.step(Malformed("neither"))
    metrics = game.outcome().metrics
    assert (metrics["format_errors"], metrics["truncated"], metrics["turns"]) == (1, 1, 2)


def test_a_right_expression_wins_and_the_quiz_follows() -> None:
    game = new_game()
    game.start()
    obs = game.step(Guess("adds three", RIGHT))
    assert obs.kind == "ask_quiz" and len(obs.quiz) == 3 and not game.done
    truth = []
    for shown in obs.quiz:
        assert shown[0] > 10  # fresh starts, never shown as examples
        full = sequence(RULE, shown[0])
        assert tuple(full[:5]) == shown
        truth.append(tuple(full[5:10]))
    obs = game.step(QuizAnswer((truth[0], truth[1], None)))
    assert game.done and obs.won and obs.end_reason == "won" and obs.rule == RULE.text()
    out = game.outcome()
    assert out.success and out.metrics["judges"] == {"expression": True, "quiz": False}
    assert out.metrics["quiz_accuracy"] == pytest.approx(2 / 3) and out.metrics["turns"] == 1


def test_a_guess_in_words_is_followed_by_one_request_for_its_expression() -> None:
    game = new_game(judges=("expression",))
    game.start()
    obs = game.step(Guess("each term is three more than the last"))
    assert obs.kind == "ask_expression" and obs.turn == 1
    obs = game.step(ExpressionAnswer("lambda v, i: v + 4"))
    assert obs.kind == "wrong" and obs.turn == 1 and len(obs.sequences) == 5  # the follow-up is no turn
    obs = game.step(Guess("three more", "lambda v, i: 3 + v"))
    assert game.done and obs.won
    metrics = game.outcome().metrics
    assert [g["asked_expression"] for g in metrics["guesses"]] == [True, False]
    assert metrics["guesses"][0]["verdict"]["counterexamples"]
    assert metrics["guesses_without_expression"] == [0] and metrics["turns"] == 2


def test_give_up_loses() -> None:
    game = new_game()
    game.start()
    obs = game.step(GiveUp())
    assert game.done and obs.end_reason == "gave_up" and not game.outcome().success


def test_without_refill_only_more_brings_sequences() -> None:
    game = new_game(refill=False, judges=("expression",))
    game.start()
    obs = game.step(Guess("plus four", "lambda v, i: v + 4"))
    assert obs.kind == "wrong" and obs.sequences == ()
    obs = game.step(More(2))
    assert len(obs.sequences) == 2
    obs = game.step(More(0))
    assert obs.kind == "format_error" and "n_examples" in (obs.reason or "")


def test_sequences_drawn_in_play_are_deterministic() -> None:
    def play() -> list[tuple[int, ...]]:
        game = new_game(seed="7")
        game.start()
        game.step(More())
        game.step(Malformed("x"))
        return game.shown

    assert play() == play()


class CountingJudge:
    def __init__(self, verdict: bool | None) -> None:
        self.verdict = verdict
        self.asked: list[str] = []

    async def __call__(self, guess: str) -> Mapping[str, Any]:
        self.asked.append(guess)
        return {"verdict": self.verdict, "votes": [self.verdict] * 3}


def test_the_llm_judge_is_asked_once_per_guess_and_reported_beside_the_code() -> None:
    judge = CountingJudge(True)  # a lenient judge
    game = new_game(judges=("expression", "llm"), judge=judge, max_turns=2)
    game.start()
    wrong = Guess("adds four", "lambda v, i: v + 4")
    record = asyncio.run(game.settle(wrong))
    assert record == {"llm": {"verdict": True, "votes": [True, True, True]}}
    obs = game.step(wrong)
    assert obs.kind == "wrong" and judge.asked == ["adds four"]  # judged once, and code decides
    right = Guess("adds three", RIGHT)
    asyncio.run(game.settle(right))
    obs = game.step(right)
    assert game.done and obs.won and len(judge.asked) == 2
    metrics = game.outcome().metrics
    assert metrics["llm_disagreements"] == 1 and metrics["judges"] == {"expression": True, "llm": True}


def test_a_restored_game_takes_the_judges_record_without_asking() -> None:
    judge = CountingJudge(False)
    game = new_game(judges=("expression", "llm"), judge=judge)
    game.start()
    guess = Guess("three more", RIGHT)
    game.settled(guess, {"llm": {"verdict": True, "votes": [True, True, False]}})
    game.step(guess)
    assert judge.asked == [] and game.guesses[0].llm == {"verdict": True, "votes": [True, True, False]}


def test_words_without_an_expression_go_to_the_llm_judge_when_the_game_may_not_ask() -> None:
    judge = CountingJudge(True)
    game = new_game(judges=("expression", "llm"), judge=judge, ask_expression=False)
    game.start()
    guess = Guess("adds three each time")
    asyncio.run(game.settle(guess))
    obs = game.step(guess)
    assert game.done and obs.won
    metrics = game.outcome().metrics
    assert metrics["guesses_without_expression"] == [0] and metrics["guesses"][0]["decided_by"] == "llm"


@pytest.mark.parametrize(
    ("field", "value"),
    [("max_turns", 0), ("per_turn", 0), ("judges", ("quiz",)), ("judges", ("psychic",)), ("quiz_size", -1)],
)
def test_bad_settings_name_their_field(field: str, value: object) -> None:
    with pytest.raises(ValueError, match=field.split("_")[0]):
        MathConfig(**{field: value})  # type: ignore[arg-type]


def test_the_llm_judge_needs_a_judge() -> None:
    with pytest.raises(ValueError, match="llm judge"):
        new_game(judges=("expression", "llm"))
