"""The model player's conversation: what it sends before the model's first reply, and after each one."""

from __future__ import annotations

import asyncio
from typing import Any

from wason.core.game import Malformed
from wason.core.records import CallContext
from wason.models.base import ChatMessage, GenerationParams, ModelResponse
from wason.players.llm import LLMPlayer


class _Client:
    """Answers every call with the same reply and keeps the messages of each call."""

    def __init__(self) -> None:
        self.calls: list[list[ChatMessage]] = []

    async def complete(
        self, messages: list[ChatMessage], params: GenerationParams, context: CallContext | None = None
    ) -> ModelResponse:
        self.calls.append(messages)
        return ModelResponse(text=f"reply {len(self.calls)}")


class _Protocol:
    name = "test"

    def system_prompt(self) -> str:
        return "rules of the game"

    def parse(self, reply: str) -> Any:
        return Malformed(reason=reply)

    def feedback(self, observation: Any) -> str:
        return f"feedback on {observation}"


class _OpeningProtocol(_Protocol):
    def first_message(self, observation: Any) -> str:
        return f"your first examples: {observation}"


def _play(protocol: Any) -> list[list[tuple[str, str]]]:
    client = _Client()
    player = LLMPlayer(client, protocol, GenerationParams())  # type: ignore[arg-type]

    async def two_turns() -> None:
        await player.act("start")
        await player.act("after one")

    asyncio.run(two_turns())
    return [[(m.role, m.content) for m in call] for call in client.calls]


def test_a_protocol_with_a_first_message_opens_with_it() -> None:
    calls = _play(_OpeningProtocol())
    assert calls[0] == [("system", "rules of the game"), ("user", "your first examples: start")]
    assert calls[1] == [
        ("system", "rules of the game"),
        ("user", "your first examples: start"),
        ("assistant", "reply 1"),
        ("user", "feedback on after one"),
    ]


def test_without_one_the_model_answers_the_system_prompt() -> None:
    calls = _play(_Protocol())
    assert calls[0] == [("system", "rules of the game")]
    assert calls[1][-2:] == [("assistant", "reply 1"), ("user", "feedback on after one")]
