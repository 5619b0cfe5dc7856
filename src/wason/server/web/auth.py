"""The write token of ``wason serve --token TOKEN`` (or ``$WASON_TOKEN``).

With a token, every write request (any method but GET, HEAD and OPTIONS, on pages and API alike, including
routes added later) must carry it: ``Authorization: Bearer TOKEN`` from an API client, or the cookie that
``/login`` sets in a browser. Reads stay open. Without a token nothing is asked (the server listens on 127.0.0.1
unless ``--host`` says otherwise). A missing or wrong token is a 401 with one message: JSON for the API, a page
for a browser.

The check is an ASGI middleware on the method, so a route needs nothing of its own to be covered. The cookie is
``HttpOnly`` and ``SameSite=Strict``: another site cannot make a visitor's browser send it with a form. With or
without a token, a write that a browser sends from another site's page (its ``Origin`` is not this server's) is
refused with 403 before it gets here (:mod:`wason.server.guard`, with the allowed hosts and the body limit).
"""

from __future__ import annotations

import hmac
from typing import Any
from urllib.parse import parse_qsl, quote, unquote

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send

from wason.server.guard import CROSS_SITE, is_published_error
from wason.server.web.pages import render

COOKIE = "wason_token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
LOGIN_PATH = "/login"
MAX_TOKEN_CHARS = 1000
MESSAGE = (
    "this server asks for its token to change anything: send 'Authorization: Bearer TOKEN', "
    "or log in at /login in a browser"
)
WRONG = "wrong token"


def server_token(app: Any) -> str | None:
    """The token ``app`` was protected with (None: writes are open)."""
    token = getattr(app.state, "token", None)
    return token if isinstance(token, str) else None


def matches(given: str | None, token: str) -> bool:
    """Whether ``given`` is the token (compared in constant time)."""
    return given is not None and hmac.compare_digest(given.encode(), token.encode())


def _bearer(headers: dict[bytes, bytes]) -> str | None:
    value = headers.get(b"authorization", b"").decode("latin-1").strip()
    scheme, _, rest = value.partition(" ")
    return rest.strip() if scheme.lower() == "bearer" and rest.strip() else None


def _cookie(headers: dict[bytes, bytes]) -> str | None:
    for part in headers.get(b"cookie", b"").decode("latin-1").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            return unquote(value)
    return None


def given_token(headers: dict[bytes, bytes]) -> str | None:
    """The token a request carries: ``Authorization: Bearer TOKEN``, else the login cookie."""
    return _bearer(headers) or _cookie(headers)


def _wants_json(path: str, headers: dict[bytes, bytes]) -> bool:
    if path.startswith(("/api/", "/guess-the-rule")):
        return True
    return b"text/html" not in headers.get(b"accept", b"")


def _refusal(path: str, headers: dict[bytes, bytes], status: int, message: str) -> Response:
    if _wants_json(path, headers):
        return JSONResponse(
            status_code=status,
            content={
                "error": message,
                "field": None,
                "kind": "unauthorized" if status == 401 else "forbidden",
                "detail": message
                if is_published_error(path)
                else [{"loc": [], "msg": message, "type": "unauthorized" if status == 401 else "forbidden"}],
            },
            headers={"WWW-Authenticate": "Bearer"} if status == 401 else None,
        )
    return render(
        None, "watch/login.html", status_code=status, error=message, next_path="/", open_server=False
    )


class TokenMiddleware:
    """Guards every write request (any method but GET, HEAD and OPTIONS; ``/login`` aside): with a token
    (``state.token``), one without it is refused (401). Reads pass. (A write sent by another site's page is
    refused before, whether or not the server has a token: :class:`wason.server.guard.SiteGuard`.)"""

    def __init__(self, app: ASGIApp, state: Any) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        token = getattr(self.state, "token", None)
        if not isinstance(token, str) or scope["path"] == LOGIN_PATH:
            await self.app(scope, receive, send)
            return
        given = _bearer(headers) or _cookie(headers)
        if matches(given, token):
            await self.app(scope, receive, send)
            return
        message = MESSAGE if given is None else f"{WRONG}: {MESSAGE}"
        await _refusal(scope["path"], headers, 401, message)(scope, receive, send)


def install(app: FastAPI) -> None:
    """The guard of writes and ``/login`` (called when the app is made; :func:`protect` adds the token)."""
    app.include_router(router)
    app.add_middleware(TokenMiddleware, state=app.state)


def protect(app: FastAPI, token: str) -> None:
    """Ask for ``token`` on every write request of ``app``."""
    token = token.strip()
    if not token:
        raise ValueError("the token is empty")
    if len(token) > MAX_TOKEN_CHARS:
        raise ValueError(f"the token is longer than {MAX_TOKEN_CHARS} characters")
    app.state.token = token


# -- /login -----------------------------------------------------------------------------------------------
router = APIRouter()


def _local(path: str | None) -> str:
    """Where to go after logging in: a path on this server only (never another host)."""
    if not path or not path.startswith("/") or path.startswith("//") or "\\" in path:
        return "/"
    return path


def _logged_in(token: str, next_path: str) -> Response:
    response = RedirectResponse(quote(_local(next_path), safe="/?=&%"), status_code=303)
    response.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
    return response


def _login(request: Request, given: str | None, next_path: str | None) -> Response:
    token = server_token(request.app)
    target = _local(next_path)
    if token is None:
        return render(request, "watch/login.html", error=None, next_path=target, open_server=True)
    if given is None:
        return render(request, "watch/login.html", error=None, next_path=target, open_server=False)
    if not matches(given.strip(), token):
        return render(
            request, "watch/login.html", status_code=401, error=WRONG, next_path=target, open_server=False
        )
    return _logged_in(token, target)


@router.get(LOGIN_PATH, response_class=HTMLResponse)
async def login_page(request: Request, token: str | None = None, next: str | None = None) -> Response:
    """The login form; with ``?token=...`` the cookie is set at once (a link that logs a browser in)."""
    return _login(request, token[:MAX_TOKEN_CHARS] if token is not None else None, next)


@router.post(LOGIN_PATH, response_class=HTMLResponse)
async def login_form(request: Request) -> Response:
    """The form's post (``token``, ``next``): the cookie on the right token, the form again on a wrong one."""
    try:
        fields = await read_form(request)
    except FormTooLarge as exc:
        open_server = server_token(request.app) is None
        return render(
            request,
            "watch/login.html",
            status_code=413,
            error=str(exc),
            next_path="/",
            open_server=open_server,
        )
    return _login(request, fields.get("token", "")[:MAX_TOKEN_CHARS], fields.get("next", "/"))


class FormTooLarge(ValueError):
    """A form body over the limit."""


async def read_form(request: Request, limit: int = 64_000) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body as one value per name (the last one given); no
    multipart parser is needed for the pages' small forms."""
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise FormTooLarge(f"the form is larger than {limit} bytes")
    fields: dict[str, str] = {}
    for name, value in parse_qsl(body.decode("utf-8", errors="replace"), keep_blank_values=True):
        fields[name] = value
    return fields


__all__ = [
    "COOKIE",
    "CROSS_SITE",
    "FormTooLarge",
    "TokenMiddleware",
    "install",
    "matches",
    "protect",
    "read_form",
    "router",
    "server_token",
]
