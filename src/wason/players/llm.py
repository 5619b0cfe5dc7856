"""A language model playing any game through that game's text protocol."""

from __future__ import annotations

from typing import Any

from wason.core.game import Malformed, Move, TextProtocol
from wason.core.records import TRUNCATED_FINISH_REASONS, CallContext
from wason.models.base import ChatMessage, GenerationParams, Role
from wason.models.client import ModelClient


class LLMPlayer:
    """Holds one episode's conversation and turns each reply into an action.

    Args:
        client: the model, with retries, cache and recording.
        protocol: the game's text protocol.
        params: generation parameters, sent and recorded with every call.
        context: the episode's identity for the record and the cache key (its ``turn`` is filled in per call).
        system_as_user: send the instructions as the first user message, for models that refuse system
            messages (the reference did this for o1 models).
    """

    def __init__(
        self,
        client: ModelClient,
        protocol: TextProtocol[Any, Any],
        params: GenerationParams,
        context: CallContext | None = None,
        *,
        system_as_user: bool = False,
    ) -> None:
        self.client = client
        self.protocol = protocol
        self.params = params
        self.context = context or CallContext()
        # Some protocols' first message is the user's question, not a system prompt.
        as_user = system_as_user or getattr(protocol, "prompt_role", "system") == "user"
        role: Role = "user" if as_user else "system"
        # a protocol with no instructions of its own (its first user message is the whole prompt) sends none
        prompt = protocol.system_prompt()
        self.messages: list[ChatMessage] = [ChatMessage(role=role, content=prompt)] if prompt else []
        # a stateless protocol writes the whole conversation into each turn's prompt: every call is that
        # prompt alone (after the instructions), as a published harness that kept no chat did
        self._stateless = bool(getattr(protocol, "stateless", False))
        self._opening = list(self.messages)
        self._last_reply: str | None = None
        self._turn = 0

    async def act(self, observation: Any) -> Move[Any]:
        if self._last_reply is not None and self._stateless:
            self.messages = [
                *self._opening,
                ChatMessage(role="user", content=self.protocol.feedback(observation)),
            ]
        elif self._last_reply is not None:
            self.messages.append(ChatMessage(role="assistant", content=self._last_reply.strip()))
            self.messages.append(ChatMessage(role="user", content=self.protocol.feedback(observation)))
        elif self._turn == 0:
            # a protocol whose first turn is a user message (the game's opening examples) says so
            first = getattr(self.protocol, "first_message", None)
            text = first(observation) if callable(first) else None
            if text is not None:
                self.messages.append(ChatMessage(role="user", content=str(text)))
        ctx = CallContext(
            run_id=self.context.run_id,
            episode_id=self.context.episode_id,
            turn=self._turn,
            sample=self.context.sample,
        )
        response = await self.client.complete(list(self.messages), self.params, ctx)
        self._turn += 1
        self._last_reply = response.text
        action = self.protocol.parse(response.text)
        if isinstance(action, Malformed) and response.finish_reason in TRUNCATED_FINISH_REASONS:
            # the model ran out of tokens before it could finish the reply: not a format error of its own
            limit = self.params.max_tokens
            where = f" ({limit} tokens)" if limit else ""
            action = Malformed(
                f"the reply was cut off at the token limit{where}: {action.reason}", truncated=True
            )
        return Move(action=action, reply=response.text)
