"""Tokens per second of the embedded model: wason's LocalModel.generate against llama-cpp-python alone.

Both sides load the same GGUF with the same context size and threads, and run the same conversations, in the
same order, with the same parameters (greedy, a few hundred tokens). Each wall time includes evaluating the
prompt, as a benchmark run would. What wason adds is the hop to its model thread, counting the prompt's
tokens beforehand (chat template plus tokenizer) and a stopping check per token.

Run: ``python bench/bench_local_model.py [--max-tokens 256] [--reps 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from wason.models.base import ChatMessage, GenerationParams
from wason.models.local import DEFAULT_N_CTX, LocalModel, find_embedded_gguf

CONVERSATIONS: list[list[ChatMessage]] = [
    [
        ChatMessage(role="system", content="You are a patient teacher who explains things at length."),
        ChatMessage(
            role="user", content="Explain in detail how a scientist tests a hypothesis, step by step."
        ),
    ],
    [
        ChatMessage(role="system", content="You are a storyteller."),
        ChatMessage(
            role="user", content="Write a long story about a lighthouse keeper who finds a strange map."
        ),
    ],
]


def load_raw(n_threads: int) -> tuple[Any, float]:
    import llama_cpp

    start = time.perf_counter()
    llama = llama_cpp.Llama(
        model_path=str(find_embedded_gguf()), n_ctx=DEFAULT_N_CTX, n_threads=n_threads, verbose=False
    )
    return llama, time.perf_counter() - start


def run_raw(llama: Any, conversation: list[ChatMessage], max_tokens: int) -> tuple[int, float, str]:
    start = time.perf_counter()
    result = llama.create_chat_completion(
        messages=[m.model_dump() for m in conversation], temperature=0.0, max_tokens=max_tokens, seed=0
    )
    elapsed = time.perf_counter() - start
    return int(result["usage"]["completion_tokens"]), elapsed, str(result["choices"][0]["message"]["content"])


async def run_wason(
    model: LocalModel, conversation: list[ChatMessage], max_tokens: int
) -> tuple[int, float, str]:
    params = GenerationParams(temperature=0.0, max_tokens=max_tokens, seed=0)
    start = time.perf_counter()
    response = await model.generate(conversation, params, timeout=600)
    elapsed = time.perf_counter() - start
    return response.output_tokens or 0, elapsed, response.text


def raw_phase(llama: Any, max_tokens: int) -> list[tuple[int, float, str]]:
    run_raw(llama, CONVERSATIONS[0], 8)  # warm-up, not timed
    return [run_raw(llama, conversation, max_tokens) for conversation in CONVERSATIONS]


async def wason_phase(max_tokens: int) -> tuple[list[tuple[int, float, str]], float]:
    model = LocalModel(spec="local:smollm2-135m", model_path=find_embedded_gguf())
    try:
        await run_wason(model, CONVERSATIONS[0], 8)  # loads the model; a warm-up, not timed
        results = [await run_wason(model, conversation, max_tokens) for conversation in CONVERSATIONS]
    finally:
        # Also ends the model's thread, so that only one thread at a time ever drives llama.cpp (see below).
        await model.aclose()
    return results, model.load_seconds or 0.0


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()

    n_threads = LocalModel(spec="local:smollm2-135m", model_path=find_embedded_gguf()).n_threads
    raw, raw_load = load_raw(n_threads)
    raw_rates: list[float] = []
    wason_rates: list[float] = []
    wason_loads: list[float] = []
    raw_tokens = wason_tokens = 0
    same_text = True
    for _ in range(args.reps):
        # Alternating phases, so that drift in machine load hits both sides alike. Each phase drives llama.cpp
        # from its own thread, and that thread ends with the phase: with llama.cpp's OpenMP build, every thread
        # that has called it keeps a team of OpenMP threads, and once they outnumber the cores OpenMP stops
        # spinning at its barriers and every call gets about 2.7 times slower.
        with ThreadPoolExecutor(max_workers=1) as pool:
            raw_results = pool.submit(raw_phase, raw, args.max_tokens).result()
        wason_results, load_seconds = await wason_phase(args.max_tokens)
        wason_loads.append(load_seconds)
        for (r_tokens, r_time, r_text), (w_tokens, w_time, w_text) in zip(
            raw_results, wason_results, strict=True
        ):
            raw_rates.append(r_tokens / r_time)
            wason_rates.append(w_tokens / w_time)
            raw_tokens += r_tokens
            wason_tokens += w_tokens
            same_text = same_text and r_text == w_text
    raw.close()

    raw_median = statistics.median(raw_rates)
    wason_median = statistics.median(wason_rates)
    print(f"model: {find_embedded_gguf().name}, n_ctx {DEFAULT_N_CTX}, {n_threads} threads")
    print(f"calls: {len(raw_rates)} per side, max_tokens {args.max_tokens}, temperature 0")
    print(
        f"load time: llama-cpp-python {raw_load:.3f} s, "
        f"wason LocalModel median {statistics.median(wason_loads):.3f} s (of {len(wason_loads)} loads)"
    )
    # Medians: on a shared machine a single call can stall for seconds when another process takes a core
    # from llama.cpp's spinning threads, and a mean would mostly measure that.
    for label, rates, tokens in (
        ("llama-cpp-python create_chat_completion", raw_rates, raw_tokens),
        ("wason LocalModel.generate              ", wason_rates, wason_tokens),
    ):
        print(
            f"{label}: median {statistics.median(rates):6.1f} tokens/s "
            f"(mean {statistics.mean(rates):.1f}, min {min(rates):.1f}, max {max(rates):.1f}; {tokens} tokens)"
        )
    print(f"ratio wason / llama-cpp-python (medians): {wason_median / raw_median:.3f}")
    print(f"identical replies on both sides: {same_text}")


if __name__ == "__main__":
    asyncio.run(main())
