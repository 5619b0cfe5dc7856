"""Backend for Anthropic's Messages API through the official ``anthropic`` SDK.

As for the OpenAI-compatible backend, the SDK sends the request and maps statuses and network failures, and the
reply's body is read here (:mod:`wason.models.replies`): capped, strictly decoded and checked, so a broken 200
reply is a transient :class:`ModelError`.
"""

from __future__ import annotations

import asyncio
from typing import Self

import anthropic
from anthropic.types import MessageParam
from pydantic import StrictStr, model_validator

from wason.models.base import (
    ChatMessage,
    GenerationParams,
    ModelConfigError,
    ModelError,
    ModelResponse,
    map_sdk_error,
)
from wason.models.preflight import confirm_model
from wason.models.replies import (
    MAX_REPLY_BYTES,
    Count,
    ListedModel,
    ModelList,
    ReplyModel,
    checked_text,
    is_transport_error,
    parse_json,
    read_capped,
    validate,
)

# The Messages API requires max_tokens; this is what a call gets when the user sets none.
DEFAULT_MAX_TOKENS = 1024

# The values of the Messages API's output_config.effort, which --reasoning-effort is sent as.
ANTHROPIC_EFFORTS = ("low", "medium", "high", "xhigh", "max")

# Sent as the first user turn when a conversation has none, as a published reference harness does for Anthropic:
# the API rejects a conversation that is empty or starts with the assistant.
FIRST_USER_MESSAGE = "Please begin."


class _ContentBlock(ReplyModel):
    type: StrictStr
    text: StrictStr | None = None

    @model_validator(mode="after")
    def _text_blocks_have_text(self) -> Self:
        if self.type == "text" and self.text is None:
            raise ValueError("a text block has no text")
        return self


class _ReplyUsage(ReplyModel):
    input_tokens: Count | None = None
    output_tokens: Count | None = None


class MessagesReply(ReplyModel):
    """The fields of a Messages API reply that we use; other blocks (thinking, tool use) and fields are ignored."""

    content: list[_ContentBlock]
    stop_reason: StrictStr | None = None
    usage: _ReplyUsage | None = None
    model: StrictStr | None = None


def to_anthropic_messages(messages: list[ChatMessage]) -> tuple[str | None, list[MessageParam]]:
    """Split a conversation into Anthropic's ``system`` string and its list of turns.

    Anthropic takes the system prompt as a separate parameter, so system messages (wherever they are) are
    joined, in order, with a blank line between them. If what remains does not start with a user message, a
    user message reading "Please begin." is put first.

    Args:
        messages: the conversation in our form.

    Returns:
        ``(system, turns)``: ``system`` is ``None`` when there were no system messages.
    """
    system_parts = [m.content for m in messages if m.role == "system"]
    turns: list[MessageParam] = []
    for m in messages:
        if m.role == "user":
            turns.append({"role": "user", "content": m.content})
        elif m.role == "assistant":
            turns.append({"role": "assistant", "content": m.content})
    if not turns or turns[0]["role"] != "user":
        turns.insert(0, {"role": "user", "content": FIRST_USER_MESSAGE})
    system = "\n\n".join(system_parts) if system_parts else None
    return system, turns


def map_anthropic_error(err: anthropic.AnthropicError, *, api_key_env: str | None = None) -> ModelError:
    """Translate an SDK exception into a :class:`ModelError`, deciding whether it is worth retrying.

    Args:
        err: the exception the SDK raised.
        api_key_env: the environment variable the key came from, named in the message of a 401.

    Returns:
        The error to raise; transient for 408, 429, 5xx (including 529 "overloaded"), timeouts and connection
        failures.
    """
    return map_sdk_error(err, anthropic, api_key_env=api_key_env)


class AnthropicModel:
    """A Claude model through the Messages API.

    ``params.seed`` is ignored: the Messages API has no seed, so runs against Anthropic are not reproducible
    by seed even at temperature 0. The SDK's own retries are switched off because
    :class:`wason.models.client.ModelClient` retries every backend the same way.

    Attributes:
        spec: normalised model spec, e.g. ``anthropic:claude-3-5-haiku-latest``.
        endpoint: the base URL calls go to.
        max_concurrency: how many calls may be in flight at once.
        model: the model name sent in each request.
    """

    def __init__(
        self,
        *,
        spec: str,
        model: str,
        api_key: str,
        base_url: str | None = None,
        api_key_env: str | None = "ANTHROPIC_API_KEY",
        max_concurrency: int = 8,
        timeout: float = 120.0,
        max_reply_bytes: int = MAX_REPLY_BYTES,
    ) -> None:
        """Create the backend; no request is made until :meth:`generate`.

        Args:
            spec: normalised model spec (part of the cache key).
            model: the model name, e.g. ``claude-3-5-haiku-latest``.
            api_key: the Anthropic API key.
            base_url: another endpoint speaking the Messages API (without ``/v1``); ``None`` for Anthropic's.
            api_key_env: the environment variable the key is read from, named in authentication errors.
            max_concurrency: how many calls may be in flight at once.
            timeout: default seconds per request; each :meth:`generate` call passes its own.
            max_reply_bytes: the largest reply body read; a larger one is a transient error.

        Raises:
            ValueError: ``max_reply_bytes`` is not positive.
        """
        if max_reply_bytes < 1:
            raise ValueError("max_reply_bytes must be at least 1")
        self.max_reply_bytes = max_reply_bytes
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout
        )
        self.spec = spec
        self.model = model
        self.endpoint = str(self._client.base_url).rstrip("/")
        self.max_concurrency = max_concurrency
        self._api_key_env = api_key_env

    @staticmethod
    def check_settings(params: GenerationParams) -> None:
        """Refuse settings the Messages API cannot take, before a run starts.

        ``reasoning_effort`` becomes the API's ``output_config.effort``, which has no ``none`` or ``minimal``; a
        thinking budget in the extra body must leave room for the answer under ``max_tokens``.

        Raises:
            ModelConfigError: one line saying what to pass instead.
        """
        if params.api == "completions":
            raise ModelConfigError(
                "--completions is for OpenAI-style servers and the embedded model; Anthropic's Messages API has "
                "no raw completions"
            )
        if params.grammar is not None or params.json_schema is not None:
            raise ModelConfigError(
                "--constrain is for the embedded model, llama.cpp and vLLM servers (grammars) and OpenAI-style "
                "APIs (JSON schemas); the Anthropic backend does not constrain replies"
            )
        effort = params.reasoning_effort
        if effort is not None and effort not in ANTHROPIC_EFFORTS:
            raise ModelConfigError(
                f"--reasoning-effort {effort} has no Anthropic equivalent: Anthropic's effort is "
                f"{', '.join(ANTHROPIC_EFFORTS)}; to leave thinking off, leave the flag out (or pass "
                '--extra-body \'{"thinking": {"type": "disabled"}}\')'
            )
        body = params.extra_body or {}
        output_config = body.get("output_config")
        if effort is not None and isinstance(output_config, dict) and "effort" in output_config:
            raise ModelConfigError(
                "the effort is given twice: by --reasoning-effort and by output_config.effort in --extra-body"
            )
        thinking = body.get("thinking")
        budget = thinking.get("budget_tokens") if isinstance(thinking, dict) else None
        max_tokens = params.max_tokens if params.max_tokens is not None else DEFAULT_MAX_TOKENS
        if isinstance(budget, int) and budget >= max_tokens:
            raise ModelConfigError(
                f"the thinking budget ({budget} tokens) must be below the reply's limit, --max-tokens "
                f"({max_tokens}{' by default' if params.max_tokens is None else ''}): Anthropic counts thinking in "
                "max_tokens; raise --max-tokens"
            )

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        """Send one Messages request and return the text of the reply.

        Args:
            messages: the conversation so far; system messages become the ``system`` parameter.
            params: generation parameters; ``max_tokens`` defaults to 1024, ``seed`` is ignored, ``stop`` is
                sent as ``stop_sequences``, ``reasoning_effort`` as ``output_config.effort``, ``extra_body``
                merged into the request (e.g. ``{"thinking": {"type": "enabled", "budget_tokens": 2048}}``).
            timeout: seconds allowed for the whole request.

        Returns:
            The reply text (text blocks joined), token usage, stop reason and model name.

        Raises:
            ModelError: the request failed; ``transient`` tells whether retrying may help. A reply that is
                larger than ``max_reply_bytes``, cut off, not UTF-8, not JSON, or without the fields we use is
                transient, ``malformed reply: <why>``. Settings :meth:`check_settings` refuses are not
                transient.
        """
        try:
            self.check_settings(params)
        except ModelConfigError as err:  # reached only by callers that skipped the check before their run
            raise ModelError(str(err), transient=False) from None
        system, turns = to_anthropic_messages(messages)
        max_tokens = params.max_tokens if params.max_tokens is not None else DEFAULT_MAX_TOKENS
        # Recent SDKs dropped temperature and top_p from the typed signature, though the API takes them for
        # the models that support sampling settings; the body extension sends them the same way on every SDK,
        # after the user's extra body (which GenerationParams keeps off the fields wason sets).
        extra: dict[str, object] = dict(params.extra_body or {})
        for name, value in (("temperature", params.temperature), ("top_p", params.top_p)):
            if value is not None:
                extra[name] = value
        if params.reasoning_effort is not None:
            output_config = extra.get("output_config")
            extra["output_config"] = {
                **(output_config if isinstance(output_config, dict) else {}),
                "effort": params.reasoning_effort,
            }
        try:
            # The SDK's timeout bounds each network phase separately; the outer one bounds the whole call,
            # reading the body included.
            async with asyncio.timeout(timeout):
                # The streaming form hands over the body unread, for read_capped to read within the cap.
                async with self._client.messages.with_streaming_response.create(
                    model=self.model,
                    messages=turns,
                    max_tokens=max_tokens,
                    system=system if system is not None else anthropic.omit,
                    stop_sequences=list(params.stop) if params.stop is not None else anthropic.omit,
                    extra_body=extra or None,
                    timeout=timeout,
                ) as response:
                    body = await read_capped(
                        response.iter_bytes(),
                        limit=self.max_reply_bytes,
                        declared_length=response.headers.get("content-length"),
                    )
        except TimeoutError as err:
            raise ModelError(f"request timed out after {timeout:g}s", transient=True) from err
        except anthropic.AnthropicError as err:
            raise map_anthropic_error(err, api_key_env=self._api_key_env) from err
        except ModelError:
            raise
        except Exception as err:
            # e.g. an error status whose body broke off: the SDK reads it outside its own error mapping
            if not is_transport_error(err):
                raise
            raise ModelError(f"connection failed: {type(err).__name__}: {err}", transient=True) from err
        reply = validate(MessagesReply, parse_json(body))
        text = "".join(block.text or "" for block in reply.content if block.type == "text")
        usage = reply.usage
        return ModelResponse(
            text=checked_text(text),
            input_tokens=usage.input_tokens if usage is not None else None,
            output_tokens=usage.output_tokens if usage is not None else None,
            finish_reason=reply.stop_reason,
            model=reply.model or None,
        )

    async def check(self) -> None:
        """Fail fast, before a run starts, when the endpoint cannot be reached, rejects the key, or does not
        know the model.

        The name is looked up with ``GET /v1/models/{name}`` (which resolves aliases); when that does not find
        it, or the endpoint has no such route, a one-token request confirms it
        (:func:`wason.models.preflight.confirm_model`): only a definite rejection fails.

        Raises:
            ModelConfigError: one line naming the endpoint (or the key variable) and the reason; for an unknown
                model, up to ten of the names the endpoint lists.
        """
        if await self._model_info_found():
            return
        await confirm_model(
            lambda messages, params: self.generate(messages, params, timeout=15),
            endpoint=self.endpoint,
            model=self.model,
            served=await self._listed_models(),
            key_rejected=self._key_rejected,
        )

    async def _model_info_found(self) -> bool:
        """Whether the endpoint describes the model by its name.

        Raises:
            ModelConfigError: the endpoint cannot be reached, or it rejects the key.
        """
        try:
            async with (
                asyncio.timeout(15),
                self._client.models.with_streaming_response.retrieve(self.model, timeout=10) as response,
            ):
                body = await read_capped(
                    response.iter_bytes(),
                    limit=self.max_reply_bytes,
                    declared_length=response.headers.get("content-length"),
                )
        except (TimeoutError, anthropic.APITimeoutError):
            raise ModelConfigError(f"cannot reach {self.endpoint}: no answer within 10 s") from None
        except anthropic.APIConnectionError as err:
            cause = err.__cause__ or err
            raise ModelConfigError(f"cannot reach {self.endpoint}: {cause}") from None
        except anthropic.AuthenticationError:
            raise self._key_rejected() from None
        except (anthropic.APIStatusError, ModelError):
            return False  # an unknown name, or no models route: the one-token request decides
        except Exception as err:
            if not is_transport_error(err):
                raise
            return False
        try:
            return validate(ListedModel, parse_json(body)).id != ""
        except ModelError:
            return False

    async def _listed_models(self) -> list[str] | None:
        """Some of the names the endpoint lists (for a failed check's message), or ``None``."""
        try:
            async with (
                asyncio.timeout(15),
                self._client.models.with_streaming_response.list(limit=100, timeout=10) as response,
            ):
                body = await read_capped(
                    response.iter_bytes(),
                    limit=self.max_reply_bytes,
                    declared_length=response.headers.get("content-length"),
                )
            return [entry.id for entry in validate(ModelList, parse_json(body)).data]
        except (TimeoutError, anthropic.AnthropicError, ModelError):
            return None
        except Exception as err:
            if not is_transport_error(err):
                raise
            return None

    def _key_rejected(self) -> ModelConfigError:
        hint = f"check {self._api_key_env} or pass --api-key" if self._api_key_env else "pass --api-key"
        return ModelConfigError(f"{self.endpoint} rejected the API key ({hint})")

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.close()
