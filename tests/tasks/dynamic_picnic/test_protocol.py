"""Reading the player's replies (hostile ones included) and the prompts the protocol sends."""

from __future__ import annotations

import pytest

from tests.reference import reference
from wason.core.game import Malformed
from wason.tasks.dynamic_picnic.game import AskItem, GiveUp, GuessRule, MoreExamples, PicnicObservation
from wason.tasks.dynamic_picnic.master import normalize_item, read_item_vote, read_items, read_rule_vote
from wason.tasks.dynamic_picnic.protocol import PicnicProtocol, read_reply


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("Can I bring a frisbee?", AskItem(item="a frisbee", said="Can I bring a frisbee?")),
        (
            "Hmm. can we also bring   sunscreen",
            AskItem(item="sunscreen", said="Hmm. can we also bring   sunscreen"),
        ),
        ("I give up.", GiveUp(said="I give up.")),
        ("give up", GiveUp(said="give up")),
        ("Could I have more examples?", MoreExamples(n=0, said="Could I have more examples?")),
        ("Please give me 3 more examples", MoreExamples(n=3, said="Please give me 3 more examples")),
        ("more 999", MoreExamples(n=20, said="more 999")),
        ("My guess is: kite", AskItem(item="kite", said="My guess is: kite")),
    ],
)
def test_replies_are_read_as_actions(reply: str, expected: object) -> None:
    assert read_reply(reply) == expected


def test_a_rule_statement_wins_over_a_question_and_keeps_its_predicate() -> None:
    reply = 'I think the rule is: "Items that are palindromes." Can I bring kayak?\n\nlambda w: w == w[::-1]'
    action = read_reply(reply)
    assert isinstance(action, GuessRule)
    assert action.text == 'Items that are palindromes." Can I bring kayak?'
    assert action.predicate == "lambda w: w == w[::-1]"
    guess = read_reply("My guess is that the items are all things you find in a classroom")
    assert isinstance(guess, GuessRule) and guess.text.startswith("that the items")


@pytest.mark.parametrize(
    "reply", ["", "   ", "Hello there", "\x00\x01", "?" * 100, "Can I bring ?", "rule is" * 5000]
)
def test_hostile_replies_are_malformed_or_bounded(reply: str) -> None:
    action = read_reply(reply)
    if isinstance(action, Malformed):
        assert action.reason
    else:
        assert len(getattr(action, "said", "")) <= 2000
        assert len(getattr(action, "text", "")) <= 1000


def test_on_the_final_turn_anything_is_the_guess() -> None:
    assert read_reply("Hello there", final=True) == GuessRule(text="Hello there", said="Hello there")
    assert isinstance(read_reply("Hello there"), Malformed)


def test_the_first_prompt_is_the_published_turn_once_the_game_master_prepared_the_rule() -> None:
    protocol = PicnicProtocol(PicnicObservation(kind="preparing"))
    # no instructions apart and no invented prompt: each call is the published turn prompt alone
    assert protocol.system_prompt() == "" and protocol.prompt_role == "user" and protocol.stateless
    start = PicnicObservation(
        kind="start",
        initial=("kayak", "noon"),
        history=(
            ("Game Master", 'To start, here are some examples of items you can bring: "kayak" and "noon".'),
        ),
        turns_left=1,
        final=True,
    )
    text = protocol.first_message(start)
    final = reference("guess_the_rule", "dynamic_picnic", "experiment_player_final_turn.txt").read_text()
    assert text == final.replace("{examples_text}", '"kayak" and "noon"').replace(
        "{conversation_history}", start.history[0][0] + ": " + start.history[0][1]
    )
    assert protocol.parse("Hello there") == GuessRule(text="Hello there", said="Hello there")


@pytest.mark.parametrize(
    ("reply", "vote"),
    [
        ("Correct! You can bring a kite", True),
        ("  Incorrect. You cannot bring a potato.", False),
        ("[your final answer: Correct! You can bring a kite]", True),
        ('[your final answer: "Correct!" or "Incorrect." and the corresponding message]', None),
        ("correct", None),
        ("It is Correct! probably", None),
        ("", None),
    ],
)
def test_validator_votes_are_read_strictly(reply: str, vote: bool | None) -> None:
    assert read_item_vote(reply) is vote


@pytest.mark.parametrize(
    ("reply", "vote"),
    [("no.", False), ("`yes`", True), ("Final answer: no", False), ("yes or no", None), ("yesno", None)],
)
def test_rule_votes_are_read_strictly(reply: str, vote: bool | None) -> None:
    assert read_rule_vote(reply) is vote


def test_writer_replies_are_normalised_deduplicated_and_bounded() -> None:
    reply = (
        '1. A Kite, "kite", [the Ball], ball.\n- sun hat; , 12345, '
        + "x" * 100
        + ", "
        + ", ".join(f"item{i}" for i in range(80))
    )
    items = read_items(reply)
    assert items[:3] == ["kite", "ball", "sun hat"]
    assert "12345" not in items and not any(len(i) > 60 for i in items)
    assert len(items) == 50 and len(set(items)) == 50
    assert normalize_item("  An  Apple!! ") == "apple"
