"""The write token: every write route refuses a request without it (401, one message), reads stay open, a
browser logs in with a cookie; and the shared browser fixtures work."""

from __future__ import annotations

import html
import os
import re
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import APIRoute

from tests.server import hidden_family
from tests.server.test_serve import ROOT, SERVER, free_port
from tests.server.web.conftest import LiveServer
from wason.cli import main
from wason.server import create_app
from wason.server.web import auth
from wason.store import Store

TOKEN = "s3cret-token"


def test_live_server_in_a_browser(live_server: LiveServer, browser_page: Any) -> None:
    """The fixtures: a real uvicorn on 127.0.0.1 and Chromium reach each other; the page's CSS is packaged."""
    assert live_server.url.startswith("http://127.0.0.1:")
    browser_page.goto(f"{live_server.url}/login")
    assert "no token" in browser_page.text_content("main")
    css = httpx.get(f"{live_server.url}/static/wason.css", timeout=10)
    assert css.status_code == 200


def test_browser_logs_in_with_the_form(
    live_server_factory: Callable[..., LiveServer], browser_page: Any
) -> None:
    live = live_server_factory(token=TOKEN)
    page = browser_page
    page.goto(f"{live.url}/login")
    page.fill("#token", "wrong")
    page.press("#token", "Enter")
    page.wait_for_selector("#login-error")
    assert "wrong token" in page.text_content("#login-error")
    page.fill("#token", TOKEN)
    page.press("#token", "Enter")
    page.wait_for_url(f"{live.url}/")
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["wason_token"]["value"] == TOKEN
    assert cookies["wason_token"]["httpOnly"]


# -- every write route, whoever added it -----------------------------------------------------------------
WRITE_METHODS = {"POST", "PUT", "DELETE", "PATCH"}


def write_routes(app: FastAPI) -> list[tuple[str, str]]:
    """Every (method, path) of the app that writes, path parameters filled with 1; the login form aside."""
    out = []

    def walk(routes: list[Any]) -> None:
        for route in routes:
            included = getattr(route, "original_router", None)  # a router included as it is (FastAPI 0.16x)
            if included is not None:
                walk(included.routes)
            elif isinstance(route, APIRoute) and route.path != "/login":
                path = re.sub(r"\{[^}]+\}", "1", route.path)
                out.extend((m, path) for m in sorted(route.methods & WRITE_METHODS))

    walk(app.routes)
    return out


@pytest.fixture
def protected(store: Store) -> FastAPI:
    app = create_app(store)
    auth.protect(app, TOKEN)
    return app


@pytest.fixture
async def guarded(protected: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=protected, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        yield c


async def test_every_write_route_refuses_a_request_without_the_token(
    protected: FastAPI, guarded: httpx.AsyncClient
) -> None:
    routes = write_routes(protected)
    paths = {p for _, p in routes}
    # the routes of every part of the app are there (so the check below covers them)
    assert {
        "/api/sessions",
        "/api/sessions/1/step",
        "/guess-the-rule/game",
        "/watch",
        "/watch/1/stop",
    } <= paths
    for method, path in routes:
        for headers, expected in (
            ({}, auth.MESSAGE),
            ({"authorization": "Bearer nope"}, f"{auth.WRONG}: {auth.MESSAGE}"),
            ({"authorization": f"Basic {TOKEN}"}, auth.MESSAGE),
            ({"cookie": f"{auth.COOKIE}=nope"}, f"{auth.WRONG}: {auth.MESSAGE}"),
        ):
            r = await guarded.request(method, path, json={}, headers=headers)
            assert r.status_code == 401, (method, path, headers)
            assert r.json()["error"] == expected, (method, path)
            assert r.headers["www-authenticate"] == "Bearer"
        # a browser posting a page's form is shown the login form with the message (the API answers JSON)
        page = await guarded.request(method, path, data={"x": "1"}, headers={"accept": "text/html"})
        assert page.status_code == 401 and "Traceback" not in page.text
        if not path.startswith(("/api/", "/guess-the-rule")):
            assert 'name="token"' in page.text and auth.MESSAGE in html.unescape(page.text)


async def test_the_token_opens_writes_and_reads_stay_open(guarded: httpx.AsyncClient) -> None:
    body = {"family": hidden_family.NAME, "config": {}, "index": 0}
    bearer = {"authorization": f"Bearer {TOKEN}"}
    started = await guarded.post("/api/sessions", json=body, headers=bearer)
    assert started.status_code == 201
    sid = started.json()["session"]
    assert (await guarded.get(f"/api/sessions/{sid}")).status_code == 200  # reads need nothing
    assert (await guarded.get("/api/families")).status_code == 200
    assert (await guarded.get("/watch")).status_code == 200
    step = {"action": {"type": "More", "n": 1}}
    assert (await guarded.post(f"/api/sessions/{sid}/step", json=step)).status_code == 401
    # a browser logs in with a link and then writes with its cookie (HttpOnly, SameSite=Strict)
    login = await guarded.get(f"/login?token={TOKEN}&next=/api/families")
    assert login.status_code == 303 and login.headers["location"] == "/api/families"
    cookie = login.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert (await guarded.post(f"/api/sessions/{sid}/step", json=step)).status_code == 200
    # a wrong login sets nothing
    guarded.cookies.clear()
    wrong = await guarded.get("/login?token=nope")
    assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
    assert (await guarded.post(f"/api/sessions/{sid}/step", json=step)).status_code == 401


async def test_login_goes_back_to_this_server_only(guarded: httpx.AsyncClient) -> None:
    for target in ("https://elsewhere.example/", "//elsewhere.example/x", "/\\elsewhere.example"):
        r = await guarded.get("/login", params={"token": TOKEN, "next": target})
        assert r.status_code == 303 and r.headers["location"] == "/"


async def test_without_a_token_nothing_is_asked(client: httpx.AsyncClient) -> None:
    r = await client.post("/api/sessions", json={"family": hidden_family.NAME, "config": {}, "index": 0})
    assert r.status_code == 201
    assert "asks for no token" in (await client.get("/login")).text


def test_protect_refuses_an_empty_token(store: Store) -> None:
    with pytest.raises(ValueError, match="empty"):
        auth.protect(create_app(store), "  ")


def test_wason_serve_takes_the_token_from_its_environment(tmp_path: Path) -> None:
    """The command as a user runs it: $WASON_TOKEN protects writes; a wrong flag value is one line."""
    assert main(["serve", "--token", " ", "--db", str(tmp_path / "x.db")]) == 2
    port = free_port()
    env = {
        **os.environ,
        "WASON_TOKEN": TOKEN,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port), str(tmp_path / "served.db")],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                if httpx.get(f"{url}/api/families", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "the server did not answer within 60 s"
            time.sleep(0.1)
        body = {"family": hidden_family.NAME, "config": {}, "index": 0}
        refused = httpx.post(f"{url}/api/sessions", json=body, timeout=10)
        assert refused.status_code == 401 and refused.json()["error"] == auth.MESSAGE
        bearer = {"authorization": f"Bearer {TOKEN}"}
        assert httpx.post(f"{url}/api/sessions", json=body, headers=bearer, timeout=10).status_code == 201
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()


async def test_a_write_from_another_sites_page_is_refused(client: httpx.AsyncClient) -> None:
    """Without a token too: a page elsewhere cannot make a visitor's browser start games or runs here."""
    body = {"family": hidden_family.NAME, "config": {}, "index": 0}
    for headers in ({"origin": "http://evil.example"}, {"sec-fetch-site": "cross-site"}):
        r = await client.post("/api/sessions", json=body, headers=headers)
        assert r.status_code == 403 and r.json()["error"] == auth.CROSS_SITE
        page = await client.post(
            "/watch", data={"family": "wilt"}, headers={**headers, "accept": "text/html"}
        )
        assert page.status_code == 403 and "another site" in html.unescape(page.text)
    same = await client.post("/api/sessions", json=body, headers={"origin": "http://127.0.0.1"})
    assert same.status_code == 201  # this server's own pages
