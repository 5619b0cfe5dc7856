"""Watch: a run started from the page plays in the server and its turns arrive as server-sent events; a run can
be stopped (left interrupted, resumable); a crashed run shows as errored; nothing of the hidden rule is sent
before its episode ends."""

from __future__ import annotations

import asyncio
import html
import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.server.web.conftest import LiveServer
from wason.core import registry
from wason.server.web import watch

SOLVER_GAME = {"family": "wilt", "cfg.split": "lite", "cfg.ids": "1", "player": "solver", "index": "0"}
LISTS_GAME = {"family": "lists", "cfg.ids": "1", "cfg.labeller": "llm", "player": "solver", "index": "0"}


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Paced players (any run started with a pause) make two moves, then wait until the event is set."""
    event = threading.Event()
    moves = {"n": 0}
    act = watch.Paced.act

    async def held(self: watch.Paced, observation: Any) -> Any:
        moves["n"] += 1
        if moves["n"] > 2:
            await asyncio.to_thread(event.wait, 60)
        return await act(self, observation)

    monkeypatch.setattr(watch.Paced, "act", held)
    yield event
    event.set()


def start(live: LiveServer, fields: dict[str, str]) -> int:
    """POST the form as a browser does; the run's id from the redirect."""
    r = httpx.post(f"{live.url}/watch", data=fields, follow_redirects=False, timeout=30)
    assert r.status_code == 303, r.text
    return int(r.headers["location"].rsplit("/", 1)[1])


def events(live: LiveServer, run_id: int, *, until: int | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Read the run's event stream: to its end, or until ``until`` turn events have arrived."""
    out: list[tuple[str, dict[str, Any]]] = []
    with httpx.stream("GET", f"{live.url}/watch/{run_id}/events", timeout=60) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        name = ""
        for line in r.iter_lines():
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                out.append((name, json.loads(line[6:])))
                if until is not None and sum(n == "turn" for n, _ in out) >= until:
                    return out
    return out


def wait_for(check: Any, what: str, within: float = 30) -> None:
    deadline = time.monotonic() + within
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {within} s")
        time.sleep(0.05)


def decoded(page: str) -> str:
    """A page's text with HTML entities and JSON escapes undone, so a rule hidden by escaping is still found."""
    return html.unescape(page).encode().decode("unicode_escape", errors="ignore")


def test_a_solver_run_is_watched_live_in_a_browser(
    live_server: LiveServer, browser_page: Any, gate: threading.Event
) -> None:
    page = browser_page
    page.goto(f"{live_server.url}/watch")
    page.select_option("#family", "wilt")  # the form reloads with the family's options
    page.wait_for_selector("#watch-form")
    page.fill("[name='cfg.ids']", "1")
    page.check("#player-solver")
    page.fill("#pace", "0.01")
    page.click("#start")
    page.wait_for_url(f"{live_server.url}/watch/*")
    run_id = int(page.url.rsplit("/", 1)[1])
    (episode,) = live_server.store.list_episodes(run_id)
    # the player waits after two moves: the page shows them, and the run still playing
    page.wait_for_selector(f"#turn-{episode.id}-1")
    assert page.locator("#run-status").text_content() == "running"
    assert page.locator("#stop").is_visible()
    assert page.locator(f"#turns-{episode.id} tr").count() == 2
    assert "rule" not in page.locator(f"#ep-{episode.id}").text_content()
    gate.set()  # every later turn reaches the page by the event stream only
    page.wait_for_selector("body[data-watch='ended']")
    turns = live_server.store.list_turns(episode.id)
    assert len(turns) > 2
    assert page.locator(f"#turns-{episode.id} tr").count() == len(turns)
    assert page.locator("#run-status").text_content() == "completed"
    assert page.locator(f"#ep-status-{episode.id}").text_content() == "completed"
    assert page.locator(f"#ep-result-{episode.id} .good").text_content() == "Solved"
    assert page.locator(f"#ep-verdict-{episode.id}").text_content() == "solved"  # beside the game's title
    rule = live_server.store.get_episode(episode.id).item["rule"]
    assert rule in page.locator(f"#ep-result-{episode.id}").text_content()  # shown once the game is over
    assert not page.locator("#stop").is_visible()
    assert live_server.store.get_run(run_id).status == "completed"


def test_a_watched_run_plays_in_a_thread_of_its_own(
    live_server: LiveServer, gate: threading.Event, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The solver's moves (pure Python) are made off the server's event loop: while the player is held mid-run,
    the server answers; and Stop reaches the run in its own loop."""
    threads: list[str] = []
    act = watch.Paced.act

    async def recorded(self: watch.Paced, observation: Any) -> Any:
        threads.append(threading.current_thread().name)
        return await act(self, observation)

    monkeypatch.setattr(watch.Paced, "act", recorded)
    run_id = start(live_server, {**SOLVER_GAME, "pace": "0.01"})
    wait_for(lambda: len(threads) >= 3, "the player moved twice and waits")
    assert set(threads) == {f"wason-watch-{run_id}"}  # never uvicorn's thread
    assert httpx.get(f"{live_server.url}/api/families", timeout=30).status_code == 200  # answered meanwhile
    stopped = httpx.post(f"{live_server.url}/watch/{run_id}/stop", timeout=30)
    assert stopped.status_code == 200 and stopped.json()["status"] == "interrupted"
    gate.set()  # the held move's worker thread ends; then the run's thread ends with its loop
    watched = watch.watches(live_server.app).runs[run_id]
    wait_for(lambda: not watched.active, "the run's thread ended")
    assert live_server.store.get_run(run_id).status == "interrupted"


def test_no_rule_is_sent_before_the_episode_ends(live_server: LiveServer, gate: threading.Event) -> None:
    run_id = start(live_server, {**SOLVER_GAME, "pace": "0.01"})
    (episode,) = live_server.store.list_episodes(run_id)
    rule = episode.item["rule"]
    early = events(live_server, run_id, until=2)
    assert [n for n, _ in early].count("turn") == 2
    text = json.dumps(early)
    assert rule not in text and "rule" not in text
    for name, data in early:
        if name == "episode":
            assert set(data["item"]) <= set(registry.get("wilt").public(episode.item))
            assert "rule" not in data["item"] and data["metrics"] is None and data["success"] is None
    page = httpx.get(f"{live_server.url}/watch/{run_id}", timeout=30).text
    assert rule not in decoded(page)
    gate.set()
    done = events(live_server, run_id)
    assert done[-1] == ("end", {"run": run_id, "status": "completed"})
    last = [d for n, d in done if n == "episode"][-1]
    assert last["status"] == "completed" and last["item"]["rule"] == rule  # the check above could fail


def test_stopping_a_slow_model_run_leaves_it_interrupted(
    live_server_factory: Callable[..., LiveServer], browser_page: Any
) -> None:
    with FakeOpenAIServer(fail_share=1.0, fail_kinds=["delay"], delay=30) as fake:
        live_server = live_server_factory(models=[("openai:fake-model", fake.base_url)])
        run_id = start(
            live_server,
            {
                "family": "wilt",
                "cfg.ids": "1",
                "player": "model",
                "model": "openai:fake-model",
                "base_url": fake.base_url,
                "index": "0",
            },
        )
        page = browser_page
        page.goto(f"{live_server.url}/watch/{run_id}")
        wait_for(lambda: fake.requests >= 1, "the model was asked")
        page.click("#stop")
        page.wait_for_selector("#run-resume:not([hidden])")
        assert page.locator("#run-status").text_content() == "interrupted"
        assert f"wason eval --resume {run_id}" in page.locator("#run-resume").text_content()
    run = live_server.store.get_run(run_id)
    assert run.status == "interrupted" and run.owner is None  # resumable: nobody holds it
    assert [e.status for e in live_server.store.list_episodes(run_id)] != ["completed"]
    again = httpx.post(f"{live_server.url}/watch/{run_id}/stop", timeout=30)
    assert again.status_code == 409 and "not being played" in again.json()["error"]


def test_a_crashed_model_run_shows_as_errored(
    live_server_factory: Callable[..., LiveServer], browser_page: Any
) -> None:
    with FakeOpenAIServer(fail_share=1.0, fail_kinds=[500]) as fake:
        live_server = live_server_factory(models=[("openai:fake-model", fake.base_url)])
        run_id = start(
            live_server,
            {
                "family": "wilt",
                "cfg.ids": "1",
                "player": "model",
                "model": "openai:fake-model",
                "base_url": fake.base_url,
                "retries": "0",
            },
        )
        page = browser_page
        page.goto(f"{live_server.url}/watch/{run_id}")
        page.wait_for_selector("body[data-watch='ended']")
    (episode,) = live_server.store.list_episodes(run_id)
    assert episode.status == "errored"
    result = page.locator(f"#ep-result-{episode.id} .error").text_content()
    assert result.startswith("Errored: ") and "500" in result and "Traceback" not in result
    assert page.locator(f"#ep-status-{episode.id}").text_content() == "errored"


def test_a_run_that_fails_before_playing_shows_why(live_server_factory: Callable[..., LiveServer]) -> None:
    """An endpoint nobody listens on: the check before the run fails; the episode says so, the stream ends."""
    with FakeOpenAIServer() as fake:
        gone = fake.base_url
    live_server = live_server_factory(models=[("openai:fake-model", gone)])
    run_id = start(
        live_server,
        {"family": "wilt", "cfg.ids": "1", "player": "model", "model": "openai:fake-model", "base_url": gone},
    )
    done = events(live_server, run_id)
    assert done[-1][0] == "end"
    run = [d for n, d in done if n == "run"][-1]
    assert run["error"] and not run["live"]
    (episode,) = live_server.store.list_episodes(run_id)
    assert episode.status == "errored" and episode.error == run["error"]
    assert live_server.store.get_run(run_id).status == "incomplete"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"family": "nope"}, "choose a family"),
        ({**SOLVER_GAME, "index": "0", "seed": "3"}, "index or a seed, not both"),
        ({**SOLVER_GAME, "index": "99"}, "index: from 0 to 0"),
        ({**SOLVER_GAME, "cfg.max_tests": "many"}, "max_tests: expected a number"),
        ({**SOLVER_GAME, "player": "local-file"}, "player: one of"),
        (
            {**SOLVER_GAME, "player": "model", "model": "local:/etc/passwd.gguf"},
            "not a model this server allows",
        ),
        ({**SOLVER_GAME, "player": "model", "model": "nosuch:thing"}, "nosuch"),
        (
            {**SOLVER_GAME, "player": "model", "model": "openai:gpt-4o"},
            "model: 'openai:gpt-4o' is not a model",
        ),
        ({**LISTS_GAME, "cfg.judge_model": "openai:gpt-x"}, "cfg.judge_model: 'openai:gpt-x' is not a model"),
        ({**LISTS_GAME, "cfg.judge_base_url": "http://127.0.0.1:9/v1"}, "cfg.judge_base_url: an address"),
        (
            {**LISTS_GAME, "cfg.judge_model": "local", "cfg.judge_base_url": "http://127.0.0.1:9/v1"},
            "cfg.judge_base_url: this server sends local:smollm2-135m only to",
        ),
        ({**SOLVER_GAME, "pace": "99"}, "pace: from 0 to 10"),
    ],
)
async def test_a_bad_form_is_one_message(
    client: httpx.AsyncClient, fields: dict[str, str], message: str
) -> None:
    r = await client.post("/watch", data=fields, headers={"accept": "text/html"})
    assert r.status_code == 422
    assert message in html.unescape(r.text)
    assert "Traceback" not in r.text


async def test_the_form_offers_the_family_options(client: httpx.AsyncClient) -> None:
    r = await client.get("/watch?family=wilt")
    assert r.status_code == 200
    assert 'name="cfg.max_tests"' in r.text and 'name="cfg.split"' in r.text
    assert "cfg.rules_file" not in r.text  # a field naming a file on the server is not offered
    assert (await client.get("/watch?family=nope")).status_code == 404
    missing = await client.get("/watch/12345", headers={"accept": "text/html"})
    assert missing.status_code == 404 and "no run 12345" in missing.text


def test_a_test_swap_started_from_the_page_takes_its_source_runs_tests(live_server: LiveServer) -> None:
    source = start(live_server, {**SOLVER_GAME, "cfg.ids": "2"})
    events(live_server, source)  # to its end
    fields = {**SOLVER_GAME, "cfg.ids": "", "cfg.protocol": "testswap", "cfg.tests_from": str(source)}
    run_id = start(live_server, fields)
    done = events(live_server, run_id)
    assert done[-1] == ("end", {"run": run_id, "status": "completed"})
    stored = live_server.store.get_run(run_id).config
    assert [s["key"] for s in stored["swap"]] == ["lite/2"]  # prepared from the store before the run was made
    (episode,) = live_server.store.list_episodes(run_id)
    assert episode.item_key == "lite/2" and episode.success is True


def test_a_test_swap_from_a_missing_run_is_one_message(live_server: LiveServer) -> None:
    fields = {**SOLVER_GAME, "cfg.ids": "", "cfg.protocol": "testswap", "cfg.tests_from": "999"}
    r = httpx.post(f"{live_server.url}/watch", data=fields, headers={"accept": "text/html"}, timeout=30)
    assert r.status_code == 422 and "no run 999" in html.unescape(r.text) and "Traceback" not in r.text
