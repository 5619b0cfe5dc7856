"""The published guess-the-rule routes through httpx's ASGI transport: shapes, refusals, the rule kept hidden.

The tests that play whole games run over every registered family with a game API (and the test family), so
the real games are covered as they land.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.server import hidden_family
from tests.server.test_games import solve
from wason.core import registry
from wason.games import MAX_EXAMPLES
from wason.store import Store

GAME = hidden_family.GAME_NAME
BASE = "/guess-the-rule/game"


def game_api_families() -> list[str]:
    """Every registered family with a game API, and the test family."""
    names = [f.name for f in registry.families() if f.game_api() is not None]
    return sorted({*names, hidden_family.NAME})


def game_name_of(family: str) -> str:
    api = registry.get(family).game_api()
    assert api is not None
    return api.game_name


def rule_text(store: Store, game_id: str) -> str:
    episode = store.get_episode(int(game_id))
    api = registry.get(store.get_run(episode.run_id).task).game_api()
    assert api is not None
    return api.rule_text(episode.item)


def rule_object(store: Store, game_id: str) -> Any:
    """The rule as the summary shows it once the game is over (the reference's object where it has one)."""
    episode = store.get_episode(int(game_id))
    api = registry.get(store.get_run(episode.run_id).task).game_api()
    assert api is not None
    return api.rule_object(episode.item)


def assert_error(response: httpx.Response, status: int, field: str | None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body: dict[str, Any] = response.json()
    assert isinstance(body["error"], str) and body["error"]
    assert "Traceback" not in response.text
    if field is not None:
        assert body["field"] == field, body
        assert field.split(".")[-1] in body["error"] or field in json.dumps(body["detail"]), body
    return body


async def create(client: httpx.AsyncClient, **fields: Any) -> dict[str, Any]:
    body = {"game_name": GAME, "difficulty": "L1", "num_init_examples": "2", "player": "tester", **fields}
    response = await client.post(BASE, json=body)
    assert response.status_code == 200, response.text
    out: dict[str, Any] = response.json()
    return out


# -- a whole game, the reference's shapes ---------------------------------------------------------------
async def test_a_game_through_the_published_routes(client: httpx.AsyncClient, store: Store) -> None:
    game = await create(client, seed=9)
    gid = game["game_uuid"]
    assert isinstance(gid, str) and game["status"] == "ongoing" and game["turns_taken"] == 1
    more = (await client.get(f"{BASE}/{gid}/examples", params={"n_examples": 4})).json()
    assert len(more["positive_examples"]) == 4 and more["turns_taken"] == 2
    summary = (await client.get(f"{BASE}/{gid}")).json()
    assert summary["status"] == "ongoing" and "rule" not in summary
    guess = solve(summary["game_history"]["positives"], summary["game_history"]["negatives"])
    verdict = (await client.post(f"{BASE}/validate_guess", json={"game_id": gid, "guess": guess})).json()
    assert set(verdict) >= {"game_uuid", "status", "guess_result", "system_message"}
    assert verdict["status"] == "won" and verdict["guess_result"] is True
    final = (await client.get(f"{BASE}/{gid}", params={"include_rule": "true"})).json()
    assert final["rule"] == rule_text(store, gid) and final["status"] == "won"


async def test_the_game_list(client: httpx.AsyncClient) -> None:
    games = (await client.get("/guess-the-rule/games")).json()["games"]
    names = {g["game_name"] for g in games}
    assert GAME in names
    assert names == {game_name_of(f) for f in game_api_families()}


# -- include_rule is a real boolean, refused while the game is ongoing -----------------------------------
@pytest.mark.parametrize("value", ["false", "False", "0", "no", "off"])
async def test_include_rule_false_does_not_reveal(
    client: httpx.AsyncClient, store: Store, value: str
) -> None:
    gid = (await create(client))["game_uuid"]
    response = await client.get(f"{BASE}/{gid}", params={"include_rule": value})
    assert response.status_code == 200
    assert "rule" not in response.json() and rule_text(store, gid) not in response.text


@pytest.mark.parametrize("value", ["true", "1", "yes", "on"])
async def test_include_rule_true_while_ongoing_is_refused(
    client: httpx.AsyncClient, store: Store, value: str
) -> None:
    gid = (await create(client))["game_uuid"]
    response = await client.get(f"{BASE}/{gid}", params={"include_rule": value})
    assert_error(response, 409, "include_rule")
    assert rule_text(store, gid) not in response.text


@pytest.mark.parametrize("value", ["maybe", "", "2", "truee"])
async def test_include_rule_not_a_boolean(client: httpx.AsyncClient, value: str) -> None:
    gid = (await create(client))["game_uuid"]
    assert_error(await client.get(f"{BASE}/{gid}", params={"include_rule": value}), 422, "include_rule")


# -- hostile input -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"game_name": "nope"}, "game_name"),
        ({"game_name": 3}, "game_name"),
        ({"game_name": None}, "game_name"),
        ({"difficulty": "L9"}, "difficulty"),
        ({"difficulty": ["L1"]}, "difficulty"),
        ({"num_init_examples": "0"}, "num_init_examples"),
        ({"num_init_examples": -1}, "num_init_examples"),
        ({"num_init_examples": "x"}, "num_init_examples"),
        ({"num_init_examples": 2.5}, "num_init_examples"),
        ({"num_init_examples": True}, "num_init_examples"),
        ({"num_init_examples": "9" * 50}, "num_init_examples"),
        ({"num_init_examples": MAX_EXAMPLES + 1}, "num_init_examples"),
        ({"player": 5}, "player"),
        ({"seed": "7"}, "seed"),
    ],
)
async def test_create_refuses_bad_fields(client: httpx.AsyncClient, body: dict[str, Any], field: str) -> None:
    full = {"game_name": GAME, "difficulty": "L1", "num_init_examples": "2", **body}
    assert_error(await client.post(BASE, json=full), 422, field)


@pytest.mark.parametrize("missing", ["game_name", "difficulty", "num_init_examples"])
async def test_create_names_a_missing_field(client: httpx.AsyncClient, missing: str) -> None:
    body = {"game_name": GAME, "difficulty": "L1", "num_init_examples": 2}
    del body[missing]
    assert_error(await client.post(BASE, json=body), 422, missing)


@pytest.mark.parametrize("raw", [b"", b"{", b"[1, 2]", b"null", b'"game"', b"\xff\xfe"])
async def test_create_refuses_a_body_that_is_not_an_object(client: httpx.AsyncClient, raw: bytes) -> None:
    response = await client.post(BASE, content=raw, headers={"content-type": "application/json"})
    assert_error(response, 422, None)


async def test_the_player_is_optional(client: httpx.AsyncClient) -> None:
    response = await client.post(BASE, json={"game_name": GAME, "difficulty": "L3", "num_init_examples": 1})
    assert response.status_code == 200 and response.json()["player"] is None


@pytest.mark.parametrize(
    ("n", "status"),
    [("0", 422), ("-3", 422), ("abc", 422), ("1.5", 422), (str(10**30), 422), ("61", 422), ("", 422)],
)
async def test_examples_refuses_bad_counts(client: httpx.AsyncClient, n: str, status: int) -> None:
    gid = (await create(client))["game_uuid"]
    assert_error(await client.get(f"{BASE}/{gid}/examples", params={"n_examples": n}), status, "n_examples")
    assert (await client.get(f"{BASE}/{gid}")).json()["turns_taken"] == 1


async def test_examples_defaults_to_one(client: httpx.AsyncClient) -> None:
    gid = (await create(client))["game_uuid"]
    more = (await client.get(f"{BASE}/{gid}/examples")).json()
    assert len(more["positive_examples"]) == 1 and more["turns_taken"] == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"guess": ""}, "guess"),
        ({"guess": 42}, "guess"),
        ({"guess": None}, "guess"),
        ({"guess": "x" * 10_001}, "guess"),
        ({"game_id": 1.5}, "game_id"),
        ({"game_id": None}, "game_id"),
    ],
)
async def test_validate_refuses_bad_fields(
    client: httpx.AsyncClient, body: dict[str, Any], field: str
) -> None:
    gid = (await create(client))["game_uuid"]
    full = {"game_id": gid, "guess": "x % 2 == 0", **body}
    assert_error(await client.post(f"{BASE}/validate_guess", json=full), 422, field)


@pytest.mark.parametrize("gid", ["424242", "abc", "-1", "1e3", "%20", "9" * 40])
async def test_unknown_games_are_404(client: httpx.AsyncClient, gid: str) -> None:
    assert_error(await client.get(f"{BASE}/{gid}"), 404, "game_id")
    assert_error(await client.get(f"{BASE}/{gid}/examples", params={"n_examples": 1}), 404, "game_id")
    response = await client.post(f"{BASE}/validate_guess", json={"game_id": gid, "guess": "give up"})
    assert_error(response, 404, "game_id")


async def test_the_game_id_may_be_sent_as_a_number(client: httpx.AsyncClient) -> None:
    gid = (await create(client))["game_uuid"]
    response = await client.post(f"{BASE}/validate_guess", json={"game_id": int(gid), "guess": "give up"})
    assert response.status_code == 200 and response.json()["status"] == "lost"


async def test_acting_on_a_finished_game_is_409(client: httpx.AsyncClient, store: Store) -> None:
    gid = (await create(client))["game_uuid"]
    lost = await client.post(f"{BASE}/validate_guess", json={"game_id": gid, "guess": "give up"})
    assert lost.json()["status"] == "lost"
    again = await client.post(f"{BASE}/validate_guess", json={"game_id": gid, "guess": "x % 2 == 0"})
    assert_error(again, 409, "guess")
    assert_error(await client.get(f"{BASE}/{gid}/examples", params={"n_examples": 1}), 409, "n_examples")
    # the summary still answers, with the rule
    summary = (await client.get(f"{BASE}/{gid}")).json()
    assert summary["rule"] == rule_text(store, gid) and summary["status"] == "lost"
    assert len(store.list_turns(int(gid))) == 1


async def test_a_crash_is_one_line_and_no_traceback(
    client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(self: Any, observation: Any, done: bool) -> dict[str, Any]:
        raise KeyError("secret internals")

    monkeypatch.setattr(hidden_family.ModApi, "view", broken)
    body = {"game_name": GAME, "difficulty": "L1", "num_init_examples": 2}
    response = await client.post(BASE, json=body)
    assert response.status_code == 500
    message = "internal server error (the server's log has the details)"
    # the published routes' errors carry the message as a string `detail` too (the reference app shows it)
    assert response.json() == {"error": message, "kind": "internal", "detail": message}
    assert "secret internals" not in response.text
    assert any("secret internals" in r.getMessage() or r.exc_info for r in caplog.records)


# -- concurrency -----------------------------------------------------------------------------------------
async def test_two_guesses_at_once_give_one_verdict_and_one_409(
    client: httpx.AsyncClient, store: Store
) -> None:
    game = await create(client, seed=3)
    gid = game["game_uuid"]
    await client.get(f"{BASE}/{gid}/examples", params={"n_examples": 20})
    item = store.get_episode(int(gid)).item
    guess = {"game_id": gid, "guess": f"x % {item['k']} == {item['r']}"}
    responses = await asyncio.gather(*(client.post(f"{BASE}/validate_guess", json=guess) for _ in range(2)))
    codes = sorted(r.status_code for r in responses)
    assert codes == [200, 409]
    assert len(store.list_turns(int(gid))) == 2


async def test_requests_for_examples_at_once_are_applied_one_after_the_other(
    client: httpx.AsyncClient, store: Store
) -> None:
    gid = (await create(client, seed=3))["game_uuid"]
    hidden_family.GATES[int(gid)] = gate = asyncio.Event()
    url = f"{BASE}/{gid}/examples"
    first = asyncio.create_task(client.get(url, params={"n_examples": 1}))
    await hidden_family.held(int(gid))  # the first step has loaded the game and waits in settle
    second = asyncio.create_task(client.get(url, params={"n_examples": 1}))
    await asyncio.sleep(0.01)
    gate.set()
    a, b = (await first).json(), (await second).json()
    assert sorted([a["turns_taken"], b["turns_taken"]]) == [2, 3]
    assert a["positive_examples"] != b["positive_examples"]
    assert [t["index"] for t in store.list_turns(int(gid))] == [0, 1]


async def test_two_servers_on_one_store_give_one_conflict(store: Store, db_path: Any) -> None:
    from wason.server import create_app

    apps: list[FastAPI] = [create_app(store), create_app(str(db_path))]
    clients = [
        httpx.AsyncClient(transport=httpx.ASGITransport(app=a), base_url="http://127.0.0.1") for a in apps
    ]
    async with clients[0] as one, clients[1] as two:
        gid = (await create(one))["game_uuid"]
        hidden_family.GATES[int(gid)] = gate = asyncio.Event()
        held = asyncio.create_task(one.get(f"{BASE}/{gid}/examples", params={"n_examples": 1}))
        await hidden_family.held(int(gid))  # the first step has loaded the game and waits in settle
        assert (await two.get(f"{BASE}/{gid}/examples", params={"n_examples": 2})).status_code == 200
        gate.set()
        body = assert_error(await held, 409, None)
        assert body["kind"] == "conflict" and "retry" in body["error"]
    assert len(store.list_turns(int(gid))) == 1


# -- every game with a game API: the rule in no response before the end ---------------------------------
@pytest.mark.parametrize("family", game_api_families())
@pytest.mark.parametrize("level", ["L1", "L3"])
async def test_every_game_hides_its_rule_until_the_end(
    client: httpx.AsyncClient, store: Store, family: str, level: str
) -> None:
    name = game_name_of(family)
    response = await client.post(
        BASE, json={"game_name": name, "difficulty": level, "num_init_examples": "2"}
    )
    if response.status_code == 424:  # a game that needs a model must say so clearly; none is attached here
        assert "model" in assert_error(response, 424, None)["error"]
        pytest.skip(f"{name} needs a model to be created")
    assert response.status_code == 200, response.text
    gid = response.json()["game_uuid"]
    rule = rule_text(store, gid)
    seen = [response]
    seen.append(await client.get(f"{BASE}/{gid}/examples", params={"n_examples": 1}))
    seen.append(await client.get(f"{BASE}/{gid}"))
    seen.append(await client.get(f"{BASE}/{gid}", params={"include_rule": "false"}))
    seen.append(await client.get(f"{BASE}/{gid}", params={"include_rule": "true"}))
    seen.append(await client.get(f"/api/sessions/{gid}"))
    seen.append(await client.get(f"/api/sessions/{gid}/summary"))
    for r in seen:
        assert r.status_code in (200, 409), r.text
        assert rule not in r.text, f"{family}: the rule {rule!r} leaked before the end: {r.text[:300]}"
        # nor the seed that drew it (anyone can draw the same game again with it)
        assert r.status_code != 200 or r.json().get("seed") is None, (
            f"{family}: the seed leaked: {r.text[:300]}"
        )
    assert seen[4].status_code == 409
    # then to the end: the right rule, else give up, and more examples, until the game is over
    status = await finish(client, gid, rule)
    assert status in ("won", "lost")
    final = await client.get(f"{BASE}/{gid}", params={"include_rule": "true"})
    assert final.status_code == 200 and final.json()["rule"] == rule_object(store, gid)
    assert isinstance(final.json()["seed"], int)  # once over, the game can be replayed from its seed


async def finish(client: httpx.AsyncClient, gid: str, rule: str, *, limit: int = 40) -> str:
    """Play a game to its end with the published routes: the rule's own text, then give up, then more."""
    for attempt in range(limit):
        guess = rule if attempt == 0 else "give up"
        verdict = await client.post(f"{BASE}/validate_guess", json={"game_id": gid, "guess": guess})
        assert verdict.status_code == 200, verdict.text
        status: str = verdict.json()["status"]
        if status != "ongoing":
            return status
        more = await client.get(f"{BASE}/{gid}/examples", params={"n_examples": 10})
        assert more.status_code in (200, 422), more.text
    raise AssertionError(f"game {gid} did not end in {limit} guesses")
