"""Backend for OpenAI and every server that speaks the OpenAI chat-completions API (vLLM, Ollama, llama.cpp
server, OpenRouter, ...), through the official ``openai`` SDK.
"""

from __future__ import annotations

import asyncio
from typing import TypeVar

import openai
from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionMessageParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionUserMessageParam,
)

from wason.models.base import (
    ChatMessage,
    GenerationParams,
    ModelConfigError,
    ModelError,
    ModelResponse,
    map_sdk_error,
)

_T = TypeVar("_T")


def to_openai_messages(messages: list[ChatMessage]) -> list[ChatCompletionMessageParam]:
    """Turn our messages into the SDK's typed message dicts, in order and unchanged."""
    out: list[ChatCompletionMessageParam] = []
    for m in messages:
        if m.role == "system":
            out.append(ChatCompletionSystemMessageParam(role="system", content=m.content))
        elif m.role == "user":
            out.append(ChatCompletionUserMessageParam(role="user", content=m.content))
        else:
            out.append(ChatCompletionAssistantMessageParam(role="assistant", content=m.content))
    return out


def map_openai_error(err: openai.OpenAIError, *, api_key_env: str | None = None) -> ModelError:
    """Translate an SDK exception into a :class:`ModelError`, deciding whether it is worth retrying.

    Args:
        err: the exception the SDK raised.
        api_key_env: the environment variable the key came from, named in the message of a 401.

    Returns:
        The error to raise; transient for 408, 429, 5xx, timeouts and connection failures.
    """
    return map_sdk_error(err, openai, api_key_env=api_key_env)


class OpenAICompatModel:
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    The SDK's own retries are switched off: :class:`wason.models.client.ModelClient` retries every backend the
    same way, and two layers of retries would multiply waiting and hide failures from the record.

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
        timeout: float = 120.0,
    ) -> None:
        """Create the backend; no request is made until :meth:`generate`.

        Args:
            spec: normalised model spec (part of the cache key).
            model: the model name as the server knows it.
            base_url: the API base URL ending in ``/v1``; ``None`` for the SDK's default (OpenAI itself).
            api_key: the key sent as a bearer token; servers that need none accept any string.
            api_key_env: the environment variable the key is read from, named in authentication errors.
            max_concurrency: how many calls may be in flight at once.
            timeout: default seconds per request; each :meth:`generate` call passes its own.
        """
        self._client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0, timeout=timeout)
        self.spec = spec
        self.model = model
        self.endpoint = str(self._client.base_url).rstrip("/")
        self.max_concurrency = max_concurrency
        self._api_key_env = api_key_env

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        """Send one chat-completion request and return the first choice.

        Only parameters that are set are sent, so a server's own defaults apply to the rest.

        Args:
            messages: the conversation so far.
            params: generation parameters; ``None`` fields are left out of the request.
            timeout: seconds allowed for the whole request.

        Returns:
            The reply text (empty if the server sent no content), token usage, finish reason and model name.

        Raises:
            ModelError: the request failed; ``transient`` tells whether retrying may help.
        """
        try:
            # The SDK's timeout bounds each network phase separately; the outer one bounds the whole call, so
            # a server trickling bytes cannot hold a slot for longer than asked.
            async with asyncio.timeout(timeout):
                completion = await self._client.chat.completions.create(
                    model=self.model,
                    messages=to_openai_messages(messages),
                    temperature=_given(params.temperature),
                    max_tokens=_given(params.max_tokens),
                    top_p=_given(params.top_p),
                    seed=_given(params.seed),
                    timeout=timeout,
                )
        except TimeoutError as err:
            raise ModelError(f"request timed out after {timeout:g}s", transient=True) from err
        except openai.OpenAIError as err:
            raise map_openai_error(err, api_key_env=self._api_key_env) from err
        if not completion.choices:
            raise ModelError("the server returned no choices", transient=False)
        choice = completion.choices[0]
        usage = completion.usage
        return ModelResponse(
            text=choice.message.content or "",
            input_tokens=usage.prompt_tokens if usage is not None else None,
            output_tokens=usage.completion_tokens if usage is not None else None,
            finish_reason=choice.finish_reason,
            model=completion.model or None,
        )

    async def check(self) -> None:
        """Fail fast, before a run starts, when the endpoint cannot be reached or rejects the key.

        Raises:
            ModelConfigError: one line naming the endpoint (or the key variable) and the reason.
        """
        try:
            async with asyncio.timeout(15):
                await self._client.models.list(timeout=10)
        except (TimeoutError, openai.APITimeoutError):
            raise ModelConfigError(f"cannot reach {self.endpoint}: no answer within 10 s") from None
        except openai.APIConnectionError as err:
            cause = err.__cause__ or err
            raise ModelConfigError(f"cannot reach {self.endpoint}: {cause}") from None
        except openai.AuthenticationError:
            hint = f"check {self._api_key_env} or pass --api-key" if self._api_key_env else "pass --api-key"
            raise ModelConfigError(f"{self.endpoint} rejected the API key ({hint})") from None
        except openai.APIStatusError:
            return  # e.g. no /models route: the server answers, and chat completions may well work

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.close()


def _given(value: _T | None) -> _T | openai.Omit:
    # The SDK leaves omitted fields out of the JSON body entirely, unlike None which it would send as null.
    return openai.omit if value is None else value
