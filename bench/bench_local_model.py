"""Tokens per second of the embedded model: wason's LocalModel.generate against llama-cpp-python alone.

Both sides load the same GGUF with the same context size and threads, and run the same conversations, in the
same order, with the same parameters (greedy, a few hundred tokens). Each wall time includes evaluating the
prompt, as a benchmark run would. What wason adds is the hop to its model thread, counting the prompt's
tokens beforehand (chat template plus tokenizer) and a stopping check per token.

Then the same for grammar-constrained play, as in ``wason eval wilt --constrain``: a WILT conversation of
``--turns`` turns (each turn the model's own reply plus a fixed observation, so every turn reuses the previous
prompt from llama.cpp's KV cache), every reply held to WILT's reply grammar, at llama-cpp-python's default
temperature with a seed per turn, three ways: llama-cpp-python alone (its sampler chain masks the whole vocabulary
with the grammar on every token), wason with that same chain (``check_first_grammar = False``, wason before issue
39) and wason as shipped (the best tokens checked first, ``wason.models.llama_sampling``). Each way's time is split
with llama.cpp's own counters into prompt evaluation, decoding, and the rest (sampling, the grammar, Python).

Run: ``python bench/bench_local_model.py [--max-tokens 256] [--reps 3] [--turns 12]``.
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
from wason.tasks.wilt.grammar import reply_format

WILT_SYSTEM = (
    "You are an AI tasked with discovering a hidden rule that takes three numbers as input and returns a boolean. "
    "In each response, you will provide your step-by-step reasoning for your future plans on this task, and then "
    'you will take one of two actions:\n\n1. Provide a single test case to observe the output of a rule (e.g. "Test '
    'Case: ```(1, 2, 3)```" which corresponds to x=1, y=2, z=3.\n2. Provide a final "guess" in the form of a '
    'python lambda function (e.g. "Final Guess: ```lambda x,y,z: x < y < z```"). You only get to select this '
    "action one time, so don't use it unless you are confident or are forced to.\n\nYou will have up to 30 "
    "attempts at test cases. Make sure all of the tests you provide are unique from other ones you have already "
    "tried."
)
WILT_GRAMMAR = reply_format(tests=True).grammar

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


class Split:
    """Wall time of a side's constrained calls, split by llama.cpp's counters."""

    def __init__(self) -> None:
        self.wall = self.prompt = self.decode = 0.0
        self.tokens_in = self.tokens_new = self.tokens_out = 0
        self.replies: list[str] = []
        self.checked = self.masked = self.reused = 0

    def add(self, llama: Any, wall: float, reply: str, tokens_in: int, tokens_out: int) -> None:
        import llama_cpp

        perf = llama_cpp.llama_perf_context(llama._ctx.ctx)
        self.wall += wall
        self.prompt += perf.t_p_eval_ms / 1000
        self.decode += perf.t_eval_ms / 1000
        self.tokens_new += perf.n_p_eval
        self.tokens_in += tokens_in
        self.tokens_out += tokens_out
        self.replies.append(reply)

    def line(self, label: str) -> str:
        rest = self.wall - self.prompt - self.decode
        return (
            f"{label}: {self.tokens_out / self.wall:6.1f} tokens/s; {self.wall:6.2f} s = prompt {self.prompt:5.2f} s "
            f"({self.tokens_new} of {self.tokens_in} tokens evaluated, the rest from the KV cache) + decode "
            f"{self.decode:5.2f} s ({1000 * self.decode / max(1, self.tokens_out):.1f} ms a token) + sampling, "
            f"grammar and Python {rest:5.2f} s ({1000 * rest / max(1, self.tokens_out):.1f} ms a token)"
        )


def _observation(reply: str, turn: int) -> str:
    return (
        f"({turn}, {turn + 1}, {turn + 2}): {'True' if turn % 2 else 'False'}. Your next test or final guess?"
    )


def constrained_raw(llama: Any, turns: int, max_tokens: int) -> Split:
    import llama_cpp

    grammar = llama_cpp.LlamaGrammar.from_string(WILT_GRAMMAR, verbose=False)
    split = Split()
    messages: list[dict[str, str]] = [{"role": "system", "content": WILT_SYSTEM}]
    messages.append({"role": "user", "content": "Propose your first test."})
    llama.reset()  # a cold KV cache, as the wason side starts with
    for turn in range(turns):
        llama_cpp.llama_perf_context_reset(llama._ctx.ctx)
        start = time.perf_counter()
        result = llama.create_chat_completion(
            messages=messages, max_tokens=max_tokens, seed=turn, grammar=grammar
        )
        wall = time.perf_counter() - start
        reply = str(result["choices"][0]["message"]["content"])
        usage = result["usage"]
        split.add(llama, wall, reply, int(usage["prompt_tokens"]), int(usage["completion_tokens"]))
        messages += [
            {"role": "assistant", "content": reply},
            {"role": "user", "content": _observation(reply, turn)},
        ]
    return split


async def constrained_wason(turns: int, max_tokens: int, *, check_first: bool) -> Split:
    import llama_cpp

    model = LocalModel(spec="local:smollm2-135m", model_path=find_embedded_gguf())
    model.check_first_grammar = check_first
    split = Split()
    messages = [
        ChatMessage(role="system", content=WILT_SYSTEM),
        ChatMessage(role="user", content="Propose your first test."),
    ]
    try:
        # loads the model on its thread without generating: the KV cache starts empty, as on the other side
        await model._in_model_thread(lambda: model.prompt_tokens(messages))
        for turn in range(turns):
            llama_cpp.llama_perf_context_reset(model._llama._ctx.ctx)
            params = GenerationParams(max_tokens=max_tokens, seed=turn, grammar=WILT_GRAMMAR)
            start = time.perf_counter()
            response = await model.generate(messages, params, timeout=600)
            wall = time.perf_counter() - start
            split.add(
                model._llama, wall, response.text, response.input_tokens or 0, response.output_tokens or 0
            )
            messages = [
                *messages,
                ChatMessage(role="assistant", content=response.text),
                ChatMessage(role="user", content=_observation(response.text, turn)),
            ]
        split.checked = model.grammar_tokens_checked
        split.masked = model.grammar_tokens_masked
        split.reused = model.grammar_masks_reused
    finally:
        await model.aclose()
    return split


async def constrained(raw: Any, turns: int, max_tokens: int) -> None:
    with ThreadPoolExecutor(max_workers=1) as pool:
        raw_split = pool.submit(constrained_raw, raw, turns, max_tokens).result()
    old = await constrained_wason(turns, max_tokens, check_first=False)
    new = await constrained_wason(turns, max_tokens, check_first=True)
    print(
        f"\nconstrained: a WILT conversation of {turns} turns, WILT's grammar, temperature 0.2 (the default), seeded"
    )
    print(raw_split.line("llama-cpp-python alone       "))
    print(old.line("wason, llama-cpp-python chain"))
    print(new.line("wason, check-first grammar   "))
    print(
        f"check-first: {new.checked} tokens settled by the best tokens, {new.masked} by masking the whole vocabulary "
        f"({new.reused} of these masks kept from an earlier reply)"
    )
    rate = {label: s.tokens_out / s.wall for label, s in (("raw", raw_split), ("old", old), ("new", new))}
    print(f"ratio wason (check-first) / llama-cpp-python alone, tokens/s: {rate['new'] / rate['raw']:.3f}")
    print(
        f"ratio wason (check-first) / wason (llama-cpp-python chain), tokens/s: {rate['new'] / rate['old']:.3f}"
    )
    print(f"identical replies all three ways: {raw_split.replies == old.replies == new.replies}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument(
        "--turns", type=int, default=12, help="turns of the constrained conversation (0: none)"
    )
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
    if args.turns:
        await constrained(raw, args.turns, args.max_tokens)
    raw.close()


if __name__ == "__main__":
    asyncio.run(main())
