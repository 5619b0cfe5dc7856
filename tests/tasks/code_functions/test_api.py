"""The guess-the-rule game API shape: create, more examples, validate a guess (code-judged), no early rule."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.reference import reference
from wason.tasks.code_functions.family import FAMILY, CodeFunctionsGameApi, rule_from_item
from wason.tasks.code_functions.game import GiveUp, Guess, More, Observation


def test_create_gives_a_code_judged_game_of_the_level() -> None:
    api = FAMILY.game_api()
    assert isinstance(api, CodeFunctionsGameApi) and api.game_name == "code_functions_picnic"
    config, (key, item) = api.create("L2", 3, 17)
    assert config.level == "L2" and config.init_examples == 3 and config.judges == ["predicate"]
    assert config.max_turns == 0 and config.protocol == "game-api" and FAMILY.oracle(config) is None
    assert rule_from_item(item).level == "L2"
    assert api.create("L2", 3, 17)[1] == (key, item)
    for bad, field in (
        (("L4", 1, 0), "difficulty"),
        (("L1", 0, 0), "num_init_examples"),
        (("L1", 500, 0), "num_init_examples"),
    ):
        with pytest.raises(ValueError, match=field):
            api.create(*bad)
    assert api.more(4) == More(4)
    with pytest.raises(ValueError, match="n_examples"):
        api.more(0)
    assert api.guess("give up") == GiveUp()
    assert api.guess("starts with s: lambda w: w[0] == 's'") == Guess(
        "starts with s: lambda w: w[0] == 's'", "lambda w: w[0] == 's'"
    )
    assert api.guess("starts with s") == Guess("starts with s")


def test_views_never_hold_the_rule() -> None:
    api = CodeFunctionsGameApi()
    _, (_, item) = api.create("L1", 2, 5)
    rule = item["rule"]
    views = [
        api.view(Observation(kind="start", positives=("apple",), negatives=("tree",)), False),
        api.view(Observation(kind="wrong", reason="your predicate could not be used: x"), False),
        api.view(Observation(kind="ask_predicate"), False),
        api.view(Observation(kind="ended", status="won"), True),
        api.view(Observation(kind="ended", status="lost", reason="gave up"), True),
    ]
    assert views[0]["system_message"].startswith("Let's play the game 'going on a picnic'.")
    assert views[0]["positive_examples"] == ["apple"] and views[0]["guess_result"] is None
    assert views[1]["guess_result"] is False and views[3]["guess_result"] is True
    assert "lambda w" in views[2]["system_message"]
    for view in views:
        text = json.dumps(view)
        assert rule["source"] not in text and rule["text"] not in text
    assert rule["source"] in api.rule_text(item)


def test_a_game_played_through_the_python_api(tmp_path: Path) -> None:
    games_module = pytest.importorskip("wason.games")
    games = games_module.Games(f"sqlite:///{tmp_path / 'api.db'}")
    created = asyncio.run(games.create("code_functions_picnic", "L1", "2", seed=3))
    game_id = created["game_uuid"]
    assert created["status"] == "ongoing" and len(created["positive_examples"]) == 2
    assert "rule" not in created
    more = asyncio.run(games.more(game_id, 3))
    assert len(more["positive_examples"]) == 3 and len(more["negative_examples"]) == 3
    with pytest.raises(games_module.RuleHidden):
        asyncio.run(games.summary(game_id, include_rule=True))
    wrong = asyncio.run(games.validate_guess(game_id, "lambda w: False"))
    assert wrong["status"] == "ongoing" and wrong["guess_result"] is False
    asked = asyncio.run(games.validate_guess(game_id, "I think it is about vowels"))
    assert asked["guess_result"] is None and "lambda w" in asked["system_message"]
    ongoing = asyncio.run(games.summary(game_id))
    assert ongoing["game_class_name"] == "CodeFunctionsPicnic"
    assert (ongoing["domain"], ongoing["game_gen_type"]) == ("lexical", "dynamic")
    shown = ongoing["game_history"]
    assert shown["positives"] == created["positive_examples"] + more["positive_examples"]
    # the reference's resume text (function_picnic/base.py:396-414): every word shown so far
    resume = reference("guess_the_rule", "code_functions", "api_resume_message.txt").read_text(
        encoding="utf-8"
    )
    assert ongoing["system_message"] == resume.format(
        positives_string=", ".join(shown["positives"]), negatives_string=", ".join(shown["negatives"])
    )
    assert "rule" not in ongoing
    # the solver's answer for this game (the generated rule of seed 3), sent as a predicate
    from wason.tasks.code_functions.grammar import generate_rules

    rule = generate_rules("L1", 3, 1)[0]
    won = asyncio.run(games.validate_guess(game_id, rule.source))
    assert won["status"] == "won" and won["guess_result"] is True
    summary = asyncio.run(games.summary(game_id))
    # the reference's rule is its predicate's code
    assert summary["rule"] == rule.source and summary["total_pos_examples_shown"] == 5
    # base.py:417 of the reference, quoted
    assert summary["system_message"] == (
        f"Game is over. You won. The rule was {rule.source}.\nCheck your stats in the top panel."
    )
    with pytest.raises(games_module.GameOver):
        asyncio.run(games.more(game_id, 1))


def test_a_client_that_speaks_only_the_published_routes_plays_to_the_end(tmp_path: Path) -> None:
    httpx = pytest.importorskip("httpx")
    server = pytest.importorskip("wason.server")
    from wason.tasks.code_functions.grammar import generate_rules

    rule = generate_rules("L2", 9, 1)[0]
    bodies: list[str] = []

    async def play() -> dict[str, object]:
        app = server.create_app(f"sqlite:///{tmp_path / 'http.db'}")
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            body = {"game_name": "code_functions_picnic", "difficulty": "L2", "num_init_examples": "3"}
            r = await client.post("/guess-the-rule/game", json={**body, "player": "someone", "seed": 9})
            bodies.append(r.text)
            assert r.status_code == 200, r.text
            game_id = r.json()["game_uuid"]
            r = await client.get(f"/guess-the-rule/game/{game_id}/examples", params={"n_examples": 5})
            bodies.append(r.text)
            assert len(r.json()["positive_examples"]) == 5
            r = await client.get(f"/guess-the-rule/game/{game_id}", params={"include_rule": "true"})
            assert r.status_code == 409  # the rule is refused while the game is ongoing
            bodies.append((await client.get(f"/guess-the-rule/game/{game_id}")).text)
            r = await client.post(
                "/guess-the-rule/game/validate_guess",
                json={"game_id": game_id, "guess": "lambda w: len(w) > 4"},
            )
            bodies.append(r.text)
            r = await client.post(
                "/guess-the-rule/game/validate_guess",
                json={"game_id": game_id, "guess": f"my rule: {rule.source}"},
            )
            assert r.json()["status"] == "won" and r.json()["guess_result"] is True
            r = await client.get(f"/guess-the-rule/game/{game_id}/examples", params={"n_examples": 1})
            assert r.status_code == 409  # the game is over
            summary = (
                await client.get(f"/guess-the-rule/game/{game_id}", params={"include_rule": "false"})
            ).json()
            return dict(summary)

    summary = asyncio.run(play())
    assert rule.source in str(summary["rule"]) and summary["status"] == "won"
    for text in bodies:  # no response before the end names the rule
        assert rule.source not in text and rule.text not in text and '"rule"' not in text


def test_a_run_stored_under_the_old_protocol_name_loads_under_the_new() -> None:
    # the protocol of the game API's messages was called "api" (the name of the Python API) before "game-api"
    stored = FAMILY.config_type.model_validate({"protocol": "api", "player": "solver"})
    assert stored.protocol == "game-api"
    assert FAMILY.config_type.model_validate(stored.model_dump()) == stored
