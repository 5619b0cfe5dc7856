"""Backend for Anthropic's Messages API through the official ``anthropic`` SDK."""

from __future__ import annotations

import asyncio

import anthropic
from anthropic.types import MessageParam, TextBlock

from wason.models.base import ChatMessage, GenerationParams, ModelError, ModelResponse, map_sdk_error

# The Messages API requires max_tokens; this is what a call gets when the user sets none.
DEFAULT_MAX_TOKENS = 1024

# Sent as the first user turn when a conversation has none, as a published reference harness does for Anthropic:
# the API rejects a conversation that is empty or starts with the assistant.
FIRST_USER_MESSAGE = "Please begin."


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
        """
        self._client = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=timeout
        )
        self.spec = spec
        self.model = model
        self.endpoint = str(self._client.base_url).rstrip("/")
        self.max_concurrency = max_concurrency
        self._api_key_env = api_key_env

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        """Send one Messages request and return the text of the reply.

        Args:
            messages: the conversation so far; system messages become the ``system`` parameter.
            params: generation parameters; ``max_tokens`` defaults to 1024, ``seed`` is ignored.
            timeout: seconds allowed for the whole request.

        Returns:
            The reply text (text blocks joined), token usage, stop reason and model name.

        Raises:
            ModelError: the request failed; ``transient`` tells whether retrying may help.
        """
        system, turns = to_anthropic_messages(messages)
        # Recent SDKs dropped temperature and top_p from the typed signature, though the API takes them for
        # the models that support sampling settings; the body extension sends them the same way on every SDK.
        sampling = {
            name: value
            for name, value in (("temperature", params.temperature), ("top_p", params.top_p))
            if value is not None
        }
        try:
            # The SDK's timeout bounds each network phase separately; the outer one bounds the whole call.
            async with asyncio.timeout(timeout):
                message = await self._client.messages.create(
                    model=self.model,
                    messages=turns,
                    max_tokens=params.max_tokens if params.max_tokens is not None else DEFAULT_MAX_TOKENS,
                    system=system if system is not None else anthropic.omit,
                    extra_body=sampling or None,
                    timeout=timeout,
                )
        except TimeoutError as err:
            raise ModelError(f"request timed out after {timeout:g}s", transient=True) from err
        except anthropic.AnthropicError as err:
            raise map_anthropic_error(err, api_key_env=self._api_key_env) from err
        text = "".join(block.text for block in message.content if isinstance(block, TextBlock))
        return ModelResponse(
            text=text,
            input_tokens=message.usage.input_tokens,
            output_tokens=message.usage.output_tokens,
            finish_reason=message.stop_reason,
            model=message.model or None,
        )

    async def aclose(self) -> None:
        """Close the HTTP connection pool."""
        await self._client.close()
