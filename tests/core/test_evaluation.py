"""Runs end to end with an in-process fake model: recording, errors, concurrency, resume."""

from __future__ import annotations

import pytest

from tests.conftest import FakeModel
from wason.engine import create_run, execute_run, llm_player_factory
from wason.models.base import ChatMessage, ModelError
from wason.models.client import ModelClient, RetryPolicy
from wason.store import Store
from wason.tasks.wilt import WiltRunConfig, summarize


class Crash(BaseException):
    """Stands in for the process dying mid-run."""


def config(**kw: object) -> WiltRunConfig:
    return WiltRunConfig(model="fake:scripted", **kw)  # type: ignore[arg-type]


async def run(
    store: Store, cfg: WiltRunConfig, model: FakeModel, run_id: int | None = None, concurrency: int = 4
) -> int:
    rid = run_id if run_id is not None else create_run(store, cfg)
    client = ModelClient(model=model, store=store, policy=RetryPolicy(retries=2, base_delay=0.0))
    await execute_run(store, rid, llm_player_factory(client, cfg, rid), concurrency=concurrency)
    return rid


async def test_full_split_with_a_scripted_model_is_recorded_turn_by_turn(store: Store) -> None:
    cfg = config(split="full")
    model = FakeModel()
    rid = await run(store, cfg, model)
    eps = store.list_episodes(rid)
    assert [e.status for e in eps] == ["completed"] * 50
    s = summarize([(e.status, e.metrics) for e in eps])
    # the scripted model always guesses x < y < z: right only for rule 2
    assert s.correct == 1 and [e.item["id"] for e in eps if e.success] == [2]
    assert s.avg_guesses == 4.0 and s.repeats == 0
    turns = store.list_turns(eps[0].id)
    assert len(turns) == 5 and turns[0]["feedback"].startswith("Result for input (0.0, 1.0, 2.0):")
    assert turns[-1]["action"]["type"] == "FinalGuess"
    calls = store.list_calls(run_id=rid)
    assert len(calls) == 250 and all(c["response"] for c in calls)
    # the conversation sent on turn 2 holds the system prompt, the first reply and its feedback
    second = next(c for c in calls if c["episode_id"] == eps[0].id and c["turn"] == 1)
    assert [m["role"] for m in second["messages"]] == ["system", "assistant", "user"]
    assert store.get_run(rid).status == "completed"


async def test_system_as_user_sends_the_prompt_as_first_user_message(store: Store) -> None:
    model = FakeModel()
    await run(store, config(ids=[1], system_as_user=True), model)
    assert model.seen[0][0].role == "user"
    from wason.tasks.wilt import load_instruction

    assert model.seen[0][0].content == load_instruction()


async def test_a_call_that_keeps_failing_errors_its_episode_and_the_run_goes_on(store: Store) -> None:
    def reply(messages: list[ChatMessage]) -> str:
        return "Final Guess: ```lambda x, y, z: x > y > z```"

    # every call of the episode for rule 3 fails: its prompt is identical, so fail by call order instead
    failing = {0, 1, 2}
    model = FakeModel(
        reply, fail=lambda n: ModelError("HTTP 500", transient=True, status=500) if n in failing else None
    )
    rid = await run(store, config(ids=[1, 2, 3]), model, concurrency=1)
    eps = store.list_episodes(rid)
    assert [e.status for e in eps] == ["errored", "completed", "completed"]
    assert eps[0].error is not None and "HTTP 500" in eps[0].error
    assert eps[1].success is False and eps[2].success is False
    # rule 1 is x > y > z: it errored, so it is not counted as correct
    s = summarize([(e.status, e.metrics) for e in eps])
    assert (s.n, s.errored, s.correct) == (3, 1, 0)
    assert store.get_run(rid).status == "incomplete"


async def test_resume_replays_nothing_finished_and_repeats_no_cached_call(store: Store) -> None:
    cfg = config(split="lite")
    first = FakeModel(fail=lambda n: Crash() if n == 23 else None)  # type: ignore[arg-type,return-value]
    rid = create_run(store, cfg)
    with pytest.raises(Crash):
        await run(store, cfg, first, run_id=rid, concurrency=1)
    before = {e.index: e for e in store.list_episodes(rid)}
    statuses = [e.status for e in before.values()]
    assert statuses[:5] == ["completed"] * 4 + ["running"]  # 5 calls each; call 23 is episode 4's
    assert statuses.count("completed") == 4
    calls_before = store.list_calls(run_id=rid)
    answered = {c["cache_key"] for c in calls_before if c["response"]}
    assert len(answered) == len(first.seen) >= 23  # every call answered before the crash is on record

    second = FakeModel()
    await run(store, cfg, second, run_id=rid, concurrency=1)
    after = {e.index: e for e in store.list_episodes(rid)}
    assert all(e.status == "completed" for e in after.values())
    # finished episodes were not replayed ...
    for i in range(4):
        assert after[i].metrics == before[i].metrics
        assert len(store.list_turns(after[i].id)) == 5
    # ... and no request answered before was sent again: the interrupted episodes' first turns came from the cache
    calls_after = store.list_calls(run_id=rid)[len(calls_before) :]
    assert all(c["cached"] for c in calls_after if c["cache_key"] in answered)
    assert sum(c["cached"] for c in calls_after) >= 3
    assert second.calls == sum(not c["cached"] for c in calls_after) == 10 * 5 - len(answered)
    assert len(store.list_turns(after[4].id)) == 5
    assert store.get_run(rid).status == "completed"


async def test_concurrent_episodes_keep_their_conversations_apart(store: Store) -> None:
    model = FakeModel(max_concurrency=8)
    rid = await run(store, config(split="full"), model, concurrency=8)
    for e in store.list_episodes(rid):
        calls = [c for c in store.list_calls(run_id=rid) if c["episode_id"] == e.id]
        assert sorted(c["turn"] for c in calls) == [0, 1, 2, 3, 4]
        for c in calls:
            assert len(c["messages"]) == 1 + 2 * c["turn"]
