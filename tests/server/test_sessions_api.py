"""The generic sessions API under ``/api/``, over every registered family (and the test families)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.core.test_family_contract import CHEAP, TEST_FAMILIES
from tests.core.test_family_contract import load as load_family
from tests.server import hidden_family
from tests.server.test_routes import assert_error
from wason.core import registry, session
from wason.core.family import Family
from wason.store import Store

FAMILIES = sorted({*registry.names(), *TEST_FAMILIES, hidden_family.NAME})
MAX_STEPS = 80


@pytest.fixture
def registered(request: pytest.FixtureRequest) -> Iterator[Family[Any]]:
    """The family named by the test's parameter, registered for the test when it is a test family."""
    name: str = request.param
    if name == hidden_family.NAME:
        yield hidden_family.FAMILY
        return
    family = load_family(name)
    added = name not in registry.names()
    if added:
        registry.register(family)
    yield family
    if added:
        registry.unregister(name)


async def test_the_family_list(client: httpx.AsyncClient) -> None:
    families = {f["name"]: f for f in (await client.get("/api/families")).json()["families"]}
    assert set(registry.names()) <= set(families)
    mod = families[hidden_family.NAME]
    assert mod["fields"] == ["seed", "n", "level", "init", "needs_model"]
    assert mod["game_name"] == hidden_family.GAME_NAME and mod["levels"] == ["L1", "L2", "L3"]
    assert mod["config_schema"]["properties"]["level"]["enum"] == ["L1", "L2", "L3"]
    for f in families.values():
        assert "player" not in f["fields"] and "base_url" not in f["fields"], f["name"]
        assert not [n for n in f["fields"] if n.endswith("_file")], f["name"]


async def test_a_client_cannot_make_the_server_read_its_files(
    client: httpx.AsyncClient, tmp_path: Any
) -> None:
    secret = tmp_path / "rules.txt"
    secret.write_text("lambda x, y, z: x < y  # private\n", encoding="utf-8")
    body = {"family": "wilt", "config": {"split": "file", "rules_file": str(secret)}}
    response = await client.post("/api/sessions", json=body)
    assert_error(response, 422, "config.rules_file")
    assert "private" not in response.text


@pytest.mark.parametrize("registered", FAMILIES, indirect=True)
async def test_every_family_plays_through_the_api_without_showing_its_rule(
    client: httpx.AsyncClient, store: Store, registered: Family[Any]
) -> None:
    family = registered
    start = await client.post(
        "/api/sessions", json={"family": family.name, "config": CHEAP.get(family.name, {}), "index": 0}
    )
    if start.status_code != 201:  # a family that cannot start here (it needs a model) must say so clearly
        assert_error(start, start.status_code, None)
        assert 400 <= start.status_code < 500
        pytest.skip(f"{family.name} does not start without a model: {start.json()['error']}")
    sid = start.json()["session"]
    _, config, episode, _ = await session.load(store, sid)
    item = episode.item
    public = set(family.public(item))
    hidden = {k: v for k, v in item.items() if k not in public}
    assert hidden, f"{family.name}: every key of its item is public, so nothing hides the rule"
    api = family.game_api()
    rule = api.rule_text(item) if api is not None else None
    script = family.sample_actions(config, item)
    solver = None if script is not None else family.solver(config, item)
    assert script is not None or solver is not None, f"{family.name} has neither a solver nor a script"

    def check(response: httpx.Response) -> dict[str, Any]:
        assert response.status_code in (200, 201), response.text
        body: dict[str, Any] = response.json()
        if not body["done"]:
            assert set(body["item"]) <= public, f"{family.name} showed {set(body['item']) - public}"
            if rule is not None:
                assert rule not in response.text, f"{family.name}: the rule leaked: {response.text[:300]}"
        return body

    view = check(start)
    check(await client.get(f"/api/sessions/{sid}"))
    check(await client.get(f"/api/sessions/{sid}/summary"))
    for n in range(MAX_STEPS):
        if view["done"]:
            break
        if script is not None:
            if n >= len(script):
                break
            action = script[n]
        else:
            assert solver is not None
            _, _, _, live = await session.load(store, sid)
            action = (await solver.act(live.observation)).action
        view = check(
            await client.post(f"/api/sessions/{sid}/step", json={"action": family.actions.encode(action)})
        )
    assert view["done"], f"{family.name} did not end in {MAX_STEPS} steps"
    summary = (await client.get(f"/api/sessions/{sid}/summary")).json()
    # once over, the whole item is shown (so the checks above could have caught it)
    assert summary["item"] == json.loads(json.dumps(item)) and summary["success"] is not None
    again = await client.post(f"/api/sessions/{sid}/step", json={"action": family.actions.encode(action)})
    assert_error(again, 409, "session")


# -- hostile input ---------------------------------------------------------------------------------------
async def start_mod(client: httpx.AsyncClient, **config: Any) -> int:
    response = await client.post("/api/sessions", json={"family": hidden_family.NAME, "config": config})
    assert response.status_code == 201, response.text
    sid: int = response.json()["session"]
    return sid


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"family": "no_such_family"}, 422, "family"),
        ({"family": 3}, 422, "family"),
        ({}, 422, "family"),
        ({"family": hidden_family.NAME, "config": {"colour": 1}}, 422, "config.colour"),
        ({"family": hidden_family.NAME, "config": {"model": "openai:gpt-4o"}}, 422, "config.model"),
        ({"family": hidden_family.NAME, "config": {"n": "many"}}, 422, "config.n"),
        ({"family": hidden_family.NAME, "config": {"n": 0}}, 422, "config.n"),
        ({"family": hidden_family.NAME, "config": {"level": "L7"}}, 422, "config.level"),
        ({"family": hidden_family.NAME, "config": []}, 422, "config"),
        ({"family": hidden_family.NAME, "index": 5}, 422, "index"),
        ({"family": hidden_family.NAME, "index": -1}, 422, "index"),
        ({"family": hidden_family.NAME, "index": "0"}, 422, "index"),
        ({"family": hidden_family.NAME, "index": 0, "seed": 1}, 422, "index"),
        ({"family": hidden_family.NAME, "colour": 1}, 422, "colour"),
    ],
)
async def test_start_refuses_bad_input(
    client: httpx.AsyncClient, body: dict[str, Any], status: int, field: str
) -> None:
    assert_error(await client.post("/api/sessions", json=body), status, field)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "action"),
        ({"action": {"type": "More", "n": 1}, "text": "MORE 1"}, "action"),
        ({"action": {"type": "Fly"}}, "action"),
        ({"action": {"type": "More", "n": "lots"}}, "action"),
        ({"action": {"n": 1}}, "action"),
        ({"action": "More"}, "action"),
        ({"text": "what is this"}, "action"),
        ({"text": 5}, "text"),
        ({"text": "x" * 100_001}, "text"),
    ],
)
async def test_step_refuses_bad_moves(
    client: httpx.AsyncClient, store: Store, body: dict[str, Any], field: str
) -> None:
    sid = await start_mod(client)
    assert_error(await client.post(f"/api/sessions/{sid}/step", json=body), 422, field)
    assert store.list_turns(sid) == []


async def test_a_text_reply_is_read_by_the_protocol(client: httpx.AsyncClient, store: Store) -> None:
    sid = await start_mod(client)
    view = (await client.post(f"/api/sessions/{sid}/step", json={"text": "MORE 3"})).json()
    assert view["turn"] == 1 and view["observation"]["kind"] == "examples"
    assert len(view["observation"]["positives"]) == 3
    assert store.list_turns(sid)[0]["reply"] == "MORE 3"


@pytest.mark.parametrize("sid", ["999999", "abc", "-1", "1.0"])
async def test_unknown_sessions_are_404(client: httpx.AsyncClient, sid: str) -> None:
    assert_error(await client.get(f"/api/sessions/{sid}"), 404, "session")
    assert_error(await client.get(f"/api/sessions/{sid}/summary"), 404, "session")
    response = await client.post(f"/api/sessions/{sid}/step", json={"text": "MORE 1"})
    assert_error(response, 404, "session")


async def test_a_move_that_needs_a_model_is_424(client: httpx.AsyncClient, store: Store) -> None:
    sid = await start_mod(client, needs_model=True)
    response = await client.post(f"/api/sessions/{sid}/step", json={"action": {"type": "Guess", "text": "x"}})
    body = assert_error(response, 424, "action")
    assert "model" in body["error"]
    assert store.list_turns(sid) == []
    ok = await client.post(f"/api/sessions/{sid}/step", json={"action": {"type": "More", "n": 1}})
    assert ok.status_code == 200
