"""The write token: every write route refuses a request without it (401, one message), reads stay open, a
browser logs in with a cookie; and the shared browser fixtures work."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx

from tests.server.web.conftest import LiveServer

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
