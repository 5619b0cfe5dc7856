"""The server's API key goes only to the address it was configured with: a listener at any other address gets
no request at all, whatever model field of whatever family a request names it in (the watch and play pages, the
sessions API, the published routes); the operator's own endpoint gets the key (so the listener's silence is not
because nothing was called)."""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.server.web.conftest import LiveServer
from wason.core import registry
from wason.core.family import model_fields
from wason.server.allowed import AllowedModels, ModelNotAllowed

SECRET = "sk-wason-test-secret-4711"
FOREIGN = "openai:gpt-x"


class Listener:
    """An HTTP server on 127.0.0.1 that records every request it gets (method, path, Authorization)."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, str | None]] = []
        lock = threading.Lock()
        seen = self.seen

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                with lock:
                    seen.append((self.command, self.path, self.headers.get("authorization")))
                self.send_response(404)
                self.send_header("content-length", "0")
                self.end_headers()

            do_GET = do_POST = _record

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.close()


@pytest.fixture
def operator(
    monkeypatch: pytest.MonkeyPatch, live_server_factory: Callable[..., LiveServer]
) -> Iterator[tuple[LiveServer, FakeOpenAIServer]]:
    """A server with a key in its environment that allows one model, at the operator's own fake endpoint."""
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeOpenAIServer() as fake:
        yield live_server_factory(models=[("openai:fake-model", fake.base_url)]), fake


def _families() -> list[str]:
    return sorted(registry.names())


def _wait_quiet(live: LiveServer) -> None:
    """Until the runs the server plays are over (a leak would happen while they play)."""
    from wason.server.web.watch import watches

    deadline = time.monotonic() + 60
    while watches(live.app).active() and time.monotonic() < deadline:
        time.sleep(0.05)


def _attempts(family: str, listener: Listener) -> list[tuple[str, dict[str, str], str]]:
    """Every way a request can name the listener for a family's model fields, with the field the refusal
    names: ``(route, fields, field)``."""
    config_type = registry.get(family).config_type
    out: list[tuple[str, dict[str, str], str]] = []
    player = "solver" if "solver" in registry.get(family).players else "local"
    for name, endpoint in model_fields(config_type).items():
        if name == "model":  # the player's own: the watch page's model choice
            base = {"family": family, "player": "model", "index": "0"}
            out.append(("/watch", {**base, "model": FOREIGN, "base_url": listener.base_url}, "model"))
            out.append(
                ("/watch", {**base, "model": "openai:fake-model", "base_url": listener.base_url}, "base_url")
            )
            continue
        base = {"family": family, "player": player, "index": "0"}
        out.append(("/watch", {**base, f"cfg.{name}": FOREIGN}, f"cfg.{name}"))
        out.append(
            ("/watch", {**base, f"cfg.{name}": FOREIGN, f"cfg.{endpoint}": listener.base_url}, f"cfg.{name}")
        )
        out.append(
            (
                "/watch",
                {**base, f"cfg.{name}": "openai:fake-model", f"cfg.{endpoint}": listener.base_url},
                f"cfg.{endpoint}",
            )
        )
        out.append(("/watch", {**base, f"cfg.{endpoint}": listener.base_url}, f"cfg.{endpoint}"))
        play = {"family": family, "player": "ada", "seed": "1"}
        out.append(("/play", {**play, f"opt_{name}": FOREIGN, f"opt_{endpoint}": listener.base_url}, name))
        out.append(
            ("/play", {**play, f"opt_{name}": "local", f"opt_{endpoint}": listener.base_url}, str(endpoint))
        )
    return out


@pytest.mark.parametrize("family", _families())
def test_no_key_reaches_an_address_a_request_names(
    family: str, operator: tuple[LiveServer, FakeOpenAIServer], listener: Listener
) -> None:
    live, fake = operator
    attempts = _attempts(family, listener)
    assert attempts, f"{family} has no model field"  # every family has the player's
    for route, fields, field in attempts:
        r = httpx.post(
            f"{live.url}{route}",
            data=fields,
            headers={"accept": "text/html"},
            follow_redirects=False,
            timeout=60,
        )
        assert r.status_code == 422, (route, fields, r.status_code)
        assert field in html.unescape(r.text), (route, fields, field)
    # the sessions API: every model and address field of the family's configuration
    config_type = registry.get(family).config_type
    for name, endpoint in model_fields(config_type).items():
        if name == "model":
            continue
        for config, field in (
            ({name: FOREIGN}, f"config.{name}"),
            ({name: "openai:fake-model", str(endpoint): listener.base_url}, f"config.{endpoint}"),
            ({str(endpoint): listener.base_url}, f"config.{endpoint}"),
        ):
            r = httpx.post(f"{live.url}/api/sessions", json={"family": family, "config": config}, timeout=60)
            assert r.status_code == 422 and r.json()["field"] == field, (config, r.text)
    for name in ("model", "base_url"):  # the run settings are not a session's to set at all
        r = httpx.post(
            f"{live.url}/api/sessions",
            json={"family": family, "config": {name: listener.base_url}},
            timeout=60,
        )
        assert r.status_code == 422 and r.json()["field"] == f"config.{name}"
    _wait_quiet(live)
    assert listener.seen == []
    assert fake.requests == 0  # nothing was played: every request above was refused before it


def test_the_published_routes_take_no_model(
    operator: tuple[LiveServer, FakeOpenAIServer], listener: Listener
) -> None:
    live, fake = operator
    r = httpx.get(f"{live.url}/guess-the-rule/games", timeout=60)
    for game in r.json()["games"]:
        body = {
            "game_name": game["game_name"],
            "difficulty": "L1",
            "num_init_examples": 1,
            "judge_model": FOREIGN,
            "judge_base_url": listener.base_url,
            "game_master_model": FOREIGN,
            "game_master_base_url": listener.base_url,
            "base_url": listener.base_url,
        }
        created = httpx.post(f"{live.url}/guess-the-rule/game", json=body, timeout=60)
        assert created.status_code == 200, created.text  # the extra keys are not the game's: ignored
        guess = {"game_id": created.json()["game_uuid"], "guess": "give up"}
        assert (
            httpx.post(f"{live.url}/guess-the-rule/game/validate_guess", json=guess, timeout=60).status_code
            == 200
        )
    assert listener.seen == [] and fake.requests == 0


def test_the_operators_endpoint_gets_the_key_and_nothing_else_does(
    operator: tuple[LiveServer, FakeOpenAIServer], listener: Listener
) -> None:
    """A judge that is an allowed model is called, at its configured address, with the server's key: the
    flow the refusals above cut off does reach a model."""
    live, fake = operator
    fields = {
        "family": "lists",
        "cfg.ids": "1",
        "cfg.labeller": "llm",
        "cfg.judge_model": "openai:fake-model",
        "player": "solver",
        "index": "0",
    }
    r = httpx.post(f"{live.url}/watch", data=fields, follow_redirects=False, timeout=60)
    assert r.status_code == 303, r.text
    _wait_quiet(live)
    assert fake.requests > 0
    assert fake.headers.get("authorization") == f"Bearer {SECRET}"
    run_id = int(r.headers["location"].rsplit("/", 1)[1])
    assert live.store.get_run(run_id).config["judge_base_url"] == fake.base_url  # pinned to the operator's
    assert listener.seen == []


def test_the_allow_list_checks_every_model_field() -> None:
    allowed = AllowedModels.configure([("vllm:qwen", "http://10.0.0.5:8000/v1")])
    assert allowed.specs() == ["local:smollm2-135m", "vllm:qwen"]
    for family in registry.families():
        config_type = family.config_type
        for name, endpoint in model_fields(config_type).items():
            if endpoint is None:
                continue
            pinned = allowed.check(config_type, {name: "VLLM:qwen"})
            assert pinned[name] == "vllm:qwen" and pinned[endpoint] == "http://10.0.0.5:8000/v1"
            assert allowed.check(config_type, {name: "vllm:qwen", endpoint: "http://10.0.0.5:8000/v1/"})
            with pytest.raises(ModelNotAllowed) as refused:
                allowed.check(config_type, {name: "vllm:qwen", endpoint: "http://10.0.0.6:8000/v1"})
            assert refused.value.field == endpoint
    assert allowed.key_for("vllm:qwen", "http://10.0.0.5:8000/v1") == "EMPTY"  # a keyless server
    assert allowed.key_for("local", None) is None


def test_a_key_is_bound_when_the_server_starts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    allowed = AllowedModels.configure(
        [("openai:gpt-4o-mini", None), ("openai:gpt-4o-mini", "http://127.0.0.1:9/v1")]
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-changed-later")
    assert allowed.key_for("openai:gpt-4o-mini", None) == SECRET
    assert allowed.key_for("openai:gpt-4o-mini", "https://api.openai.com/v1") == SECRET
    assert allowed.key_for("openai:gpt-4o-mini", "http://127.0.0.1:9/v1") == SECRET  # configured with it
    with pytest.raises(ModelNotAllowed):
        allowed.key_for("openai:gpt-4o-mini", "http://127.0.0.1:10/v1")
    assert "sk-" not in repr(allowed.endpoints)
