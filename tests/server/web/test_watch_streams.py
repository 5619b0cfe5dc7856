"""Watch event streams are capped (issue 49, item 3): per server and per client (a remote address), over the cap a
429 or 503 with one line and ``Retry-After``, a place given back when a stream ends; the store is polled in a
thread, never on the event loop; ``wason serve --max-streams``/``--max-client-streams`` are bounded. And a watched
game with neither index nor seed is drawn at random (item 6), so no earlier run names its rule."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server import hidden_family
from tests.server.web.conftest import LiveServer
from tests.server.web.test_watch import decoded, wait_for
from wason.cli import main
from wason.core import registry, session
from wason.server.allowed import AllowedModels
from wason.server.web import watch
from wason.store import Store


def leased_run(store: Store) -> int:
    """A run another process is playing (running, its lease held): its events stream until it ends."""
    items = hidden_family.FAMILY.items(hidden_family.ModConfig(n=1))
    run_id = store.create_run(task=hidden_family.NAME, player="solver", model=None, config={}, items=items)
    store.acquire_lease(run_id, "elsewhere")
    return run_id


def client_from(address: str) -> httpx.Client:
    """A client whose connections come from ``address`` (any of 127.0.0.0/8 reaches the server on Linux)."""
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=30)


@contextlib.contextmanager
def following(http: httpx.Client, url: str) -> Iterator[httpx.Response]:
    """An event stream held open; its first event read, so the server has counted it."""
    with http.stream("GET", url) as response:
        if response.status_code == 200:
            lines = response.iter_lines()
            assert next(lines).startswith("retry:")
        yield response


def refusal(http: httpx.Client, url: str) -> httpx.Response:
    with http.stream("GET", url) as response:
        response.read()
        return response


def test_streams_over_the_caps_are_refused_and_a_get_is_still_served(live_server: LiveServer) -> None:
    watch.limit_streams(live_server.app, watch.StreamLimits(server=3, client=2))
    run_id = leased_run(live_server.store)
    url = f"{live_server.url}/watch/{run_id}/events"
    with contextlib.ExitStack() as held, client_from("127.0.0.1") as one, client_from("127.0.0.2") as two:
        for _ in range(2):
            assert held.enter_context(following(one, url)).status_code == 200
        # a third from the same client: over its own cap
        too_many = refusal(one, url)
        assert too_many.status_code == 429 and too_many.headers["retry-after"] == "5"
        body = too_many.json()
        assert body["kind"] == "busy" and "127.0.0.1" in body["error"] and "close one" in body["error"]
        # another client may still follow one, up to the server's cap
        assert held.enter_context(following(two, url)).status_code == 200
        full = refusal(two, url)
        assert full.status_code == 503 and full.headers["retry-after"] == "5"
        assert "this server already follows 3 event streams" in full.json()["error"]
        assert watch.streams(live_server.app).total == 3
        # the server answers meanwhile
        assert one.get(f"{live_server.url}/api/families").status_code == 200
        page = two.get(f"{live_server.url}/watch/{run_id}")
        assert page.status_code == 200 and "watch" in page.text
    # every stream closed by its client gives its place back
    wait_for(lambda: watch.streams(live_server.app).total == 0, "the places given back")
    with client_from("127.0.0.2") as two, following(two, url) as again:
        assert again.status_code == 200


def test_a_stream_that_ends_gives_its_place_back(live_server: LiveServer) -> None:
    watch.limit_streams(live_server.app, watch.StreamLimits(server=1, client=1))
    run_id = leased_run(live_server.store)
    live_server.store.set_run_status(run_id, "completed")  # over: its stream sends what there is, then ends
    url = f"{live_server.url}/watch/{run_id}/events"
    with client_from("127.0.0.1") as http:
        for _ in range(3):  # one at a time, each ended by the server: never refused
            response = http.get(url)
            assert response.status_code == 200 and "event: end" in response.text
    assert watch.streams(live_server.app).total == 0


def test_the_store_is_polled_off_the_event_loop(
    live_server: LiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    where: list[str] = []
    for name in ("_live", "_snapshot"):
        real = getattr(watch, name)

        def recorded(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
            where.append(threading.current_thread().name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(watch, name, recorded)
    run_id = leased_run(live_server.store)
    with client_from("127.0.0.1") as http, following(http, f"{live_server.url}/watch/{run_id}/events"):
        wait_for(lambda: len(where) >= 4, "a few polls")
    loop_thread = live_server.thread.name  # uvicorn's loop runs there
    assert where and loop_thread not in where, where
    assert all(name.startswith("wason-events") for name in where), where


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--max-streams", "0"], "--max-streams must be from 1 to 1,000, got 0"),
        (["--max-streams", "1001"], "--max-streams must be from 1 to 1,000"),
        (["--max-client-streams", "0"], "--max-client-streams must be from 1 to 1,000, got 0"),
    ],
)
def test_the_stream_caps_are_bounded_where_they_are_declared(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, flags: list[str], says: str
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["serve", "--port", str(port), "--db", str(tmp_path / "x.db"), *flags]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1
    with pytest.raises(ValueError, match="--max-streams"):
        watch.StreamLimits(server=True)  # not a number
    assert watch.StreamLimits() == watch.StreamLimits(
        watch.DEFAULT_MAX_STREAMS, watch.DEFAULT_MAX_CLIENT_STREAMS
    )


def test_serve_help_names_the_stream_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--max-streams" in out and "--max-client-streams" in out


# -- item 6: a watched game with neither index nor seed ----------------------------------------------------
def test_a_watched_game_without_index_or_seed_is_drawn_at_random(store: Store) -> None:
    """Always item 0 before: an ongoing watched game's rule was that of any earlier finished run of the form."""
    family = registry.get("wilt")
    form = {"family": "wilt", "cfg.split": "full", "player": "solver"}
    drawn = {watch._plan(family, form, store, AllowedModels()).item[0] for _ in range(30)}
    assert len(drawn) > 1  # 50 rules: thirty draws of one rule would be (1/50)**29
    first = watch._plan(family, {**form, "index": "0"}, store, AllowedModels()).item
    assert first == session.pick_item(
        family, family.prepare(family.config_type(split="full"), store), index=0
    )


def test_the_draw_comes_from_the_servers_own_random_source(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    family = registry.get("wilt")
    config = family.config_type(split="full", player="solver")
    count = family.item_count(config) or len(family.items(config))
    start = 10**15  # a seed no configuration holds by chance
    seed = next(s for s in range(start, start + 10_000) if random.Random(s).randrange(count) == 7)
    monkeypatch.setattr(watch, "_fresh_seed", lambda: seed, raising=False)
    form = {"family": "wilt", "cfg.split": "full", "player": "solver"}
    plan = watch._plan(family, form, store, AllowedModels())
    assert plan.item == session.pick_item(family, config, index=7)
    # the seed is not kept: the run records the item it drew, and nothing that names it
    assert str(seed) not in json.dumps(plan.config.model_dump(mode="json")) + json.dumps(plan.item)


@pytest.fixture
def held_players(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[threading.Event, threading.Event]]:
    """Paced players wait before their first move until the second event is set (the game stays on); the first
    is set once one waits there."""
    reached, event = threading.Event(), threading.Event()
    act = watch.Paced.act

    async def held(self: watch.Paced, observation: Any) -> Any:
        reached.set()
        await asyncio.to_thread(event.wait, 60)
        return await act(self, observation)

    monkeypatch.setattr(watch.Paced, "act", held)
    yield reached, event
    event.set()


def test_nothing_read_of_a_watched_game_under_way_names_its_rule(
    live_server: LiveServer, held_players: tuple[threading.Event, threading.Event]
) -> None:
    reached, release = held_players
    fields = {"family": "wilt", "cfg.split": "full", "player": "solver", "pace": "0.01"}
    started = httpx.post(f"{live_server.url}/watch", data=fields, follow_redirects=False, timeout=30)
    assert started.status_code == 303, started.text
    run_id = int(started.headers["location"].rsplit("/", 1)[1])
    (episode,) = live_server.store.list_episodes(run_id)
    rule = episode.item["rule"]
    # read once the player waits at its first move (made ready, the solver compiled its hypotheses)
    assert reached.wait(60)
    seen = [
        httpx.get(f"{live_server.url}/watch/{run_id}", timeout=30).text,
        httpx.get(f"{live_server.url}/runs/{run_id}", timeout=30).text,
    ]
    with (
        client_from("127.0.0.1") as http,
        http.stream("GET", f"{live_server.url}/watch/{run_id}/events") as r,
    ):
        text = ""
        for line in r.iter_lines():
            text += line + "\n"
            if line.startswith("event: run"):
                break
        seen.append(text)
    assert live_server.store.get_episode(episode.id).status != "completed"  # still on
    for page in seen:
        assert rule not in decoded(page) and episode.item_key not in page
    release.set()
    wait_for(lambda: live_server.store.get_run(run_id).status == "completed", "the run's end")
