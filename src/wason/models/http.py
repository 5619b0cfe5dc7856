"""The lean HTTP path of the OpenAI-compatible backend: JSON requests over pooled keep-alive connections (aiohttp).

A chat request is one JSON body built once and posted; its reply is read within a size cap and checked against the
few fields the backend uses (:mod:`wason.models.replies`). This costs about a tenth of what the ``openai`` SDK
spent per call (its request building, typed transforms, response wrapping and its HTTP stack: issue 39), and it
says exactly what it sends. A failure becomes a :class:`~wason.models.base.ModelError` worded as before: transient
for 408, 429, 5xx, timeouts and lost connections.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import aiohttp
from aiohttp.helpers import get_env_proxy_for_url
from yarl import URL

from wason.models.base import TRANSIENT_4XX, ModelError
from wason.models.replies import is_transport_error, read_capped
from wason.version import version

ERROR_BODY_BYTES = 64 * 1024
"""The most of an error reply's body read for its message."""

KEEPALIVE_SECONDS = 4.0
"""How long an idle connection is kept for the next request: under the 5 s after which uvicorn (vLLM,
llama-cpp-python's server) and llama.cpp's own server close one, so a request seldom meets a connection the
server is closing."""

# Failures of a request on a kept-alive connection that the server closed before the request reached it whole
_STALE = (aiohttp.ClientOSError, aiohttp.ServerDisconnectedError)


class HTTPStatusError(Exception):
    """An answer with an error status: the cause of the :class:`ModelError` it becomes, carrying the server's
    parsed body (``body``) for those who read its fields (the ``param`` a 400 names, a rejection's message)."""

    def __init__(self, status: int, body: object, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.message = message


def status_error(status: int, body: bytes, *, api_key_env: str | None = None) -> ModelError:
    """The error for an answer with status ``status`` and (the start of) its body, worded as the backends word
    every status error (see :func:`wason.models.base.map_sdk_error`), with the server's own message."""
    try:
        parsed: object = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        parsed = None
    detail = parsed.get("error", parsed) if isinstance(parsed, Mapping) else None
    said = (
        detail.get("message") if isinstance(detail, Mapping) else detail if isinstance(detail, str) else None
    )
    if not isinstance(said, str) or not said.strip():
        said = body.decode("utf-8", errors="replace").strip() or f"HTTP {status}"
    message = " ".join(said.split())[:1000]
    cause = HTTPStatusError(status, parsed, message)
    if status >= 500 or status in TRANSIENT_4XX:
        err = ModelError(f"server error {status}: {message}", transient=True, status=status)
    elif status == 401:
        hint = f" (check {api_key_env}, or pass --api-key)" if api_key_env else " (pass --api-key)"
        err = ModelError(f"authentication failed (401){hint}: {message}", transient=False, status=status)
    else:
        err = ModelError(f"request rejected ({status}): {message}", transient=False, status=status)
    err.__cause__ = cause
    return err


def split_credentials(url: str) -> tuple[str, bool]:
    """``url`` and whether it carries a user name or password (which then authenticate instead of the key, as
    they did through the SDK's HTTP layer)."""
    parts = urlsplit(url)
    return urlunsplit(parts), bool(parts.username or parts.password)


class JsonHttp:
    """Pooled keep-alive connections to one API base URL, for JSON requests.

    The connection pool (an ``aiohttp`` session) is made on first use in the running event loop, and made again
    if a later call runs in another loop (a session belongs to the loop it was made in).

    Attributes:
        base_url: the API base URL, without a trailing slash.
    """

    def __init__(
        self, base_url: str, *, headers: Mapping[str, str], max_connections: int, max_reply_bytes: int
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {
            "accept": "application/json",
            "content-type": "application/json",
            "user-agent": f"wason/{version()}",
            **headers,
        }
        self._max_connections = max(1, max_connections)
        self.max_reply_bytes = max_reply_bytes
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._proxy: URL | None = None
        self._proxy_auth: aiohttp.BasicAuth | None = None

    def _pool(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is None or self._loop is not loop or self._session.closed:
            connector = aiohttp.TCPConnector(
                limit=self._max_connections,
                limit_per_host=0,
                ttl_dns_cache=300,
                keepalive_timeout=KEEPALIVE_SECONDS,
            )
            # The proxy from HTTP(S)_PROXY and NO_PROXY, as the SDK's HTTP layer read them, looked up once: with
            # trust_env, aiohttp looks it up (and reads ~/.netrc) in a worker thread for every request, two
            # thread hops a call that cost more than the rest of the request.
            try:
                self._proxy, self._proxy_auth = get_env_proxy_for_url(URL(self.base_url))
            except LookupError:
                self._proxy, self._proxy_auth = None, None
            self._session = aiohttp.ClientSession(
                connector=connector, headers=self._headers, trust_env=False, raise_for_status=False
            )
            self._loop = loop
        return self._session

    async def request(
        self, method: str, path: str, body: bytes | None, *, timeout: float, api_key_env: str | None = None
    ) -> tuple[bytes, str | None]:
        """Send one request and read its whole reply body within the cap.

        Args:
            method: ``GET`` or ``POST``.
            path: the path under the base URL, starting with ``/``.
            body: the JSON body, already encoded, or ``None``.
            timeout: seconds for the whole request, reading the body included.
            api_key_env: the environment variable the key came from, named in the message of a 401.

        Returns:
            The body of a 2xx answer and its ``Content-Type``.

        Raises:
            ModelError: an error status (transient for 408, 429 and 5xx), a timeout, a lost connection or a body
                larger than the cap, cut off or unreadable (transient).
        """
        session = self._pool()
        try:
            async with asyncio.timeout(timeout):
                response = await self._send(session, method, path, body, timeout)
                try:
                    return await self._read(response, api_key_env)
                finally:
                    response.release()
        except TimeoutError as err:
            raise ModelError(f"request timed out after {timeout:g}s", transient=True) from err
        except ModelError:
            raise
        except aiohttp.InvalidURL as err:
            raise ModelError(f"cannot use the endpoint URL: {err}", transient=False) from err
        except Exception as err:
            if not is_transport_error(err):
                raise
            raise ModelError(f"connection failed: {_one_line(err)}", transient=True) from err

    async def _send(
        self, session: aiohttp.ClientSession, method: str, path: str, body: bytes | None, timeout: float
    ) -> aiohttp.ClientResponse:
        """The answer's status and headers. A kept-alive connection the server closed meanwhile (it may, and
        says so only by closing) fails before any answer: the request is sent once more on a new connection, as
        the server never had it whole."""
        for attempt in (1, 2):
            try:
                return await session.request(
                    method,
                    self.base_url + path,
                    data=body,
                    timeout=aiohttp.ClientTimeout(total=None, sock_connect=timeout),
                    allow_redirects=False,
                    proxy=self._proxy,
                    proxy_auth=self._proxy_auth,
                )
            except _STALE as err:
                if attempt == 2 or isinstance(
                    err, aiohttp.ClientConnectorError
                ):  # no connection at all: say so
                    raise
        raise AssertionError("unreachable")  # pragma: no cover

    async def _read(
        self, response: aiohttp.ClientResponse, api_key_env: str | None
    ) -> tuple[bytes, str | None]:
        if response.status >= 300:
            try:
                head = await read_capped(response.content.iter_any(), limit=ERROR_BODY_BYTES, cut=True)
            except ModelError as err:  # the error's body broke off: a network failure, worth a retry
                cause = err.__cause__
                if cause is None or isinstance(cause, TimeoutError):
                    raise
                raise ModelError(f"connection failed: {_one_line(cause)}", transient=True) from cause
            finally:
                response.close()  # the body may be longer than what was read: never reuse the connection
            raise status_error(response.status, head, api_key_env=api_key_env)
        try:
            data = await read_capped(
                response.content.iter_any(),
                limit=self.max_reply_bytes,
                declared_length=response.headers.get("content-length"),
            )
        except ModelError:
            response.close()
            raise
        return data, response.headers.get("content-type")

    async def aclose(self) -> None:
        """Close the pooled connections (of the current event loop's session)."""
        session, self._session = self._session, None
        if session is not None and not session.closed and self._loop is asyncio.get_running_loop():
            await session.close()


def _one_line(err: BaseException) -> str:
    text = " ".join(str(err).split())
    return f"{type(err).__name__}: {text}" if text else type(err).__name__


def bearer_headers(api_key: str, *, url_has_credentials: bool) -> dict[str, str]:
    """The headers that authenticate a request: the key as a bearer token (unless the URL carries credentials),
    and OpenAI's organization and project from ``OPENAI_ORG_ID`` and ``OPENAI_PROJECT_ID`` when set, as the
    ``openai`` SDK sends them."""
    headers: dict[str, str] = {} if url_has_credentials else {"authorization": f"Bearer {api_key}"}
    for variable, header in (
        ("OPENAI_ORG_ID", "openai-organization"),
        ("OPENAI_PROJECT_ID", "openai-project"),
    ):
        value = os.environ.get(variable)
        if value:
            headers[header] = value
    return headers


def dumps(body: Any) -> bytes:
    """A request body as compact UTF-8 JSON."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
