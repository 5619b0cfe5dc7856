"""The game: examples, turns, guesses judged by code on unseen words, the quiz, the LLM judge beside them."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from wason.core.game import Malformed, Settles
from wason.tasks.code_functions.game import (
    CodeFunctionsGame,
    GameSettings,
    GiveUp,
    Guess,
    More,
    PredicateAnswer,
    QuizAnswer,
)
from wason.tasks.code_functions.grammar import grammar_rule
from wason.tasks.code_functions.judge import read_judge_reply, rule_truth
from wason.tasks.code_functions.vocabulary import vocabulary

RULE = grammar_rule("one", ["len_eq_5"], "L1")
RIGHT = "lambda w: len(w) == 5"
WRONG = "lambda w: len(w) >= 5"


def game(**settings: Any) -> CodeFunctionsGame:
    return CodeFunctionsGame(RULE, rule_truth(RULE), GameSettings(**settings))


def test_balanced_examples_pairs_and_labels() -> None:
    g = game(initial=3, seed=1)
    obs = g.start()
    assert obs.kind == "start" and len(obs.positives) == 3 and len(obs.negatives) == 3
    assert all(len(w) == 5 for w in obs.positives) and all(len(w) != 5 for w in obs.negatives)
    obs = g.step(More(4))
    assert obs.kind == "examples" and len(obs.positives) == len(obs.negatives) == 4 and obs.turn == 1
    assert len(obs.all_positives) == 7 and len(set(obs.all_positives + obs.all_negatives)) == 14
    again = game(initial=3, seed=1)
    assert again.start() == g._start and again.step(More(4)) == obs  # seeded: the same words
    assert game(initial=3, seed=2).start() != g._start


def test_random_examples_are_drawn_as_the_library_drew_them() -> None:
    g = game(examples="random", initial=10, seed=5)
    obs = g.start()
    assert len(obs.positives) + len(obs.negatives) == 10 and obs.available is None
    assert all(len(w) == 5 for w in obs.positives) and all(len(w) != 5 for w in obs.negatives)


def test_an_equivalent_predicate_wins_and_the_quiz_follows() -> None:
    g = game(seed=3)
    g.start()
    obs = g.step(Guess("five letters", RIGHT))
    assert obs.kind == "ask_quiz" and obs.status == "won" and len(obs.quiz) == 10
    labels = tuple(len(w) == 5 for w in obs.quiz)
    assert sum(labels) == 5  # half the quiz words fit the rule
    assert not set(obs.quiz) & set(g.positives + g.negatives)
    obs = g.step(QuizAnswer(labels))
    assert obs.kind == "ended" and g.done
    out = g.outcome()
    assert out.success and out.metrics["status"] == "won" and out.metrics["quiz_accuracy"] == 1.0
    assert out.metrics["judges"] == {"predicate": True, "quiz": True}
    verdict = out.metrics["history"][0]["verdict"]
    assert (
        verdict["equivalent"] and verdict["heldout"] == len(vocabulary()) - 4 and verdict["accuracy"] == 1.0
    )


def test_a_different_but_equivalent_text_still_wins_and_a_near_miss_loses() -> None:
    g = game(seed=3, judges=("predicate",))
    g.start()
    assert g.step(Guess("x", "lambda word: len(word) > 4 and len(word) < 6")).status == "won"
    g = game(seed=3, judges=("predicate",), max_turns=1)
    g.start()
    obs = g.step(Guess("five or six", "lambda w: len(w) in (5, 6)"))
    assert obs.kind == "ended" and obs.status == "lost" and obs.reason == "no turns left"
    verdict = g.outcome().metrics["history"][0]["verdict"]
    assert not verdict["equivalent"] and 0.6 < verdict["accuracy"] < 1.0
    assert verdict["counterexamples"] and all(len(c["word"]) == 6 for c in verdict["counterexamples"])


def test_a_wrong_guess_adds_a_pair_and_turns_run_out() -> None:
    g = game(seed=4, max_turns=3, judges=("predicate",))
    g.start()
    obs = g.step(Guess("no", WRONG))
    assert obs.kind == "wrong" and len(obs.positives) == len(obs.negatives) == 1 and obs.turns_left == 2
    obs = g.step(More(2))
    assert obs.kind == "examples" and obs.turns_left == 1
    obs = g.step(Guess("right at the last turn", RIGHT))
    assert obs.status == "won" and g.outcome().success  # a right guess on the last turn is never a loss


def test_a_guess_without_predicate_asks_for_one() -> None:
    g = game(seed=4, judges=("predicate",))
    g.start()
    obs = g.step(Guess("words of five letters"))
    assert obs.kind == "ask_predicate" and obs.turn == 1
    obs = g.step(PredicateAnswer("lambda w: open('x')"))
    assert obs.kind == "wrong" and "could not be used: calling 'open' is not allowed" in (obs.reason or "")
    obs = g.step(Guess("five"))
    assert obs.kind == "ask_predicate"
    assert g.step(PredicateAnswer(RIGHT)).status == "won"
    assert g.outcome().metrics["turns"] == 2  # the follow-ups are not turns


def test_give_up_unreadable_replies_and_hostile_predicates() -> None:
    g = game(seed=4, judges=("predicate",))
    g.start()
    obs = g.step(Malformed("empty reply"))
    assert obs.kind == "format_error" and g.format_errors == 1 and len(obs.positives) == 1
    obs = g.step(Malformed("cut off", truncated=True))  # costs the same, counted apart
    assert obs.kind == "format_error" and g.format_errors == 1 and len(obs.positives) == 1
    assert g.truncated == 1 and g.turns == 2
    obs = g.step(Guess("huge", "lambda w: len('a' * 10**9) > 0"))
    assert obs.kind == "wrong"
    assert g.outcome().metrics["history"][-1]["verdict"]["accuracy"] < 1
    obs = g.step(GiveUp())
    assert obs.kind == "ended" and obs.status == "lost" and obs.reason == "gave up"
    with pytest.raises(RuntimeError):
        g.step(GiveUp())


def test_requests_are_capped_and_examples_run_out_cleanly() -> None:
    g = game(seed=1, max_turns=None, judges=("predicate",))
    g.start()
    obs = g.step(More(10**6))
    assert obs.capped == 10**6 and len(obs.positives) == 100
    for _ in range(40):
        obs = g.step(More(100))
    assert obs.available == 0 and len(set(g.positives)) == len(g.positives)
    # every positive has been shown: "never" agrees with every unseen word, but not with the examples
    obs = g.step(Guess("never", "lambda w: False"))
    assert obs.kind == "wrong" and g.outcome().metrics["history"][-1]["verdict"]["accuracy"] == 1.0
    assert g.step(Guess("five", RIGHT)).status == "won"


def test_the_llm_judge_is_asked_beside_the_code_and_restored_without_asking() -> None:
    asked: list[tuple[str, str]] = []

    async def judge(code: str, guess: str) -> dict[str, Any]:
        asked.append((code, guess))
        return {"verdict": "five" in guess, "votes": [True, True, False]}

    g = CodeFunctionsGame(
        RULE, rule_truth(RULE), GameSettings(seed=2, judges=("predicate", "llm")), judge=judge
    )
    assert isinstance(g, Settles)
    g.start()
    lenient = Guess("about five letters", WRONG)
    record = asyncio.run(g.settle(lenient))
    assert record == {"llm_judgement": {"verdict": True, "votes": [True, True, False]}}
    g.step(lenient)
    assert asked == [(RULE.source, "about five letters")]
    out = g.outcome()
    assert not out.success and out.metrics["judges"]["llm"] is True and out.metrics["llm_won_at"] == 1

    # restored from the stored record: the judge is not asked again
    again = CodeFunctionsGame(
        RULE, rule_truth(RULE), GameSettings(seed=2, judges=("predicate", "llm")), judge=judge
    )
    again.start()
    again.settled(lenient, record or {})
    again.step(lenient)
    assert len(asked) == 1 and again.outcome().metrics == out.metrics
    with pytest.raises(ValueError, match="no judge was given"):
        CodeFunctionsGame(RULE, rule_truth(RULE), GameSettings(judges=("predicate", "llm")))


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("The guess is right.\nYES", True),
        ("YES.", True),  # the reference crashed on this (function_picnic/base.py:194-198)
        ("**YES**", True),
        ("Final answer: no", False),
        ("NO!", False),
        ("I think so", None),
        ("", None),
        ("YES it is NO", False),
    ],
)
def test_the_judges_reply_is_read_by_its_last_word(reply: str, verdict: bool | None) -> None:
    assert read_judge_reply(reply) is verdict


def test_settings_are_validated_naming_the_field() -> None:
    for bad, field in (
        ({"initial": 0}, "initial"),
        ({"after_wrong": -1}, "after_wrong"),
        ({"max_turns": 0}, "max_turns"),
        ({"judges": ("quiz",)}, "judges"),
        ({"judges": ("predicate", "vibes")}, "judges"),
        ({"quiz_size": 3}, "quiz_size"),
        ({"examples": "biased"}, "examples"),
    ):
        with pytest.raises(ValueError, match=field):
            GameSettings(**bad)


def test_a_predicate_that_burns_steps_is_judged_within_a_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    from wason.tasks.code_functions import judge

    monkeypatch.setattr(judge, "JUDGE_STEPS", 300_000)
    burner = "lambda w: sum(1 for a in w * 9 for b in w * 9 for c in w * 9) < 0 or len(w) == 5"
    verdict = judge.judge_predicate(rule_truth(RULE), burner, list(range(len(vocabulary()))))
    # the first few words use up the budget; every word after is judged False (an error), quickly
    assert not verdict.equivalent and verdict.errors > len(vocabulary()) - 20
    within = judge.judge_predicate(rule_truth(RULE), RIGHT, list(range(len(vocabulary()))))
    assert within.equivalent and within.errors == 0
