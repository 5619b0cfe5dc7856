"""Throughput of a WILT run against an endpoint with a fixed latency, next to plain async clients (issue 10).

Setup: a fake OpenAI-compatible endpoint (bench/fake_endpoint.py) in its own process answers every chat request
after a fixed ``latency`` (default 100 ms) with a scripted WILT player's reply: 30 test triples, then a final
guess, so every episode makes exactly ``calls_per_episode = 31`` calls, one after another.

Definitions, for ``episodes`` episodes played with at most ``c`` in flight:

    ideal time       = calls_per_episode x latency x ceil(episodes / c)
    achieved/ideal   = ideal time / measured wall time          (1.0: the endpoint's latency is the only cost)

measured for five clients, in one run and against the same endpoint, each client's run in a fresh process (so
that what one imports, inspect_ai's logging say, does not weigh on the next), with the CPU seconds of that
process per call (median over ``--repeat``):

aiohttp: a plain ``aiohttp.ClientSession`` (pool sized to ``c``) posting the JSON and reading the reply's: the
    least a Python client can cost.
httpx: plain httpx2 (the HTTP client under the openai SDK), ``AsyncClient`` with its pool sized to ``c``,
    posting each request's JSON and reading the reply's, one task per episode under an
    ``asyncio.Semaphore(c)``: the same conversations as wason's (the published WILT system prompt, then each
    reply and a feedback line worded as wason's). The Python HTTP stack's own cost.
sdk: the openai SDK's ``AsyncOpenAI`` (max_retries=0, nothing around it) sending the same conversations the
    same way: what a plain script on the official SDK gets.
inspect: inspect_ai's OpenAI provider (chat completions, no retries, ``max_connections=c``) asked through
    ``Model.generate`` with the same conversations.
wason: ``create_run`` + ``execute_run`` of a generated WILT split of ``episodes`` rules (seed 1) with the LLM
    player through the OpenAI-compatible backend (model spec ``vllm:fake`` with the endpoint's base URL,
    ``concurrency=c``) into a fresh SQLite store: game, judge, reduction metric, prompt rendering, the call
    cache and every record (grouped writes, as ``wason eval``). The wall time covers ``execute_run`` only (the split is
    generated before, and timed apart below).

Then the ceiling: the calls per second each client makes at c = max(levels) against the endpoint with no
latency, the most any ratio can reflect (0.9 at c = 256 needs 0.9 x 256 x 31 / 3.1 s = 2,304 calls/s).

Goals (issue 10 item 6, issue 39 item 2): wason's achieved/ideal >= 0.9 at c = 256 over 256 episodes at 1 s
latency, at most 1.5 ms of CPU per call, and at least a plain client's ratio at every c. Also measured, each in
a fresh process: the time to generate 256 WILT rules (goal: under
2 s; the hypothesis space is built in it) and the peak resident memory (``VmHWM``) of a whole wason run of
the 256 rules at c = 256, generation included (goal: under 300 MB).

The machine's cores are shared by the endpoint, the clients and whatever else runs: ratios, not seconds, are
what to compare, and only within one run. ``--repeat`` plays each cell that many times and keeps the best.

    python bench/bench_throughput.py                       # the table for c = 8, 32, 128, 256 (about 10 min)
    python bench/bench_throughput.py --concurrency 256 --repeat 3
"""

from __future__ import annotations

import argparse
import asyncio
import math
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_endpoint import CALLS_PER_EPISODE, MODEL, FakeEndpoint

SEED = 1


def ideal_seconds(episodes: int, concurrency: int, latency: float) -> float:
    """The wall time if the endpoint's latency were the only cost."""
    return CALLS_PER_EPISODE * latency * math.ceil(episodes / concurrency)


# -- (a) the plain clients ----------------------------------------------------------------------------------
PLAIN_KINDS = ("aiohttp", "httpx", "sdk", "inspect")
KINDS = (*PLAIN_KINDS, "wason")


async def plain_run(
    base_url: str, episodes: int, concurrency: int, kind: str = "sdk"
) -> tuple[float, int, float]:
    """Seconds, calls and CPU seconds (this process's) for ``episodes`` conversations through a bare client.

    ``aiohttp``: an ``aiohttp.ClientSession`` posting the JSON body and reading the reply's JSON; ``httpx``: the
    same with the HTTP client the SDK uses (httpx2); ``sdk``: the openai SDK's ``AsyncOpenAI``; ``inspect``:
    inspect_ai's OpenAI provider (chat completions) asked through ``Model.generate``. Every pool is sized to the
    concurrency, and no client retries.
    """
    import aiohttp
    import httpx2
    import openai

    from wason.tasks.wilt.protocol import load_instruction  # the prompt text only, read once

    system = load_instruction()
    cpu = time.process_time()
    sdk = openai.AsyncOpenAI(base_url=base_url, api_key="EMPTY", max_retries=0)
    # a careful user sizes the pool to the concurrency (httpx2 keeps 20 connections alive by default)
    limits = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    http = httpx2.AsyncClient(
        base_url=base_url, headers={"authorization": "Bearer EMPTY"}, timeout=60.0, limits=limits
    )
    session = aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=concurrency), headers={"authorization": "Bearer EMPTY"}
    )
    inspect_model = None
    if kind == "inspect":
        from inspect_ai.model import GenerateConfig, get_model

        inspect_model = get_model(
            f"openai/{MODEL}",
            base_url=base_url,
            api_key="EMPTY",
            config=GenerateConfig(max_retries=0, max_connections=concurrency, timeout=60),
            responses_api=False,
        )
    gate = asyncio.Semaphore(concurrency)
    calls = 0

    async def complete(messages: list[dict[str, str]]) -> str:
        if kind == "sdk":
            reply = await sdk.chat.completions.create(model=MODEL, messages=messages)  # type: ignore[arg-type]
            return reply.choices[0].message.content or ""
        if kind == "inspect":
            assert inspect_model is not None
            out = await inspect_model.generate(_inspect_messages(messages))
            return out.completion
        if kind == "aiohttp":
            async with session.post(
                base_url + "/chat/completions", json={"model": MODEL, "messages": messages}
            ) as answer:
                answer.raise_for_status()
                return str((await answer.json())["choices"][0]["message"]["content"])
        response = await http.post("/chat/completions", json={"model": MODEL, "messages": messages})
        response.raise_for_status()
        return str(response.json()["choices"][0]["message"]["content"])

    async def episode() -> None:
        nonlocal calls
        async with gate:
            messages: list[dict[str, str]] = [{"role": "system", "content": system}]
            for turn in range(CALLS_PER_EPISODE):
                text = await complete(messages)
                calls += 1
                left = CALLS_PER_EPISODE - 2 - turn
                messages.append({"role": "assistant", "content": text.strip()})
                messages.append(
                    {
                        "role": "user",
                        "content": f"Result for input (1, 2, 3): True. Attempts Remaining: {left}",
                    }
                )

    start = time.perf_counter()
    try:
        await asyncio.gather(*(episode() for _ in range(episodes)))
    finally:
        elapsed = time.perf_counter() - start
        await sdk.close()
        await http.aclose()
        await session.close()
    return elapsed, calls, time.process_time() - cpu


def _inspect_messages(messages: list[dict[str, str]]) -> list[object]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[m["role"]](content=m["content"]) for m in messages]


# -- (b) wason ----------------------------------------------------------------------------------------------
def wason_config(base_url: str, episodes: int, concurrency: int, seed: int = SEED):  # type: ignore[no-untyped-def]
    from wason.tasks.wilt import WiltRunConfig

    return WiltRunConfig(
        split="generated",
        seed=seed,
        n=episodes,
        player="llm",
        model=f"vllm:{MODEL}",
        base_url=base_url,
        concurrency=concurrency,
        retries=0,
        timeout=60.0,
    )


def wason_run(base_url: str, episodes: int, concurrency: int, db: Path) -> tuple[float, int, int, float]:
    """Seconds of ``execute_run``, calls recorded, episodes errored and CPU seconds (this process's, from the
    client's creation to the run's end), for a fresh store at ``db``."""
    from wason.engine import create_run, execute_run, llm_player_factory, make_client
    from wason.store import Store

    store = Store(f"sqlite:///{db}")
    config = wason_config(base_url, episodes, concurrency)
    run_id = create_run(store, config)
    cpu = time.process_time()
    client = make_client(config, store)

    async def play() -> float:
        start = time.perf_counter()
        try:
            await execute_run(
                store,
                run_id,
                llm_player_factory(client, config, run_id),
                concurrency=concurrency,
                group_writes=True,
            )
        finally:
            elapsed = time.perf_counter() - start
            await client.aclose()
        return elapsed

    elapsed = asyncio.run(play())
    cpu = time.process_time() - cpu
    calls = store.call_totals(run_id)["calls"]
    errored = sum(e.status != "completed" for e in store.list_episodes(run_id))
    store.close()
    return elapsed, calls, errored, cpu


# -- fresh-process measurements ------------------------------------------------------------------------------
def _child_generate(episodes: int) -> None:
    from wason.tasks.wilt import WiltRunConfig

    config = WiltRunConfig(split="generated", seed=SEED, n=episodes)
    start = time.perf_counter()
    items = config.items()
    print(f"{time.perf_counter() - start:.3f} {len(items)}")


def _peak_mb() -> float:
    """This process's peak resident memory since it started its program. ``ru_maxrss`` is not that on Linux: it
    keeps the high-water mark of the forked copy of the parent across ``exec`` (a bench parent of 700 MB made
    every child report 700 MB); ``VmHWM`` belongs to the program's own memory map."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")) / 1024
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _child_memory(base_url: str, episodes: int, concurrency: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        elapsed, calls, errored, _ = wason_run(base_url, episodes, concurrency, Path(tmp) / "mem.db")
    peak = _peak_mb()
    print(f"{peak:.1f} {elapsed:.3f} {calls} {errored}")


def _child_cell(kind: str, base_url: str, episodes: int, concurrency: int) -> None:
    """One client's run in this (fresh) process: seconds, calls, CPU seconds and errored episodes."""
    if kind == "wason":
        with tempfile.TemporaryDirectory() as tmp:
            seconds, calls, errored, cpu = wason_run(base_url, episodes, concurrency, Path(tmp) / "cell.db")
    else:
        seconds, calls, cpu = asyncio.run(plain_run(base_url, episodes, concurrency, kind))
        errored = 0
    print(f"{seconds:.6f} {calls} {cpu:.6f} {errored}")


def _child(*args: str) -> list[str]:
    out = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), *args], capture_output=True, text=True, check=True
    )
    return out.stdout.split()


def _ceiling(episodes: int, c: int, skip: set[str], tmp: Path) -> None:
    """Calls per second of each client against the endpoint with no latency."""
    total = episodes * CALLS_PER_EPISODE
    rates = []
    with FakeEndpoint(latency=0.0) as ep:
        for kind in PLAIN_KINDS:
            if kind not in skip:
                seconds, _, _ = asyncio.run(plain_run(ep.base_url, episodes, c, kind))
                rates.append(f"{kind} {total / seconds:,.0f}")
        if "wason" not in skip:
            seconds, _, _, _ = wason_run(ep.base_url, episodes, c, tmp / "ceiling.db")
            rates.append(f"wason {total / seconds:,.0f}")
    print(f"ceiling, no latency, c={c}: calls/s " + ", ".join(rates), flush=True)


def _ratio(ideal: float, seconds: float) -> str:
    return f"{ideal / seconds:>6.2f}" if math.isfinite(seconds) else f"{'-':>6}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--latency", type=float, default=0.1, help="the endpoint's seconds per reply")
    parser.add_argument("--episodes", type=int, default=256)
    parser.add_argument("--concurrency", default="8,32,128,256", help="comma-separated values of c")
    parser.add_argument("--repeat", type=int, default=1, help="play each cell this often, keep the best")
    parser.add_argument(
        "--skip",
        default="",
        help="comma-separated parts to skip: aiohttp, httpx, sdk, inspect, wason, generate, ceiling, memory",
    )
    parser.add_argument("--child-generate", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child-memory", metavar="BASE_URL", help=argparse.SUPPRESS)
    parser.add_argument("--child-cell", nargs=2, metavar=("KIND", "BASE_URL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",") if c]
    skip = set(args.skip.split(","))
    if args.child_generate:
        return _child_generate(args.episodes)
    if args.child_memory:
        return _child_memory(args.child_memory, args.episodes, max(levels))
    if args.child_cell:
        return _child_cell(args.child_cell[0], args.child_cell[1], args.episodes, max(levels))

    if "generate" not in skip:
        seconds, n = _child("--child-generate", "--episodes", str(args.episodes))
        print(
            f"generate {n} WILT rules in a fresh process (hypothesis space included): {float(seconds):.2f} s"
        )
    with FakeEndpoint(latency=args.latency) as ep, tempfile.TemporaryDirectory() as tmp:
        if "wason" not in skip:
            wason_config(ep.base_url, args.episodes, 1).items()  # generated once; cached for every cell
        print(
            f"endpoint latency {args.latency * 1000:g} ms, {args.episodes} episodes x {CALLS_PER_EPISODE} calls"
        )
        print("achieved/ideal and median CPU per call, by client")
        print(f"{'c':>5} {'ideal':>7}  " + "  ".join(f"{k:>15}" for k in KINDS))
        for c in levels:
            _cell(ep.base_url, args.episodes, c, args.latency, args.repeat, skip)
        if "ceiling" not in skip:
            _ceiling(args.episodes, max(levels), skip, Path(tmp))
        if "memory" not in skip:
            peak, seconds, calls, errored = _child(
                "--child-memory",
                ep.base_url,
                "--episodes",
                str(args.episodes),
                "--concurrency",
                str(max(levels)),
            )
            print(
                f"peak memory of a wason run ({args.episodes} generated rules, c={max(levels)}, fresh process): "
                f"{float(peak):.0f} MB ({calls} calls, {errored} errored, {float(seconds):.2f} s)"
            )


def _cell(base_url: str, episodes: int, c: int, latency: float, repeat: int, skip: set[str]) -> None:
    """One row of the table: each client's best of ``repeat`` runs at concurrency ``c`` (achieved/ideal, and the
    median CPU per call over the repeats), the clients alternating within each repeat."""
    total = episodes * CALLS_PER_EPISODE
    ideal = ideal_seconds(episodes, c, latency)
    best = dict.fromkeys(KINDS, math.inf)
    cpu: dict[str, list[float]] = {k: [] for k in KINDS}
    for _ in range(repeat):
        for kind in KINDS:
            if kind in skip:
                continue
            # each client in a fresh process: what one imports (inspect_ai's logging, say) does not weigh on the
            # next, and each pays its own start as a script would
            flags = ["--episodes", str(episodes), "--concurrency", str(c)]
            seconds, calls, used, errored = (float(v) for v in _child("--child-cell", kind, base_url, *flags))
            if errored or calls != total:
                raise SystemExit(f"{kind} run at c={c}: {errored:.0f} episodes errored, {calls:.0f} calls")
            best[kind] = min(best[kind], seconds)
            cpu[kind].append(used / calls)
    cells = "  ".join(
        f"{_ratio(ideal, best[k])} {statistics.median(cpu[k]) * 1000:>5.2f}ms" if cpu[k] else f"{'-':>15}"
        for k in KINDS
    )
    print(f"{c:>5} {ideal:>7.2f}  {cells}", flush=True)


if __name__ == "__main__":
    main()
