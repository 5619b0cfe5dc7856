"""The shared majority vote of LLM judges and validator panels."""

from __future__ import annotations

import asyncio
from typing import Any

from wason.core.records import CallContext
from wason.judges import majority_vote
from wason.models.base import ChatMessage, GenerationParams, ModelResponse


class _Scripted:
    """An oracle answering from a list, remembering each call's sample."""

    def __init__(self, replies: list[str]) -> None:
        self.replies = list(replies)
        self.samples: list[str] = []

    @property
    def model(self) -> Any:
        class _M:
            spec = "scripted:judge"

        return _M()

    async def complete(
        self, messages: list[ChatMessage], params: GenerationParams, context: CallContext | None = None
    ) -> ModelResponse:
        assert context is not None
        self.samples.append(context.sample)
        return ModelResponse(text=self.replies.pop(0))


def _read(reply: str) -> bool | None:
    word = reply.strip().lower()
    return True if word == "yes" else False if word == "no" else None


def _vote(replies: list[str]) -> Any:
    oracle = _Scripted(replies)
    ctx = CallContext(run_id=1, episode_id=2, turn=3, sample="s")
    result = asyncio.run(
        majority_vote(oracle, [ChatMessage(role="user", content="q")], GenerationParams(), ctx, _read)
    )
    return result, oracle.samples


def test_majority_decides_and_every_reply_is_kept() -> None:
    result, samples = _vote(["yes", "no", "yes"])
    assert result.verdict is True
    assert result.votes == [True, False, True]
    assert result.replies == ["yes", "no", "yes"]
    assert samples == ["s|judge|0", "s|judge|1", "s|judge|2"]  # independent samples, each its own cache key


def test_no_majority_is_no_verdict() -> None:
    result, _ = _vote(["yes", "maybe", "no"])
    assert result.verdict is None
    result, _ = _vote(["no", "no", "garbled"])
    assert result.verdict is False
