"""A move is bounded like a request (issue 49, item 2): it is judged off the event loop by a bounded pool of move
workers, so other requests are answered meanwhile; moves on one game are applied one after the other in the order
they came, moves on different games at once up to the pool's size; a move that cannot start (too many under way,
or it waited too long) is a 503 with ``Retry-After`` and is not applied. No timing is asserted: moves are held on
events and the tests check what was answered meanwhile."""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tests.server import hidden_family
from wason.core import session
from wason.server import create_app, offload
from wason.store import Store

Mover = Callable[[httpx.AsyncClient, int, int], Awaitable[httpx.Response]]


async def start_mod(client: httpx.AsyncClient) -> int:
    response = await client.post("/api/sessions", json={"family": hidden_family.NAME, "index": 0})
    assert response.status_code == 201, response.text
    sid: int = response.json()["session"]
    return sid


async def start_published(client: httpx.AsyncClient) -> int:
    body = {"game_name": hidden_family.GAME_NAME, "difficulty": "L1", "num_init_examples": 2, "seed": 3}
    response = await client.post("/guess-the-rule/game", json=body)
    assert response.status_code == 200, response.text
    return int(response.json()["game_uuid"])


async def start_play(client: httpx.AsyncClient) -> int:
    form = {"family": hidden_family.NAME, "player": "ada", "seed": "1"}
    response = await client.post("/play", data=form, follow_redirects=False)
    assert response.status_code == 303, response.text
    return int(response.headers["location"].rsplit("/", 1)[1])


async def api_more(client: httpx.AsyncClient, sid: int, n: int) -> httpx.Response:
    return await client.post(f"/api/sessions/{sid}/step", json={"action": {"type": "More", "n": n}})


async def published_more(client: httpx.AsyncClient, sid: int, n: int) -> httpx.Response:
    return await client.get(f"/guess-the-rule/game/{sid}/examples", params={"n_examples": n})


async def play_more(client: httpx.AsyncClient, sid: int, n: int) -> httpx.Response:
    turn = (await client.get(f"/api/sessions/{sid}")).json()["turn"]
    form = {"move": "more", "turn": str(turn), "f_n": str(n)}
    return await client.post(f"/play/{sid}", data=form, follow_redirects=False)


ROUTES: dict[str, tuple[Callable[[httpx.AsyncClient], Awaitable[int]], Mover]] = {
    "api": (start_mod, api_more),
    "published": (start_published, published_more),
    "play": (start_play, play_more),
}


def moved(response: httpx.Response) -> None:
    assert response.status_code in (200, 303), response.text[-2000:]


async def until(check: Callable[[], bool], what: str) -> None:
    """Let the loop run until ``check()`` holds (a hang guard, not a timing check)."""
    for _ in range(60_000):
        if check():
            return
        await asyncio.sleep(0.001)
    raise AssertionError(f"never: {what}")


def stored(store: Store, sid: int) -> list[int]:
    return [t["action"]["n"] for t in store.list_turns(sid) if t["action"].get("type") == "More"]


@pytest.mark.parametrize("route", sorted(ROUTES))
async def test_a_slow_move_does_not_hold_other_requests(
    client: httpx.AsyncClient, store: Store, monkeypatch: pytest.MonkeyPatch, route: str
) -> None:
    """A move whose judging takes long (here: held in the game's own step, plain Python as a judge is) is applied
    off the event loop: another request is answered while it is still under way."""
    begin, step = ROUTES[route]
    sid = await begin(client)
    entered, release = threading.Event(), threading.Event()
    released: list[bool] = []
    loop_thread = threading.get_ident()  # the test's loop serves the app (ASGI transport)
    where: list[int] = []
    real = hidden_family.ModGame.step

    def slow(self: hidden_family.ModGame, action: Any) -> Any:
        if isinstance(action, hidden_family.More) and action.n == 7:
            where.append(threading.get_ident())
            entered.set()
            # on the loop this would hold every request until the timeout, and say so
            released.append(release.wait(timeout=10))
        return real(self, action)

    monkeypatch.setattr(hidden_family.ModGame, "step", slow)
    move = asyncio.create_task(step(client, sid, 7))
    assert await asyncio.to_thread(entered.wait, 30)
    families = await client.get("/api/families")  # answered while the move is still being judged
    assert families.status_code == 200 and families.json()["families"]
    assert not move.done()
    release.set()
    moved(await move)
    # the move was let go by the test, after the other request was answered (later calls: the game replayed to
    # show it, which judges the move again, off the loop too)
    assert released and all(released)
    assert where and loop_thread not in where
    assert stored(store, sid)[-1] == 7


@pytest.mark.parametrize("route", ["api", "published"])  # the play page refuses a form of an earlier turn
async def test_moves_on_one_game_are_applied_in_the_order_they_came(
    app: FastAPI, client: httpx.AsyncClient, store: Store, route: str
) -> None:
    begin, step = ROUTES[route]
    sid = await begin(client)
    hidden_family.GATES[sid] = gate = asyncio.Event()
    first = asyncio.create_task(step(client, sid, 1))
    await hidden_family.held(sid)  # the first move is being applied, and waits in the game's settle
    later = []
    for n in (2, 3, 4):
        later.append(asyncio.create_task(step(client, sid, n)))
        # each waits for the game's lock before the next is sent: the order they came in is known
        await until(lambda n=n: offload.moves_under_way(app) == (n, n - 1), f"move {n} waiting")  # type: ignore[misc]
    assert stored(store, sid) == []  # nothing applied while the first is held
    gate.set()
    for response in await asyncio.gather(first, *later):
        moved(response)
    assert stored(store, sid) == [1, 2, 3, 4]  # none lost, none reordered
    assert offload.moves_under_way(app) == (0, 0)


async def test_moves_on_different_games_run_at_once_up_to_the_pool_size(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(offload, "MOVE_WORKERS", 2)
    app = create_app(store)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        a, b, c = [await start_mod(client) for _ in range(3)]
        gates = {sid: asyncio.Event() for sid in (a, b)}
        hidden_family.GATES.update(gates)
        held = [asyncio.create_task(api_more(client, sid, 1)) for sid in (a, b)]
        for sid in (a, b):
            await hidden_family.held(sid)  # both are being applied at once
        third = asyncio.create_task(api_more(client, c, 1))
        await until(lambda: offload.moves_under_way(app) == (3, 1), "the third move waiting for a worker")
        await asyncio.sleep(0.05)
        assert stored(store, c) == []  # no worker free: it has not started
        gates[a].set()
        moved(await held[0])
        moved(await third)  # a worker was freed
        assert stored(store, c) == [1]
        gates[b].set()
        moved(await held[1])


async def test_a_move_beyond_the_bound_is_refused_and_not_applied(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(offload, "MOVE_WORKERS", 1)
    monkeypatch.setattr(offload, "MAX_MOVES", 2)
    app = create_app(store)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        a, b, c = [await start_mod(client) for _ in range(3)]
        hidden_family.GATES[a] = gate = asyncio.Event()
        held = asyncio.create_task(api_more(client, a, 1))
        await hidden_family.held(a)
        waiting = asyncio.create_task(api_more(client, b, 1))
        await until(lambda: offload.moves_under_way(app) == (2, 1), "the second move waiting")
        refused = await api_more(client, c, 1)
        assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
        body = refused.json()
        assert body["kind"] == "busy" and "not applied" in body["error"]
        published = await published_more(client, c, 1)  # the published routes say it in their shape
        assert published.status_code == 503 and "not applied" in published.json()["detail"]
        gate.set()
        moved(await held)
        moved(await waiting)
        assert stored(store, c) == []  # lost nothing: it was never applied
        moved(await api_more(client, c, 1))  # sent again, it is
        assert stored(store, c) == [1]


async def test_a_move_that_waits_too_long_to_start_is_refused_and_never_applied(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The clock only decides whether a move starts: one that waited past the bound is a 503, and is not
    applied later either when the worker frees."""
    monkeypatch.setattr(offload, "MOVE_WORKERS", 1)
    monkeypatch.setattr(offload, "MOVE_WAIT_SECONDS", 0.2)
    app = create_app(store)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
        a, b = [await start_mod(client) for _ in range(2)]
        hidden_family.GATES[a] = gate = asyncio.Event()
        held = asyncio.create_task(api_more(client, a, 1))
        await hidden_family.held(a)
        refused = await api_more(client, b, 1)  # the one worker is held until the test lets it go
        assert refused.status_code == 503 and "waited 0.2 s to start" in refused.json()["error"]
        gate.set()
        moved(await held)
        assert stored(store, a) == [1] and stored(store, b) == []
        assert offload.moves_under_way(app) == (0, 0)


async def test_a_move_whose_client_left_is_finished_before_the_next(
    app: FastAPI, client: httpx.AsyncClient, store: Store
) -> None:
    """A client that goes away while its move is applied does not free the game for the next move: the move is
    finished (and stored) first."""
    sid = await start_mod(client)
    hidden_family.GATES[sid] = gate = asyncio.Event()
    first = asyncio.create_task(api_more(client, sid, 1))
    await hidden_family.held(sid)
    second = asyncio.create_task(api_more(client, sid, 2))
    await until(lambda: offload.moves_under_way(app) == (2, 1), "the second move waiting")
    first.cancel()
    await asyncio.sleep(0.05)
    assert stored(store, sid) == []  # the second did not jump in while the first is still held
    gate.set()
    moved(await second)
    assert stored(store, sid) == [1, 2]


def test_wason_serve_applies_moves_in_worker_processes(
    tmp_path: Path, empty_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "moves.db"
    shutil.copyfile(empty_store, path)
    app = create_app(str(path))
    offload.use_processes(app, lanes=1, moves=2)

    async def not_here(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a move was applied in the server's own process")

    with TestClient(
        app, base_url="http://127.0.0.1"
    ) as web:  # its lifespan starts the workers and stops them
        deadline = time.monotonic() + 300
        while app.state.move_processes is None or not app.state.move_processes.warm_now:
            assert time.monotonic() < deadline, "the move workers did not start"  # a hang guard
            time.sleep(0.05)
        started = web.post("/api/sessions", json={"family": "wilt", "config": {"split": "lite"}, "index": 0})
        assert started.status_code == 201, started.text
        sid = started.json()["session"]
        monkeypatch.setattr(session, "step", not_here)
        monkeypatch.setattr(session, "view", not_here)
        test = {"action": {"type": "ProposeTest", "values": ["1", "2", "3"]}}
        stepped = web.post(f"/api/sessions/{sid}/step", json=test)
        assert stepped.status_code == 200, stepped.text
        assert stepped.json()["turn"] == 1
        assert web.get(f"/api/sessions/{sid}").json()["turn"] == 1
        # what a worker refuses is answered as the server's own refusal
        bad = web.post(f"/api/sessions/{sid}/step", json={"action": {"type": "Nope"}})
        assert bad.status_code == 422 and bad.json()["field"] == "action"
        guess = {"action": {"type": "FinalGuess", "expression": "lambda x, y, z: x < y < z"}}
        assert web.post(f"/api/sessions/{sid}/step", json=guess).status_code == 200
        over = web.post(f"/api/sessions/{sid}/step", json=test)
        assert over.status_code == 409 and over.json()["kind"] == "conflict"
        pool = app.state.move_processes
    assert app.state.move_processes is None
    with pytest.raises(RuntimeError):  # stopped with the app
        pool._executor.submit(int)
