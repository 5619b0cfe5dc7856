"""The guard in front of every route (:mod:`wason.server.guard`): requests must name the server by an allowed
host, writes must come from an allowed origin, and bodies are bounded - over httpx's ASGI transport, and
against ``wason serve`` in a process of its own (DNS rebinding as a browser sends it, a 200 MB body measured in
the server's memory, a large form on a kept-alive connection)."""

from __future__ import annotations

import html
import http.client
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.server import hidden_family
from tests.server.served import Served, start
from wason.cli import main
from wason.server import create_app, guard
from wason.server.guard import CROSS_SITE, DEFAULT_MAX_BODY
from wason.store import Store

SESSION = {"family": hidden_family.NAME, "config": {}, "index": 0}
FORM = {"content-type": "application/x-www-form-urlencoded"}
PAGE = {**FORM, "accept": "text/html"}


# -- the rules, alone --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("host", "allowed"),
    [
        ("127.0.0.1:8000", True),
        ("localhost:8000", True),
        ("LOCALHOST:8000", True),
        ("[::1]:8000", True),
        ("games.test:8000", True),
        ("games.test:9000", False),  # the name at another port
        ("evil.example:8000", False),  # DNS rebinding: the attacker's name, resolved to 127.0.0.1
        ("127.0.0.1:8001", False),
        ("127.0.0.1", False),  # no port: port 80, not this server's
        ("127.0.0.1:8000.evil.example", False),
        ("127.0.0.1.evil.example:8000", False),
        ("localhost.:8000", False),
        ("[::1]", False),
        ("::1:8000", False),
        ("", False),
        ("127.0.0.1:", False),
        ("127.0.0.1:8000:8000", False),
        ("127.0.0.1:08000", True),
        ("127.0.0.1:99999", False),
        ("user@127.0.0.1:8000", False),
        ("proxied.example", True),  # https://proxied.example: through a TLS proxy, at 443
        ("proxied.example:443", True),
    ],
)
def test_which_hosts_are_allowed(host: str, allowed: bool) -> None:
    rules = guard.policy([*guard.LOOPBACK, "games.test", "https://proxied.example"])
    assert guard.host_allowed(rules, host.encode(), 8000) is allowed


@pytest.mark.parametrize(
    ("origin", "allowed"),
    [
        ("http://127.0.0.1:8000", True),
        ("http://localhost:8000", True),  # another allowed name of this server: its own page
        ("http://[::1]:8000", True),
        ("http://games.test:8000", True),
        ("https://127.0.0.1:8000", False),  # only the scheme differs
        ("http://127.0.0.1:8001", False),  # another server on this machine
        ("http://127.0.0.1", False),
        ("http://evil.example:8000", False),
        ("null", False),  # a sandboxed frame or a file
        ("http://127.0.0.1:8000/", False),
        ("127.0.0.1:8000", False),
        ("ftp://127.0.0.1:8000", False),
        ("https://proxied.example", True),
        ("http://proxied.example", False),
        ("https://proxied.example:8443", False),
    ],
)
def test_which_origins_are_allowed(origin: str, allowed: bool) -> None:
    rules = guard.policy([*guard.LOOPBACK, "games.test", "https://proxied.example"])
    assert guard.origin_allowed(rules, origin.encode(), 8000) is allowed


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("games.test", guard.AllowedHost("http", "games.test", None)),
        ("Games.Test:8080", guard.AllowedHost("http", "games.test", 8080)),
        ("::1", guard.AllowedHost("http", "[::1]", None)),
        ("[fe80::1]:9000", guard.AllowedHost("http", "[fe80::1]", 9000)),
        ("https://games.test", guard.AllowedHost("https", "games.test", 443)),
        ("http://games.test/", guard.AllowedHost("http", "games.test", 80)),
        ("192.168.1.5", guard.AllowedHost("http", "192.168.1.5", None)),
    ],
)
def test_allowed_hosts_as_written(spec: str, expected: guard.AllowedHost) -> None:
    assert guard.parse_allowed_host(spec) == expected


@pytest.mark.parametrize(
    "spec", ["", "games test", "ftp://games.test", "games.test:0", "games.test:x", "[zz::1]", "a/b", "*.test"]
)
def test_a_bad_allowed_host_is_one_line(spec: str) -> None:
    with pytest.raises(ValueError, match="--allowed-host") as exc:
        guard.parse_allowed_host(spec)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("size", [0, 1000, 65_535, 100 * 2**20 + 1, True])
def test_the_body_limit_is_bounded(size: Any) -> None:
    with pytest.raises(ValueError, match="--max-body"):
        guard.policy(max_body=size)


# -- over the ASGI transport (create_app's defaults: the loopback names at the server's own port) ------------
async def test_a_dns_rebinding_host_is_refused_reads_and_writes(
    client: httpx.AsyncClient, store: Store
) -> None:
    """A page of evil.example, its name rebound to 127.0.0.1, sends its own name as the Host: refused before any
    route, reads included; nothing is stored."""
    rebound = {"host": "evil.example:18210", "origin": "http://evil.example:18210"}
    for method, path in [("GET", "/api/families"), ("GET", "/runs"), ("GET", "/guess-the-rule/games")]:
        r = await client.request(method, path, headers=rebound)
        assert r.status_code == 400, (path, r.text)
    r = await client.post("/api/sessions", json=SESSION, headers=rebound)
    assert r.status_code == 400 and r.json()["kind"] == "invalid-host"
    assert "evil.example:18210" in r.json()["error"] and "--allowed-host" in r.json()["error"]
    page = await client.post("/watch", data={"family": "wilt"}, headers={**rebound, "accept": "text/html"})
    assert page.status_code == 400 and "not a name this server answers to" in html.unescape(page.text)
    assert store.list_runs() == []
    ours = await client.post("/api/sessions", json=SESSION, headers={"origin": "http://127.0.0.1"})
    assert ours.status_code == 201


async def test_an_origin_must_be_an_allowed_one_exactly(client: httpx.AsyncClient, store: Store) -> None:
    for origin in ["https://127.0.0.1", "http://127.0.0.1:8000", "http://evil.example", "null"]:
        r = await client.post("/api/sessions", json=SESSION, headers={"origin": origin})
        assert r.status_code == 403 and r.json()["error"] == CROSS_SITE, origin
        page = await client.post(
            "/play", data={"family": hidden_family.NAME}, headers={**PAGE, "origin": origin}
        )
        assert page.status_code == 403 and "another site" in html.unescape(page.text)
    assert store.list_runs() == []
    for headers in [{}, {"origin": "http://127.0.0.1"}, {"origin": "http://localhost"}]:
        r = await client.post("/api/sessions", json=SESSION, headers=headers)
        assert r.status_code == 201, (headers, r.text)


async def test_other_hosts_can_be_allowed(app: Any) -> None:
    guard.configure(app, guard.policy(["games.test", "https://proxied.example"]))
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://games.test") as c:
        assert (
            await c.post("/api/sessions", json=SESSION, headers={"origin": "http://games.test"})
        ).status_code == 201
        assert (await c.get("/api/families", headers={"host": "127.0.0.1"})).status_code == 400
        proxied = {"host": "proxied.example", "origin": "https://proxied.example"}
        assert (await c.post("/api/sessions", json=SESSION, headers=proxied)).status_code == 201


def chunks(total: int, size: int = 64 * 1024) -> Iterator[bytes]:
    """``total`` bytes of the start of a JSON array, in pieces of ``size`` (sent chunked unless the request
    declares a ``Content-Length``)."""
    piece = b"[" + b"1," * (size // 2 - 1) + b"1"
    sent = 0
    while sent < total:
        part = piece[: total - sent]
        sent += len(part)
        yield part


async def test_a_body_over_the_limit_is_a_413(client: httpx.AsyncClient, store: Store) -> None:
    big = b'{"family": "' + b"x" * DEFAULT_MAX_BODY + b'"}'
    r = await client.post("/api/sessions", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["kind"] == "too-large" and "1,048,576" in r.json()["error"]

    async def streamed_body() -> AsyncIterator[bytes]:
        for piece in chunks(3 * DEFAULT_MAX_BODY):
            yield piece

    streamed = await client.post(
        "/guess-the-rule/game",
        content=streamed_body(),
        headers={"content-type": "application/json"},
    )
    assert streamed.status_code == 413 and streamed.json()["kind"] == "too-large"
    page = await client.post("/play", content=b"family=" + b"x" * (2 * DEFAULT_MAX_BODY), headers=PAGE)
    assert page.status_code == 413 and "larger than this server takes" in html.unescape(page.text)
    assert store.list_runs() == []
    # a body at the limit is read as usual
    padded = {**SESSION, "family": hidden_family.NAME + " " * (DEFAULT_MAX_BODY - 200)}
    assert (await client.post("/api/sessions", json=padded)).status_code == 422  # not a family: read, refused


async def test_the_body_limit_can_be_raised(app: Any, client: httpx.AsyncClient) -> None:
    guard.configure(app, guard.policy(max_body=4 * DEFAULT_MAX_BODY))
    big = b'{"family": "' + b"x" * (2 * DEFAULT_MAX_BODY) + b'"}'
    r = await client.post("/api/sessions", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 422  # read, and refused by the route (a family's name is at most 100 characters)


@pytest.mark.parametrize("path", ["/login", "/watch", "/play", "/play/1", "/play/1/quit"])
@pytest.mark.parametrize("size", [70_000, 900_000, 3 * DEFAULT_MAX_BODY])
async def test_a_large_form_is_a_4xx_on_every_form_route(
    client: httpx.AsyncClient, store: Store, path: str, size: int
) -> None:
    """Over the pages' 64 kB and under the server's limit, or over both: a 4xx page, never a 500. (Before, a
    /login form over 64 kB was a 500.)"""
    body = b"family=" + b"x" * size
    r = await client.post(path, content=body, headers=PAGE)
    assert 400 <= r.status_code < 500 or r.status_code == 303, (path, r.status_code, r.text[-300:])
    assert r.headers["content-type"].startswith("text/html") or r.status_code == 303
    assert store.list_runs() == []


# -- a real server ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    db = tmp_path_factory.mktemp("guard") / "served.db"
    server = start(db, "--allowed-host", "games.test")
    yield server
    server.stop()


def test_dns_rebinding_against_wason_serve(served: Served) -> None:
    """The pair a DNS-rebinding page sends (its own name as Host and as Origin) was a 201 and a 303."""
    port = served.port
    rebound = {"host": f"evil.example:{port}", "origin": f"http://evil.example:{port}"}
    with httpx.Client(base_url=served.url, timeout=30) as http_:
        r = http_.post("/api/sessions", json=SESSION, headers=rebound)
        assert r.status_code == 400, r.text
        r = http_.post("/watch", data={"family": "wilt"}, headers={**rebound, "accept": "text/html"})
        assert r.status_code == 400, r.text
        assert http_.get("/api/sessions/1", headers=rebound).status_code == 400
        # only the scheme differs: refused; this server's own names and the one allowed: taken
        r = http_.post("/api/sessions", json=SESSION, headers={"origin": f"https://127.0.0.1:{port}"})
        assert r.status_code == 403, r.text
        for name in ["127.0.0.1", "localhost", "games.test"]:
            mine = {"host": f"{name}:{port}", "origin": f"http://{name}:{port}"}
            assert http_.post("/api/sessions", json=SESSION, headers=mine).status_code == 201, name


def test_a_200_mb_body_is_refused_before_it_is_read(served: Served) -> None:
    """Streamed by the client in 64 kB pieces (this test never holds it), with and without a Content-Length:
    a 413, and the server's resident memory stays where it was (before, 200 MB were read and parsed)."""
    size = 200 * 2**20
    with httpx.Client(base_url=served.url, timeout=30) as http_:
        assert http_.get("/api/families").status_code == 200  # the server's first imports, before measuring
        before = served.rss_kib()
        if before is None:
            pytest.skip("no /proc here to read the server's memory")
        json_ = {"content-type": "application/json"}
        r = http_.post("/api/sessions", content=chunks(size), headers=json_)
        assert r.status_code == 413 and r.json()["kind"] == "too-large"
        declared = {**json_, "content-length": str(size)}
        r = http_.post("/guess-the-rule/game", content=chunks(size), headers=declared)
        assert r.status_code == 413
        grown = (served.rss_kib() or 0) - before
        assert grown < 50 * 1024, f"the server grew by {grown} KiB"
        assert http_.get("/api/families").status_code == 200  # and goes on


def test_a_large_login_form_keeps_the_connection(served: Served) -> None:
    """A /login form over 64 kB was a 500, and the next request on that connection was reset."""
    conn = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    try:
        conn.request("POST", "/login", body=b"token=" + b"x" * 70_000, headers=PAGE)
        r = conn.getresponse()
        r.read()
        assert r.status == 413
        assert conn.sock is not None
        first = conn.sock.getsockname()
        conn.request("GET", "/api/families")
        again = conn.getresponse()
        again.read()
        assert again.status == 200
        assert conn.sock is not None and conn.sock.getsockname() == first  # the same connection
    finally:
        conn.close()
    assert served.alive()


# -- the command line ----------------------------------------------------------------------------------------
def test_serve_help_names_the_flags(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--help"]) == 0
    out = capsys.readouterr().out
    assert "--allowed-host" in out and "--max-body" in out


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--max-body", "10"], "--max-body must be from 65,536"),
        (["--max-body", "1000000000000"], "--max-body must be from 65,536"),
        (["--allowed-host", "not a host"], "--allowed-host 'not a host'"),
        (["--allowed-host", "ftp://x.test"], "http or https"),
    ],
)
def test_bad_guard_flags_are_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, flags: list[str], says: str
) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    assert main(["serve", "--port", str(port), "--db", str(tmp_path / "x.db"), *flags]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1 and "Traceback" not in err


def test_create_app_answers_to_loopback_names_only(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    app = create_app(f"sqlite:///{tmp_path / 'w.db'}")
    assert TestClient(app).get("/api/families").status_code == 400  # Starlette's "testserver"
    assert TestClient(app, base_url="http://localhost:8123").get("/api/families").status_code == 200
