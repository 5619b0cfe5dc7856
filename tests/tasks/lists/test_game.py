"""The list-rules game: rounds, labels from code, the end of an episode, follow-ups and oracles."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from wason.core.game import Malformed
from wason.tasks.lists.game import (
    FinalHypothesis,
    ListsConfig,
    ListsGame,
    PredicateAnswer,
    QuizAnswer,
    TestRound,
)
from wason.tasks.lists.rules import get_rule

INCREASING = get_rule("pilot", 1)  # strictly increasing
EXAMPLES = tuple(tuple(e) for e in INCREASING.examples)
NO_FOLLOW_UPS = ListsConfig(judges=("llm",))


async def _no_judge(rule: str, hypothesis: str) -> Mapping[str, Any]:
    return {"equivalent": False}


def game(config: ListsConfig | None = None, **kwargs: Any) -> ListsGame:
    return ListsGame(INCREASING, EXAMPLES, config or ListsConfig(), **kwargs)


def play(g: ListsGame, action: Any) -> Any:
    """Settle then step, as the runner does."""
    asyncio.run(g.settle(action))
    return g.step(action)


def test_labels_come_from_the_rule_and_non_integer_lists_are_no() -> None:
    g = game()
    g.start()
    cases = ((1, 2, 3), (3, 2, 1), (1.5, 2, 3), ("1", "2"), (5, 5))
    obs = play(g, TestRound(cases))
    assert obs.kind == "labels"
    assert obs.labels == (True, False, False, False, False)
    assert obs.round == 1 and obs.rounds_left == 18


def test_only_five_lists_a_round_and_repeats_are_counted() -> None:
    g = game()
    g.start()
    six = (EXAMPLES[0], (1, 2), (1, 2), (4, 9), (0,), (7, 8))
    obs = play(g, TestRound(six))
    assert len(obs.cases) == 5 and obs.ignored_cases == 1
    # an example shown at the start and a list tested twice are repeats
    assert obs.repeats == (True, False, True, False, False)


def test_unreadable_replies_cost_a_round_and_two_in_a_row_end_the_episode() -> None:
    g = game()
    g.start()
    obs = play(g, Malformed("no <response> tag"))
    assert obs.kind == "format_error" and obs.rounds_left == 18
    play(g, TestRound(((1, 2),)))
    assert play(g, TestRound(())).kind == "format_error"  # no test cases at all
    obs = play(g, Malformed("again"))
    assert obs.kind == "ended" and obs.end_reason == "format_errors"
    assert g.outcome().success is False and g.outcome().metrics["format_errors"] == 3


def test_after_the_last_round_the_next_reply_must_be_final() -> None:
    g = game(NO_FOLLOW_UPS, judge=_no_judge)
    g.start()
    for i in range(18):
        assert not play(g, TestRound(((i, i + 1),))).must_finalize
    last = play(g, TestRound(((100, 101),)))
    assert last.must_finalize and last.rounds_left == 0
    # a reply with tests and a leading hypothesis is read as the final hypothesis
    obs = play(g, TestRound(((1, 2),), leading_hypothesis="increasing"))
    assert obs.kind == "ended" and g.final_hypothesis == "increasing" and g.final_forced
    assert g.outcome().metrics["rounds"] == 19


def test_no_final_hypothesis_when_the_forced_reply_has_none() -> None:
    g = game(ListsConfig(max_rounds=1, judges=("predicate",)))
    g.start()
    assert play(g, TestRound(((1, 2),))).must_finalize
    obs = play(g, TestRound(((3, 4),)))
    assert obs.end_reason == "no_final_hypothesis"
    assert g.outcome().metrics["judges"] == {"predicate": False}


def test_predicate_and_quiz_follow_the_final_hypothesis() -> None:
    g = game()
    g.start()
    play(g, TestRound(((1, 5, 9), (9, 5, 1), (2, 2, 3), (), (-3, 0, 4))))
    obs = play(g, FinalHypothesis("Each item is larger than the one before."))
    assert obs.kind == "ask_predicate"
    obs = play(g, PredicateAnswer("lambda xs: all(a < b for a, b in zip(xs, xs[1:]))"))
    assert obs.kind == "ask_quiz" and len(obs.quiz) == 10
    truth = [INCREASING.accepts(lst) for lst in obs.quiz]
    assert sum(truth) == 5  # balanced
    tested = {(1, 5, 9), (9, 5, 1), (2, 2, 3), (), (-3, 0, 4), *EXAMPLES}
    assert not tested & set(obs.quiz)  # held out: nothing tested or shown
    answers = list(truth)
    answers[0] = not answers[0]
    obs = play(g, QuizAnswer(tuple(answers)))
    assert obs.kind == "ended" and obs.end_reason == "finished"
    m = g.outcome().metrics
    assert m["judges"] == {"predicate": True, "quiz": False}
    assert m["quiz_accuracy"] == pytest.approx(0.9)
    assert m["primary_judge"] == "predicate" and g.outcome().success
    assert m["rounds_to_solution"] == 1 and m["lists_tested"] == 5


def test_a_near_miss_predicate_fails_even_when_the_quiz_is_right() -> None:
    g = game(ListsConfig(judges=("quiz", "predicate")))
    g.start()
    play(g, FinalHypothesis("non-decreasing"))
    obs = play(g, PredicateAnswer("lambda xs: all(a <= b for a, b in zip(xs, xs[1:]))"))
    play(g, QuizAnswer(tuple(INCREASING.accepts(lst) for lst in obs.quiz)))
    m = g.outcome().metrics
    assert m["judges"] == {"quiz": True, "predicate": False}
    assert any(c["rule"] is False and c["guess"] is True for c in m["predicate_verdict"]["counterexamples"])
    # code decides before a quiz the player may pass by luck: the predicate is the primary judge
    assert m["primary_judge"] == "predicate" and not g.outcome().success


def test_an_unreadable_predicate_or_quiz_counts_as_wrong() -> None:
    g = game()
    g.start()
    play(g, FinalHypothesis("increasing"))
    obs = play(g, Malformed("no predicate"))
    assert obs.kind == "ask_quiz"
    obs = play(g, Malformed("no labels"))
    assert obs.end_reason == "finished"
    m = g.outcome().metrics
    assert m["judges"] == {"predicate": False, "quiz": False}
    assert m["predicate_verdict"]["rejection"] and m["quiz_accuracy"] == 0.0


def test_primary_judge_order() -> None:
    assert ListsConfig(judges=("llm", "quiz", "predicate")).primary == "predicate"
    assert ListsConfig(judges=("llm", "quiz")).primary == "quiz"
    assert ListsConfig(judges=("llm",)).primary == "llm"
    with pytest.raises(ValueError, match="unknown judge"):
        ListsConfig(judges=("vibes",))
    with pytest.raises(ValueError, match="quiz_size"):
        ListsConfig(quiz_size=3)
    with pytest.raises(ValueError, match="llm judge is on"):
        game(ListsConfig(judges=("llm",)))


def test_an_llm_labeller_is_shown_and_its_disagreements_are_recorded() -> None:
    seen: list[tuple[str, Sequence[object]]] = []

    async def labeller(rule: str, cases: Sequence[object]) -> list[bool | None]:
        seen.append((rule, cases))
        return [True, True, None]  # wrong on the second list; silent on the third

    g = game(ListsConfig(judges=("predicate",)), labeller=labeller)
    g.start()
    obs = play(g, TestRound(((1, 2), (2, 1), (3, 2))))
    assert seen == [(INCREASING.text, ((1, 2), (2, 1), (3, 2)))]
    assert obs.labels == (True, True, False)  # the LLM's labels, the code's where it said nothing
    m = g.outcome().metrics
    assert m["labeller"] == "llm" and m["llm_labels"] == 2
    assert m["label_disagreements"] == [{"round": 1, "list": [2, 1], "code": False, "llm": True}]
    assert m["history"][0]["code_labels"] == [True, False, False]


def test_the_llm_judge_sees_the_rule_text_and_the_final_hypothesis() -> None:
    asked: list[tuple[str, str]] = []

    async def judge(rule: str, hypothesis: str) -> Mapping[str, Any]:
        asked.append((rule, hypothesis))
        return {"equivalent": True, "votes": [{"judgment": True}] * 3}

    g = game(ListsConfig(judges=("llm",)), judge=judge)
    g.start()
    obs = play(g, FinalHypothesis("strictly increasing"))
    assert obs.end_reason == "finished"
    assert asked == [(INCREASING.text, "strictly increasing")]
    assert g.outcome().success and g.outcome().metrics["llm_judgement"]["equivalent"]


def test_hostile_test_lists_are_labelled_without_trouble() -> None:
    collatz = get_rule("pilot", 8)
    g = ListsGame(collatz, tuple(tuple(e) for e in collatz.examples), ListsConfig(judges=("predicate",)))
    g.start()
    huge = 10**999
    cases = (((1, 2),), (huge, huge // 2), ("12", "6"), (True, 0), (None,))
    obs = play(g, TestRound(cases))
    # nested lists, strings, booleans and nulls are not integers; a 1,000-digit even number halves exactly
    assert obs.labels == (False, True, False, False, False)
    assert g.outcome().metrics["non_integer_lists"] == 4
    assert g.outcome().metrics["history"][0]["cases"][1] == [huge, huge // 2]
