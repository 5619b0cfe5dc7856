"""Reading an HTTP backend's reply ourselves: a size cap, strict UTF-8, JSON, and a schema of the fields we use.

The SDKs parse a 200 reply leniently and let whatever goes wrong escape as their own or the standard library's
exceptions (a ``JSONDecodeError``, an ``AttributeError`` on ``message: null``), and they read a body of any size
into memory. The backends read the body here instead, and every defect becomes one
:class:`~wason.models.base.ModelError` marked transient - ``malformed reply: <why>`` - which the client retries and
records like a 503: a broken reply is usually a proxy or a server having a bad moment, and asking again is cheap.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping
from typing import Annotated, TypeVar

from pydantic import BaseModel, ConfigDict, Field, StrictStr, ValidationError

from wason.models.base import ModelError

MAX_REPLY_BYTES = 8 * 1024 * 1024
"""The largest reply body read, in bytes (8 MiB). A chat reply is a few kilobytes; reading stops as soon as a body
passes this, so a runaway reply costs a few times this much memory at most, never its own size."""

# A short look at a body that is not JSON (an HTML error page from a proxy, say) tells the user what answered.
_PREVIEW_CHARS = 60

Count = Annotated[int, Field(strict=True, ge=0)]
"""A token count: a non-negative integer, not a string or a float that happens to look like one."""

_M = TypeVar("_M", bound=BaseModel)


class ReplyModel(BaseModel):
    """Base of the reply schemas: fields we do not use are ignored, whatever they hold."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class ListedModel(ReplyModel):
    """One model of a ``GET /models`` reply (the OpenAI and Anthropic APIs answer with the same shape)."""

    id: StrictStr


class ModelList(ReplyModel):
    """A ``GET /models`` reply: ``{"data": [{"id": ...}, ...]}``."""

    data: list[ListedModel]


def malformed(why: str) -> ModelError:
    """The error for a reply we cannot use: transient, so it is retried and each attempt recorded."""
    return ModelError(f"malformed reply: {why}", transient=True)


def _is_timeout(err: BaseException) -> bool:
    # The SDKs' HTTP layer (httpx, or httpx2 in newer SDKs) raises its own ReadTimeout, not TimeoutError;
    # naming its class spares importing a transport this package does not depend on directly.
    return isinstance(err, TimeoutError) or any(c.__name__ == "TimeoutException" for c in type(err).__mro__)


def is_transport_error(err: BaseException) -> bool:
    """Whether ``err`` comes from the HTTP layer under the SDKs (a lost connection, a body cut short).

    The SDKs wrap such errors while sending, but not all of those raised while reading a body (an error status's
    body included); they are network failures, worth a retry.
    """
    root = type(err).__module__.split(".")[0]
    return root in {"httpx", "httpx2", "httpcore", "httpcore2", "h11", "anyio", "aiohttp"} or isinstance(
        err, OSError
    )


async def read_capped(
    chunks: AsyncIterator[bytes],
    *,
    limit: int = MAX_REPLY_BYTES,
    declared_length: str | None = None,
    cut: bool = False,
) -> bytes:
    """Read a reply body, stopping as soon as it grows past ``limit`` bytes.

    Args:
        chunks: the body as it arrives (decompressed, if the server compressed it).
        limit: the most bytes accepted.
        declared_length: the ``Content-Length`` header, if the server sent one: a body declared too large is
            refused before any of it is read.
        cut: return the first ``limit`` bytes of a longer body instead of refusing it (an error reply's start
            is enough to name the error).

    Returns:
        The whole body.

    Raises:
        ModelError: transient; the body is larger than ``limit``, the connection broke before its end, or
            reading it timed out.
    """
    if declared_length is not None and declared_length.strip().isdigit() and int(declared_length) > limit:
        raise malformed(f"reply larger than {limit} bytes (Content-Length {int(declared_length)})")
    body = bytearray()
    iterator = chunks.__aiter__()
    try:
        async for chunk in iterator:
            body += chunk
            if len(body) > limit:
                if cut:
                    del body[limit:]
                    break
                raise malformed(f"reply larger than {limit} bytes")
    except ModelError:
        raise
    except Exception as err:
        # Anything the transport raises mid-body: the reply is lost, and a new attempt may well get it whole.
        if _is_timeout(err):
            raise ModelError("request timed out while reading the reply", transient=True) from err
        raise malformed(f"body cut off after {len(body)} bytes ({_one_line(err)})") from err
    finally:
        # Close the iterator now, not whenever the garbage collector gets to it: it holds the connection.
        aclose = getattr(iterator, "aclose", None)
        if aclose is not None:
            await aclose()
    return bytes(body)


def parse_json(body: bytes) -> object:
    """Decode a body as strict UTF-8 and parse it as JSON.

    Raises:
        ModelError: transient, naming the first bad byte or the JSON error.
    """
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise malformed(f"not UTF-8 (byte {err.start} of {len(body)})") from None
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as err:
        # ValueError: bad JSON, or an integer too long to convert; RecursionError: nesting too deep to parse.
        preview = text[:_PREVIEW_CHARS].strip()
        seen = f"; it starts {preview!r}" if preview else "; the body is empty"
        raise malformed(f"not JSON ({_one_line(err)}){seen}") from None


def validate(schema: type[_M], payload: object) -> _M:
    """Check a parsed reply against ``schema``, the fields a backend uses.

    A 200 reply carrying an error object instead of a result (some proxies and routers send those) is named as
    such rather than as a missing field.

    Raises:
        ModelError: transient, naming the first bad field.
    """
    try:
        return schema.model_validate(payload)
    except ValidationError as err:
        if isinstance(payload, Mapping) and "error" in payload:
            detail = payload["error"]
            message = detail.get("message") if isinstance(detail, Mapping) else detail
            raise malformed(f"an error with status 200: {_one_line(str(message))[:200]}") from None
        errors = err.errors()
        first = errors[0]
        where = ".".join(str(part) for part in first["loc"]) or "the body"
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise malformed(f"{where}: {first['msg']}{more}") from None


def checked_text(text: str) -> str:
    """``text``, if it can be stored as UTF-8.

    JSON escapes can spell a lone surrogate (``"\\ud800"``), which Python accepts but no UTF-8 store does.

    Raises:
        ModelError: transient, naming the position.
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise malformed(
            f"the text is not valid Unicode (a lone surrogate at character {err.start})"
        ) from None
    return text


def _one_line(err: BaseException | str) -> str:
    text = str(err) if not isinstance(err, str) else err
    if isinstance(err, BaseException):
        text = f"{type(err).__name__}: {text}" if text else type(err).__name__
    return " ".join(text.split())
