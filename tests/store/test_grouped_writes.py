"""Grouped writes (Store.group_writes): what a run's play records waits in memory and is written together, and
comes out in the store exactly as if each record had been written at once."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from wason.core.records import TurnConflict
from wason.engine import create_run, execute_run, llm_player_factory, make_client
from wason.store import Store
from wason.store.db import GROUP_WRITES, CallRef
from wason.tasks.wilt import WiltRunConfig


def _call(
    run_id: int, episode_id: int, turn: int, parent: object, key: str, reply: str | None
) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "episode_id": episode_id,
        "turn": turn,
        "model": "vllm:fake",
        "endpoint": "http://127.0.0.1:1/v1",
        "params": {"temperature": None},
        "cache_key": key,
        "parent_id": parent,
        "messages": [{"role": "user", "content": f"turn {turn}"}],
        "response": reply,
        "finish_reason": "stop" if reply is not None else None,
        "served_model": "fake",
        "input_tokens": 3,
        "output_tokens": 2,
        "latency_s": 0.01,
        "attempts": 1,
        "errors": None,
        "error": None if reply is not None else "boom",
        "cached": False,
    }


def _run(store: Store) -> tuple[int, list[int]]:
    run_id = create_run(store, WiltRunConfig(split="lite", ids=[1, 2], player="solver"))
    return run_id, [e.id for e in store.list_episodes(run_id)]


def _sqlite(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'grouped.db'}"


def _exercise_grouping(url: str) -> None:
    store, other = Store(url), Store(url)  # `other`: another process's view of the same store
    try:
        run_id, (first, second) = _run(store)
        with store.group_writes():
            store.start_episode(first)
            parent = store.record_call(_call(run_id, first, 0, None, "k0", "Test Case: (1, 2, 3)"))
            assert isinstance(parent, CallRef) and parent.id is None
            child = store.record_call(_call(run_id, first, 1, parent, "k1", "Test Case: (2, 3, 4)"))
            store.add_turn(first, 0, action={"t": 0}, observation={"o": 0}, reply="r0", feedback="f0")
            store.add_turn(first, 1, action={"t": 1}, observation={"o": 1}, reply="r1", feedback="f1")
            store.finish_episode(first, status="completed", success=True, metrics={"m": 1})
            # waiting in memory: not in the store for anyone else yet, but the cache already answers from it
            assert other.list_calls(run_id=run_id) == [] and other.list_turns(first) == []
            assert store.cache_get("k1") == {
                "text": "Test Case: (2, 3, 4)",
                "input_tokens": 3,
                "output_tokens": 2,
                "finish_reason": "stop",
                "model": "fake",
            }
            assert store.cache_get("nothing") is None
            # a read by the grouping thread writes what waits first: it sees its own writes
            assert [t["index"] for t in store.list_turns(first)] == [0, 1]
            assert isinstance(child, CallRef) and parent.id is not None and child.id is not None
            calls = other.list_calls(run_id=run_id)
            assert [c["id"] for c in calls] == [parent.id, child.id]
            assert calls[1]["parent_id"] == parent.id
            # the child's stored conversation continues its parent's
            assert [m["content"] for m in calls[1]["messages"]] == ["turn 0", "turn 1"]
            # a later call whose parent was written in an earlier group
            store.record_call(_call(run_id, first, 2, child, "k2", None))
            store.start_episode(second)
            store.add_turn(second, 0, action={"t": 0}, observation={"o": 0}, reply=None, feedback=None)
        # the block's end wrote the rest
        calls = other.list_calls(run_id=run_id)
        assert [c["parent_id"] for c in calls] == [None, parent.id, child.id]
        assert calls[2]["error"] == "boom"
        assert store.cache_get("k2") is None  # a failed call is no cache entry
        assert other.get_episode(first).status == "completed" and other.get_episode(first).metrics == {"m": 1}
        assert other.get_episode(second).status == "running"
        assert [t["index"] for t in other.list_turns(second)] == [0]
    finally:
        store.close()
        other.close()


def test_grouped_writes_come_out_as_if_written_at_once(tmp_path: Path) -> None:
    _exercise_grouping(_sqlite(tmp_path))


def test_grouped_writes_on_postgres(new_postgres_database: Callable[[], str]) -> None:
    # executemany with RETURNING in parameter order, and the parents' ids, on the other dialect
    _exercise_grouping(new_postgres_database())


def test_a_turn_refused_when_written_fails_its_episode_not_the_others(tmp_path: Path) -> None:
    store, other = Store(_sqlite(tmp_path)), Store(_sqlite(tmp_path))
    try:
        _, (first, second) = _run(store)
        with store.group_writes():
            store.add_turn(first, 0, action={"t": 0}, observation={}, reply=None, feedback=None)
            store.add_turn(second, 0, action={"t": 0}, observation={}, reply=None, feedback=None)
            # another process steps the first episode meanwhile (a run's lease rules this out)
            other.add_turn(first, 0, action={"theirs": 0}, observation={}, reply=None, feedback=None)
            store.flush_writes()
            # the second episode's turn was written; the first one's next record says what happened
            assert [t["action"] for t in other.list_turns(second)] == [{"t": 0}]
            with pytest.raises(TurnConflict, match=f"episode {first}"):
                store.add_turn(first, 1, action={"t": 1}, observation={}, reply=None, feedback=None)
            store.add_turn(second, 1, action={"t": 1}, observation={}, reply=None, feedback=None)
        assert [t["action"] for t in other.list_turns(first)] == [{"theirs": 0}]
        assert [t["index"] for t in other.list_turns(second)] == [0, 1]
    finally:
        store.close()
        other.close()


def test_only_the_grouping_thread_groups(tmp_path: Path) -> None:
    store, other = Store(_sqlite(tmp_path)), Store(_sqlite(tmp_path))
    try:
        run_id, (first, second) = _run(store)
        with store.group_writes():
            store.add_turn(first, 0, action={}, observation={}, reply=None, feedback=None)
            written: list[object] = []
            worker = threading.Thread(
                target=lambda: written.append(store.record_call(_call(run_id, second, 0, None, "t", "x")))
            )
            worker.start()
            worker.join(timeout=60)
            # the other thread's record is written at once (an id, not a reference), the group's still waits
            assert isinstance(written[0], int)
            assert [c["id"] for c in other.list_calls(run_id=run_id)] == written
            assert other.list_turns(first) == []
            with store.group_writes():  # blocks nest
                store.add_turn(first, 1, action={}, observation={}, reply=None, feedback=None)
            assert other.list_turns(first) == []  # the outer block still groups
        assert [t["index"] for t in other.list_turns(first)] == [0, 1]
    finally:
        store.close()
        other.close()


def test_a_group_is_written_once_it_is_full(tmp_path: Path) -> None:
    store, other = Store(_sqlite(tmp_path)), Store(_sqlite(tmp_path))
    try:
        run_id, (first, _) = _run(store)
        with store.group_writes():
            for i in range(GROUP_WRITES):
                store.record_call(_call(run_id, first, i, None, f"k{i}", "x"))
            assert len(other.list_calls(run_id=run_id)) == GROUP_WRITES
    finally:
        store.close()
        other.close()


def _play(url: str, base_url: str, grouped: bool) -> list[dict[str, Any]]:
    store = Store(url)
    config = WiltRunConfig(
        split="lite", ids=[1, 2, 3], player="llm", model="vllm:fake", base_url=base_url, retries=0, timeout=30
    )
    run_id = create_run(store, config)
    client = make_client(config, store)

    async def play() -> None:
        try:
            await execute_run(
                store, run_id, llm_player_factory(client, config, run_id), concurrency=3, group_writes=grouped
            )
        finally:
            await client.aclose()

    asyncio.run(play())
    episodes = store.list_episodes(run_id)
    out: list[dict[str, Any]] = []
    for e in episodes:
        out.append({"status": e.status, "success": e.success, "metrics": e.metrics, "item": e.item})
        out.extend(
            {k: t[k] for k in ("index", "action", "observation", "reply", "feedback")}
            for t in store.list_turns(e.id)
        )
    # episodes play side by side, so calls of different episodes interleave differently from run to run: each
    # call is named by its episode and turn
    calls = store.list_calls(run_id=run_id)
    name = {c["id"]: (c["episode_id"] - episodes[0].id, c["turn"]) for c in calls}
    for c in sorted(calls, key=lambda c: name[c["id"]]):
        out.append(
            {
                "call": name[c["id"]],
                "parent": name.get(c["parent_id"]),
                "messages": c["messages"],
                "response": c["response"],
                "cache_key": c["cache_key"],
            }
        )
    store.close()
    return out


def test_a_grouped_run_stores_what_an_ungrouped_one_does(tmp_path: Path) -> None:
    def reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
        n = sum(m["role"] == "assistant" for m in messages)
        return (
            "Final Guess: ```lambda x, y, z: x < y < z```"
            if n == 4
            else f"Test Case: ```({n}, {n + 1}, 9)```"
        )

    with FakeOpenAIServer(reply) as server:
        plain = _play(f"sqlite:///{tmp_path / 'plain.db'}", server.base_url, grouped=False)
        grouped = _play(f"sqlite:///{tmp_path / 'grouped.db'}", server.base_url, grouped=True)
    assert len(plain) > 30  # three episodes of five turns and five calls each, and their parents
    assert grouped == plain
