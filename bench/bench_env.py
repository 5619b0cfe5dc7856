"""Steps per second of wason's text environments played through an OpenAI-compatible endpoint, and each
environment's own time per step, next to TextArena's GuessTheNumber-v0, in one run.

Setup: a fake OpenAI-compatible endpoint in its own process (bench/fake_endpoint.py's asyncio server on
127.0.0.1, answering after ``--latency`` seconds, default 0: the loop's own ceiling) with fixed replies valid for
each game: for WILT, the endpoint's script (the k-th reply of a conversation is test k, ``Test Case:
```(1, -1, 2)``` ``..., 30 distinct triples, then a final guess ``lambda x, y, z: x < y < z``: 31 replies a
game, none unreadable); for GuessTheNumber (a request whose text says "Guess The Number"), a bisection of the
range the prompt states (1 to 20) on the hints the history holds (``[10]``, then ``[15]`` or ``[5]``...: at most
5 replies a game, always won; a fixed ``[50]`` would not do: it is outside GuessTheNumber-v0's range, an invalid
move, and the second invalid move ends the game).

Each contender runs in a fresh process of its own interpreter: wason's in this one (``wason.env``), TextArena's in
one that has textarena (``--textarena-python``, default ``.venv-bench/bin/python``; textarena is kept out of
the dev environment, its dependencies could disturb it). Both children use the same client code: one
``httpx.AsyncClient`` (pool sized to the largest number of games) and, for each live game, the trainer's loop
(each game a task): send what the model reads, step the environment with the reply, until every game of the
round has ended.

1. endpoint: for each N in ``--games`` (default 1, 8, 64), rounds of N concurrent games (seeds counting up from
   0) until at least ``--min-steps`` steps; steps/s = steps / wall time of those rounds. wason's request is
   ``env.messages`` (``AsyncTextEnv("wilt")``: the lite split, 30 tests; the environments made once, reset each
   round); TextArena's, what its own agents send: its standard system prompt and the observation string of
   ``ta.make("GuessTheNumber-v0")`` (the default wrappers: the whole history as one text), one environment made
   for each game (see 2).
2. the environment's time per step: the wall time inside the environment's calls alone, summed over the games
   and divided by their steps: ``reset``, every ``step`` and the read of what the model reads next (wason's
   ``env.messages``; TextArena's ``get_observation()``, with ``ta.make`` of the game's environment and
   ``close()`` for its reward: a TextArena environment reused after ``reset`` still shows the model the game
   before, as its default ``LLMObservationWrapper`` keeps its history, so each game makes its own). Measured
   inside the endpoint loop of part 1 (its "env us/step" column), and with no endpoint at all (replies made
   before each step and not timed; a warm-up game first, not counted) for wason's WILT with the endpoint's
   script through ``AsyncTextEnv``, through ``wason.env.make`` (the plain ``TextEnv``: a hop to its loop's
   thread per call) and through ``VectorTextEnv`` (all games stepped together; time per game-step), for wason's
   lists family (the pilot split; the reference solver's trajectories, ``solver_trajectories``, made before and
   not timed, replayed 3 times) and for TextArena's GuessTheNumber-v0 (the same bisection, as a player).

Printed: per part a table (contender, games, steps, steps/s, env us/step; in part 2 the median and the slowest
step too), the ratios wason/textarena, whether each contender's ``reset`` reseeds Python's global ``random``
module (TextArena's does: ``State.__init__`` calls ``random.seed(seed)``, so every seeded reset reseeds it for
the whole process, the trainer's own draws included) and whether a reused TextArena environment shows the game
before. The two games differ (WILT is 31 replies with a judged guess at the end, GuessTheNumber at most 5
replies with a comparison each): the ratios compare two environments as a trainer meets them, not one game.
The cores are shared by the endpoint, the client and whatever else runs: ratios, not seconds, are what to
compare, and only within one run. ``--repeat`` runs each child that often (alternating) and keeps the best of
each cell.

    python bench/bench_env.py                                      # games 1, 8, 64 (70 s on 2 busy cores)
    python bench/bench_env.py --games 1,8,64,256 --latency 0.05 --repeat 3
    python bench/bench_env.py --textarena-python /path/to/python  # any interpreter with textarena and httpx
    python bench/bench_env.py --skip textarena,lists               # wason's WILT alone

TextArena's interpreter, once (its import needs no network: it imports nltk, but downloads nothing for
GuessTheNumber):

    python3 -m venv .venv-bench && .venv-bench/bin/pip install -e . textarena httpx
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fake_endpoint import MODEL, FakeEndpoint, scripted_reply

ROOT = Path(__file__).resolve().parents[1]
TEXTARENA_PYTHON = ROOT / ".venv-bench" / "bin" / "python"
TEXTARENA_ENV = "GuessTheNumber-v0"
WILT_STEPS = 31  # the endpoint's script: 30 tests and the guess
LISTS_ROUNDS = 3  # replays of the lists trajectories in part 2
SKIPPABLE = ("wason", "textarena", "endpoint", "overhead", "lists")

# -- the endpoint's GuessTheNumber player ------------------------------------------------------------------------
_GTN_MARK = b"Guess The Number"
_RANGE = re.compile(rb"between (\d+) and (\d+)")
_GUESS = re.compile(rb"\[Player\][^\[]*\[(\d+)\]")  # a reply as the history shows it: "[Player] ... [10]"
_HINT = re.compile(rb"The target number is (higher|lower)")


def bisect_reply(history: bytes) -> str:
    """The next guess of a bisection of the range the prompt states, on the hints ``history`` holds (every guess
    of ours is valid, so the k-th hint answers the k-th guess)."""
    bounds = _RANGE.search(history)
    lo, hi = (int(bounds.group(1)), int(bounds.group(2))) if bounds else (1, 20)
    for guess, hint in zip(_GUESS.findall(history), _HINT.findall(history), strict=False):
        if hint == b"higher":
            lo = max(lo, int(guess) + 1)
        else:
            hi = min(hi, int(guess) - 1)
    return f"The number lies in {lo}..{hi}; I halve it.\n[{(lo + hi) // 2}]"


def _serve_endpoint(latency: float) -> None:
    """bench/fake_endpoint.py's server, answering GuessTheNumber's requests with :func:`bisect_reply` and every
    other with its WILT script; prints ``port N``, then serves until killed."""
    from fake_endpoint import _completion, _Connection, _Stats

    class GameConnection(_Connection):
        def _answer(self, request_line: list[str], body: bytes) -> None:
            path = request_line[1] if len(request_line) > 1 else ""
            if request_line[0] == "POST" and path.endswith("/chat/completions") and _GTN_MARK in body:
                self.stats.chat_requests += 1
                reply = _completion(bisect_reply(body), len(body))
                self.loop.call_later(self.latency, self._send, reply)
            else:
                super()._answer(request_line, body)

    async def serve() -> None:
        stats = _Stats()
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: GameConnection(latency, stats), "127.0.0.1", 0, backlog=4096
        )
        print(f"port {server.sockets[0].getsockname()[1]}", flush=True)
        async with server:
            await server.serve_forever()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())


class GameEndpoint(FakeEndpoint):
    """The endpoint in a child process (this script's ``--child-endpoint``), answering GuessTheNumber too:
    ``with GameEndpoint(latency=0.0) as ep: ep.base_url``."""

    def argv(self) -> list[str]:
        return [
            sys.executable,
            str(Path(__file__).resolve()),
            "--child-endpoint",
            "--latency",
            str(self.latency),
        ]


# -- the games, one contender each ----------------------------------------------------------------------------
class Clock:
    """Wall time inside the environment's calls."""

    def __init__(self) -> None:
        self.seconds = 0.0

    async def inside(self, call: Awaitable[Any]) -> Any:
        start = time.perf_counter()
        try:
            return await call
        finally:
            self.seconds += time.perf_counter() - start

    def plain(self, call: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return call(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start


Ask = Callable[[list[dict[str, str]]], Awaitable[str]]
"""The model: the messages it reads to its reply."""


async def wason_game(env: Any, seed: int, ask: Ask, clock: Clock) -> int:
    """One WILT game of ``AsyncTextEnv`` with the replies ``ask`` gives; returns its steps."""
    await clock.inside(env.reset(seed=seed))
    steps = 0
    while True:
        reply = await ask(clock.plain(lambda: env.messages))
        result = await clock.inside(env.step(reply))
        steps += 1
        if result.terminated or result.truncated:
            if result.truncated or result.info["format_errors"] or steps != WILT_STEPS:
                raise SystemExit(
                    f"wason game {seed}: {steps} steps, not the script's {WILT_STEPS} ({result.info})"
                )
            return steps


def textarena_game(seed: int, clock: Clock) -> tuple[Callable[[str], bool], Callable[[], str]]:
    """A GuessTheNumber game begun with ``seed`` on an environment of its own: its step (the reply to True at the
    end; the reward read with ``close()``) and the observation to send, each timed on ``clock``.

    An environment of its own, made by ``ta.make`` (timed too): the default wrapper's history
    (``LLMObservationWrapper.full_observations``) outlives ``reset``, so a reused one shows the model the
    games before (:func:`textarena_history_leaks`), and TextArena's examples make one per episode."""
    import textarena as ta  # type: ignore[import-not-found]

    env = clock.plain(ta.make, TEXTARENA_ENV)
    clock.plain(env.reset, num_players=1, seed=seed)
    seen: list[str] = []

    def observe() -> None:
        _, observation = env.get_observation()
        seen[:] = [observation]

    clock.plain(observe)

    def step(reply: str) -> bool:
        done, _ = env.step(reply)
        if done:
            rewards, game_info = env.close()
            if rewards != {0: 1}:
                raise SystemExit(f"textarena game {seed}: not won by bisection ({rewards}, {game_info})")
        else:
            observe()
        return bool(done)

    return (lambda reply: clock.plain(step, reply)), lambda: seen[0]


async def textarena_endpoint_game(env: Any, seed: int, ask: Ask, clock: Clock) -> int:
    from textarena.agents.basic_agents import STANDARD_GAME_PROMPT  # type: ignore[import-not-found]

    step, observation = textarena_game(seed, clock)
    steps = 0
    while True:
        messages = [
            {"role": "system", "content": STANDARD_GAME_PROMPT},
            {"role": "user", "content": observation()},
        ]
        done = step(await ask(messages))
        steps += 1
        if done:
            return steps


def make_envs(kind: str, n: int) -> list[Any]:
    if kind == "wason":
        from wason.env import AsyncTextEnv

        return [AsyncTextEnv("wilt") for _ in range(n)]
    return [None] * n  # each TextArena game makes its own (textarena_game)


async def play_round(kind: str, envs: Sequence[Any], first_seed: int, ask: Ask, clock: Clock) -> int:
    """One round: every game of ``envs`` at once, game ``i`` on seed ``first_seed + i``; returns the steps."""
    game = wason_game if kind == "wason" else textarena_endpoint_game
    done = await asyncio.gather(*(game(env, first_seed + i, ask, clock) for i, env in enumerate(envs)))
    return sum(done)


async def endpoint_part(
    kind: str, base_url: str, levels: Sequence[int], min_steps: int
) -> list[dict[str, Any]]:
    """Part 1: steps/s and env time per step of rounds of N games through the endpoint, for each N."""
    import httpx

    limits = httpx.Limits(max_connections=max(levels), max_keepalive_connections=max(levels))
    headers = {"authorization": "Bearer EMPTY"}
    out = []
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60.0, limits=limits) as client:

        async def ask(messages: list[dict[str, str]]) -> str:
            response = await client.post("/chat/completions", json={"model": MODEL, "messages": messages})
            response.raise_for_status()
            return str(response.json()["choices"][0]["message"]["content"])

        # warm-up, not counted: imports, first-use caches, a connection
        await play_round(kind, make_envs(kind, 1), 100_000, ask, Clock())
        for n in levels:
            envs = make_envs(kind, n)  # made once, reset each round, as a trainer does
            clock = Clock()
            steps = rounds = 0
            start = time.perf_counter()
            while steps < min_steps:
                steps += await play_round(kind, envs, rounds * n, ask, clock)
                rounds += 1
            wall = time.perf_counter() - start
            out.append(
                {"games": n, "rounds": rounds, "steps": steps, "seconds": wall, "env_seconds": clock.seconds}
            )
    return out


# -- part 2: the environment alone ------------------------------------------------------------------------------
def _row(name: str, games: int, steps: int, seconds: float, per_step: list[float]) -> dict[str, Any]:
    return {
        "name": name,
        "games": games,
        "steps": steps,
        "env_seconds": seconds,
        "median_step": statistics.median(per_step),
        "slowest_step": max(per_step),
    }


def _script(env: Any) -> str:
    """The endpoint's WILT reply to what the model has read (untimed)."""
    return scripted_reply(sum(m["role"] == "assistant" for m in env.messages))


async def wason_async_overhead(
    family: str, games: Sequence[tuple[int, list[str] | None]]
) -> tuple[int, float, list[float]]:
    """Steps, seconds inside the environment, and each step's seconds, for ``games`` (a seed and its replies,
    or ``None`` for the WILT script) through one ``AsyncTextEnv``."""
    from wason.env import AsyncTextEnv

    env = AsyncTextEnv(family)
    clock, per_step, steps = Clock(), [], 0
    for seed, replies in games:
        await clock.inside(env.reset(seed=seed))
        clock.plain(lambda: env.messages)
        turn = 0
        while not env.done:
            reply = _script(env) if replies is None else replies[turn]
            before = clock.seconds
            await clock.inside(env.step(reply))
            clock.plain(lambda: env.messages)
            per_step.append(clock.seconds - before)
            steps += 1
            turn += 1
    await env.aclose()
    return steps, clock.seconds, per_step


def wason_sync_overhead(seeds: Sequence[int]) -> tuple[int, float, list[float]]:
    """The same through ``wason.env.make`` (a plain ``TextEnv``: each call a hop to its loop's thread)."""
    import wason.env

    env = wason.env.make("wilt")
    clock, per_step, steps = Clock(), [], 0
    for seed in seeds:
        clock.plain(env.reset, seed=seed)
        clock.plain(lambda: env.messages)
        done = False
        while not done:
            reply = _script(env)
            before = clock.seconds
            _, _, terminated, truncated, _ = clock.plain(env.step, reply)
            clock.plain(lambda: env.messages)
            per_step.append(clock.seconds - before)
            steps += 1
            done = terminated or truncated
    env.close()
    return steps, clock.seconds, per_step


def wason_vector_overhead(n: int) -> tuple[int, float, list[float]]:
    """``VectorTextEnv("wilt", n)``: all games stepped together; each step's seconds are per live game."""
    from wason.env import VectorTextEnv

    group = VectorTextEnv("wilt", n)
    clock, per_step, steps = Clock(), [], 0
    clock.plain(group.reset, seed=0)
    live = [True] * n
    while any(live):
        replies = [_script(env) if alive else "" for env, alive in zip(group.envs, live, strict=True)]
        before = clock.seconds
        _, _, terminated, truncated, _ = clock.plain(group.step, replies)
        stepped = sum(live)
        clock.plain(lambda: [env.messages for env in group.envs if not env.done])
        per_step.append((clock.seconds - before) / stepped)
        steps += stepped
        live = [not (t or u) for t, u in zip(terminated, truncated, strict=True)]
    group.close()
    return steps, clock.seconds, per_step


def lists_trajectories(games: int, cache: Path | None) -> tuple[list[tuple[int, list[str]]], float]:
    """The lists solver's games as (seed, replies), and the seconds they took to make (0 from the cache)."""
    if cache is not None and cache.exists():
        return [(int(s), list(r)) for s, r in json.loads(cache.read_text())], 0.0
    from wason.env.trajectories import solver_trajectories

    start = time.perf_counter()
    made = asyncio.run(solver_trajectories("lists", {}, n=games, seed=0))
    took = time.perf_counter() - start
    out = [(int(t["seed"]), [m["content"] for m in t["messages"] if m["role"] == "assistant"]) for t in made]
    if cache is not None:
        cache.write_text(json.dumps(out))
    return out, took


def wason_overhead_part(games: int, lists_games: int, skip: set[str], cache: Path | None) -> dict[str, Any]:
    state = random.getstate()
    rows = []
    asyncio.run(wason_async_overhead("wilt", [(10_000, None)]))  # warm-up, not counted
    seeds = list(range(games))
    steps, seconds, per_step = asyncio.run(wason_async_overhead("wilt", [(s, None) for s in seeds]))
    rows.append(_row("wilt, AsyncTextEnv", games, steps, seconds, per_step))
    wason_sync_overhead([10_000])
    rows.append(_row("wilt, make() (TextEnv)", games, *wason_sync_overhead(seeds)))
    wason_vector_overhead(1)
    rows.append(_row(f"wilt, VectorTextEnv({games})", games, *wason_vector_overhead(games)))
    made = 0.0
    if "lists" not in skip:
        trajectories, made = lists_trajectories(lists_games, cache)
        asyncio.run(wason_async_overhead("lists", trajectories[:1]))  # warm-up, not counted
        replays = trajectories * LISTS_ROUNDS
        steps, seconds, per_step = asyncio.run(wason_async_overhead("lists", replays))
        rows.append(_row(f"lists, AsyncTextEnv (x{LISTS_ROUNDS})", lists_games, steps, seconds, per_step))
    return {"rows": rows, "lists_made_seconds": made, "random_untouched": random.getstate() == state}


def textarena_overhead(seeds: Sequence[int]) -> tuple[int, float, list[float]]:
    clock, per_step, steps = Clock(), [], 0
    for seed in seeds:
        step, observation = textarena_game(seed, clock)
        done = False
        while not done:
            reply = bisect_reply(observation().encode())
            before = clock.seconds
            done = step(reply)
            per_step.append(clock.seconds - before)
            steps += 1
    return steps, clock.seconds, per_step


def textarena_reseeds() -> bool:
    """Whether a seeded reset reseeds Python's global random module: two resets with the same seed after
    different global states leave it in the same state."""
    import textarena as ta

    env = ta.make(TEXTARENA_ENV)
    after = []
    for prior in (1, 2):
        random.seed(prior)
        env.reset(num_players=1, seed=7)
        after.append(random.random())
    return after[0] == after[1]


def textarena_history_leaks() -> bool:
    """Whether a wrapped environment reused after ``reset`` still shows the game before in its observation."""
    import textarena as ta

    env = ta.make(TEXTARENA_ENV)
    env.reset(num_players=1, seed=1)
    env.get_observation()
    env.step("[1]" if env.state.game_state["game_number"] != 1 else "[2]")
    env.reset(num_players=1, seed=2)
    _, observation = env.get_observation()
    return "[Player]" in observation or observation.count("You are playing Guess The Number") > 1


def textarena_overhead_part(games: int) -> dict[str, Any]:
    textarena_overhead([10_000])  # warm-up, not counted
    steps, seconds, per_step = textarena_overhead(range(games))
    return {
        "rows": [_row(f"{TEXTARENA_ENV}, bisection", games, steps, seconds, per_step)],
        "reseeds": textarena_reseeds(),
        "history_leaks": textarena_history_leaks(),
    }


def child(kind: str, base_url: str, levels: list[int], min_steps: int, args: argparse.Namespace) -> None:
    """One contender's parts in this (fresh) process; prints one JSON line."""
    import httpx

    skip = set(args.skip.split(","))
    out: dict[str, Any] = {"kind": kind, "python": sys.version.split()[0], "httpx": httpx.__version__}
    if kind == "textarena":
        from importlib.metadata import version

        out["version"] = version("textarena")
    if "endpoint" not in skip:
        out["endpoint"] = asyncio.run(endpoint_part(kind, base_url, levels, min_steps))
    if "overhead" not in skip:
        cache = Path(args.lists_cache) if args.lists_cache else None
        if kind == "wason":
            out["overhead"] = wason_overhead_part(args.overhead_games, args.lists_games, skip, cache)
        else:
            out["overhead"] = textarena_overhead_part(args.textarena_games)
    print(json.dumps(out))


# -- the parent: children, best of repeats, tables ---------------------------------------------------------------
def run_child(python: str, kind: str, base_url: str, argv: list[str]) -> dict[str, Any]:
    done = subprocess.run(
        [python, str(Path(__file__).resolve()), "--child", kind, base_url, *argv],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"the {kind} child failed ({done.returncode}):\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def textarena_ready(python: str) -> str | None:
    """None if ``python`` can import textarena and httpx, else why not."""
    if not Path(python).exists():
        return f"no interpreter at {python}"
    check = subprocess.run([python, "-c", "import textarena, httpx"], capture_output=True, text=True)
    if check.returncode != 0:
        return f"{python} cannot import textarena and httpx: {check.stderr.strip().splitlines()[-1:]}"
    return None


def best(results: list[dict[str, Any]]) -> dict[str, Any]:
    """The first result with each cell at its best over the repeats: the most steps/s, the least env time."""
    top: dict[str, Any] = json.loads(json.dumps(results[0]))
    for other in results[1:]:
        for cell, alt in zip(top.get("endpoint", []), other.get("endpoint", []), strict=True):
            if alt["steps"] / alt["seconds"] > cell["steps"] / cell["seconds"]:
                cell.update(steps=alt["steps"], seconds=alt["seconds"], rounds=alt["rounds"])
            cell["env_seconds"] = (
                min(cell["env_seconds"] / cell["steps"], alt["env_seconds"] / alt["steps"]) * cell["steps"]
            )
        for row, alt in zip(
            top.get("overhead", {}).get("rows", []), other.get("overhead", {}).get("rows", []), strict=True
        ):
            if alt["env_seconds"] / alt["steps"] < row["env_seconds"] / row["steps"]:
                row.update(alt)
    return top


def _rate(cell: dict[str, Any]) -> float:
    return float(cell["steps"] / cell["seconds"])


def _per_step(cell: dict[str, Any]) -> float:
    return float(cell["env_seconds"] / cell["steps"])


def _us(seconds: float, steps: int) -> str:
    return f"{seconds / steps * 1e6:,.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default="1,8,64", help="comma-separated numbers of concurrent games")
    parser.add_argument("--latency", type=float, default=0.0, help="the endpoint's seconds per reply")
    parser.add_argument("--min-steps", type=int, default=400, help="steps each endpoint cell plays at least")
    parser.add_argument("--overhead-games", type=int, default=32, help="WILT games of part 2")
    parser.add_argument("--textarena-games", type=int, default=200, help="GuessTheNumber games of part 2")
    parser.add_argument("--lists-games", type=int, default=3, help="lists solver games of part 2")
    parser.add_argument("--repeat", type=int, default=1, help="run each child this often, keep the best")
    parser.add_argument(
        "--textarena-python", default=str(TEXTARENA_PYTHON), help="an interpreter with textarena"
    )
    parser.add_argument("--skip", default="", help=f"comma-separated parts to skip: {', '.join(SKIPPABLE)}")
    parser.add_argument("--child-endpoint", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--child", nargs=2, metavar=("KIND", "BASE_URL"), help=argparse.SUPPRESS)
    parser.add_argument("--lists-cache", help=argparse.SUPPRESS)
    args = parser.parse_args()
    levels = [int(n) for n in args.games.split(",") if n]
    skip = set(args.skip.split(","))
    if args.child_endpoint:
        return _serve_endpoint(args.latency)
    if args.child:
        return child(args.child[0], args.child[1], levels, args.min_steps, args)

    pythons = {"wason": sys.executable, "textarena": args.textarena_python}
    kinds = [k for k in ("wason", "textarena") if k not in skip]
    if "textarena" in kinds and (why := textarena_ready(args.textarena_python)) is not None:
        print(
            f"textarena skipped: {why} (make it with: python3 -m venv .venv-bench && "
            ".venv-bench/bin/pip install -e . textarena httpx)"
        )
        kinds.remove("textarena")
    results: dict[str, list[dict[str, Any]]] = {k: [] for k in kinds}
    with GameEndpoint(args.latency) as ep, tempfile.TemporaryDirectory() as tmp:
        argv = [
            "--games", args.games, "--min-steps", str(args.min_steps), "--skip", args.skip,
            "--overhead-games", str(args.overhead_games), "--textarena-games", str(args.textarena_games),
            "--lists-games", str(args.lists_games), "--lists-cache", str(Path(tmp) / "lists.json"),
        ]  # fmt: skip
        for _ in range(args.repeat):
            for kind in kinds:
                results[kind].append(run_child(pythons[kind], kind, ep.base_url, argv))
    report({k: best(v) for k, v in results.items()}, args, levels, skip)


def report(
    top: dict[str, dict[str, Any]], args: argparse.Namespace, levels: list[int], skip: set[str]
) -> None:
    for kind, result in top.items():
        extra = f", textarena {result['version']}" if "version" in result else ""
        python = args.textarena_python if kind == "textarena" else sys.executable
        print(f"{kind}: Python {result['python']} ({python}), httpx {result['httpx']}{extra}")
    names = {"wason": "wason wilt", "textarena": f"textarena {TEXTARENA_ENV}"}
    if "endpoint" not in skip:
        print(
            f"\n1. through the endpoint (latency {args.latency * 1000:g} ms, rounds of N concurrent games until "
            f">= {args.min_steps} steps, one httpx.AsyncClient)"
        )
        print(f"{'contender':<30} {'games':>6} {'rounds':>6} {'steps':>7} {'steps/s':>9} {'env us/step':>12}")
        for kind, result in top.items():
            for cell in result["endpoint"]:
                print(
                    f"{names[kind]:<30} {cell['games']:>6} {cell['rounds']:>6} {cell['steps']:>7} "
                    f"{cell['steps'] / cell['seconds']:>9,.0f} {_us(cell['env_seconds'], cell['steps']):>12}"
                )
        if len(top) == 2:
            pairs = list(zip(top["wason"]["endpoint"], top["textarena"]["endpoint"], strict=True))
            rates = [f"N={a['games']} {_rate(a) / _rate(b):.2f}" for a, b in pairs]
            costs = [f"N={a['games']} {_per_step(a) / _per_step(b):.1f}" for a, b in pairs]
            print(f"wason/textarena, steps/s: {', '.join(rates)}")
            print(f"wason/textarena, env us/step: {', '.join(costs)}")
    if "overhead" not in skip:
        print(
            "\n2. the environment alone (no endpoint; replies made before each step, untimed; after a warm-up game)"
        )
        print(
            f"{'contender':<44} {'games':>6} {'steps':>7} {'env us/step':>12} {'median us':>10} {'slowest us':>11}"
        )
        rows: dict[str, dict[str, Any]] = {}
        for kind, result in top.items():
            for row in result["overhead"]["rows"]:
                name = f"{kind} {row['name']}"
                rows[name] = row
                print(
                    f"{name:<44} {row['games']:>6} {row['steps']:>7} {_us(row['env_seconds'], row['steps']):>12} "
                    f"{row['median_step'] * 1e6:>10,.0f} {row['slowest_step'] * 1e6:>11,.0f}"
                )
        made = top.get("wason", {}).get("overhead", {}).get("lists_made_seconds", 0.0)
        if made:
            print(
                f"(the lists solver's {args.lists_games} trajectories took {made:.1f} s to make, not timed)"
            )
        ta = next((r for n, r in rows.items() if n.startswith("textarena")), None)
        if ta is not None:
            costs = [
                f"{name.removeprefix('wason ')} {_per_step(row) / _per_step(ta):.1f}"
                for name, row in rows.items()
                if name.startswith("wason")
            ]
            print(f"wason/textarena, env us/step: {', '.join(costs)}")
        if "wason" in top:
            untouched = top["wason"]["overhead"]["random_untouched"]
            print(
                f"\nwason: its games leave Python's global random state untouched: {'yes' if untouched else 'NO'}"
            )
        if "textarena" in top:
            reseeds = top["textarena"]["overhead"]["reseeds"]
            print(
                f"textarena: reset(seed=s) reseeds Python's global random module (random.seed(s) in "
                f"textarena.core.State): {'yes' if reseeds else 'no'}; every seeded reset of every game resets "
                "the process's global random state, the trainer's own draws included"
            )
            leaks = top["textarena"]["overhead"]["history_leaks"]
            print(
                f"textarena: a {TEXTARENA_ENV} reused after reset() still shows the game before to the model: "
                f"{'yes' if leaks else 'no'} (its default LLMObservationWrapper keeps its history), so each game "
                "here is a new ta.make(), counted in its env time"
            )


if __name__ == "__main__":
    main()
