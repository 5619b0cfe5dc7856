"""Pages of other origins on the published routes (``wason serve --allow-origin``), the reference's error shape
there (a string ``detail``), and ``GET /guess-the-rule/llm-gameplay`` (a model's game, streamed as JSON lines)."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from tests.fakes.openai_server import FakeOpenAIServer
from tests.server import hidden_family
from wason.cli import main
from wason.server import AllowedModels, create_app, guard
from wason.server.gameplay import MAX_TURNS, MEDIA_TYPE
from wason.store import Store

BASE = "/guess-the-rule"
APP = "http://127.0.0.1:5173"  # the reference app's page, served from another origin
CREATE = {
    "game_name": hidden_family.GAME_NAME,
    "difficulty": "L1",
    "player": "user",
    "num_init_examples": "2",
}
# what a browser adds to the reference app's fetches from APP
FROM_APP = {"origin": APP, "sec-fetch-site": "same-site", "content-type": "application/json"}
ELSEWHERE = {
    "origin": "http://evil.example",
    "sec-fetch-site": "cross-site",
    "content-type": "application/json",
}


def allowing(app: FastAPI, *origins: str) -> FastAPI:
    guard.configure(app, guard.policy(guard.LOOPBACK, guard.DEFAULT_MAX_BODY, origins))
    return app


@pytest.fixture
async def cors_client(store: Store) -> AsyncIterator[httpx.AsyncClient]:
    app = allowing(create_app(store), APP)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        yield c


# -- CORS --------------------------------------------------------------------------------------------------
async def test_a_preflight_from_an_allowed_origin_is_answered(cors_client: httpx.AsyncClient) -> None:
    for path, method in [
        (f"{BASE}/game", "POST"),
        (f"{BASE}/game/12", "GET"),
        (f"{BASE}/llm-gameplay", "GET"),
    ]:
        headers = {
            "origin": APP,
            "access-control-request-method": method,
            "access-control-request-headers": "content-type",
        }
        response = await cors_client.options(path, headers=headers)
        assert response.status_code == 204, (path, response.text)
        assert response.headers["access-control-allow-origin"] == APP
        assert method in response.headers["access-control-allow-methods"]
        assert response.headers["access-control-allow-headers"].lower() == "content-type"
        assert "origin" in response.headers["vary"].lower()


async def test_the_app_plays_from_its_own_origin(cors_client: httpx.AsyncClient) -> None:
    created = await cors_client.post(f"{BASE}/game", json=CREATE, headers=FROM_APP)
    assert created.status_code == 200, created.text
    assert created.headers["access-control-allow-origin"] == APP
    gid = created.json()["game_uuid"]
    # the app sends Content-Type: application/json on its GETs too
    more = await cors_client.get(f"{BASE}/game/{gid}/examples", params={"n_examples": 1}, headers=FROM_APP)
    assert more.status_code == 200 and more.headers["access-control-allow-origin"] == APP
    cross = {**FROM_APP, "sec-fetch-site": "cross-site"}  # another port is same-site; another name cross-site
    guess = await cors_client.post(
        f"{BASE}/game/validate_guess", json={"game_id": gid, "guess": "wrong"}, headers=cross
    )
    assert guess.status_code == 200 and guess.headers["access-control-allow-origin"] == APP
    loaded = await cors_client.get(f"{BASE}/game/{gid}", headers=FROM_APP)
    assert loaded.status_code == 200 and loaded.headers["access-control-allow-origin"] == APP
    # an error reaches the app readable, with the CORS header and a string detail
    bad = await cors_client.get(f"{BASE}/game/{gid}/examples", params={"n_examples": 0}, headers=FROM_APP)
    assert bad.status_code == 422 and bad.headers["access-control-allow-origin"] == APP
    assert isinstance(bad.json()["detail"], str) and "n_examples" in bad.json()["detail"]


async def test_other_origins_and_other_routes_stay_same_origin(cors_client: httpx.AsyncClient) -> None:
    preflight = {"origin": "http://evil.example", "access-control-request-method": "POST"}
    response = await cors_client.options(f"{BASE}/game", headers=preflight)
    assert response.status_code == 405 and "access-control-allow-origin" not in response.headers
    response = await cors_client.post(f"{BASE}/game", json=CREATE, headers=ELSEWHERE)
    assert response.status_code == 403 and "access-control-allow-origin" not in response.headers
    assert response.json()["detail"] == guard.CROSS_SITE
    # /api/ is not a published route: the allowed origin may not write there
    session = {"family": hidden_family.NAME, "config": {}, "index": 0}
    response = await cors_client.post(
        "/api/sessions", json=session, headers={**FROM_APP, "sec-fetch-site": "cross-site"}
    )
    assert response.status_code == 403 and "access-control-allow-origin" not in response.headers
    assert isinstance(response.json()["detail"], list)  # /api/ keeps its documented shape
    response = await cors_client.options(
        "/api/sessions", headers={"origin": APP, "access-control-request-method": "POST"}
    )
    assert "access-control-allow-origin" not in response.headers


async def test_any_origin(store: Store) -> None:
    app = allowing(create_app(store), "*")
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        response = await c.post(f"{BASE}/game", json=CREATE, headers=ELSEWHERE)
        assert response.status_code == 200 and response.headers["access-control-allow-origin"] == "*"
        # the Host check still holds for an allowed origin (DNS rebinding), its answer readable by the page
        response = await c.post(f"{BASE}/game", json=CREATE, headers={**ELSEWHERE, "host": "evil.example"})
        assert response.status_code == 400 and response.headers["access-control-allow-origin"] == "*"
        assert "evil.example" in response.json()["detail"]


async def test_without_allowed_origins_nothing_changes(client: httpx.AsyncClient) -> None:
    preflight = {"origin": APP, "access-control-request-method": "POST"}
    response = await client.options(f"{BASE}/game", headers=preflight)
    assert response.status_code == 405 and "access-control-allow-origin" not in response.headers
    response = await client.post(f"{BASE}/game", json=CREATE, headers=FROM_APP)
    assert response.status_code == 403


@pytest.mark.parametrize(
    ("origins", "message"),
    [
        (["http://localhost:8080/"], "is not an origin"),
        (["http://localhost:8080/app"], "is not an origin"),
        (["ftp://localhost"], "is not an origin"),
        (["localhost:8080"], "is not an origin"),
        (["null"], "is not an origin"),
        (["http://" + "a" * 400], "longer than"),
        ([f"http://h{i}.test" for i in range(guard.MAX_ALLOWED_ORIGINS + 1)], "at most"),
    ],
)
def test_allow_origin_is_bounded_and_checked(origins: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        guard.policy(guard.LOOPBACK, guard.DEFAULT_MAX_BODY, origins)


def test_a_bad_allow_origin_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as probe:  # a port free now, so the address check passes and the origin's is reached
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    code = main(["serve", "--port", str(port), "--allow-origin", "localhost:8080"])
    err = capsys.readouterr().err
    assert code != 0 and "--allow-origin 'localhost:8080' is not an origin" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_origins_are_compared_as_browsers_send_them() -> None:
    rules = guard.policy(
        guard.LOOPBACK, guard.DEFAULT_MAX_BODY, ["HTTP://LocalHost:8080", "https://app.test"]
    )
    assert guard.cors_allowed(rules, b"http://localhost:8080")
    assert guard.cors_allowed(rules, b"https://app.test") and guard.cors_allowed(
        rules, b"https://app.test:443"
    )
    assert not guard.cors_allowed(rules, b"http://localhost:8081")
    assert not guard.cors_allowed(rules, b"http://app.test")
    assert not guard.cors_allowed(rules, b"null")


# -- errors of the published routes ----------------------------------------------------------------------
async def test_published_errors_have_a_string_detail_and_api_errors_a_list(client: httpx.AsyncClient) -> None:
    bad = await client.post(f"{BASE}/game", json={**CREATE, "difficulty": "L9"})
    body = bad.json()
    assert bad.status_code == 422 and isinstance(body["detail"], str) and body["detail"]
    assert body["field"] == "difficulty" and body["kind"] == "invalid" and "difficulty" in body["detail"]
    invalid = await client.post(f"{BASE}/game", json={"game_name": 3})
    assert invalid.status_code == 422 and isinstance(invalid.json()["detail"], str)
    missing = await client.get(f"{BASE}/game/999999")
    assert missing.status_code == 404 and isinstance(missing.json()["detail"], str)
    api = await client.post("/api/sessions", json={"family": "nope"})
    assert api.status_code == 422 and isinstance(api.json()["detail"], list)
    assert api.json()["detail"][0]["loc"] == ["family"]


# -- the llm gameplay ------------------------------------------------------------------------------------
GAMEPLAY = {
    "game_name": hidden_family.GAME_NAME,
    "difficulty": "l1",
    "player": "gpt-4o",
    "num_init_examples": "2",
}


async def test_llm_gameplay_without_a_model_is_a_424(client: httpx.AsyncClient) -> None:
    response = await client.get(f"{BASE}/llm-gameplay", params=GAMEPLAY)
    assert response.status_code == 424 and isinstance(response.json()["detail"], str)
    assert "--model" in response.json()["detail"]


def _lines(text: str) -> list[dict[str, Any]]:
    assert text.endswith("\n")
    return [json.loads(line) for line in text.split("\n") if line]  # as the reference app splits them


async def test_llm_gameplay_streams_a_recorded_bounded_game(store: Store) -> None:
    asked: list[str] = []

    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        asked.append(body["model"])
        return "MORE 1"  # never a guess: the game goes on until the turn limit gives it up

    with FakeOpenAIServer(reply=reply) as fake:
        models = AllowedModels.configure([("openai:fake-model", fake.base_url)])
        app = allowing(create_app(store, models=models), APP)
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1", timeout=60) as c,
        ):
            # a request may not name a model the operator did not allow: it plays the operator's
            response = await c.get(f"{BASE}/llm-gameplay", params=GAMEPLAY, headers=FROM_APP)
            assert response.status_code == 200, response.text
            assert response.headers["content-type"].startswith(MEDIA_TYPE)
            assert response.headers["access-control-allow-origin"] == APP
            messages = _lines(response.text)
    assert set(asked) == {"fake-model"}
    assert [m["id"] for m in messages] == list(range(1, len(messages) + 1))
    users = [m for m in messages if m["sender"] == "USER"]
    assert len(users) == MAX_TURNS == len(asked)  # bounded: then given up
    assert "game over!" in messages[-1]["content"].lower()
    run_id = int(response.headers["x-wason-run"])
    (episode,) = store.list_episodes(run_id)
    rule = f"x % {episode.item['k']} == {episode.item['r']}"
    assert all(rule not in m["content"] for m in messages[:-1]) and rule in messages[-1]["content"]
    turns = store.list_turns(episode.id)
    assert [t["reply"] for t in turns][: len(users)] == [m["content"] for m in users]
    assert episode.status == "completed" and not episode.success


async def test_llm_gameplay_is_not_started_by_another_site(store: Store) -> None:
    with FakeOpenAIServer() as fake:
        models = AllowedModels.configure([("openai:fake-model", fake.base_url)])
        app = create_app(store, models=models)
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
            # an <img> on another site's page: no Origin, Sec-Fetch-Site cross-site (or same-site: another port)
            for site in ("cross-site", "same-site"):
                response = await c.get(
                    f"{BASE}/llm-gameplay", params=GAMEPLAY, headers={"sec-fetch-site": site}
                )
                assert response.status_code == 403 and isinstance(response.json()["detail"], str)
            from wason.server.web import auth

            auth.protect(app, "s3cret")
            response = await c.get(f"{BASE}/llm-gameplay", params=GAMEPLAY)
            assert response.status_code == 401 and isinstance(response.json()["detail"], str)
        assert fake.requests == 0
        assert store.list_runs() == []
