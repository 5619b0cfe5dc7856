"""Runs that lose nothing and count honestly: one owner per run, tokens spent apart from tokens replayed,
baselines that belong to their run, and model calls stored once per conversation."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime

import pytest

from tests.conftest import FakeModel
from wason.engine import (
    RunBusy,
    baselines_of,
    create_run,
    execute_run,
    llm_player_factory,
    run_baseline,
)
from wason.models.base import ChatMessage, GenerationParams, ModelResponse
from wason.models.client import ModelClient, RetryPolicy
from wason.store import Store
from wason.store.db import runs
from wason.tasks.wilt import WiltRunConfig


class Crash(BaseException):
    """Stands in for the process dying mid-run."""


def config(**kw: object) -> WiltRunConfig:
    return WiltRunConfig(model="fake:scripted", **kw)  # type: ignore[arg-type]


async def play(store: Store, cfg: WiltRunConfig, model: FakeModel, rid: int, concurrency: int = 1) -> None:
    client = ModelClient(model=model, store=store, policy=RetryPolicy(retries=2, base_delay=0.0))
    await execute_run(store, rid, llm_player_factory(client, cfg, rid), concurrency=concurrency)


async def test_a_resumed_run_reports_the_tokens_an_uninterrupted_one_does(tmp_path: object) -> None:
    cfg = config(split="lite")
    whole = Store(f"sqlite:///{tmp_path}/whole.db")
    rid = create_run(whole, cfg)
    await play(whole, cfg, FakeModel(), rid)
    expected = whole.call_totals(rid)
    assert expected["cached_calls"] == 0 and expected["calls"] == 50 and expected["input_tokens"] > 0

    broken = Store(f"sqlite:///{tmp_path}/broken.db")
    rid = create_run(broken, cfg)
    with pytest.raises(Crash):  # dies in episode 4's fourth call: its answered turns are replayed
        await play(broken, cfg, FakeModel(fail=lambda n: Crash() if n == 23 else None), rid)  # type: ignore[arg-type,return-value]
    await play(broken, cfg, FakeModel(), rid)
    got = broken.call_totals(rid)
    spent = ("calls", "failed_calls", "attempts", "input_tokens", "output_tokens")
    assert {k: got[k] for k in spent} == {k: expected[k] for k in spent}
    # the interrupted episode's answered turns (and any call of the next one that got in before the end)
    assert got["cached_calls"] >= 3 and got["cached_output_tokens"] > 0

    # a rerun wholly from the cache spends nothing, and says what it replayed
    again = create_run(whole, cfg)
    await play(whole, cfg, FakeModel(), again)
    replay = whole.call_totals(again)
    assert replay["calls"] == replay["input_tokens"] == replay["output_tokens"] == 0
    assert replay["cached_calls"] == 50
    assert replay["cached_input_tokens"] == expected["input_tokens"]


async def test_a_run_held_by_a_live_process_is_refused_and_nothing_is_played(store: Store) -> None:
    cfg = config(ids=[1, 2])
    rid = create_run(store, cfg)
    store.acquire_lease(rid, "elsewhere:1:x")  # another machine's process, beating now
    model = FakeModel()
    with pytest.raises(RunBusy, match=f"run {rid} is being worked on by process 1 on elsewhere"):
        await play(store, cfg, model, rid)
    assert model.calls == 0 and all(e.status == "pending" for e in store.list_episodes(rid))
    store.release_lease(rid, "elsewhere:1:x")
    await play(store, cfg, model, rid)
    assert store.get_run(rid).status == "completed" and store.get_run(rid).owner is None


async def test_a_waiting_run_takes_a_lease_once_its_holder_stops_beating(store: Store) -> None:
    cfg = config(ids=[1])
    rid = create_run(store, cfg)
    store.acquire_lease(rid, "elsewhere:1:x")

    async def holder_dies() -> None:
        await asyncio.sleep(0.3)
        with store.engine.begin() as c:  # its last heartbeat ages past the lease's time to live
            c.execute(runs.update().values(heartbeat_at=datetime(2000, 1, 1, tzinfo=UTC)))

    client = ModelClient(model=FakeModel(), store=store, policy=RetryPolicy(retries=0))
    await asyncio.gather(
        holder_dies(),
        execute_run(store, rid, llm_player_factory(client, cfg, rid), concurrency=1, lease_wait=10),
    )
    assert store.get_run(rid).status == "completed"


async def test_two_processes_resuming_at_once_play_each_episode_once(tmp_path: object) -> None:
    # two "processes" (two stores on one file, two event-loop tasks) resume the same run at the same moment
    url = f"sqlite:///{tmp_path}/two.db"
    cfg = config(split="lite")
    rid = create_run(Store(url), cfg)
    a, b = Store(url), Store(url)
    ma, mb = FakeModel(), FakeModel()
    results = await asyncio.gather(play(a, cfg, ma, rid), play(b, cfg, mb, rid), return_exceptions=True)
    refused = [r for r in results if isinstance(r, RunBusy)]
    assert len(refused) == 1 and results.count(None) == 1
    assert ma.calls + mb.calls == 50  # every request paid once
    assert all(len(a.list_turns(e.id)) == 5 for e in a.list_episodes(rid))


def test_a_baseline_is_resumed_with_its_run_and_never_made_twice(tmp_path: object) -> None:
    store = Store(f"sqlite:///{tmp_path}/base.db")
    cfg = config(ids=[1, 2, 3])
    rid = create_run(store, cfg)
    asyncio.run(play(store, cfg, FakeModel(), rid))
    first = run_baseline(store, rid)
    assert first is not None and store.get_run(first).status == "completed"
    assert run_baseline(store, rid) == first and baselines_of(store, rid) == [first]

    # a baseline killed halfway is not a result, and the next run_baseline finishes it rather than adding one
    rid2 = create_run(store, cfg)
    asyncio.run(play(store, cfg, FakeModel(), rid2))
    half = run_baseline(store, rid2)
    assert half is not None
    episodes = store.list_episodes(half)
    store.start_episode(episodes[2].id)  # as if the process died inside its last episode
    store.set_run_status(half, "running")
    assert baselines_of(store, rid2, completed_only=True) == []
    assert run_baseline(store, rid2) == half
    assert baselines_of(store, rid2) == [half] == baselines_of(store, rid2, completed_only=True)


async def test_a_conversation_is_stored_once_and_read_back_whole(store: Store) -> None:
    model = FakeModel()
    cfg = config(split="lite")
    rid = create_run(store, cfg)
    await play(store, cfg, model, rid, concurrency=4)
    calls = store.list_calls(run_id=rid)
    sent = {json.dumps([m.model_dump() for m in seen]) for seen in model.seen}
    # each record reads back as exactly the conversation that was sent ...
    assert {json.dumps(c["messages"]) for c in calls} == sent
    for e in store.list_episodes(rid):
        mine = sorted((c for c in calls if c["episode_id"] == e.id), key=lambda c: c["turn"])
        # ... while each stored only what was new: the system prompt once, then a reply and its feedback
        assert [len(c["new_messages"]) for c in mine] == [1, 2, 2, 2, 2]
        assert mine[0]["parent_id"] is None
        assert [c["parent_id"] for c in mine[1:]] == [c["id"] for c in mine[:-1]]
        stored = sum(len(json.dumps(c["new_messages"])) for c in mine)
        whole = len(json.dumps(mine[-1]["messages"]))
        assert stored <= whole + 2 * len(mine)  # linear: the last conversation, once (plus brackets)


class Exploding:
    """A backend with a defect: it raises something that is not a ModelError."""

    spec, endpoint, max_concurrency = "fake:exploding", "https://user:hunter2@example.test/v1", 1

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        raise AttributeError("'NoneType' object has no attribute 'content'")

    async def aclose(self) -> None:
        pass


async def test_a_backend_defect_is_a_recorded_failure_not_a_lost_call(store: Store) -> None:
    client = ModelClient(model=Exploding(), store=store, policy=RetryPolicy(retries=3, base_delay=0.0))
    with pytest.raises(Exception, match="unexpected AttributeError from the backend"):
        await client.complete([ChatMessage(role="user", content="hi")], GenerationParams())
    (call,) = store.list_calls()
    assert call["error"] and call["attempts"] == 1 and call["response"] is None
    assert call["endpoint"] == "https://user:***@example.test/v1"  # no password is stored
