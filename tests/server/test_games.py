"""The Python game API (``wason.games``) on the test family: the reference's shape, statuses, refusals."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server import hidden_family
from wason.core import session
from wason.games import (
    MAX_EXAMPLES,
    GameConflict,
    GameError,
    GameOver,
    Games,
    GuessTheRuleGame,
    NeedsModel,
    RuleHidden,
    UnknownGame,
    game_apis,
    game_class,
    get_existing_game,
    parse_count,
    parse_game_id,
    select_new_game,
)
from wason.store import Store

GAME = hidden_family.GAME_NAME


def rule_of(store: Store, game_id: str) -> tuple[int, int]:
    item = store.get_episode(int(game_id)).item
    return int(item["k"]), int(item["r"])


def solve(positives: list[str], negatives: list[str]) -> str:
    """What a player deduces from the examples alone: the first x % k == r consistent with all of them."""
    pos, neg = [int(x) for x in positives], [int(x) for x in negatives]
    for k in range(2, 8):
        for r in range(k):
            if all(x % k == r for x in pos) and not any(x % k == r for x in neg):
                return f"x % {k} == {r}"
    raise AssertionError("no rule fits")


async def test_create_has_the_reference_keys_and_hides_the_rule(games: Games, store: Store) -> None:
    game = await games.create(GAME, "L2", 3, seed=11, player="ada")
    for key in ("game_uuid", "domain", "difficulty", "start_time", "turns_taken", "status", "system_message"):
        assert key in game, key
    assert game["status"] == "ongoing" and game["turns_taken"] == 1 and game["difficulty"] == "L2"
    assert len(game["positive_examples"]) == 3 and len(game["negative_examples"]) == 3
    assert game["player"] == "ada" and game["seed"] is None  # the seed names the rule: hidden with it
    k, r = rule_of(store, game["game_uuid"])
    assert k in hidden_family.MODULI["L2"]
    assert f"x % {k} == {r}" not in json.dumps(game)
    assert "rule" not in game
    # the game is a session: the generic view of it hides the rule too
    view = await session.view(store, int(game["game_uuid"]))
    assert set(view["item"]) == {"level"}


async def test_the_same_seed_gives_the_same_game(games: Games) -> None:
    a = await games.create(GAME, "L1", 2, seed=5)
    b = await games.create(GAME, "L1", 2, seed=5)
    assert a["game_uuid"] != b["game_uuid"]
    assert a["positive_examples"] == b["positive_examples"]
    assert a["negative_examples"] == b["negative_examples"]


async def test_a_game_without_a_seed_records_the_one_drawn(games: Games, store: Store) -> None:
    game = await games.create(GAME, "L1", 2)
    assert game["seed"] is None  # drawn, and shown only once the game is over: it names the rule
    await games.validate_guess(game["game_uuid"], "give up")
    summary = await games.summary(game["game_uuid"], include_rule=True)
    again = await games.create(GAME, "L1", 2, seed=summary["seed"])
    assert rule_of(store, game["game_uuid"]) == rule_of(store, again["game_uuid"])
    assert game["positive_examples"] == again["positive_examples"]


async def test_a_game_played_to_a_win(games: Games) -> None:
    game = await games.create(GAME, "L1", 2, seed=1)
    gid = game["game_uuid"]
    more = await games.more(gid, 5)
    assert more["turns_taken"] == 2 and len(more["positive_examples"]) <= 5
    summary = await games.summary(gid)
    assert summary["status"] == "ongoing" and "rule" not in summary
    assert summary["total_pos_examples_shown"] == len(game["positive_examples"]) + len(
        more["positive_examples"]
    )
    assert summary["game_end_time"] is None
    guess = solve(summary["game_history"]["positives"], summary["game_history"]["negatives"])
    verdict = await games.validate_guess(gid, guess)
    assert verdict == {
        "game_uuid": gid,
        "status": "won",
        "guess_result": True,
        "system_message": "Correct.",
        "turns_taken": 3,
    }
    final = await games.summary(gid, include_rule=True)
    assert final["status"] == "won" and final["turns_taken"] == 3
    k, r = rule_of(games.store, gid)
    # the rule once over, with or without include_rule
    assert final["rule"] == f"x % {k} == {r}" == (await games.summary(gid))["rule"]
    assert final["game_end_time"] is not None and final["game_end_time"] >= final["start_time"]


async def test_wrong_guesses_lose_and_then_everything_is_refused(games: Games) -> None:
    gid = (await games.create(GAME, "L3", 1, seed=2))["game_uuid"]
    first = await games.validate_guess(gid, "x % 99 == 98")
    assert first["status"] == "ongoing" and first["guess_result"] is False
    second = await games.validate_guess(gid, "no idea")
    assert second["status"] == "lost"
    with pytest.raises(GameOver) as over:
        await games.validate_guess(gid, "x % 2 == 0")
    assert over.value.status == 409 and over.value.field == "guess"
    with pytest.raises(GameOver):
        await games.more(gid, 1)
    assert (await games.load(gid))["status"] == "lost"
    assert "rule" in await games.summary(gid, include_rule=True)


async def test_give_up_loses(games: Games) -> None:
    gid = (await games.create(GAME, "L1", 2, seed=4))["game_uuid"]
    out = await games.validate_guess(gid, "give up")
    assert out["status"] == "lost" and out["guess_result"] is False


async def test_include_rule_is_refused_while_ongoing(games: Games) -> None:
    gid = (await games.create(GAME, "L1", 2, seed=4))["game_uuid"]
    with pytest.raises(RuleHidden) as hidden:
        await games.summary(gid, include_rule=True)
    assert hidden.value.field == "include_rule" and 400 <= hidden.value.status < 500


async def test_load_in_another_games_object_goes_on_with_the_game(games: Games, db_path: Path) -> None:
    gid = (await games.create(GAME, "L1", 2, seed=8))["game_uuid"]
    await games.more(gid, 2)
    other = Games(str(db_path))
    loaded = await other.load(gid)
    assert loaded["turns_taken"] == 2 and loaded["status"] == "ongoing"
    assert loaded["game_name"] == GAME and loaded["difficulty"] == "L1" and loaded["num_init_examples"] == 2
    more = await other.more(gid, 1)
    assert more["turns_taken"] == 3


@pytest.mark.parametrize(
    ("call", "field"),
    [
        ({"game_name": "no_such_game"}, "game_name"),
        ({"game_name": ""}, "game_name"),
        ({"difficulty": "L4"}, "difficulty"),
        ({"difficulty": "l 1"}, "difficulty"),
        ({"difficulty": 1}, "difficulty"),
        ({"num_init_examples": 0}, "num_init_examples"),
        ({"num_init_examples": -2}, "num_init_examples"),
        ({"num_init_examples": "two"}, "num_init_examples"),
        ({"num_init_examples": True}, "num_init_examples"),
        ({"num_init_examples": 10**30}, "num_init_examples"),
        ({"num_init_examples": 25}, "num_init_examples"),  # the family's own bound (20)
        ({"seed": -1}, "seed"),
    ],
)
async def test_create_refuses_bad_input_naming_the_field(
    games: Games, call: dict[str, Any], field: str
) -> None:
    args: dict[str, Any] = {"game_name": GAME, "difficulty": "L1", "num_init_examples": 2, **call}
    with pytest.raises(GameError) as bad:
        await games.create(**args)
    assert bad.value.field == field and bad.value.status == 422, str(bad.value)


async def test_the_reference_sends_counts_as_strings(games: Games) -> None:
    game = await games.create(GAME, "L1", " 3 ", seed=1)
    assert len(game["positive_examples"]) == 3
    more = await games.more(game["game_uuid"], "2")
    assert len(more["negative_examples"]) == 2


@pytest.mark.parametrize("n", [0, -1, "-5", "1e3", 10**12, MAX_EXAMPLES + 1, 61, None, 2.5])
async def test_more_refuses_bad_counts(games: Games, n: Any) -> None:
    gid = (await games.create(GAME, "L1", 2, seed=1))["game_uuid"]
    with pytest.raises(GameError) as bad:
        await games.more(gid, n)
    assert bad.value.field == "n_examples"
    assert (await games.load(gid))["turns_taken"] == 1  # a refused request costs no turn


@pytest.mark.parametrize("guess", ["", "   ", "x" * 10_001, None, 3])
async def test_validate_refuses_bad_guesses(games: Games, guess: Any) -> None:
    gid = (await games.create(GAME, "L1", 2, seed=1))["game_uuid"]
    with pytest.raises(GameError) as bad:
        await games.validate_guess(gid, guess)
    assert bad.value.field == "guess"


@pytest.mark.parametrize("gid", ["999", "abc", "-1", "1.0", "", "١", "9" * 40, True])
async def test_unknown_ids_are_unknown_games(games: Games, gid: Any) -> None:
    with pytest.raises(UnknownGame) as unknown:
        await games.summary(gid)
    assert unknown.value.status == 404 and unknown.value.field == "game_id"


async def test_a_session_not_made_by_the_game_api_is_not_a_game(games: Games, store: Store) -> None:
    sid = session.start(store, hidden_family.NAME, {"n": 1})
    with pytest.raises(UnknownGame):
        await games.load(str(sid))


async def test_a_guess_that_needs_a_model_is_refused_and_costs_nothing(
    games: Games, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = hidden_family.ModApi

    def create(self: Any, difficulty: str, n: int, seed: int | None) -> Any:
        config = hidden_family.ModConfig(seed=seed or 0, n=1, level=difficulty, init=n, needs_model=True)  # type: ignore[arg-type]
        return config, self.family.items(config)[0]

    monkeypatch.setattr(api, "create", create)
    gid = (await games.create(GAME, "L1", 2, seed=1))["game_uuid"]
    with pytest.raises(NeedsModel) as needs:
        await games.validate_guess(gid, "x % 2 == 0")
    assert needs.value.status == 424 and "model" in str(needs.value)
    assert store.list_turns(int(gid)) == []
    assert (await games.more(gid, 1))["turns_taken"] == 2  # what needs no model still works


async def test_two_steps_on_one_game_in_two_processes_give_one_conflict(store: Store, db_path: Path) -> None:
    """Two servers on one store: the step stored second is a GameConflict, and the game has one turn."""
    first, second = Games(store), Games(str(db_path))
    gid = (await first.create(GAME, "L1", 2, seed=1))["game_uuid"]
    gate = hidden_family.GATES[int(gid)] = asyncio.Event()
    held = asyncio.create_task(first.more(gid, 1))
    await hidden_family.held(int(gid))  # the first step has loaded the game and waits in settle
    assert (await second.more(gid, 2))["turns_taken"] == 2
    gate.set()
    with pytest.raises(GameConflict) as conflict:
        await held
    assert conflict.value.status == 409
    stored = store.list_turns(int(gid))
    assert [t["action"] for t in stored] == [{"type": "More", "n": 2}]
    assert (await first.load(gid))["turns_taken"] == 2


def test_parse_helpers() -> None:
    assert parse_game_id("12") == 12 and parse_game_id(12) == 12
    assert parse_count("7", "n") == 7 and parse_count(7, "n") == 7
    with pytest.raises(GameError):
        parse_count("٣", "n")  # a non-ASCII digit


def test_the_reference_object(store: Store, db_path: Path) -> None:
    game = GuessTheRuleGame(GAME, "L1", 2, seed=3, store=str(db_path))
    created = game.create_game_instance()
    assert game.uuid == created["game_uuid"]
    more = game.get_more_examples(2)
    assert more["turns_taken"] == 2
    with pytest.raises(RuleHidden):
        game.get_game_summary(include_rule=True)
    again = GuessTheRuleGame(uuid=game.uuid, store=str(db_path))
    assert again.load_game() is again  # the game, as the reference's load_game returns it
    assert again.game_name == GAME and again.difficulty == "L1" and again.num_init_examples == 2
    summary = again.get_game_summary()
    assert summary["turns_taken"] == 2
    guess = solve(summary["game_history"]["positives"], summary["game_history"]["negatives"])
    assert again.validate_guess(guess)["status"] == "won"
    assert "rule" in game.get_game_summary(include_rule=True)
    with pytest.raises(UnknownGame):
        GuessTheRuleGame(store=str(db_path)).get_more_examples(1)


async def test_levels_are_read_in_any_case(games: Games, client: httpx.AsyncClient, db_path: Path) -> None:
    assert (await games.create(GAME, "l2", 2, seed=1))["difficulty"] == "L2"
    body = {"game_name": GAME, "difficulty": "l1", "num_init_examples": 2}
    response = await client.post("/guess-the-rule/game", json=body)
    assert response.status_code == 200 and response.json()["difficulty"] == "L1"
    assert GuessTheRuleGame(GAME, "l3", 2, store=str(db_path)).difficulty == "L3"
    assert game_class(GAME)(difficulty="l3", num_init_examples=2, store=str(db_path)).difficulty == "L3"


def test_the_per_game_classes(store: Store, db_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import wason.games as module

    cls = game_class(GAME)
    assert cls is game_class(hidden_family.CLASS_NAME) is select_new_game(GAME)
    assert cls is getattr(module, hidden_family.CLASS_NAME) and cls.__name__ == hidden_family.CLASS_NAME
    game = cls(difficulty="L1", num_init_examples=2, seed=3, store=str(db_path))
    created = game.create_game_instance()
    assert created["game_class_name"] == hidden_family.CLASS_NAME
    assert (created["domain"], created["game_gen_type"]) == ("test", "static")
    assert game.get_more_examples(n=1)["turns_taken"] == 2
    # the reference's web server: cls(uuid=...).load_game().get_game_summary(); $WASON_DB is the store
    monkeypatch.setenv("WASON_DB", str(db_path))
    summary = cls(uuid=game.uuid).load_game().get_game_summary()
    assert summary["turns_taken"] == 2 and summary["game_class_name"] == hidden_family.CLASS_NAME
    assert "rule" not in summary
    # its test script and README: load_game on the class
    loaded = cls.load_game(game.uuid)
    assert isinstance(loaded, cls) and loaded.difficulty == "L1" and loaded.num_init_examples == 2
    existing = get_existing_game(game.uuid)  # the reference's lib/domain/game.py
    assert type(existing) is cls and existing.load_game() is existing
    history = summary["game_history"]
    assert loaded.validate_guess(solve(history["positives"], history["negatives"]))["status"] == "won"
    over = existing.get_game_summary(include_rule=True)
    k, r = rule_of(store, game.uuid)
    assert over["rule"] == f"x % {k} == {r}" and over["status"] == "won"  # rule_object's default: the text
    # refusals, each naming the field
    with pytest.raises(GameError, match="difficulty"):
        cls(difficulty="L9", num_init_examples=2)
    with pytest.raises(GameError, match="num_init_examples"):
        cls(difficulty="L1", num_init_examples=0)
    with pytest.raises(GameError, match="difficulty"):
        cls(num_init_examples=2).create_game_instance()
    with pytest.raises(GameError, match="game_name"):
        GuessTheRuleGame(difficulty="L1").create_game_instance()
    with pytest.raises(UnknownGame):
        cls.load_game()
    with pytest.raises(UnknownGame):
        cls(uuid="999").load_game()
    with pytest.raises(GameError, match="game_name"):
        game_class("no_such_game")
    with pytest.raises(GameError, match="game_name"):
        select_new_game("no_such_game")
    with pytest.raises(AttributeError):
        module.NoSuchGameClass  # noqa: B018
    # a class plays only its own game
    others = sorted(set(game_apis()) - {GAME})
    if others:
        other = GuessTheRuleGame(others[0], "L1", 2, seed=1)
        other.create_game_instance()
        with pytest.raises(UnknownGame, match="not"):
            cls(uuid=other.uuid).load_game()
        assert type(get_existing_game(other.uuid)) is game_class(others[0])
