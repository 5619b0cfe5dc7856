"""ModelClient: retries with backoff and jitter, the cache, and the call record."""

from __future__ import annotations

import asyncio

import pytest

from tests.conftest import FakeModel
from wason.models.base import ChatMessage, GenerationParams, ModelError
from wason.models.client import CallContext, ModelClient, RetryPolicy, cache_key
from wason.store import Store

MESSAGES = [ChatMessage(role="system", content="hello")]


class Sleeps:
    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


def client(model: FakeModel, store: Store | None, sleeps: Sleeps, **policy: float) -> ModelClient:
    import random

    return ModelClient(
        model=model,
        store=store,
        policy=RetryPolicy(**policy),
        rng=random.Random(0),
        sleep=sleeps,  # type: ignore[arg-type]
    )


async def test_transient_failures_are_retried_with_growing_jittered_backoff(store: Store) -> None:
    failures = {0: 429, 1: 503, 2: 500}
    model = FakeModel(
        fail=lambda n: ModelError("boom", transient=True, status=failures[n]) if n in failures else None
    )
    sleeps = Sleeps()
    c = client(model, store, sleeps, retries=5, base_delay=1.0, max_delay=60.0)
    response = await c.complete(MESSAGES, GenerationParams(), CallContext(run_id=1, episode_id=2, turn=0))
    assert response.text and model.calls == 4
    assert len(sleeps.delays) == 3
    for attempt, delay in enumerate(sleeps.delays):
        assert 0 <= delay <= 2**attempt  # full jitter under the growing ceiling
    (call,) = store.list_calls(run_id=1)
    assert call["attempts"] == 4 and call["errors"] == ["boom", "boom", "boom"] and call["error"] is None
    assert call["episode_id"] == 2 and call["response"] == response.text


async def test_permanent_failure_is_not_retried_and_is_recorded(store: Store) -> None:
    model = FakeModel(fail=lambda n: ModelError("401 unauthorized", transient=False, status=401))
    c = client(model, store, Sleeps())
    with pytest.raises(ModelError, match="401"):
        await c.complete(MESSAGES, GenerationParams(), CallContext(run_id=7))
    assert model.calls == 1
    (call,) = store.list_calls(run_id=7)
    assert call["error"] == "401 unauthorized" and call["response"] is None


async def test_retries_are_bounded(store: Store) -> None:
    model = FakeModel(fail=lambda n: ModelError("overloaded", transient=True, status=529))
    sleeps = Sleeps()
    c = client(model, store, sleeps, retries=3, base_delay=0.5, max_delay=1.0)
    with pytest.raises(ModelError):
        await c.complete(MESSAGES, GenerationParams(), CallContext(run_id=3))
    assert model.calls == 4 and len(sleeps.delays) == 3 and max(sleeps.delays) <= 1.0


async def test_a_hung_call_times_out_and_is_retried(store: Store) -> None:
    class HangsOnce(FakeModel):
        async def generate(self, messages, params, *, timeout):  # type: ignore[no-untyped-def]
            if self.calls == 0:
                self.calls += 1
                await asyncio.sleep(60)  # ignores its timeout, like a stuck connection
            return await super().generate(messages, params, timeout=timeout)

    model = HangsOnce()
    c = ModelClient(model=model, store=store, policy=RetryPolicy(timeout=0.05, retries=2), sleep=Sleeps())
    response = await c.complete(MESSAGES, GenerationParams(), CallContext(run_id=4))
    assert response.text
    (call,) = store.list_calls(run_id=4)
    assert call["attempts"] == 2 and "timed out" in call["errors"][0]


async def test_a_backend_bounded_by_tokens_gets_no_wall_clock_limit(store: Store) -> None:
    # the embedded model on a busy machine: a call far slower than --timeout is slow, not failed
    class SlowLocal(FakeModel):
        wall_clock = False

        async def generate(self, messages, params, *, timeout):  # type: ignore[no-untyped-def]
            await asyncio.sleep(timeout * 4)
            return await super().generate(messages, params, timeout=timeout)

    model = SlowLocal()
    c = ModelClient(model=model, store=store, policy=RetryPolicy(timeout=0.05, retries=0), sleep=Sleeps())
    response = await c.complete(MESSAGES, GenerationParams(), CallContext(run_id=5))
    assert response.text and model.calls == 1
    (call,) = store.list_calls(run_id=5)
    assert call["attempts"] == 1 and not call["errors"] and call["error"] is None


async def test_identical_requests_are_answered_from_the_cache(store: Store) -> None:
    model = FakeModel()
    c = client(model, store, Sleeps())
    params = GenerationParams(temperature=0.0, max_tokens=50)
    first = await c.complete(MESSAGES, params, CallContext(run_id=1, sample="full/1"))
    second = await c.complete(MESSAGES, params, CallContext(run_id=2, sample="full/1"))
    assert first == second and model.calls == 1
    calls = store.list_calls()
    assert [c["cached"] for c in calls] == [False, True]
    # different sample key, parameters or model: a real call
    await c.complete(MESSAGES, params, CallContext(run_id=1, sample="full/2"))
    await c.complete(MESSAGES, GenerationParams(temperature=0.5, max_tokens=50), CallContext(sample="full/1"))
    assert model.calls == 3


def test_cache_key_covers_model_endpoint_messages_params_and_sample() -> None:
    a, b = FakeModel(spec="x:1"), FakeModel(spec="x:2")
    p = GenerationParams(temperature=0.0)
    base = cache_key(a, MESSAGES, p, "s")
    assert base == cache_key(FakeModel(spec="x:1"), MESSAGES, p, "s")
    assert base != cache_key(b, MESSAGES, p, "s")
    assert base != cache_key(a, [ChatMessage(role="system", content="hello!")], p, "s")
    assert base != cache_key(a, MESSAGES, GenerationParams(temperature=0.1), "s")
    assert base != cache_key(a, MESSAGES, p, "t")
    other_endpoint = FakeModel(spec="x:1")
    other_endpoint.endpoint = "http://elsewhere/v1"
    assert base != cache_key(other_endpoint, MESSAGES, p, "s")


async def test_no_cache_makes_real_calls(store: Store) -> None:
    model = FakeModel()
    c = ModelClient(model=model, store=store, use_cache=False)
    await c.complete(MESSAGES, GenerationParams())
    await c.complete(MESSAGES, GenerationParams())
    assert model.calls == 2


async def test_concurrency_limit_is_respected() -> None:
    in_flight, peak = 0, 0

    class Tracking(FakeModel):
        async def generate(self, messages, params, *, timeout):  # type: ignore[no-untyped-def]
            nonlocal in_flight, peak
            in_flight += 1
            peak = max(peak, in_flight)
            await asyncio.sleep(0.01)
            in_flight -= 1
            return await super().generate(messages, params, timeout=timeout)

    c = ModelClient(model=Tracking(max_concurrency=3), store=None)
    await asyncio.gather(
        *(c.complete([ChatMessage(role="user", content=str(i))], GenerationParams()) for i in range(12))
    )
    assert peak == 3


def test_retry_policy_is_validated() -> None:
    with pytest.raises(ValueError, match="retries"):
        RetryPolicy(retries=-1)
    with pytest.raises(ValueError, match="timeout"):
        RetryPolicy(timeout=0)
