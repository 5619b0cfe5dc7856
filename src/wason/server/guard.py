"""What a request must be before the app reads it: sent to this server by name, from this server's own pages
when it writes, and small.

- **Host.** Every request's ``Host`` must be an allowed host: by default ``127.0.0.1``, ``localhost`` and
  ``[::1]`` at the server's own port (``wason serve`` adds the address it listens on, and ``--allowed-host``
  more). A page of another site that a DNS-rebinding attack points at 127.0.0.1 sends its own name as the
  ``Host`` and is refused (400), reads included.
- **Origin.** A write (any method but GET, HEAD and OPTIONS) whose ``Origin`` is present must come from an
  allowed origin exactly - scheme, name and port, ``http://`` and an allowed host - and one that says
  ``Sec-Fetch-Site: cross-site`` is refused too (403): a page elsewhere cannot make a visitor's browser start
  games or paid model runs here. Scripts send neither header.
- **Published routes from other sites (CORS).** ``wason serve --allow-origin ORIGIN`` (repeatable; ``*`` for
  any origin, the reference backend's own setting) lets pages of those origins use the published routes
  (``/guess-the-rule/...``) as the reference's web app does: their preflights (``OPTIONS`` with
  ``Access-Control-Request-Method``) are answered here, the answers carry ``Access-Control-Allow-Origin``, and
  their writes pass the Origin check. Only there: ``/api/``, the pages and their forms stay same-origin. The one
  request header allowed cross-origin is ``Content-Type`` (what the app sends); no credentials (cookies) are
  allowed cross-origin. The ``Host`` check still applies to every request.
- **Spending reads.** ``GET /guess-the-rule/llm-gameplay`` makes model calls, so it is checked as a write is:
  a browser's request from another site's page (``Sec-Fetch-Site: cross-site``, or an ``Origin`` that is not
  allowed) is refused unless its origin is one of ``--allow-origin``'s. An ``<img>`` on any page cannot start it.
- **Body.** A request body over the limit (1 MiB by default) is a 413, answered before the body is read: at
  once when ``Content-Length`` says so, and as soon as the bytes received pass the limit for a body sent in
  chunks; the app is then told the client is gone and whatever it answers is dropped.

Refusals are one message: JSON for the API (``/api/``, ``/guess-the-rule/``, or a client that does not ask for
HTML), a page for a browser. The rules are an ASGI middleware outside every route, so routes added later are
covered with no help of their own; :func:`configure` changes them on a made app (``wason serve`` does).

An allowed host is written ``[SCHEME://]NAME[:PORT]``: ``myhost.lan`` (at the server's own port, as a browser
sends it when it connects directly), ``myhost.lan:8080``, or ``https://games.example.org`` (through a TLS
proxy: the port is the scheme's, 443). A ``Host`` without a port is a browser's at the scheme's default port.
"""

from __future__ import annotations

import ipaddress
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from wason.server.web.pages import render

log = logging.getLogger("wason.server")

LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
"""The names every server answers to (at its own port)."""

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
PUBLISHED = "/guess-the-rule/"
"""The routes other origins may use when the operator allows them (``--allow-origin``)."""
SPENDING = frozenset({"/guess-the-rule/llm-gameplay"})
"""Reads that call a model (they cost money): checked for their origin as writes are."""
MAX_ALLOWED_ORIGINS = 32
MAX_ORIGIN_CHARS = 300
"""The bounds of ``--allow-origin``: how many, and how long each (a web origin is a scheme, a name, a port)."""
CORS_METHODS = "GET, POST, OPTIONS"
CORS_HEADERS = "Content-Type"
CORS_MAX_AGE = "600"
ANY_ORIGIN = "*"
DEFAULT_MAX_BODY = 1 << 20
MIN_MAX_BODY = 64 << 10
MAX_MAX_BODY = 100 << 20
"""The bounds of the body limit: the pages' forms take up to 64 kB, the largest API request (a 100,000
character reply) well under 1 MiB, and nothing served here needs 100 MiB."""

DEFAULT_PORTS = {"http": 80, "https": 443}

BAD_HOST = "is not a name this server answers to (wason serve --allowed-host NAME adds one)"
CROSS_SITE = (
    "a write from another site's page is refused: start and play games from this server's own pages, or "
    "from a script (which sends no Origin header)"
)

_NAME = re.compile(r"^(\[[0-9a-f:.]+\]|[a-z0-9_]([a-z0-9_.-]{0,251}[a-z0-9_])?)$")


@dataclass(frozen=True)
class AllowedHost:
    """One name the server answers to: ``scheme`` of its pages' origin, ``name`` (lower case, an IPv6 address
    in brackets) and ``port`` (None: the port the request came in on)."""

    scheme: str
    name: str
    port: int | None

    def port_at(self, server_port: int) -> int:
        return self.port if self.port is not None else server_port


@dataclass(frozen=True)
class Policy:
    """The allowed hosts, the largest body and the origins allowed on the published routes (``any_origin``:
    ``--allow-origin '*'``), as :class:`SiteGuard` applies them."""

    hosts: tuple[AllowedHost, ...]
    max_body: int
    origins: frozenset[tuple[str, str, int]] = frozenset()
    any_origin: bool = False


def _split(text: str) -> tuple[str, int | None] | None:
    """``NAME``, ``NAME:PORT``, ``[V6]`` or ``[V6]:PORT`` (lower case) as the name and the port; None when it is
    none of these."""
    name, port_text = text, ""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            return None
        name, rest = text[: end + 1], text[end + 1 :]
        if rest:
            if not rest.startswith(":"):
                return None
            port_text = rest[1:]
    elif ":" in text:
        name, _, port_text = text.partition(":")
        if ":" in port_text:
            return None
    if port_text == "" and text.endswith(":"):
        return None
    if not _NAME.match(name):
        return None
    if port_text:
        if not port_text.isascii() or not port_text.isdigit() or len(port_text) > 5:
            return None
        port = int(port_text)
        if not 1 <= port <= 65535:
            return None
        return name, port
    return name, None


def parse_allowed_host(text: str) -> AllowedHost:
    """An allowed host as written for ``--allowed-host`` (``[SCHEME://]NAME[:PORT]``; a bare IPv6 address is
    put in brackets). Raises ``ValueError`` with one line for anything else."""
    spec = text.strip().lower()
    scheme, sep, rest = spec.partition("://")
    if not sep:
        scheme, rest = "http", spec
    elif scheme not in DEFAULT_PORTS:
        raise ValueError(f"--allowed-host {text!r}: the scheme must be http or https")
    rest = rest.rstrip("/")
    if rest.count(":") > 1 and not rest.startswith("["):
        rest = f"[{rest}]"  # a bare IPv6 address
    if rest.startswith("["):
        address = rest[1:].partition("]")[0]
        try:
            ipaddress.IPv6Address(address)
        except ValueError:
            raise ValueError(f"--allowed-host {text!r}: {address!r} is not an IPv6 address") from None
    split = _split(rest)
    if split is None:
        raise ValueError(f"--allowed-host {text!r} is not a host name, NAME:PORT or SCHEME://NAME[:PORT]")
    name, port = split
    if port is None and sep:
        port = DEFAULT_PORTS[scheme]  # a URL without a port is at its scheme's
    return AllowedHost(scheme, name, port)


def _origin(text: str) -> tuple[str, str, int] | None:
    """A web origin (``SCHEME://NAME[:PORT]``, lower case) as (scheme, name, port); None when it is not one."""
    scheme, sep, rest = text.strip().lower().partition("://")
    if not sep or scheme not in DEFAULT_PORTS:
        return None  # "null" (a sandboxed frame, a file), or not a web origin
    split = _split(rest)
    if split is None:
        return None
    name, port = split
    return scheme, name, port if port is not None else DEFAULT_PORTS[scheme]


def parse_allowed_origin(text: str) -> tuple[str, str, int] | None:
    """An origin as written for ``--allow-origin``: ``*`` (any: None), or ``SCHEME://NAME[:PORT]`` exactly as a
    browser sends it in ``Origin`` (no path). Raises ``ValueError`` with one line for anything else."""
    if not isinstance(text, str):
        raise ValueError(f"--allow-origin must be text, got {type(text).__name__}")
    if len(text) > MAX_ORIGIN_CHARS:
        raise ValueError(f"--allow-origin {text[:40]!r}...: longer than {MAX_ORIGIN_CHARS} characters")
    spec = text.strip()
    if spec == ANY_ORIGIN:
        return None
    found = _origin(spec)
    if found is None:
        raise ValueError(
            f"--allow-origin {text!r} is not an origin: write SCHEME://NAME[:PORT] (http or https, no path), "
            "e.g. http://localhost:8080, or * for any"
        )
    return found


def _max_body(max_body: int) -> int:
    if isinstance(max_body, bool) or not isinstance(max_body, int):
        raise ValueError(f"--max-body must be a whole number of bytes, got {max_body!r}")
    if not MIN_MAX_BODY <= max_body <= MAX_MAX_BODY:
        raise ValueError(
            f"--max-body must be from {MIN_MAX_BODY:,} to {MAX_MAX_BODY:,} bytes, got {max_body:,}"
        )
    return max_body


def policy(
    allowed_hosts: Iterable[str] = LOOPBACK,
    max_body: int = DEFAULT_MAX_BODY,
    allow_origins: Iterable[str] = (),
) -> Policy:
    """The rules for these hosts, this body limit and these origins of other sites allowed on the published
    routes (each checked: ``ValueError`` with one line)."""
    hosts = tuple(dict.fromkeys(parse_allowed_host(h) for h in allowed_hosts))
    if not hosts:
        raise ValueError("no allowed host: the server would refuse every request")
    given = list(allow_origins)
    if len(given) > MAX_ALLOWED_ORIGINS:
        raise ValueError(f"--allow-origin is given {len(given)} times; at most {MAX_ALLOWED_ORIGINS}")
    parsed = [parse_allowed_origin(o) for o in given]
    return Policy(
        hosts=hosts,
        max_body=_max_body(max_body),
        origins=frozenset(o for o in parsed if o is not None),
        any_origin=any(o is None for o in parsed),
    )


def install(app: FastAPI) -> None:
    """Guard ``app`` with the default rules (loopback names, 1 MiB); called last, so it runs first."""
    app.state.site_policy = policy()
    app.add_middleware(SiteGuard, state=app.state)


def configure(app: FastAPI, rules: Policy) -> None:
    """Apply ``rules`` (made by :func:`policy`) to an app made by :func:`wason.server.create_app`."""
    app.state.site_policy = rules


def host_for(address: str) -> str:
    """The name a browser writes for the address a server listens on (an IPv6 address in brackets)."""
    try:
        if ipaddress.ip_address(address).version == 6:
            return f"[{address}]"
    except ValueError:
        pass
    return address


# -- the checks -------------------------------------------------------------------------------------------
def _server_port(scope: Scope) -> int:
    """The port the request came in on; unknown (a Unix socket, httpx's ASGI transport on a URL without a
    port), the default port of its scheme."""
    server = scope.get("server")
    if server and len(server) == 2 and isinstance(server[1], int):
        return server[1]
    return DEFAULT_PORTS.get(scope.get("scheme", "http"), 80)


def host_allowed(rules: Policy, host: bytes, server_port: int) -> bool:
    """Whether ``host`` (the ``Host`` header) names one of the allowed hosts at its port."""
    split = _split(host.decode("latin-1").strip().lower())
    if split is None:
        return False
    name, port = split
    for allowed in rules.hosts:
        if allowed.name != name:
            continue
        at = allowed.port_at(server_port)
        if port == at or (port is None and at == DEFAULT_PORTS[allowed.scheme]):
            return True
    return False


def origin_allowed(rules: Policy, origin: bytes, server_port: int) -> bool:
    """Whether ``origin`` (the ``Origin`` header) is an allowed host's own: its scheme, name and port."""
    found = _origin(origin.decode("latin-1"))
    if found is None:
        return False
    scheme, name, port = found
    return any(
        allowed.scheme == scheme and allowed.name == name and allowed.port_at(server_port) == port
        for allowed in rules.hosts
    )


def cors_allowed(rules: Policy, origin: bytes) -> bool:
    """Whether a page of ``origin`` (the ``Origin`` header) may use the published routes (``--allow-origin``)."""
    if rules.any_origin:
        return _origin(origin.decode("latin-1")) is not None or origin.strip() == b"null"
    found = _origin(origin.decode("latin-1"))
    return found is not None and found in rules.origins


def _cors_headers(rules: Policy, origin: bytes) -> list[tuple[bytes, bytes]]:
    allow = b"*" if rules.any_origin else origin.strip()
    out = [(b"access-control-allow-origin", allow)]
    if not rules.any_origin:
        out.append((b"vary", b"Origin"))
    return out


def _preflight(rules: Policy, origin: bytes) -> Response:
    """The answer to a preflight from an allowed origin: the methods and the one header the published routes
    take, for ten minutes."""
    response = Response(status_code=204)
    for name, value in _cors_headers(rules, origin):
        response.headers[name.decode()] = value.decode("latin-1")
    response.headers["access-control-allow-methods"] = CORS_METHODS
    response.headers["access-control-allow-headers"] = CORS_HEADERS
    response.headers["access-control-max-age"] = CORS_MAX_AGE
    return response


def is_published_error(path: str) -> bool:
    """Whether an error at ``path`` is answered in the reference's shape (a string ``detail``)."""
    return path.startswith(PUBLISHED) or path == PUBLISHED.rstrip("/")


def _wants_json(scope: Scope, headers: dict[bytes, bytes]) -> bool:
    if scope["path"].startswith(("/api/", "/guess-the-rule")):
        return True
    return b"text/html" not in headers.get(b"accept", b"")


def refusal(scope: Scope, headers: dict[bytes, bytes], status: int, kind: str, message: str) -> Response:
    """One message: JSON with the house's error keys for the API, a page for a browser."""
    extra = {"connection": "close"} if status == 413 else None
    if _wants_json(scope, headers):
        content = {
            "error": message,
            "field": None,
            "kind": kind,
            "detail": message
            if is_published_error(scope["path"])
            else [{"loc": [], "msg": message, "type": kind}],
        }
        return JSONResponse(status_code=status, content=content, headers=extra)
    page = render(None, "refused.html", status_code=status, message=message)
    if extra:
        page.headers.update(extra)
    return page


class SiteGuard:
    """The ASGI middleware of this module's rules (``state.site_policy``, read on each request)."""

    def __init__(self, app: ASGIApp, state: Any) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        rules: Policy = self.state.site_policy
        headers = dict(scope["headers"])
        server_port = _server_port(scope)
        origins = [value for name, value in scope["headers"] if name == b"origin"]
        path = scope["path"]
        # a page of another site the operator allowed (--allow-origin), on the published routes only
        cors = (
            scope["type"] == "http"
            and path.startswith(PUBLISHED)
            and len(origins) == 1
            and (rules.any_origin or bool(rules.origins))
            and cors_allowed(rules, origins[0])
        )
        if cors and scope["method"] == "OPTIONS" and b"access-control-request-method" in headers:
            # answered whatever the Host (it carries nothing): the request itself then gets the Host refusal
            # in a form the page can read, not a bare network error
            await _preflight(rules, origins[0])(scope, receive, send)
            return
        if cors:
            send = _with_headers(send, _cors_headers(rules, origins[0]))
        hosts = [value for name, value in scope["headers"] if name == b"host"]
        if len(hosts) != 1 or not host_allowed(rules, hosts[0], server_port):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            shown = headers.get(b"host", b"").decode("latin-1")[:100]
            message = f"Host {shown!r} {BAD_HOST}"
            await refusal(scope, headers, 400, "invalid-host", message)(scope, receive, send)
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["method"] not in SAFE_METHODS or path in SPENDING:
            site = headers.get(b"sec-fetch-site", b"")
            if not cors and (
                site == b"cross-site"
                or (site == b"same-site" and path in SPENDING)
                or not all(origin_allowed(rules, origin, server_port) for origin in origins)
            ):
                await refusal(scope, headers, 403, "forbidden", CROSS_SITE)(scope, receive, send)
                return
        await _limited(self.app, rules.max_body, scope, receive, send, headers)


def _with_headers(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    """``send`` adding ``extra`` headers to the response's start (the CORS headers of an allowed origin)."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            # one Access-Control-Allow-Origin (ours); a Vary the app sent stays beside ours
            kept = [
                (n, v) for n, v in message.get("headers", []) if n.lower() != b"access-control-allow-origin"
            ]
            message = {**message, "headers": [*kept, *extra]}
        await send(message)

    return sending


def _too_large(limit: int) -> str:
    return f"the request's body is larger than this server takes ({limit:,} bytes)"


def _content_length(headers: dict[bytes, bytes]) -> int | None:
    value = headers.get(b"content-length", b"").strip()
    return int(value) if value.isdigit() and len(value) <= 18 else None


async def _limited(
    app: ASGIApp, limit: int, scope: Scope, receive: Receive, send: Send, headers: dict[bytes, bytes]
) -> None:
    """Run ``app`` with at most ``limit`` bytes of body: a 413 in its place for a longer one, before the app
    sees it when ``Content-Length`` says so, else as soon as the bytes received pass the limit."""
    declared = _content_length(headers)
    if declared is not None and declared > limit:
        await refusal(scope, headers, 413, "too-large", _too_large(limit))(scope, receive, send)
        return
    received = 0
    started = False
    refused = False

    async def limited_receive() -> Message:
        nonlocal received, refused
        if refused:
            return {"type": "http.disconnect"}
        message = await receive()
        if message["type"] == "http.request":
            received += len(message.get("body", b""))
            if received > limit:
                # answer now, while the app waits for the rest; it is then told the client has gone
                refused = True
                if not started:
                    await refusal(scope, headers, 413, "too-large", _too_large(limit))(scope, receive, send)
                return {"type": "http.disconnect"}
        return message

    async def guarded_send(message: Message) -> None:
        nonlocal started
        if refused and not started:
            return  # the 413 went out in the app's place: what the app answers to the "disconnect" is dropped
        if message["type"] == "http.response.start":
            started = True
        await send(message)

    try:
        await app(scope, limited_receive, guarded_send)
    except Exception:
        if not refused:
            raise
        # the app failed on the body cut short, after the 413 went out: nothing more to tell anyone
        log.debug("%s %s failed after its body was refused", scope["method"], scope["path"], exc_info=True)


__all__ = [
    "ANY_ORIGIN",
    "CROSS_SITE",
    "DEFAULT_MAX_BODY",
    "LOOPBACK",
    "MAX_ALLOWED_ORIGINS",
    "MAX_MAX_BODY",
    "MAX_ORIGIN_CHARS",
    "MIN_MAX_BODY",
    "PUBLISHED",
    "SPENDING",
    "AllowedHost",
    "Policy",
    "SiteGuard",
    "configure",
    "cors_allowed",
    "host_allowed",
    "host_for",
    "install",
    "is_published_error",
    "origin_allowed",
    "parse_allowed_host",
    "parse_allowed_origin",
    "policy",
    "refusal",
]
