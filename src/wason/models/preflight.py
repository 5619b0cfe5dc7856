"""The pre-flight check's verdict on a model name, shared by the HTTP backends.

A backend first asks the endpoint's model list; when that does not settle it, one request for a single token
does. Only a definite rejection of that request fails the check: a model name the endpoint does not know must
stop a run before it starts (not error every episode), but an alias missing from the list, a server without a
list, or an endpoint having a bad moment must not.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping

from wason.models.base import ChatMessage, GenerationParams, ModelConfigError, ModelError, ModelResponse

# The names a failed check lists; an aggregator serves hundreds.
NAMES_SHOWN = 10

# The statuses with which servers reject a model name: 404 (OpenAI, vLLM, Anthropic), and 400/403/422 from
# others when their message names the model (a 400 about max_tokens=1 says nothing about the name).
_NAMING_STATUSES = frozenset({400, 403, 422})

Generate = Callable[[list[ChatMessage], GenerationParams], Awaitable[ModelResponse]]


async def confirm_model(
    generate: Generate,
    *,
    endpoint: str,
    model: str,
    served: list[str] | None,
    key_rejected: Callable[[], ModelConfigError],
) -> None:
    """Send one request for one token, and fail if the endpoint rejects the model name.

    Args:
        generate: sends the request (the backend's own ``generate``, with a short timeout).
        endpoint: the endpoint, for the message.
        model: the model name asked for.
        served: the names the endpoint lists, or ``None`` if it has no list.
        key_rejected: the error to raise for a 401.

    Raises:
        ModelConfigError: one line: the endpoint does not serve the model (with up to :data:`NAMES_SHOWN` of
            the names it does), it has no chat route at this URL, or it rejects the key.
    """
    try:
        await generate([ChatMessage(role="user", content="Say OK.")], GenerationParams(max_tokens=1))
    except ModelError as err:
        if err.transient:
            return  # busy or flaky: the run's retries deal with that, and the name may well be fine
        if err.status == 401:
            raise key_rejected() from None
        reason = rejection_reason(err)
        names_model = model in str(err) or model in reason
        if err.status == 404 and not names_model and not served:
            raise ModelConfigError(
                f"{endpoint} answered a chat request with 404 ({reason}); check the base URL "
                "(for OpenAI-compatible servers it usually ends in /v1)"
            ) from None
        if err.status == 404 or (err.status in _NAMING_STATUSES and names_model):
            raise ModelConfigError(
                f"{endpoint} does not serve model {model!r} ({err.status}: {reason}){served_hint(served)}"
            ) from None


def rejection_reason(err: ModelError) -> str:
    """The server's own words from a rejection, on one line, without the prefixes the SDK and we add."""
    body = getattr(err.__cause__, "body", None)
    if isinstance(body, Mapping):
        detail = body.get("error", body)
        message = detail.get("message") if isinstance(detail, Mapping) else None
        if isinstance(message, str) and message.strip():
            return _short(message)
    text = str(err).split(": ", 1)[-1]  # "request rejected (404): ..."
    if text.startswith("Error code:") and " - " in text:  # the SDK's "Error code: 404 - ..."
        text = text.split(" - ", 1)[1]
    return _short(text)


def served_hint(served: list[str] | None) -> str:
    """``"; it serves: a, b, ... and N more"`` for a failed check's message (empty without a list)."""
    if served is None:
        return ""
    if not served:
        return "; the endpoint lists no models"
    shown = ", ".join(served[:NAMES_SHOWN])
    more = f" and {len(served) - NAMES_SHOWN} more" if len(served) > NAMES_SHOWN else ""
    return f"; it serves: {shown}{more}"


def _short(text: str) -> str:
    return " ".join(text.split())[:300]
