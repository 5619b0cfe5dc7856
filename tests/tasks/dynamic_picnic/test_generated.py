"""Rules written by the game master with the published prompts: the level classifier's answer, a predicate for a
rule about spelling (parsed by the sandbox or the rule is rejected), every reply recorded and replayed."""

from __future__ import annotations

from typing import Any

import pytest

from tests.tasks.dynamic_picnic.scripted import ScriptedMaster
from tests.tasks.dynamic_picnic.test_game import make, play
from wason.tasks.dynamic_picnic.family import DynamicPicnicRunConfig, rule_from_item
from wason.tasks.dynamic_picnic.game import AskItem, Begin, DynamicPicnicGame, PicnicSettings
from wason.tasks.dynamic_picnic.rules import existing_texts

RED = "Only items that are red can be brought to the picnic."
FIVE = "Only items with exactly five letters can be brought to the picnic."


def placeholder(rule_type: str = "semantic", level: str = "L1") -> Any:
    config = DynamicPicnicRunConfig(model="fake", source="generated", n=5, types=[rule_type], level=level)  # type: ignore[arg-type]
    return rule_from_item(config.items()[0][1])


def test_a_semantic_rule_is_written_classified_and_validated() -> None:
    master = ScriptedMaster(
        rules=[f"Rule: {RED}"],
        levels=["Level 2, I think", "L2."],
        fits={"apple", "tomato", "cherry", "strawberry"},
        positives="apple, tomato, cherry, strawberry",
        negatives="banana, kiwi",
    )
    game = make(placeholder(), master)
    observations, records = play(game, [Begin(), AskItem(item="fire truck")])
    generate = records[0]["generate"]
    assert generate["rule_reply"] == f"Rule: {RED}" and generate["level_replies"] == [
        "Level 2, I think",
        "L2.",
    ]
    assert "predicate_reply" not in generate  # not about spelling: no predicate asked for
    assert game.rule.text == RED and game.rule.level == "L2" and game.rule.kind == "semantic"
    assert observations[1].kind == "start" and set(observations[1].initial) <= {"apple", "tomato", "cherry"}
    # the simple (L1) writer prompt, told the published rules of its type
    (_, _, messages) = next(c for c in master.calls if c[0] == "rule")
    assert "**simple semantic rule**" in messages[1]["content"]
    assert f"- {existing_texts('semantic')[0]}\n" in messages[1]["content"]
    outcome = game.outcome() if game.done else None
    assert outcome is None and game.turn == 1


def test_a_rule_about_spelling_is_decided_by_the_predicate_the_game_master_writes() -> None:
    master = ScriptedMaster(
        rules=[f"Rule: {FIVE}"],
        levels=["L1"],
        predicates=["PREDICATE: lambda w: len(w) == 5\nWHOLE: yes"],
        positives="apple, lemon, bread, salad, melon",
        negatives="fig, banana",
    )
    game = make(placeholder("attribute_based"), master)
    observations, _ = play(game, [Begin()])
    assert game.rule.kind == "lexical" and game.rule.predicate == "lambda w: len(w) == 5"
    assert master.count("panel") == 0 and observations[-1].kind == "start"


@pytest.mark.parametrize(
    ("rules", "predicates", "reason"),
    [
        (
            [f"Rule: {FIVE}"],
            ["PREDICATE: lambda w: __import__('os').system('x')\nWHOLE: yes"],
            "not in the word",
        ),
        ([f"Rule: {FIVE}"], ["PREDICATE: NONE"], "needs a predicate"),
        (["I cannot think of one."], [], "no 'Rule: ...' line"),
    ],
)
def test_a_written_rule_that_cannot_be_decided_is_rejected(
    rules: list[str], predicates: list[str], reason: str
) -> None:
    master = ScriptedMaster(rules=rules, predicates=predicates, positives="apple", negatives="fig")
    game = make(placeholder("logical"), master)
    observations, _ = play(game, [Begin()])
    assert game.done and observations[-1].end_reason == "rule_rejected"
    assert reason in (observations[-1].rejection or "")
    assert master.count("write+") == 0  # no items are written for a rule that cannot be played


def test_a_generated_game_replays_from_its_record() -> None:
    master = ScriptedMaster(
        rules=[f"Rule: {RED}"],
        fits={"apple", "tomato", "cherry", "radish"},
        positives="apple, tomato, cherry, radish",
        negatives="kiwi, lime",
    )
    game = make(placeholder(), master)
    actions = [Begin(), AskItem(item="ruby")]
    observations, records = play(game, actions)
    replay = DynamicPicnicGame(placeholder(), PicnicSettings(), seed=0, master=None, by_code=False)
    again = [replay.start()]
    for action, record in zip(actions, records, strict=True):
        replay.settled(action, record)
        again.append(replay.step(action))
    assert [o.model_dump() for o in again] == [o.model_dump() for o in observations]
    assert replay.rule == game.rule


def test_generated_rules_need_a_model() -> None:
    with pytest.raises(ValueError, match="source"):
        DynamicPicnicRunConfig(source="generated")
    config = DynamicPicnicRunConfig(model="m", source="generated", n=7)
    types = [item["rule"]["type"] for _, item in config.items()]
    assert types == [
        "attribute_based",
        "categorical",
        "logical",
        "semantic",
        "attribute_based",
        "categorical",
        "logical",
    ]
