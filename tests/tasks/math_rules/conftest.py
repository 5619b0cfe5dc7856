"""Shared helpers of the math-sequence tests: a fake judge model."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class FakeModel:
    spec: str = "fake:judge"


@dataclass
class FakeResponse:
    text: str


@dataclass
class FakeOracle:
    """An oracle that replies with the given texts in turn and records every request."""

    replies: list[str]
    calls: list[tuple[list[Any], Any]] = field(default_factory=list)
    model: FakeModel = field(default_factory=FakeModel)

    async def complete(self, messages: list[Any], params: Any, context: Any = None) -> FakeResponse:
        self.calls.append((messages, context))
        return FakeResponse(self.replies[(len(self.calls) - 1) % len(self.replies)])
