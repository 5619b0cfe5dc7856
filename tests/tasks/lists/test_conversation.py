"""The list-rules conversation: what the protocol sends around the game, and how it reads each kind of reply."""

from __future__ import annotations

import json

import pytest

from tests.reference import reference
from wason.core.game import Malformed
from wason.judges.labels import read_labels
from wason.judges.llm import read_judgment
from wason.tasks.lists.game import FinalHypothesis, ListsObservation, PredicateAnswer, QuizAnswer, TestRound
from wason.tasks.lists.protocol import (
    ListsProtocol,
    format_cases_for_labeller,
    load_analysis_prompt,
    load_judgment_prompt,
    parse_predicate_reply,
    parse_reply,
)

EXAMPLES = [[2, 5, 7, 14], [11, 14, 20, 21], [7, 16, 44]]


def test_the_labeller_and_judge_prompts_are_the_pilots_byte_for_byte() -> None:
    assert load_analysis_prompt() == reference("numberwang", "analysis_prompt.txt").read_text(
        encoding="utf-8"
    )
    assert load_judgment_prompt() == reference("numberwang", "judgment_prompt.txt").read_text(
        encoding="utf-8"
    )
    filled = load_judgment_prompt().format(real_rule="R", model_hypothesis="H")
    assert "1. R\n2. H" in filled and '{\n  "explanation"' in filled
    text = load_analysis_prompt().format(rule="R", test_cases=format_cases_for_labeller([(1, 2), (1.5,)]))
    assert "following rule: R" in text and "analyze:\n[[1, 2], [1.5]]\n\nTake" in text


# Replies' JSON as models wrote it, including what the labeller is told fails (non-integers).
PILOT_CASES = [
    "[[1, 2, 3], [3, 2, 1], [5, 5, 6], [-4, 0, 9], [2, 1.5]]",
    r'[[1e16, 2.50, -0.0], ["7", "a \\ \"q\" b"], [true, false, null], [[1, 2], []], ["\u00e9\u4e2d"]]',
    '[["it\'s", "x"]]',
    "[[123456789012345678901234567890], [1E400, -1e-7]]",
    "[]",
]


@pytest.mark.parametrize("cases", PILOT_CASES)
def test_the_labeller_reads_the_test_cases_as_the_pilot_formatted_them(cases: str) -> None:
    # The pilot's tester.py: parse_response takes json.loads(response).get("test_cases"), and
    # analyze_test_cases fills self.analysis_prompt.format(rule=self.rule, test_cases=test_cases) with that value,
    # so {test_cases} is str() of the parsed list. The same reply goes through wason's parser here.
    reply = f'thinking\n<response>\n{{"leading_hypothesis": "h", "test_cases": {cases}}}'
    parsed = parse_reply(reply)
    assert not isinstance(parsed, Malformed)
    pilot_value = json.loads(reply.split("<response>\n", 1)[1])["test_cases"]
    template = reference("numberwang", "analysis_prompt.txt").read_text(encoding="utf-8")
    pilots = template.format(rule="List items must be in strictly increasing order", test_cases=pilot_value)
    ours = load_analysis_prompt().format(
        rule="List items must be in strictly increasing order",
        test_cases=format_cases_for_labeller(parsed.test_cases),
    )
    assert ours == pilots


def test_the_first_message_is_the_users_and_has_the_examples() -> None:
    protocol = ListsProtocol(EXAMPLES)
    assert protocol.prompt_role == "user"
    # the template's own leading and trailing newlines are kept: the text is the pilot's, byte for byte
    assert protocol.system_prompt().endswith("example lists:\n[2, 5, 7, 14]\n[11, 14, 20, 21]\n[7, 16, 44]\n")


def test_replies_become_rounds_or_the_final_hypothesis() -> None:
    protocol = ListsProtocol(EXAMPLES)
    reply = (
        'thinking\n<response>\n{"possible_hypotheses": ["a", "b"], "leading_hypothesis": "up",\n'
        '"test_cases": [[1, 2, 3], [1.5, 2], [3, 2, 1],]}'
    )
    action = protocol.parse(reply)
    assert isinstance(action, TestRound)
    assert action.cases == ((1, 2, 3), (1.5, 2), (3, 2, 1))
    assert action.leading_hypothesis == "up" and action.possible_hypotheses == ("a", "b")
    final = protocol.parse('<response>\n{"final_hypothesis": "strictly increasing"}')
    assert final == FinalHypothesis("strictly increasing")
    assert isinstance(protocol.parse("no tag at all"), Malformed)


def test_feedback_is_the_pilots_and_asks_for_the_final_hypothesis_after_the_last_round() -> None:
    protocol = ListsProtocol(EXAMPLES)
    obs = ListsObservation(
        kind="labels", round=3, rounds_left=16, cases=((1, 2), (2, 1)), labels=(True, False)
    )
    assert protocol.feedback(obs) == "1. Yes\n2. No"
    echo = ListsProtocol(EXAMPLES, echo=True)
    assert echo.feedback(obs) == "1. [1, 2]: Yes\n2. [2, 1]: No"
    last = obs.model_copy(update={"round": 19, "rounds_left": 0, "must_finalize": True})
    text = protocol.feedback(last)
    assert text.startswith("1. Yes\n2. No\n\n") and "all 19 rounds" in text and '"final_hypothesis"' in text
    error = ListsObservation(kind="format_error", round=1, rounds_left=18, reason="no <response> tag")
    assert "(no <response> tag)" in protocol.feedback(error)
    assert protocol.feedback(ListsObservation(kind="ended", round=1, rounds_left=18)) == ""


def test_the_follow_ups_are_parsed_by_what_was_asked() -> None:
    protocol = ListsProtocol(EXAMPLES, language="Use Python built-ins.")
    ask = protocol.feedback(ListsObservation(kind="ask_predicate", round=2, rounds_left=17))
    assert "lambda xs" in ask and "Use Python built-ins." in ask
    reply = '<response>\n{"predicate": "lambda xs: all(a < b for a, b in zip(xs, xs[1:]))"}'
    assert protocol.parse(reply) == PredicateAnswer("lambda xs: all(a < b for a, b in zip(xs, xs[1:]))")
    quiz = ListsObservation(kind="ask_quiz", round=2, rounds_left=17, quiz=((1, 2), (2, 1), (5,)))
    text = protocol.feedback(quiz)
    assert "1. [1, 2]\n2. [2, 1]\n3. [5]" in text and "3. <Just the word 'Yes' or 'No'" in text
    assert protocol.parse("<response>\n1. Yes\n2. No\n3. yes") == QuizAnswer((True, False, True))
    assert protocol.parse("<response>\n1. Yes") == QuizAnswer((True, None, None))
    assert isinstance(protocol.parse("I am not sure."), Malformed)
    # after the follow-ups, a new round of labels means test replies again
    protocol.feedback(ListsObservation(kind="labels", round=1, rounds_left=18, cases=((1,),), labels=(True,)))
    assert isinstance(protocol.parse('<response>{"final_hypothesis": "x"}'), FinalHypothesis)


@pytest.mark.parametrize(
    ("reply", "source"),
    [
        ('<response>\n{"predicate": "lambda xs: len(xs) == 3"}', "lambda xs: len(xs) == 3"),
        ("Here:\n```python\nlambda xs: sum(xs) % 2 == 0\n```", "lambda xs: sum(xs) % 2 == 0"),
        ("My predicate is\nlambda xs: xs == sorted(xs)\n", "lambda xs: xs == sorted(xs)"),
        ("<response>\n{'predicate': 'lambda xs: True',}", "lambda xs: True"),
    ],
)
def test_predicate_replies(reply: str, source: str) -> None:
    assert parse_predicate_reply(reply) == source


def test_predicate_reply_without_a_lambda_is_malformed() -> None:
    assert isinstance(parse_predicate_reply("<response>\n{}"), Malformed)
    assert isinstance(parse_predicate_reply("x" * 300_000), Malformed)


def test_label_and_judgment_reading() -> None:
    assert read_labels("1. Yes\n2. No\n<response>\n1. No\n2. Yes\n2. No", 3) == [False, False, None]
    assert read_labels("**1.** Yes\n2) no\n3. [1, 2]: Yes\n9. Yes", 3) == [True, False, True]
    # the pilot's JSON puts a comma after the last key, and models drop the one before it
    vote = read_judgment('{\n "explanation": "same \\"rule\\""\n "judgment": true,\n}')
    assert vote.judgment is True and vote.explanation == 'same \\"rule\\"'
    assert read_judgment('{"judgment": "False"}').judgment is False
    assert read_judgment("They are equivalent.").judgment is None
