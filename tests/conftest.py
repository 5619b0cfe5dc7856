"""Shared test helpers: an in-process fake model and a temporary store."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wason.models.base import ChatMessage, GenerationParams, ModelError, ModelResponse
from wason.store import Store

# the fake OpenAI-compatible server's `fake_openai` fixture, for every test module
pytest_plugins = ["tests.fakes.openai_server"]

Reply = Callable[[list[ChatMessage]], str]


def wilt_script_reply(messages: list[ChatMessage]) -> str:
    """A deterministic 'model' for WILT: tests (n, n+1, n+2) for four turns, then guesses x < y < z."""
    turn = sum(m.role == "assistant" for m in messages)
    if turn < 4:
        return f"Reasoning about ordering.\nTest Case: ```({turn}, {turn + 1}, {turn + 2})```"
    return "I am confident.\nFinal Guess: ```lambda x, y, z: x < y < z```"


class FakeModel:
    """A Model whose replies come from a function; can fail on a schedule."""

    def __init__(
        self,
        reply: Reply = wilt_script_reply,
        *,
        fail: Callable[[int], ModelError | None] | None = None,
        spec: str = "fake:scripted",
        max_concurrency: int = 4,
    ) -> None:
        self.spec = spec
        self.endpoint = "memory"
        self.max_concurrency = max_concurrency
        self.reply = reply
        self.fail = fail
        self.calls = 0
        self.seen: list[list[ChatMessage]] = []
        self.params: list[GenerationParams] = []

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        n = self.calls
        self.calls += 1
        await asyncio.sleep(0)  # a real backend yields to the event loop while it waits
        if self.fail is not None:
            err = self.fail(n)
            if err is not None:
                raise err
        self.seen.append(list(messages))
        self.params.append(params)
        text = self.reply(messages)
        return ModelResponse(
            text=text,
            input_tokens=sum(len(m.content.split()) for m in messages),
            output_tokens=len(re.findall(r"\S+", text)),
            finish_reason="stop",
            model=self.spec,
        )

    async def aclose(self) -> None:
        return None


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(f"sqlite:///{tmp_path / 'wason.db'}")


@pytest.fixture(autouse=True)
def _no_terminal_width(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test sees the width of piped output (wason widens its tables when no ``COLUMNS`` is asked for),
    whatever the runner sets: pytest-xdist's workers inherit a ``COLUMNS`` from the terminal that started them.
    A test that wants a width sets it itself."""
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(autouse=True, scope="session")
def _one_model_thread_per_worker() -> Iterator[None]:
    """Under pytest-xdist (two workers on two cores), each worker's embedded model decodes with one thread: two
    models of two threads each on two cores wait for each other's OpenMP threads (issue 39: -n 4 made the suite
    slower for the same reason). A test that asks for a number of threads gets it."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        yield
        return
    from wason.models import local

    default = local._default_threads
    local._default_threads = lambda: 1
    try:
        yield
    finally:
        local._default_threads = default
