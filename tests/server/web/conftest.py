"""Browser fixtures shared by every web test.

- ``live_server``: the app served by a real uvicorn on 127.0.0.1 (a free port, in a thread of this process)
  over a temporary SQLite store; yields a :class:`LiveServer` (``.url`` the base URL without a trailing slash,
  ``.store`` the same :class:`Store` the server writes, ``.app``).
- ``live_server_factory``: the same, for a test that needs its own options (``token=...``, ``models=...``,
  ``allow_origins=...`` as ``wason serve --allow-origin``).
- ``browser_page``: a Playwright page in Debian's Chromium (headless); skips loudly when Chromium is missing.
  On a failed test the page's screenshot is saved under the test's ``tmp_path`` (its path is printed).

The test family of ``tests/server/conftest.py`` is registered for these tests as for every server test.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from wason.server import AllowedModels, create_app, guard
from wason.store import Store

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
NO_CHROMIUM = (
    f"BROWSER TEST SKIPPED: Debian's Chromium is not installed at {CHROMIUM} "
    "(as root: apt-get update && apt-get install -y chromium chromium-driver; scripts/check.sh does this)"
)


@dataclass
class LiveServer:
    """A running server: ``url`` (``http://127.0.0.1:PORT``), the store it writes and its app."""

    url: str
    store: Store
    app: FastAPI
    server: uvicorn.Server = field(repr=False)
    thread: threading.Thread = field(repr=False)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=15)


def start_live_server(
    store: Store,
    *,
    token: str | None = None,
    models: Sequence[tuple[str, str | None]] = (),
    allow_origins: Sequence[str] = (),
) -> LiveServer:
    """Serve ``create_app(store)`` with uvicorn on a socket bound to 127.0.0.1:0 (no race for the port);
    ``models`` are the ``(spec, base_url)`` pairs it allows, as ``wason serve --model SPEC --base-url URL``, and
    ``allow_origins`` the origins of ``--allow-origin``."""
    app = create_app(store, models=AllowedModels.configure(models))
    if allow_origins:
        guard.configure(app, guard.policy(guard.LOOPBACK, guard.DEFAULT_MAX_BODY, allow_origins))
    if token is not None:
        from wason.server.web import auth

        auth.protect(app, token)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True, name="live-uvicorn")
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if not thread.is_alive():
            raise AssertionError("the live server's thread exited before it started")
        if time.monotonic() > deadline:
            server.should_exit = True
            raise AssertionError("the live server did not start within 30 s")
        time.sleep(0.02)
    return LiveServer(url=f"http://127.0.0.1:{port}", store=store, app=app, server=server, thread=thread)


@pytest.fixture
def live_server_factory(tmp_path: Path, empty_store: Path) -> Iterator[Callable[..., LiveServer]]:
    """``make(token=None, models=(), allow_origins=())`` starts a server over a new temporary store; every one
    is stopped after the test."""
    import shutil

    started: list[LiveServer] = []

    def make(
        *,
        token: str | None = None,
        models: Sequence[tuple[str, str | None]] = (),
        allow_origins: Sequence[str] = (),
    ) -> LiveServer:
        path = tmp_path / f"live{len(started)}.db"
        shutil.copyfile(empty_store, path)
        live = start_live_server(Store(str(path)), token=token, models=models, allow_origins=allow_origins)
        started.append(live)
        return live

    yield make
    for live in started:
        live.stop()
        live.store.close()


@pytest.fixture
def live_server(live_server_factory: Callable[..., LiveServer]) -> LiveServer:
    """A live server with no token over a temporary store."""
    return live_server_factory()


# -- the browser ------------------------------------------------------------------------------------------
@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[Any]:
    """Keep each phase's report on the item, so ``browser_page`` knows whether the test failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture
def chromium() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright, a browser per test: Playwright's sync API holds an event loop
    in this thread while it runs, which async tests (pytest-asyncio) in the same session cannot share."""
    if not CHROMIUM.exists():
        pytest.skip(NO_CHROMIUM)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def browser_page(chromium: Any, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """A new page (its own context: no cookies shared between tests); 10 s default timeout. A failed test
    leaves ``tmp_path/failure.png``."""
    context = chromium.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.set_default_timeout(10_000)
    try:
        yield page
    finally:
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            shot = tmp_path / "failure.png"
            try:
                page.screenshot(path=str(shot), full_page=True)
                print(f"\nscreenshot of the failed page: {shot}")
            except Exception as exc:  # the page may be gone; the test's own failure is what matters
                print(f"\nno screenshot of the failed page: {exc}")
        context.close()
