"""Backend for OpenAI and every server that speaks the OpenAI chat-completions API (vLLM, Ollama, llama.cpp
server, OpenRouter, ...), over wason's lean HTTP path (:mod:`wason.models.http`).

Each request is one JSON body built once and posted over pooled keep-alive connections; the reply's body is read
within :data:`~wason.models.replies.MAX_REPLY_BYTES` and checked against the few fields we use
(:mod:`wason.models.replies`), so a broken 200 reply is a transient :class:`ModelError` like a 503.

The ``openai`` SDK was the transport until issue 39: it cost 5-8 ms of CPU a call (its typed request building,
response wrapping and HTTP stack), more than the rest of a call, and wason used none of what it adds over the
HTTP API (its retries were off, its reply parsing was replaced by ours, and Azure's own routes were never
offered). Everything the backend sends is written here.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, StrictStr

from wason.models.base import (
    ChatMessage,
    ConstraintForm,
    GenerationParams,
    ModelConfigError,
    ModelError,
    ModelResponse,
    raw_prompt,
)
from wason.models.http import JsonHttp, bearer_headers, dumps, split_credentials
from wason.models.preflight import confirm_model
from wason.models.replies import (
    MAX_REPLY_BYTES,
    Count,
    ModelList,
    ReplyModel,
    checked_text,
    parse_json,
    validate,
)

OPENAI_BASE_URL = "https://api.openai.com/v1"
"""Where requests go when no base URL is given and ``OPENAI_BASE_URL`` is not set (as in the ``openai`` SDK)."""


TokenLimitField = Literal["max_tokens", "max_completion_tokens"]

_OTHER_FIELD: dict[TokenLimitField, TokenLimitField] = {
    "max_tokens": "max_completion_tokens",
    "max_completion_tokens": "max_tokens",
}

# Hosts that take max_completion_tokens: OpenAI's reasoning models reject max_tokens, and every OpenAI model
# takes the newer name (Azure's OpenAI endpoints follow OpenAI). Other servers (vLLM, llama.cpp, Ollama,
# OpenRouter) have always read max_tokens and some know no other name.
_COMPLETION_TOKENS_HOSTS = ("api.openai.com",)
_COMPLETION_TOKENS_DOMAINS = (".openai.azure.com",)

# How servers word the rejection of a parameter they do not take (OpenAI: "Unsupported parameter: 'max_tokens'
# is not supported with this model. Use 'max_completion_tokens' instead."; Azure: "Unrecognized request
# argument supplied"; pydantic-based servers: "Extra inputs are not permitted"). A 400 that names the parameter
# for its value ("max_tokens must be at most 4096") is not one of them: sending the other name would drop it.
_UNSUPPORTED_WORDS = (
    "unsupported",
    "not supported",
    "unrecognized",
    "unknown",
    "not permitted",
    "not allowed",
)


def token_limit_field_for(endpoint: str) -> TokenLimitField:
    """The name the token limit is sent under first at ``endpoint``: ``max_completion_tokens`` for OpenAI's own
    API (and Azure OpenAI), ``max_tokens`` for every other server."""
    host = (urlsplit(endpoint).hostname or "").lower()
    if host in _COMPLETION_TOKENS_HOSTS or host.endswith(_COMPLETION_TOKENS_DOMAINS):
        return "max_completion_tokens"
    return "max_tokens"


def _rejects_field(err: ModelError, field: TokenLimitField) -> bool:
    """Whether ``err`` is the server refusing the token limit's name ``field`` (not its value)."""
    if err.status not in (400, 422):
        return False
    body = getattr(err.__cause__, "body", None)
    detail = body.get("error", body) if isinstance(body, Mapping) else None
    param = detail.get("param") if isinstance(detail, Mapping) else None
    text = (json.dumps(body, default=str) if body is not None else str(err)).lower()
    # OpenAI names the parameter it refuses in "param"; other servers only in their words
    named = param == field if isinstance(param, str) and param else field in text
    return named and (_OTHER_FIELD[field] in text or any(word in text for word in _UNSUPPORTED_WORDS))


GRAMMAR_FIELDS: dict[str, str] = {"llamacpp": "grammar", "vllm": "structured_outputs"}
"""Servers that take a GBNF grammar, and the request field it goes in (vLLM: ``{"grammar": ...}`` inside it,
since v0.12 removed ``guided_grammar``; llama.cpp's server: the text itself)."""


def constraint_for(provider: str) -> ConstraintForm:
    """How ``--constrain`` reaches a server of ``provider``: a grammar for llama.cpp and vLLM servers, a JSON
    schema (``response_format``, OpenAI's structured outputs) for the rest."""
    return "grammar" if provider in GRAMMAR_FIELDS else "json_schema"


class _ReplyMessage(ReplyModel):
    content: StrictStr | None = None


class _ReplyChoice(ReplyModel):
    message: _ReplyMessage
    finish_reason: StrictStr | None = None


class _ReplyUsage(ReplyModel):
    prompt_tokens: Count | None = None
    completion_tokens: Count | None = None


class ChatCompletionReply(ReplyModel):
    """The fields of a chat-completion reply that we use; anything else in the body is ignored."""

    choices: list[_ReplyChoice] = Field(min_length=1)
    usage: _ReplyUsage | None = None
    model: StrictStr | None = None


class _TextChoice(ReplyModel):
    text: StrictStr | None = None
    finish_reason: StrictStr | None = None


class CompletionReply(ReplyModel):
    """The fields of a (raw) completion reply that we use."""

    choices: list[_TextChoice] = Field(min_length=1)
    usage: _ReplyUsage | None = None
    model: StrictStr | None = None


def _request_messages(messages: list[ChatMessage]) -> list[dict[str, str]]:
    """Our messages as the request's ``messages``, in order and unchanged."""
    return [{"role": m.role, "content": m.content} for m in messages]


class OpenAICompatModel:
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    It makes one attempt per call: :class:`wason.models.client.ModelClient` retries every backend the same way.

    Attributes:
        spec: normalised model spec, e.g. ``openai:gpt-4o-mini`` or ``vllm:Qwen/Qwen2.5-7B-Instruct``.
        endpoint: the base URL calls go to.
        max_concurrency: how many calls may be in flight at once.
        model: the model name sent in each request.
    """

    def __init__(
        self,
        *,
        spec: str,
        model: str,
        base_url: str | None,
        api_key: str,
        api_key_env: str | None = None,
        max_concurrency: int = 8,
        max_reply_bytes: int = MAX_REPLY_BYTES,
        token_limit_field: TokenLimitField | None = None,
    ) -> None:
        """Create the backend; no request is made until :meth:`generate`.

        Args:
            spec: normalised model spec (part of the cache key).
            model: the model name as the server knows it.
            base_url: the API base URL ending in ``/v1``; ``None`` (or empty) for ``OPENAI_BASE_URL`` if set, else
                OpenAI's own API.
            api_key: the key sent as a bearer token; servers that need none accept any string.
            api_key_env: the environment variable the key is read from, named in authentication errors.
            max_concurrency: how many calls may be in flight at once.
            max_reply_bytes: the largest reply body read; a larger one is a transient error.
            token_limit_field: the name ``max_tokens`` is sent under; by default ``max_completion_tokens`` for
                OpenAI's own endpoint and ``max_tokens`` elsewhere (:func:`token_limit_field_for`). A server
                that rejects it by name makes the backend switch to the other for good.

        Raises:
            ValueError: ``max_reply_bytes`` is not positive.
        """
        if max_reply_bytes < 1:
            raise ValueError("max_reply_bytes must be at least 1")
        self.max_reply_bytes = max_reply_bytes
        url, has_credentials = split_credentials(
            base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
        )
        self._http = JsonHttp(
            url,
            headers=bearer_headers(api_key, url_has_credentials=has_credentials),
            max_connections=max_concurrency,
            max_reply_bytes=max_reply_bytes,
        )
        self._api_key = api_key
        self.spec = spec
        self.model = model
        self.endpoint = self._http.base_url
        self.max_concurrency = max_concurrency
        self._api_key_env = api_key_env
        self.token_limit_field: TokenLimitField = token_limit_field or token_limit_field_for(self.endpoint)
        self.provider = spec.split(":", 1)[0]
        self.constraint: ConstraintForm = constraint_for(self.provider)

    @staticmethod
    def check_settings(params: GenerationParams) -> None:
        """Every setting has its field in the request: nothing to refuse (the server judges the values; a grammar
        or a JSON schema goes where :attr:`constraint` says)."""

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        """Send one chat-completion request and return the first choice.

        Only parameters that are set are sent, so a server's own defaults apply to the rest. ``max_tokens`` goes
        under :attr:`token_limit_field`; when the server rejects that name (a 400 or 422 saying the parameter is
        unsupported or naming the other one, as OpenAI's reasoning models do for ``max_tokens``), the request is
        sent once more under the other name, which the backend keeps for its later calls.

        Args:
            messages: the conversation so far.
            params: generation parameters; ``None`` fields are left out of the request.
            timeout: seconds allowed for the whole request.

        Returns:
            The reply text (empty if the server sent no content), token usage, finish reason and model name.

        Raises:
            ModelError: the request failed; ``transient`` tells whether retrying may help. A reply that is
                larger than ``max_reply_bytes``, cut off, not UTF-8, not JSON, or without the fields we use is
                transient, ``malformed reply: <why>``.
        """
        field = self.token_limit_field
        deadline = time.monotonic() + timeout
        try:
            body = await self._send(messages, params, field, timeout=timeout)
        except ModelError as err:
            if params.max_tokens is None or not _rejects_field(err, field):
                raise
            # set from the name this request used, not toggled: concurrent calls rejected alike agree
            other = self.token_limit_field = _OTHER_FIELD[field]
            # the retry has what is left of the call's time, so the call as a whole keeps to its timeout
            remaining = max(deadline - time.monotonic(), 0.001)
            body = await self._send(messages, params, other, timeout=remaining)
        if params.api == "completions":
            raw = validate(CompletionReply, parse_json(body))
            text, finish = raw.choices[0].text or "", raw.choices[0].finish_reason
            usage, name = raw.usage, raw.model
        else:
            reply = validate(ChatCompletionReply, parse_json(body))
            text, finish = reply.choices[0].message.content or "", reply.choices[0].finish_reason
            usage, name = reply.usage, reply.model
        return ModelResponse(
            text=checked_text(text),
            input_tokens=usage.prompt_tokens if usage is not None else None,
            output_tokens=usage.completion_tokens if usage is not None else None,
            finish_reason=finish,
            model=name or None,
        )

    def _constraint_fields(self, params: GenerationParams) -> dict[str, object]:
        """The request fields of a reply grammar or JSON schema (``--constrain``), in the form this server takes.

        Raises:
            ModelError: (not transient) a constraint in the form this server does not take.
        """
        fields: dict[str, object] = {}
        if params.grammar is not None:
            if self.constraint != "grammar":
                raise ModelError(
                    f"{self.provider} servers take JSON schemas, not grammars; this protocol's reply format has "
                    "no JSON schema",
                    transient=False,
                )
            field = GRAMMAR_FIELDS[self.provider]
            fields[field] = {"grammar": params.grammar} if field == "structured_outputs" else params.grammar
        if params.json_schema is not None:
            if self.constraint != "json_schema":
                raise ModelError(f"{self.provider} servers take grammars, not JSON schemas", transient=False)
            fields["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "reply", "schema": params.json_schema, "strict": True},
            }
        return fields

    async def _send(
        self, messages: list[ChatMessage], params: GenerationParams, field: TokenLimitField, *, timeout: float
    ) -> bytes:
        """One request with ``max_tokens`` under ``field``; the reply's body, read within the cap."""
        body: dict[str, object] = {"model": self.model}
        if params.api == "completions":
            body["prompt"] = raw_prompt(messages)
        else:
            body["messages"] = _request_messages(messages)
        # the extra body's own fields: GenerationParams refuses any that wason sets itself
        body.update(params.extra_body or {})
        body.update(self._constraint_fields(params))
        if params.max_tokens is not None:
            # the completions API has only max_tokens
            body["max_tokens" if params.api == "completions" else field] = params.max_tokens
        for name in ("temperature", "top_p", "seed"):
            value = getattr(params, name)
            if value is not None:
                body[name] = value
        if params.stop is not None:
            body["stop"] = list(params.stop)
        if params.reasoning_effort is not None and params.api != "completions":
            body["reasoning_effort"] = params.reasoning_effort
        path = "/completions" if params.api == "completions" else "/chat/completions"
        data, _ = await self._http.request(
            "POST", path, dumps(body), timeout=timeout, api_key_env=self._api_key_env
        )
        return data

    async def check(self) -> None:
        """Fail fast, before a run starts, when the endpoint cannot be reached, rejects the key, or does not
        know the model.

        The model name is looked up in the endpoint's model list (``GET /models``). When the list does not name
        it, or there is no list, a one-token request confirms it (:func:`wason.models.preflight.confirm_model`):
        only a definite rejection fails (a 404, or a 400/403/422 naming the model), so aliases the list leaves
        out and servers without ``/models`` keep working, and a busy or flaky endpoint is left to the retries.

        Raises:
            ModelConfigError: one line naming the endpoint (or the key variable) and the reason; for an unknown
                model, up to ten of the names the endpoint serves.
        """
        served = await self._served_models()
        if served is not None and self.model in served:
            return
        await confirm_model(
            lambda messages, params: self.generate(messages, params, timeout=15),
            endpoint=self.endpoint,
            model=self.model,
            served=served,
            key_rejected=self._key_rejected,
        )

    async def _served_models(self) -> list[str] | None:
        """The model names the endpoint lists, or ``None`` when it has no usable list.

        Raises:
            ModelConfigError: the endpoint cannot be reached, or it rejects the key.
        """
        try:
            body, _ = await self._http.request(
                "GET", "/models", None, timeout=10, api_key_env=self._api_key_env
            )
        except ModelError as err:
            if err.status == 401:
                raise self._key_rejected() from None
            if err.status is not None:
                return None  # e.g. no /models route: the server answers, and chat completions may well work
            if str(err).startswith("request timed out"):
                raise ModelConfigError(f"cannot reach {self.endpoint}: no answer within 10 s") from None
            if str(err).startswith("connection failed"):
                cause = err.__cause__ or err
                raise ModelConfigError(f"cannot reach {self.endpoint}: {cause}") from None
            return None  # a list too large or cut off: the one-token request decides
        try:
            listed = validate(ModelList, parse_json(body))
        except ModelError:
            return None
        return [entry.id for entry in listed.data]

    def _key_rejected(self) -> ModelConfigError:
        hint = f"check {self._api_key_env} or pass --api-key" if self._api_key_env else "pass --api-key"
        return ModelConfigError(f"{self.endpoint} rejected the API key ({hint})")

    async def aclose(self) -> None:
        """Close the pooled connections."""
        await self._http.aclose()
