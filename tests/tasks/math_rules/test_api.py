"""The math game through the game API: creation checks naming the field, guesses read, the rule hidden."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from wason.tasks.math_rules.family import FAMILY, rule_from_item
from wason.tasks.math_rules.game import GiveUp, Guess, More
from wason.tasks.math_rules.game_api import MathGameApi


@pytest.mark.parametrize(
    ("difficulty", "n", "field"),
    [
        ("L4", 2, "difficulty"),
        ("l1", 2, "difficulty"),
        ("L1", 0, "num_init_examples"),
        ("L1", 101, "num_init"),
    ],
)
def test_bad_creation_names_the_field(difficulty: str, n: int, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        MathGameApi().create(difficulty, n, 1)


def test_creation_is_seeded_and_hides_nothing_it_should_not() -> None:
    api = MathGameApi()
    config, (key, item) = api.create("L2", 3, 42)
    assert (config, (key, item)) == api.create("L2", 3, 42)
    assert len(item["examples"]) == 3 and all(s[0] <= 0 for s in item["examples"])
    assert "rule" not in FAMILY.public(item) and "seed" not in FAMILY.public(item)
    assert api.rule_text(item) == rule_from_item(item).text()
    assert FAMILY.oracle(config) is None  # judged by code only


def test_guesses_and_requests() -> None:
    api = MathGameApi()
    assert api.guess("give up") == GiveUp() and api.guess("  Give Up. ") == GiveUp()
    assert api.guess("lambda v, i: v * 2") == Guess("lambda v, i: v * 2", "lambda v, i: v * 2")
    assert api.guess("My Guess is: it doubles") == Guess("it doubles", None)
    assert api.guess("it doubles") == Guess("it doubles", None)
    assert api.more(3) == More(3)
    for bad in (0, 101, True, "3"):
        with pytest.raises(ValueError, match="n_examples"):
            api.more(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="guess"):
        api.guess("   ")


def test_a_client_plays_a_game_to_the_end_and_sees_the_rule_only_then(tmp_path: Path) -> None:
    games = pytest.importorskip("wason.games")
    from wason.store import Store

    async def play() -> None:
        api = games.Games(Store(f"sqlite:///{tmp_path / 'g.db'}"))
        created = await api.create("math", "L3", 2, seed=5)
        gid = created["game_uuid"]
        _, (_, item) = MathGameApi().create("L3", 2, 5)
        rule = rule_from_item(item)
        assert rule.text() not in str(created) and rule.expression() not in str(created)
        more = await api.more(gid, 1)
        assert len(more["positive_examples"]) == 1 and rule.text() not in str(more)
        wrong = await api.validate_guess(gid, "it doubles")
        assert wrong["guess_result"] is False and wrong["status"] == "ongoing"
        assert rule.text() not in str(wrong)
        ongoing = await api.summary(gid)
        assert ongoing["game_class_name"] == "MathGuessTheRuleGame" and "rule" not in ongoing
        assert (ongoing["domain"], ongoing["game_gen_type"]) == ("math", "dynamic")
        # ours, in the shape of the reference's dynamic picnic (the reference's math summary fails)
        conversation = "\n".join(
            [
                f"Assistant: {created['system_message']}",
                f"Assistant: {more['system_message']}",
                "User: it doubles",
                f"Assistant: {wrong['system_message']}",
            ]
        )
        assert ongoing["system_message"] == (
            "Welcome back to the game 'Find Principle Behind Math Sequence'.\n\n"
            f"Here is the conversation from before:\n{conversation}\n\nWhat would you like to do next?"
        )
        assert rule.text() not in ongoing["system_message"]
        right = await api.validate_guess(gid, f"My Guess is: {rule.expression()}")
        assert right["guess_result"] is True and right["status"] == "won"
        summary = await api.summary(gid)
        # the two fields the reference's saved games hold
        assert summary["rule"] == {"rule_str": rule.text(), "rule_code": rule.code()}
        assert summary["total_pos_examples_shown"] >= 2
        assert summary["system_message"] == (
            f'Game is over. You won. The rule was "{rule.text()}".\nCheck your stats in the top panel.'
        )

    asyncio.run(play())


@pytest.mark.parametrize(
    "values", [5, "12", [["x"]], [[1.5]], [[True]], [[1] * 101], [[1]] * 101, [{"a": 1}]]
)
def test_stored_quiz_answers_are_checked(values: object) -> None:
    with pytest.raises(ValueError, match="values"):
        FAMILY.actions.decode({"type": "QuizAnswer", "values": values})


def test_stored_actions_round_trip() -> None:
    from wason.tasks.math_rules.game import ExpressionAnswer, QuizAnswer

    for action in (
        More(),
        More(3),
        Guess("x", "lambda v, i: v"),
        GiveUp(),
        ExpressionAnswer("v"),
        QuizAnswer(((1, 2), None)),
    ):
        assert FAMILY.actions.decode(FAMILY.actions.encode(action)) == action
    with pytest.raises(ValueError):
        FAMILY.actions.decode({"type": "Guess", "text": 5})
