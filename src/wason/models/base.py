"""The one Model interface every backend implements, and the records of a call.

A backend turns a list of chat messages plus generation parameters into one reply. It does no retrying,
caching or recording: :class:`wason.models.client.ModelClient` adds those uniformly for every backend.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import ModuleType
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from wason.failures import ExternalFailure

Role = Literal["system", "user", "assistant"]

MAX_STOP_SEQUENCES = 4
"""Stop sequences a request may carry: OpenAI's limit, which vLLM and llama.cpp servers do not go below."""

MAX_STOP_CHARS = 1_000
"""The longest stop sequence."""

MAX_TOKENS = 1_000_000
"""The largest ``max_tokens``: above every model's reply limit (the largest take 128k), so it never refuses a
real setting, and a number no endpoint is sent unchecked."""

MAX_MODEL_SEED = 2**63 - 1
"""The largest sampling seed (seeds are 0 to 2**63 - 1, sent as 64-bit integers)."""

MAX_BODY_CHARS = 100_000
"""The longest ``extra_body`` or ``json_schema``, as JSON text."""

MAX_CONSTRAINT_CHARS = 1_000_000
"""The longest ``grammar`` (a protocol's reply grammar is a few kB)."""

REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")
"""The values of ``reasoning_effort``: those OpenAI's API takes (its SDK's ``ReasoningEffort``). Models take
different subsets (``none`` only from gpt-5.1 on, ``xhigh`` only on the newest); the server says which."""

RESERVED_BODY_FIELDS: dict[str, str] = {
    "model": "wason sends the model named by --model",
    "messages": "wason sends the task's conversation",
    "system": "wason sends the task's system prompt",
    "stream": "wason reads whole replies, not streams",
    "n": "wason reads one reply per request",
    "temperature": "use --temperature (GenerationParams.temperature) instead",
    "top_p": "use --top-p (GenerationParams.top_p) instead",
    "seed": "use --model-seed (GenerationParams.seed) instead",
    "max_tokens": "use --max-tokens (GenerationParams.max_tokens) instead",
    "max_completion_tokens": "use --max-tokens (GenerationParams.max_tokens) instead",
    "stop": "use --stop (GenerationParams.stop) instead",
    "stop_sequences": "use --stop (GenerationParams.stop) instead",
    "reasoning_effort": "use --reasoning-effort (GenerationParams.reasoning_effort) instead",
    "prompt": "wason sends the task's prompt (--completions)",
}
"""Request fields wason sets itself, which ``extra_body`` may not override, with what to do instead."""


class ChatMessage(BaseModel):
    """One message of a chat conversation."""

    model_config = ConfigDict(frozen=True)

    role: Role
    content: str


class GenerationParams(BaseModel):
    """Generation parameters sent with every call and recorded with it.

    ``None`` means "the backend's default" and is sent as absent, never as a value. What each backend sends for
    each field is in docs/models.md ("Model settings"); a backend that has no use for a field that is set refuses
    it with a :class:`ModelConfigError` rather than ignore it (see ``wason.models.spec.check_settings``).

    Raises:
        ValueError: naming the field: a value out of range, more than :data:`MAX_STOP_SEQUENCES` stop sequences
            or an empty one, a ``reasoning_effort`` not in :data:`REASONING_EFFORTS`, an ``extra_body`` that sets
            one of :data:`RESERVED_BODY_FIELDS` or holds something other than JSON.
    """

    model_config = ConfigDict(frozen=True)

    temperature: float | None = Field(default=None, ge=0.0, le=2.0, allow_inf_nan=False)
    # the reply's token limit; each backend sends it under the name its API expects (``max_completion_tokens``
    # for OpenAI's own endpoint, ``max_tokens`` elsewhere)
    max_tokens: int | None = Field(default=None, ge=1, le=MAX_TOKENS)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0, allow_inf_nan=False)
    seed: int | None = Field(default=None, ge=0, le=MAX_MODEL_SEED)
    # sequences that end a reply where they appear (not included in it); at most MAX_STOP_SEQUENCES
    stop: tuple[Annotated[str, Field(max_length=MAX_STOP_CHARS)], ...] | None = Field(
        default=None, max_length=MAX_STOP_SEQUENCES
    )
    # how much a reasoning model thinks before it answers (OpenAI's ``reasoning_effort``; one of REASONING_EFFORTS)
    reasoning_effort: str | None = Field(default=None, max_length=20)
    # fields merged into the request body as they are, for server options we do not model (vLLM, llama.cpp);
    # never one of RESERVED_BODY_FIELDS
    extra_body: dict[str, Any] | None = None
    # which API is called: None for chat completions; "completions" sends the conversation's one message as a
    # raw prompt to the completions API (base models: the text goes on from where the prompt stops)
    api: Literal["completions"] | None = None
    # the reply must match this grammar (GBNF, llama.cpp's notation): set per turn by a player under
    # --constrain from its protocol's reply format, for backends that take grammars (the embedded model,
    # llama.cpp and vLLM servers)
    grammar: str | None = Field(default=None, max_length=MAX_CONSTRAINT_CHARS)
    # the reply must be JSON of this schema: set per turn like ``grammar``, for backends that take JSON schemas
    # (OpenAI and OpenAI-style servers); the player turns the JSON back into the protocol's text
    json_schema: dict[str, Any] | None = None

    def __hash__(self) -> int:
        # pydantic's hash of a frozen model fails on the dict field; equal params have equal key sets
        body = tuple(sorted(self.extra_body)) if self.extra_body is not None else None
        return hash(
            (
                self.temperature,
                self.max_tokens,
                self.top_p,
                self.seed,
                self.stop,
                self.reasoning_effort,
                body,
                self.api,
                self.grammar,
                json.dumps(self.json_schema, sort_keys=True) if self.json_schema is not None else None,
            )
        )

    @field_validator("stop", mode="before")
    @classmethod
    def _one_stop_as_a_tuple(cls, v: Any) -> Any:
        v = (v,) if isinstance(v, str) else v
        # counted before the field's own bound, to say whose limit it is
        if isinstance(v, list | tuple) and len(v) > MAX_STOP_SEQUENCES:
            raise ValueError(
                f"stop takes at most {MAX_STOP_SEQUENCES} sequences (OpenAI's limit), got {len(v)}"
            )
        return v

    @field_validator("stop")
    @classmethod
    def _check_stop(cls, v: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if v is None or not v:
            return None  # no sequences is the same request as none given
        if any(s == "" for s in v):
            raise ValueError("stop sequences must not be empty")
        return v

    @field_validator("reasoning_effort")
    @classmethod
    def _check_reasoning_effort(cls, v: str | None) -> str | None:
        if v is None:
            return None
        effort = v.strip().lower()
        if effort not in REASONING_EFFORTS:
            raise ValueError(f"reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}, got {v!r}")
        return effort

    @field_validator("api", mode="before")
    @classmethod
    def _chat_is_the_default(cls, v: Any) -> Any:
        return None if v == "chat" else v

    @field_validator("grammar")
    @classmethod
    def _check_grammar(cls, v: str | None) -> str | None:
        if v is not None and "root" not in v:
            raise ValueError("grammar must define a root rule (GBNF: root ::= ...)")
        return v

    @field_validator("extra_body")
    @classmethod
    def _check_extra_body(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        if v is None:
            return None
        for name in sorted(v):
            if name in RESERVED_BODY_FIELDS:
                raise ValueError(f"extra_body may not set {name!r}: {RESERVED_BODY_FIELDS[name]}")
        try:
            text = json.dumps(v, allow_nan=False)
        except (TypeError, ValueError) as err:
            raise ValueError(
                f"extra_body must hold JSON values only (strings, finite numbers, ...): {err}"
            ) from None
        if len(text) > MAX_BODY_CHARS:
            raise ValueError(
                f"extra_body must be at most {MAX_BODY_CHARS:,} characters of JSON, got {len(text):,}"
            )
        # a copy of plain JSON: the caller's dict can change later without changing these frozen params
        body: dict[str, Any] = json.loads(text)
        return body or None

    @field_validator("json_schema")
    @classmethod
    def _check_json_schema(cls, v: dict[str, Any] | None) -> dict[str, Any] | None:
        if v is None:
            return None
        try:
            size = len(json.dumps(v, allow_nan=False))
        except (TypeError, ValueError) as err:
            raise ValueError(f"json_schema must hold JSON values only: {err}") from None
        if size > MAX_BODY_CHARS:
            raise ValueError(
                f"json_schema must be at most {MAX_BODY_CHARS:,} characters of JSON, got {size:,}"
            )
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


CONSTRAINT_BODY_FIELDS = ("grammar", "structured_outputs", "guided_grammar", "response_format")
"""Request fields that constrain a reply: an extra body may set them, but not together with ``--constrain``."""

ConstraintForm = Literal["grammar", "json_schema"]
"""How a backend holds a reply to a format under ``--constrain``: a GBNF grammar (llama.cpp, the embedded model,
vLLM) or a JSON schema (OpenAI's structured outputs)."""


def constraint_form(model: object) -> ConstraintForm | None:
    """The form of reply constraint ``model`` takes (its ``constraint`` attribute), or None when it takes none."""
    form = getattr(model, "constraint", None)
    return form if form in ("grammar", "json_schema") else None


def raw_prompt(messages: list[ChatMessage]) -> str:
    """The prompt a completions request sends: the conversation's one message, as it is.

    Raises:
        ModelError: (not transient) a conversation of more than one message, which a raw prompt cannot hold
            without inventing a chat format.
    """
    if len(messages) != 1:
        raise ModelError(
            f"--completions sends one prompt, and this conversation has {len(messages)} messages (a multi-turn "
            "protocol or a system prompt); leave out --completions for chat models",
            transient=False,
        )
    return messages[0].content


@runtime_checkable
class Model(Protocol):
    """A chat model backend.

    Attributes:
        spec: the model spec the user gave, normalised (e.g. ``openai:gpt-4o-mini``); part of the cache key.
        endpoint: where calls go (a base URL, or ``embedded`` for the local model); part of the cache key.
        max_concurrency: how many calls may be in flight at once against this backend.

    A backend may also have ``constraint`` (:data:`ConstraintForm`): the form of ``--constrain`` it sends
    (:func:`constraint_form` reads it; without it, the backend cannot constrain replies), and ``wall_clock =
    False`` when its replies are bounded by tokens rather than wall time, so that ``--timeout`` does not apply
    (the embedded model: a busy machine makes its calls slower, never failed).
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
