"""How the store grows with the turns of a conversation: bytes on disk against the text of the conversations.

Runs the full WILT split (50 rules) with an in-process model that tests 30 triples and then guesses, into a fresh
SQLite file, and compares:

- text: the characters of every episode's conversation, once (instructions, every reply, every feedback);
- store: the SQLite file after a checkpoint and VACUUM (runs, episodes, turns, model calls, cache, indexes);
- what the model-call rows would hold if each stored its whole request again (the layout before issue 10);

for 10, 30 and 60 tests per episode, so that the growth per call can be read off (constant when linear).

Goal (issue 10): the store of a 30-turn WILT run is at most twice the size of its text.

    python bench/bench_storage.py
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import tempfile
from pathlib import Path

from wason.engine import create_run, execute_run, llm_player_factory
from wason.models.base import ChatMessage, GenerationParams, ModelResponse
from wason.models.client import ModelClient
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig


class ThirtyTests:
    """Proposes (n, 2n, n+7) until told to guess, then guesses; counts words as tokens."""

    spec, endpoint, max_concurrency = "bench:thirty", "memory", 8

    def __init__(self, tests: int = 30) -> None:
        self.tests = tests

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        turn = sum(m.role == "assistant" for m in messages)
        if turn < self.tests:
            text = f"Let me try another triple to narrow it down.\nTest Case: ```({turn}, {turn * 2}, {turn + 7})```"
        else:
            text = "I am fairly sure now.\nFinal Guess: ```lambda x, y, z: x < y < z```"
        return ModelResponse(
            text=text,
            input_tokens=sum(len(m.content.split()) for m in messages),
            output_tokens=len(text.split()),
        )

    async def aclose(self) -> None:
        pass


def measure(tests: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "storage.db"
        store = Store(f"sqlite:///{path}")
        config = WiltRunConfig(split="full", model="bench:thirty", max_tests=tests)
        run_id = create_run(store, config)
        client = ModelClient(model=ThirtyTests(tests), store=store)
        asyncio.run(execute_run(store, run_id, llm_player_factory(client, config, run_id), concurrency=8))
        calls = store.list_calls(run_id=run_id)
        store.close()
        last: dict[int, dict[str, object]] = {}
        for c in calls:
            last[c["episode_id"]] = c  # calls come oldest first: the last is the whole conversation
        text = sum(
            sum(len(m["content"]) for m in c["messages"]) + len(str(c["response"] or ""))
            for c in last.values()
        )
        with sqlite3.connect(path) as db:
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.execute("VACUUM")
        return {
            "calls": len(calls),
            "episodes": len(last),
            "text": text,
            "store": path.stat().st_size,
            "new_only": sum(len(json.dumps(c["new_messages"])) for c in calls),
            "whole": sum(len(json.dumps(c["messages"])) for c in calls),
        }


def main() -> None:
    print(
        "tests | calls | text MB | store MB | store/text | store bytes/call | call messages now | each whole"
    )
    for tests in (10, 30, 60):
        m = measure(tests)
        print(
            f"{tests:5d} | {m['calls']:5.0f} | {m['text'] / 1e6:7.2f} | {m['store'] / 1e6:8.2f} | "
            f"{m['store'] / m['text']:10.2f} | {m['store'] / m['calls']:16.0f} | "
            f"{m['new_only'] / 1e6:14.2f} MB | {m['whole'] / 1e6:7.2f} MB"
        )


if __name__ == "__main__":
    main()
