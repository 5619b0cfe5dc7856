"""The one Model interface every backend implements, and the records of a call.

A backend turns a list of chat messages plus generation parameters into one reply. It does no retrying,
caching or recording: :class:`wason.models.client.ModelClient` adds those uniformly for every backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from wason.failures import ExternalFailure

Role = Literal["system", "user", "assistant"]


class ChatMessage(BaseModel):
    """One message of a chat conversation."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str


class GenerationParams(BaseModel):
    """Generation parameters sent with every call and recorded with it.

    ``None`` means "the backend's default" and is sent as absent, never as a value.
    """

    model_config = ConfigDict(frozen=True)

    temperature: float | None = None
    # the reply's token limit; each backend sends it under the name its API expects (``max_completion_tokens``
    # for OpenAI's own endpoint, ``max_tokens`` elsewhere)
    max_tokens: int | None = None
    top_p: float | None = None
    seed: int | None = None
    # sequences that end a reply where they appear (not included in it)
    stop: tuple[str, ...] | None = None
    # how much a reasoning model thinks before it answers (OpenAI's ``reasoning_effort``)
    reasoning_effort: str | None = None
    # fields merged into the request body as they are, for server options we do not model (vLLM, llama.cpp)
    extra_body: dict[str, Any] | None = None

    @field_validator("temperature")
    @classmethod
    def _check_temperature(cls, v: float | None) -> float | None:
        if v is not None and not 0.0 <= v <= 2.0:
            raise ValueError("temperature must be between 0 and 2")
        return v

    @field_validator("max_tokens")
    @classmethod
    def _check_max_tokens(cls, v: int | None) -> int | None:
        if v is not None and v < 1:
            raise ValueError("max_tokens must be at least 1")
        return v

    @field_validator("top_p")
    @classmethod
    def _check_top_p(cls, v: float | None) -> float | None:
        if v is not None and not 0.0 < v <= 1.0:
            raise ValueError("top_p must be in (0, 1]")
        return v


class ModelResponse(BaseModel):
    """What a backend returned for one call."""

    text: str
    input_tokens: int | None = None
    output_tokens: int | None = None
    finish_reason: str | None = None
    model: str | None = Field(default=None, description="model name as reported by the backend")


class ModelError(ExternalFailure):
    """A model call failed. ``transient`` errors are worth retrying (429, 5xx, timeouts, lost connections)."""

    what = "model call failed"

    def __init__(self, message: str, *, transient: bool, status: int | None = None) -> None:
        super().__init__(message)
        self.transient = transient
        self.status = status


# Statuses worth retrying besides 5xx: 408 is the server saying our request took too long to arrive.
TRANSIENT_4XX = frozenset({408, 429})


def map_sdk_error(err: Exception, sdk: ModuleType, *, api_key_env: str | None = None) -> ModelError:
    """Translate an exception of the ``openai`` or ``anthropic`` SDK into a :class:`ModelError`.

    Both SDKs raise the same hierarchy (``APITimeoutError`` < ``APIConnectionError``, ``APIStatusError`` with
    ``status_code``), so one mapping serves both.

    Args:
        err: the exception the SDK raised.
        sdk: the SDK module it came from (``openai`` or ``anthropic``).
        api_key_env: the environment variable the key came from, named in the message of a 401.

    Returns:
        The error to raise; transient for 408, 429, 5xx (incl. Anthropic's 529), timeouts and lost connections.
    """
    # APITimeoutError subclasses APIConnectionError, so it must be checked first to keep its own message.
    if isinstance(err, sdk.APITimeoutError):
        return ModelError(f"request timed out: {err}", transient=True)
    if isinstance(err, sdk.APIConnectionError):
        return ModelError(f"connection failed: {err}", transient=True)
    if isinstance(err, sdk.APIStatusError):
        status = int(err.status_code)
        message = str(getattr(err, "message", err))
        if status >= 500 or status in TRANSIENT_4XX:
            return ModelError(f"server error {status}: {message}", transient=True, status=status)
        if status == 401:
            hint = f" (check {api_key_env}, or pass --api-key)" if api_key_env else " (pass --api-key)"
            return ModelError(f"authentication failed (401){hint}: {message}", transient=False, status=status)
        return ModelError(f"request rejected ({status}): {message}", transient=False, status=status)
    # Anything else (a malformed response, a bug in the SDK) will not get better by asking again.
    return ModelError(f"{type(err).__name__}: {err}", transient=False)


class ModelConfigError(ValueError):
    """A user mistake in choosing or configuring a model (unknown spec, missing key, missing extra).

    Its message is one clear line meant to be shown to the user as is.
    """


@runtime_checkable
class Model(Protocol):
    """A chat model backend.

    Attributes:
        spec: the model spec the user gave, normalised (e.g. ``openai:gpt-4o-mini``); part of the cache key.
        endpoint: where calls go (a base URL, or ``embedded`` for the local model); part of the cache key.
        max_concurrency: how many calls may be in flight at once against this backend.
    """

    spec: str
    endpoint: str
    max_concurrency: int

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        """Return one reply, or raise :class:`ModelError` (set ``transient`` for retryable failures)."""
        ...

    async def aclose(self) -> None:
        """Release connections or memory."""
        ...


@dataclass(frozen=True)
class CallContext:
    """Where a model call belongs, for the record and the cache key.

    ``sample`` distinguishes episodes that may send identical requests (different rules share the first turn,
    repeated trials share every turn) so that they never share one sampled reply; rerunning or resuming the same
    episode gives the same key and so hits the cache.
    """

    run_id: int | None = None
    episode_id: int | None = None
    turn: int | None = None
    sample: str = ""
