"""Pages are built off the event loop (issue 35): their builders never run on the loop's thread, a trivial request
is answered while a page is held mid-build, first visits of one run at once draw its figures once and all
succeed, and ``wason serve`` builds them in a worker process. No timing is asserted: a page is held on an event
and the test checks what was answered meanwhile."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import re
import shutil
import signal
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from wason.cli import main
from wason.server import create_app, offload
from wason.server.web import browse
from wason.store import Store

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory, empty_store: Path) -> Iterator[tuple[Path, list[int]]]:
    """A store with two finished solver runs (pages with figures), read by every test (none writes it)."""
    path = tmp_path_factory.mktemp("offloop") / "runs.db"
    shutil.copyfile(empty_store, path)
    ids = []
    for rules in ("1,2", "3"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            argv = ["eval", "wilt", "--player", "solver", "--split", "lite", "--ids", rules, "--no-baseline"]
            assert main([*argv, "--db", str(path), "--json"]) == 0
        ids.append(int(json.loads(out.getvalue())["run"]))
    yield path, ids


@pytest.fixture
def app(runs: tuple[Path, list[int]]) -> Iterator[FastAPI]:
    """A new app over the runs (its own figure cache: every visit of a run page is a first visit)."""
    store = Store(str(runs[0]))
    yield create_app(store)
    store.close()


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        yield c


def recorded(monkeypatch: pytest.MonkeyPatch, name: str, calls: list[tuple[str, int]]) -> None:
    """Record the thread each call of ``browse.NAME`` runs in."""
    real: Callable[..., Any] = getattr(browse, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls.append((name, threading.get_ident()))
        return real(*args, **kwargs)

    monkeypatch.setattr(browse, name, wrapper)


async def test_no_page_is_built_on_the_event_loop(
    client: httpx.AsyncClient, runs: tuple[Path, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    builders = ["run_context", "episode_context", "compare_context", "home_context", "run_rows", "plots_into"]
    calls: list[tuple[str, int]] = []
    for name in builders:
        recorded(monkeypatch, name, calls)
    a, b = runs[1]
    pages = ["/", "/runs", f"/runs/{a}", f"/runs/{a}/plots/accuracy.png", f"/runs/{a}/episodes/0"]
    for url in [*pages, f"/compare?runs={a},{b}"]:
        response = await client.get(url)
        assert response.status_code == 200, url
    assert {name for name, _ in calls} == set(builders)  # every builder was reached
    loop_thread = threading.get_ident()  # this test's loop serves the app (ASGI transport)
    assert all(thread != loop_thread for _, thread in calls), calls


async def test_a_trivial_request_is_answered_while_a_page_is_held(
    client: httpx.AsyncClient, runs: tuple[Path, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release = threading.Event(), threading.Event()
    released: list[bool] = []
    real = browse.run_context

    def held(*args: Any, **kwargs: Any) -> Any:
        entered.set()
        # on the loop this would hold every request until the timeout, and say so
        released.append(release.wait(timeout=20))
        return real(*args, **kwargs)

    monkeypatch.setattr(browse, "run_context", held)
    page = asyncio.create_task(client.get(f"/runs/{runs[1][0]}"))
    assert await asyncio.to_thread(entered.wait, 20)
    families = await client.get("/api/families")  # answered while the page is still held
    assert families.status_code == 200 and families.json()["families"]
    assert not page.done()
    release.set()
    assert (await page).status_code == 200
    assert released == [True]  # the page was let go by the test, after the other request was answered


async def until(check: Callable[[], bool]) -> None:
    """Let the loop run until ``check()`` holds (requests under way reach the point it looks for)."""
    for _ in range(100_000):
        if check():
            return
        await asyncio.sleep(0.001)
    raise AssertionError("the requests never got there")


def waiting(app: FastAPI) -> list[int]:
    """How many requests wait for each page being built."""
    return sorted(b.waiting for b in getattr(app.state, "page_builds", {}).values())


async def test_first_visits_at_once_draw_a_runs_figures_once(
    app: FastAPI, client: httpx.AsyncClient, runs: tuple[Path, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    lanes = offload.Lanes("thread", 2)  # two lanes: runs a and b are built at the same time, in two threads
    monkeypatch.setattr(offload, "_threads", lanes)
    calls: list[tuple[str, int]] = []
    recorded(monkeypatch, "plots_into", calls)
    a, b = runs[1]
    release = threading.Event()
    real = browse.run_context

    def held(store: Store, run_id: int, *args: Any) -> Any:
        calls.append(("run_context", run_id))
        if run_id == a:
            release.wait(timeout=20)
        return real(store, run_id, *args)

    monkeypatch.setattr(browse, "run_context", held)
    visits = [f"/runs/{a}"] * 4 + [f"/runs/{a}/plots/accuracy.png"] * 2 + [f"/runs/{b}"] * 2
    sent = [asyncio.create_task(client.get(url)) for url in visits]
    # the page of run a is held until its four visits wait for it (and its two figures behind it)
    await until(lambda: 4 in waiting(app) and 2 in waiting(app))
    release.set()
    responses = await asyncio.gather(*sent)
    assert [r.status_code for r in responses] == [200] * len(visits)
    # a page's figures are drawn after it is sent, on their own lane: wait for the drawings under way
    await until(lambda: not getattr(app.state, "web_drawings", None))
    assert sum(name == "plots_into" for name, _ in calls) == 2  # once for each run
    assert sorted(run for name, run in calls if name == "run_context") == [a, b]  # one build of each page
    run_pages = [r.text for r in responses[:4]]
    figures = re.findall(r'<img src="([^"]+)"', run_pages[0])
    assert f"/runs/{a}/plots/accuracy.png" in figures and f"/runs/{a}/plots/reduction.png" in figures
    assert all(re.findall(r'<img src="([^"]+)"', p) == figures for p in run_pages)
    for shared in responses[4:6]:  # one build, a response each: its headers once
        assert shared.content.startswith(PNG)
        assert shared.headers.get_list("content-length") == [str(len(shared.content))]
    for url in figures:  # every figure is there, whole
        assert (await client.get(url)).content.startswith(PNG)
    assert waiting(app) == []  # nothing left behind
    lanes.shutdown()


async def test_a_page_whose_requests_all_left_is_not_built(
    app: FastAPI, client: httpx.AsyncClient, runs: tuple[Path, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    entered, release = threading.Event(), threading.Event()
    real = browse.run_context
    built: list[int] = []

    def held(store: Store, run_id: int, *args: Any) -> Any:
        built.append(run_id)
        entered.set()
        release.wait(timeout=20)
        return real(store, run_id, *args)

    monkeypatch.setattr(browse, "run_context", held)
    a, b = runs[1]
    first = asyncio.create_task(client.get(f"/runs/{a}"))  # holds the only lane
    assert await asyncio.to_thread(entered.wait, 20)
    left = asyncio.create_task(client.get(f"/runs/{b}"))
    await until(lambda: waiting(app) == [1, 1])  # it waits for the lane
    left.cancel()  # its client went away
    with pytest.raises(asyncio.CancelledError):
        await left
    await until(lambda: waiting(app) == [1])  # its page is dropped
    release.set()
    assert (await first).status_code == 200
    assert (await client.get("/runs/999")).status_code == 404  # the lane took the next page, not b's
    assert built == [a, 999]  # b's page was never built


def test_wason_serve_builds_pages_in_a_worker_process(
    runs: tuple[Path, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(str(runs[0]))
    offload.use_processes(app, lanes=1)

    def not_here(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a page was built in the server's own process")

    for name in ("run_context", "plots_into", "episode_context"):
        monkeypatch.setattr(browse, name, not_here)
    a = runs[1][0]
    with TestClient(app, base_url="http://127.0.0.1") as web:  # its lifespan starts the worker and stops it
        _wait_until_warm(app)
        page = web.get(f"/runs/{a}")
        assert page.status_code == 200
        figures = re.findall(r'<img src="([^"]+)"', page.text)
        assert f"/runs/{a}/plots/reduction.png" in figures
        assert all(web.get(url).content.startswith(PNG) for url in figures)
        assert web.get(f"/runs/{a}/episodes/0").status_code == 200
        missing = web.get("/runs/999")
        assert missing.status_code == 404 and "there is no run 999" in missing.text
        workers = app.state.page_lanes
    assert app.state.page_lanes is None
    with pytest.raises(RuntimeError):  # stopped with the app
        workers._executors[0].submit(int)


def _kill_page_worker(lanes: offload.Lanes) -> None:
    """End the lane's worker process as the kernel's OOM killer would (SIGKILL), and wait until it is gone."""
    executor = lanes._executors[0]
    assert isinstance(executor, ProcessPoolExecutor)
    processes = list((executor._processes or {}).values())
    assert len(processes) == 1
    pid = processes[0].pid
    os.kill(pid, signal.SIGKILL)
    # gone once reaped (by the executor's own thread, which sees it end: joining it here would race that thread)
    deadline = time.monotonic() + 300
    while processes[0].exitcode is None:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "the killed worker was never reaped"
        time.sleep(0.05)


def test_a_killed_page_worker_is_replaced_and_the_next_page_is_built(runs: tuple[Path, list[int]]) -> None:
    """Issue 52: a worker killed under the server used to leave its lane broken (every page of it a 500 until
    a restart); now the lane gets a new worker and the page is built there."""
    app = create_app(str(runs[0]))
    offload.use_processes(app, lanes=1)
    a = runs[1][0]
    with TestClient(app, base_url="http://127.0.0.1") as web:
        _wait_until_warm(app)
        lanes = app.state.page_lanes
        assert web.get("/runs").status_code == 200
        first = lanes._executors[0]
        _kill_page_worker(lanes)
        page = web.get("/runs")
        assert page.status_code == 200 and f"/runs/{a}" in page.text
        assert lanes._executors[0] is not first  # a new worker process built it
        assert web.get(f"/runs/{a}/episodes/0").status_code == 200
        _kill_page_worker(lanes)  # again: every time
        assert web.get(f"/runs/{a}").status_code == 200


def test_a_page_whose_new_worker_breaks_too_is_a_503_and_the_next_page_is_built(
    runs: tuple[Path, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    app = create_app(str(runs[0]))
    offload.use_processes(app, lanes=1)

    class Broken(ThreadPoolExecutor):
        def submit(self, *args: Any, **kwargs: Any) -> Any:
            raise BrokenProcessPool("a worker process ended")

    with TestClient(app, base_url="http://127.0.0.1") as web:
        _wait_until_warm(app)
        lanes = app.state.page_lanes
        real = lanes._new
        monkeypatch.setattr(lanes, "_new", Broken)  # the new worker breaks at once too
        _kill_page_worker(lanes)
        refused = web.get("/runs", headers={"accept": "application/json"})
        assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
        assert "ended twice" in refused.json()["error"] and "Traceback" not in refused.text
        shown = web.get("/runs", headers={"accept": "text/html"})
        assert shown.status_code == 503 and "ended twice" in shown.text
        monkeypatch.setattr(lanes, "_new", real)  # the machine has memory again: the next worker lives
        assert web.get("/runs").status_code == 200


def _wait_until_warm(app: Any) -> None:
    """Until the page and figure workers have started and imported what they build with (a hang guard, not a
    timing check: a busy machine takes longer)."""
    deadline = time.monotonic() + 300
    while not (app.state.page_lanes.warm_now and app.state.figure_lanes.warm_now):
        assert time.monotonic() < deadline, "the workers did not start"
        time.sleep(0.05)


def test_pages_asked_for_while_the_workers_start_are_built_in_a_thread(
    runs: tuple[Path, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first page after start does not wait for a worker process to start and import the pages."""
    app = create_app(str(runs[0]))
    offload.use_processes(app, lanes=1)
    where: list[str] = []
    real = browse.episode_context

    def recorded(*args: Any, **kwargs: Any) -> Any:
        where.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(browse, "episode_context", recorded)
    a = runs[1][0]
    with TestClient(app, base_url="http://127.0.0.1") as web:
        lanes = app.state.page_lanes
        starting: Future[None] = Future()  # a worker still starting, however fast this machine is
        real_warming, lanes._warming = lanes._warming, [starting]
        assert not lanes.warm_now
        assert web.get(f"/runs/{a}/episodes/0").status_code == 200
        assert where and where[0].startswith("wason-page")  # built here, in a thread of the server
        lanes._warming = real_warming
        _wait_until_warm(app)
        assert web.get(f"/runs/{a}/episodes/1").status_code == 200
        assert len(where) == 1  # once started, the worker builds the pages (the patch is not there)


async def test_pages_beyond_the_bound_are_refused_not_queued(
    app: FastAPI, client: httpx.AsyncClient, runs: tuple[Path, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Distinct pages held mid-build up to the bound; one more is a 503 at once, a page already under way is
    shared, and all are answered once let go."""
    release = threading.Event()
    real = browse.episode_context

    def held(*args: Any, **kwargs: Any) -> Any:
        release.wait(timeout=30)
        return real(*args, **kwargs)

    monkeypatch.setattr(offload, "MAX_BUILDS", 3)
    monkeypatch.setattr(browse, "episode_context", held)
    run = runs[1][0]
    # distinct pages (different episode indices: the later ones are 404 pages, built the same way)
    pages = [asyncio.create_task(client.get(f"/runs/{run}/episodes/{i}")) for i in range(3)]
    await until(lambda: len(waiting(app)) == 3)
    refused = await client.get(f"/runs/{run}/episodes/7", headers={"accept": "text/html"})
    assert refused.status_code == 503 and refused.headers["retry-after"] == "5"
    assert "try again" in refused.text
    assert (await client.get(f"/runs/{run}/episodes/8")).json()["kind"] == "busy"
    shared = asyncio.create_task(client.get(f"/runs/{run}/episodes/0"))  # the same page as one under way
    await until(lambda: waiting(app) == [1, 1, 2])
    release.set()
    answers = await asyncio.gather(*pages, shared)
    assert [a.status_code for a in answers] == [200, 200, 404, 200]
    assert (await client.get(f"/runs/{run}/episodes/7")).status_code == 404  # the line is free again
