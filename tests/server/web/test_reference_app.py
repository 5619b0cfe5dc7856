"""The guess-the-rule reference's web app against a live server with ``--allow-origin``, in Chromium.

The app is ``gtr_app/`` here: plain HTML and JavaScript making the same requests as the reference's React app
(``frontend/src/services/gameService.ts`` and ``pages/Play.tsx`` of its repository: the URLs, methods, the
``Content-Type: application/json`` header on every request, GETs included, the body with a lower-case
``"difficulty": "l1"`` and ``num_init_examples`` as a string, errors shown from ``errorData.detail``, Load Existing
Game showing the summary's ``system_message``). It is served from another origin (another port of 127.0.0.1) than
the server, which allows that origin, so every request is a cross-origin one, preflighted as the browser decides.

Each game is played from the app's form with the level ``l1`` as the app sends it: a wrong guess, Load Existing
Game in a fresh page (the examples shown again under "Welcome back...", the reference's dataset type), give up
(Lost), Load again.
"""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.server.web.conftest import LiveServer
from wason.server.gameplay import MAX_TURNS

APP_DIR = Path(__file__).parent / "gtr_app"
GAMES = ["static_picnic", "dynamic_picnic", "code_functions_picnic", "math"]
DYNAMIC = {"dynamic_picnic", "code_functions_picnic", "math"}  # the reference's game_gen_type "dynamic"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def app_origin() -> Iterator[str]:
    """The app's files served on 127.0.0.1 at a port of their own: an origin other than the server's."""
    handler = functools.partial(_Quiet, directory=str(APP_DIR))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True, name="gtr-app")
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _status(page: Any) -> str:
    return str(page.locator("#d-status").text_content())


def _last_message(page: Any, count: int) -> str:
    page.wait_for_function(f"document.querySelectorAll('#messages .message').length >= {count}")
    return str(page.locator("#messages .message").nth(count - 1).text_content())


def _send(page: Any, text: str, count: int) -> str:
    page.fill("#guess", text)
    page.click("#send")
    return _last_message(page, count)


def _load(page: Any, app_url: str, game_id: str) -> str:
    page.goto(app_url)
    page.click("#load-game")
    page.fill("#game-id", game_id)
    page.click("#load")
    text = _last_message(page, 1)
    assert page.locator("#d-id").text_content() == game_id
    return text


@pytest.mark.parametrize("game", GAMES)
def test_the_reference_app_plays_from_another_origin(
    live_server_factory: Callable[..., LiveServer],
    app_origin: str,
    browser_page: Any,
    game: str,
) -> None:
    live = live_server_factory(allow_origins=[app_origin])
    assert app_origin != live.url
    app_url = f"{app_origin}/index.html?api={live.url}/guess-the-rule"
    page = browser_page
    failed: list[str] = []
    page.on("requestfailed", lambda r: failed.append(r.url))

    # an error reaches the app as text (the reference app shows errorData.detail)
    page.goto(app_url)
    page.click("#load-game")
    page.fill("#game-id", "999999")
    page.click("#load")
    page.wait_for_selector("#toast:not([hidden])")
    toast = str(page.locator("#toast").text_content())
    assert "999999" in toast and "[object Object]" not in toast

    # start from the form
    page.goto(app_url)
    page.click("#new-game")
    page.select_option("#game", value=game)
    # by position: Playwright matches option values without regard to case
    page.select_option("#difficulty", index=1)
    assert page.eval_on_selector("#difficulty", "e => e.value") == "l1"  # as the reference app sends it
    page.select_option("#player", value="user")
    with page.expect_response(
        lambda r: r.url.endswith("/guess-the-rule/game") and r.request.method == "POST"
    ) as r:
        page.click("#start")
    created = r.value.json()
    assert r.value.status == 200, created
    assert r.value.request.header_value("origin") == app_origin  # a cross-origin request, allowed
    opening = _last_message(page, 1)
    assert opening == created["system_message"] and opening
    assert _status(page) == "Ongoing"
    game_id = created["game_uuid"]
    assert page.locator("#d-id").text_content() == game_id

    # a wrong guess: judged, the game goes on
    reply = _send(page, "it is something silly", 3)
    assert reply and _status(page) == "Ongoing"

    # Load Existing Game (a fresh page) shows the ongoing game
    loaded = _load(page, app_url, game_id)
    assert _status(page) == "Ongoing" and loaded
    # the resume message lists the examples shown so far; the dataset type is the reference's
    assert "welcome back" in loaded.lower()
    for example in created.get("positive_examples") or []:
        assert str(example) in loaded
    assert page.locator("#d-type").text_content() == ("Dynamic" if game in DYNAMIC else "Static")

    # give up: Lost (a game asking for the guess as a predicate reads the first "give up" as one)
    count = 1
    for _ in range(3):
        count += 2
        _send(page, "give up", count)
        if _status(page) != "Ongoing":
            break
    assert _status(page) == "Lost"

    # loaded again, it is over
    _load(page, app_url, game_id)
    assert _status(page) == "Lost"
    assert page.locator("#toast").is_hidden()
    assert failed == []  # no request was blocked (CORS) or dropped


def test_the_reference_app_watches_the_operators_model_play(
    live_server_factory: Callable[..., LiveServer], app_origin: str, browser_page: Any
) -> None:
    """The app's "GPT-4o" player: the stream is parsed line by line, the status ends Lost at the turn limit."""
    with FakeOpenAIServer(reply=lambda messages, body: "more 1") as fake:
        live = live_server_factory(models=[("openai:fake-model", fake.base_url)], allow_origins=[app_origin])
        page = browser_page
        page.goto(f"{app_origin}/index.html?api={live.url}/guess-the-rule")
        page.click("#new-game")
        page.select_option("#game", value="static_picnic")
        page.select_option("#difficulty", index=1)  # l1: the route reads levels in any case
        page.select_option("#player", value="gpt-4o")
        page.click("#start")
        page.wait_for_function("document.getElementById('d-status').textContent === 'Lost'", timeout=60_000)
    messages = page.locator("#messages .message")
    users = page.locator("#messages .message.user")
    assert users.count() == MAX_TURNS and users.nth(0).text_content() == "more 1"
    assert page.locator("#d-turns").text_content() == str(MAX_TURNS)
    last = str(messages.nth(messages.count() - 1).text_content())
    assert last.startswith("Game over! The rule was: Items from the categor")
    assert fake.requests == MAX_TURNS
