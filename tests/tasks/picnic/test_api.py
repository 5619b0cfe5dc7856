"""Static Picnic through the reference's game API: creation, more, guesses, the published messages, no leaks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.reference import reference
from wason.core.family import EpisodeContext
from wason.core.game import Game
from wason.tasks.picnic.family import FAMILY
from wason.tasks.picnic.game import GiveUp, Guess, More


def pack(name: str) -> str:
    return reference("guess_the_rule", "static_picnic", name).read_text(encoding="utf-8")


def new_game(level: str = "L1", n: int = 2, seed: int = 5) -> tuple[Game[object, object], dict[str, object]]:
    api = FAMILY.game_api()
    config, (_, item) = api.create(level, n, seed)
    assert json.loads(json.dumps(item)) == item
    return FAMILY.game(config, item, EpisodeContext()), item  # type: ignore[arg-type]


def test_create_is_seeded_and_has_no_turn_limit() -> None:
    api = FAMILY.game_api()
    assert api.game_name == "static_picnic" and api.levels == ("L1", "L2", "L3")
    a = api.create("L2", 3, 9)
    assert a == api.create("L2", 3, 9)
    config, (_, item) = a
    assert item["max_turns"] is None and item["num_init_examples"] == 3 and item["level"] == "L2"
    assert config.examples_each_turn is False  # type: ignore[attr-defined]
    fresh = [api.create("L2", 3, None)[1][1]["provenance"]["seed"] for _ in range(2)]  # type: ignore[index]
    assert fresh[0] != fresh[1]  # no seed: a fresh one each time


@pytest.mark.parametrize(
    ("difficulty", "n", "field"),
    [
        ("L4", 2, "difficulty"),
        ("l1", 2, "difficulty"),
        ("L1", 0, "num_init_examples"),
        ("L1", -3, "num_init_examples"),
        ("L1", 10**9, "num_init_examples"),
        ("L1", True, "num_init_examples"),
    ],
)
def test_bad_creation_names_the_field(difficulty: str, n: int, field: str) -> None:
    with pytest.raises(ValueError, match=field):
        FAMILY.game_api().create(difficulty, n, 1)


@pytest.mark.parametrize("n", [0, -1, 10**6, True])
def test_bad_requests_name_the_field(n: int) -> None:
    with pytest.raises(ValueError, match="n_examples"):
        FAMILY.game_api().more(n)


def test_the_messages_are_the_published_ones_and_never_show_the_rule_early() -> None:
    api = FAMILY.game_api()
    game, item = new_game()
    rule = item["rule"]["text"]  # type: ignore[index]
    start = api.view(game.start(), False)
    assert start["system_message"] == pack("api_init_message.txt").format(
        positives_string=", ".join(start["positive_examples"]),
        negatives_string=", ".join(start["negative_examples"]),
    )
    assert len(start["positive_examples"]) == 2 and start["guess_result"] is None
    more = api.view(game.step(api.more(3)), False)
    assert more["system_message"] == pack("api_more_examples_message.txt").format(
        positives_string=", ".join(more["positive_examples"]),
        negatives_string=", ".join(more["negative_examples"]),
    )
    wrong = api.view(game.step(api.guess("Items from the category 'weapon'")), False)
    assert wrong["system_message"] == "Incorrect guess. What would you like to do next?"
    assert wrong["guess_result"] is False and wrong["positive_examples"] == []
    for view in (start, more, wrong):
        assert rule not in json.dumps(view) and str(item["rule"]["categories"]) not in json.dumps(view)  # type: ignore[index]
    right = api.view(game.step(api.guess(rule)), True)  # type: ignore[arg-type]
    assert right["guess_result"] is True
    assert right["system_message"] == (
        "You guessed correctly. Check your performance stats in the panel above. Thanks for playing!"
    )
    assert api.rule_text(item) == rule


def test_give_up_and_exhaustion() -> None:
    api = FAMILY.game_api()
    assert api.guess("Give up") == GiveUp() and api.guess("give up.") == GiveUp()
    assert api.guess("fruit") == Guess("fruit") and api.more(2) == More(2)
    game, item = new_game("L3", 2, 1)
    start = api.view(game.start(), False)
    total = item["rule"]["positives"]  # type: ignore[index]
    # whether any example is left, not how many: the count names the rule (issue 49)
    assert total - 2 > 1 and start["total_examples_available"] == 1
    capped = api.view(game.step(api.more(50)), False)
    assert capped["total_examples_available"] == 0
    assert capped["system_message"].startswith(
        "Requested number of examples exceeds the maximum available count. Defaulting to maximum available "
        f"{total - 2}\nI can bring: "
    )
    assert capped["system_message"].endswith(
        "\n(This is the last turn because there are no more examples available)"
    )
    refused = api.view(game.step(api.more(2)), False)
    assert refused["system_message"].startswith(
        "Request number of examples n=2 exceeds available number of examples 0. Please give a final guess!"
    )
    over = api.view(game.step(api.guess("give up")), True)
    assert over["system_message"] == f"Game Over! The rule was: {item['rule']['text']}"  # type: ignore[index]


# -- the summary and the Python API as the reference's (issue 36) --------------------------------------------
# base.py:357 of the reference (make_game_history_system_message, once the game is over), quoted
REFERENCE_OVER = "Game is over. You {status}. The rule was {rule}.\nCheck your stats in the top panel."
# base.py:162,192,354: the suffix when no positive examples remain
REFERENCE_LAST_TURN = "\n(This is the last turn because there are no more examples available)"


def reference_rule(categories: list[str]) -> dict[str, object]:
    """The reference's rule object for these categories (``pick_rule``, ``base.py:294-321``; its saved games hold
    the categories as a list)."""
    if len(categories) == 1:
        c = categories[0]
        return {"type": "category", "rule": f"Items from the category '{c}'", "category": c}
    if len(categories) == 2:
        a, b = categories
        return {"type": "pair", "rule": f"Items from the categories '{a}' and '{b}'", "categories": [a, b]}
    a, b, c = categories
    text = f"Items from the categories '{a}', '{b}', and '{c}'"
    return {"type": "triplet", "rule": text, "categories": [a, b, c]}


def test_the_rule_object_is_the_references() -> None:
    api = FAMILY.game_api()
    kinds = set()
    for level in ("L1", "L2", "L3"):
        for seed in range(12):
            _, (_, item) = api.create(level, 2, seed)
            rule = api.rule_object(item)
            assert rule == reference_rule(list(item["rule"]["categories"]))  # type: ignore[index]
            assert rule["rule"] == api.rule_text(item)
            kinds.add(rule["type"])
    assert kinds == {"category", "pair", "triplet"}


def test_the_summary_is_the_references(tmp_path: Path) -> None:
    from wason.games import Games
    from wason.store import Store

    store = Store(f"sqlite:///{tmp_path / 'g.db'}")
    games = Games(store)

    async def play() -> None:
        created = await games.create("static_picnic", "l3", 2, seed=1)  # the level in any case
        gid = created["game_uuid"]
        assert created["difficulty"] == "L3" and created["game_class_name"] == "StaticGoingOnAPicnic"
        assert (created["domain"], created["game_gen_type"]) == ("natural_language", "static")
        more = await games.more(gid, 1)
        wrong = await games.validate_guess(gid, "Items from the category 'weapon'")
        assert wrong["status"] == "ongoing"
        summary = await games.summary(gid)
        shown = {k: created[k] + more[k] for k in ("positive_examples", "negative_examples")}
        assert summary["game_history"] == {
            "positives": shown["positive_examples"],
            "negatives": shown["negative_examples"],
        }
        # every example shown so far, in the order shown, in the reference's resume text
        assert summary["system_message"] == pack("api_resume_message.txt").format(
            positives_string=", ".join(shown["positive_examples"]),
            negatives_string=", ".join(shown["negative_examples"]),
        )
        item = store.get_episode(int(gid)).item
        assert "rule" not in summary and item["rule"]["text"] not in json.dumps(summary)
        # no example left: the reference's last-turn line
        await games.more(gid, 50)
        assert (await games.summary(gid))["system_message"].endswith(REFERENCE_LAST_TURN)
        await games.validate_guess(gid, "give up")
        over = await games.summary(gid)
        rule = reference_rule(list(item["rule"]["categories"]))
        assert over["rule"] == rule and over["status"] == "lost"
        assert over["system_message"] == REFERENCE_OVER.format(status="lost", rule=rule)
        assert over["game_class_name"] == "StaticGoingOnAPicnic"

    try:
        asyncio.run(play())
    finally:
        store.close()


def test_the_reference_test_script_runs_with_its_imports_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The calls of the reference's ``backend/tests/static_picnic.py``, in order, with the import changed; the
    store is ``$WASON_DB`` (the reference's constructor has no such argument)."""
    monkeypatch.setenv("WASON_DB", str(tmp_path / "games.db"))
    monkeypatch.chdir(tmp_path)
    # was: from lib.domain.picnic.static_picnic.base import StaticGoingOnAPicnic
    from wason.games import RuleHidden, StaticGoingOnAPicnic

    # Get a new object for the static picnic game
    static_picnic_obj = StaticGoingOnAPicnic(difficulty="L1", num_init_examples=2)

    # Create a new game instance
    static_picnic_obj.create_game_instance()

    # Request more examples
    static_picnic_obj.get_more_examples(n=1)
    static_picnic_obj.get_more_examples(n=2)
    static_picnic_obj.get_more_examples(n=3)

    # Validate guess
    static_picnic_obj.validate_guess(guess="Items from the category kitchen appliances")

    # Get game summary
    static_picnic_obj.get_game_summary()

    # Load an existing game and check its summary (the script's literal uuid names a game saved on its authors'
    # machine; here the game above)
    loaded_game = StaticGoingOnAPicnic.load_game(static_picnic_obj.uuid)
    summary = loaded_game.get_game_summary()
    if summary["status"] == "ongoing":  # ours: the rule is refused until the game is over
        with pytest.raises(RuleHidden):
            loaded_game.get_game_summary(include_rule=True)
    else:
        assert loaded_game.get_game_summary(include_rule=True)["rule"]["type"] == "category"

    assert isinstance(loaded_game, StaticGoingOnAPicnic) and (tmp_path / "games.db").is_file()
    assert not (tmp_path / "wason.db").exists()
    assert summary["turns_taken"] == 5 and summary["game_class_name"] == "StaticGoingOnAPicnic"
    assert len(summary["game_history"]["positives"]) == summary["total_pos_examples_shown"] > 2
