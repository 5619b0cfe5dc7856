"""How `wason show` and `wason export` scale with the store (issue 39, item 4).

Builds SQLite stores of 100 runs (the 50 shown and their baselines) and of ``--runs`` runs (default 1,000) from
one template pair played for real: a WILT model run (an in-process model that tests ``--tests`` triples and
guesses; its model calls recorded) and its solver baseline. The pair's rows are copied in bulk (new ids, the
baseline's ``baseline_for`` pointing at its copy), so a store of 1,000 runs takes seconds to build.
Then, on each store, in a fresh process:

- ``wason show`` of the first 50 model runs (their baselines join them), CPU time (user + system of the child);
- ``wason export`` of every run, CSV and Parquet: wall time and peak RSS of the child.

and prints the ratio large/small for each, so one run of the bench says whether a cost grows with the store.

    python bench/bench_store_scale.py              # 100 and 1,000 runs
    python bench/bench_store_scale.py --runs 200   # quicker
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from wason.engine import create_run, execute_run, llm_player_factory
from wason.engine.play import play_baseline
from wason.models.base import ChatMessage, GenerationParams, ModelResponse
from wason.models.client import ModelClient
from wason.store import Store
from wason.store.db import episodes, model_calls, runs, turns
from wason.tasks.wilt import WiltRunConfig

SHOWN = 50


class Tester:
    """Proposes (n, 2n, n+7) until told to guess, then guesses."""

    spec, endpoint, max_concurrency = "bench:tester", "memory", 8

    def __init__(self, tests: int) -> None:
        self.tests = tests

    async def generate(
        self, messages: list[ChatMessage], params: GenerationParams, *, timeout: float
    ) -> ModelResponse:
        turn = sum(m.role == "assistant" for m in messages)
        if turn < self.tests:
            text = f"Another triple.\nTest Case: ```({turn}, {turn * 2}, {turn + 7})```"
        else:
            text = "Final Guess: ```lambda x, y, z: x < y < z```"
        return ModelResponse(text=text, input_tokens=100 + 20 * turn, output_tokens=len(text.split()))

    async def aclose(self) -> None:
        pass


def template(store: Store, tests: int) -> tuple[int, int]:
    """Play the model run and its baseline once; their ids."""
    config = WiltRunConfig(split="lite", model="bench:tester", max_tests=tests)
    run_id = create_run(store, config, baseline=True)
    client = ModelClient(model=Tester(tests), store=store)
    asyncio.run(execute_run(store, run_id, llm_player_factory(client, config, run_id), concurrency=8))
    baseline = asyncio.run(play_baseline(store, run_id))
    assert baseline is not None
    return run_id, baseline


def _rows(c: Any, table: sa.Table, where: Any) -> list[dict[str, Any]]:
    return [dict(r) for r in c.execute(table.select().where(where).order_by(table.c.id)).mappings()]


def build(path: Path, n_runs: int, tests: int) -> None:
    """A store of ``n_runs`` runs (pairs of a model run and its baseline), copied from one played pair."""
    store = Store(f"sqlite:///{path}")
    model_run, baseline_run = template(store, tests)
    with store.engine.begin() as c:
        pair = []
        for run_id in (model_run, baseline_run):
            run = _rows(c, runs, runs.c.id == run_id)[0]
            eps = _rows(c, episodes, episodes.c.run_id == run_id)
            trs = _rows(c, turns, turns.c.episode_id.in_([e["id"] for e in eps]))
            calls = _rows(c, model_calls, model_calls.c.run_id == run_id)
            pair.append((run, eps, trs, calls))
        c.execute(model_calls.delete())
        c.execute(turns.delete())
        c.execute(episodes.delete())
        c.execute(runs.delete())
        next_id = {"runs": 1, "episodes": 1, "turns": 1, "calls": 1}
        batch: dict[str, list[dict[str, Any]]] = {"runs": [], "episodes": [], "turns": [], "calls": []}
        made_model = 0
        for k in range(n_runs):
            run, eps, trs, calls = pair[k % 2]
            new_run = next_id["runs"]
            next_id["runs"] += 1
            config = dict(run["config"])
            if k % 2:
                config["baseline_for"] = made_model
            else:
                made_model = new_run
            row = {**run, "id": new_run, "config": config}
            if "baseline_for" in row:  # the indexed column (schema 0007) says what the configuration says
                row["baseline_for"] = config.get("baseline_for")
            batch["runs"].append(row)
            ep_ids = {}
            for e in eps:
                ep_ids[e["id"]] = next_id["episodes"]
                batch["episodes"].append({**e, "id": next_id["episodes"], "run_id": new_run})
                next_id["episodes"] += 1
            for t in trs:
                batch["turns"].append({**t, "id": next_id["turns"], "episode_id": ep_ids[t["episode_id"]]})
                next_id["turns"] += 1
            call_ids: dict[int, int] = {}
            for m in calls:
                call_ids[m["id"]] = next_id["calls"]
                batch["calls"].append(
                    {
                        **m,
                        "id": next_id["calls"],
                        "run_id": new_run,
                        "episode_id": ep_ids.get(m["episode_id"], m["episode_id"]),
                        "parent_id": call_ids.get(m["parent_id"]) if m["parent_id"] else None,
                        "cache_key": f"{m['cache_key']}-{new_run}" if m["cache_key"] else None,
                    }
                )
                next_id["calls"] += 1
            if len(batch["turns"]) > 20_000 or k == n_runs - 1:
                for name, table in (
                    ("runs", runs),
                    ("episodes", episodes),
                    ("turns", turns),
                    ("calls", model_calls),
                ):
                    if batch[name]:
                        c.execute(table.insert(), batch[name])
                    batch[name] = []
    store.close()


def child(args: list[str]) -> dict[str, float]:
    """Run a wason command in a fresh process: its CPU seconds, wall seconds and peak RSS (MB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = (
        "import resource, sys; from wason.cli import main; rc = main(sys.argv[1:]); "
        "print('MAXRSS', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); sys.exit(rc)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=os.environ.copy()
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {done.stderr.strip()[-500:]}")
    rss = next(int(line.split()[1]) for line in done.stderr.splitlines() if line.startswith("MAXRSS"))
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"cpu": cpu, "wall": wall, "rss": rss / 1024}


def measure(path: Path, tmp: Path) -> dict[str, dict[str, float]]:
    url = f"sqlite:///{path}"
    with sa.create_engine(url).connect() as c:
        ids = [int(i) for i in c.execute(sa.select(runs.c.id).order_by(runs.c.id)).scalars()]
        counts = {
            "turns": c.execute(sa.select(sa.func.count()).select_from(turns)).scalar_one(),
            "calls": c.execute(sa.select(sa.func.count()).select_from(model_calls)).scalar_one(),
        }
    shown = [str(i) for i in ids[::2][:SHOWN]]  # the model runs; their baselines join them
    out = {"store": {"runs": len(ids), **counts, "mb": path.stat().st_size / 1e6}}
    out["show"] = child(["show", *shown, "--db", url, "--format", "markdown"])
    every = [str(i) for i in ids]
    for fmt in ("csv", "parquet"):
        out[f"export {fmt}"] = child(
            ["export", *every, "--db", url, "--to", str(tmp / f"out-{fmt}"), "--format", fmt]
        )
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=1000, help="runs in the large store (default 1000)")
    parser.add_argument(
        "--small",
        type=int,
        default=100,
        help="runs in the small store (default 100: the 50 shown and their baselines)",
    )
    parser.add_argument("--tests", type=int, default=12, help="tests per model episode (default 12)")
    args = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n in (args.small, args.runs):
            path = Path(tmp) / f"store-{n}.db"
            start = time.perf_counter()
            build(path, n, args.tests)
            built = time.perf_counter() - start
            results[n] = measure(path, Path(tmp) / str(n))
            s = results[n]["store"]
            print(
                f"store of {s['runs']:.0f} runs: {s['turns']:.0f} turns, {s['calls']:.0f} calls, "
                f"{s['mb']:.1f} MB (built in {built:.1f} s)"
            )
    small, large = results[args.small], results[args.runs]
    print(f"\n| measure | {args.small} runs | {args.runs} runs | ratio |")
    print("|---|---:|---:|---:|")
    print(
        f"| show {SHOWN} runs, CPU s | {small['show']['cpu']:.2f} | {large['show']['cpu']:.2f} | "
        f"{large['show']['cpu'] / small['show']['cpu']:.2f} |"
    )
    for fmt in ("csv", "parquet"):
        a, b = small[f"export {fmt}"], large[f"export {fmt}"]
        print(f"| export {fmt}, wall s | {a['wall']:.2f} | {b['wall']:.2f} | {b['wall'] / a['wall']:.2f} |")
        print(f"| export {fmt}, peak RSS MB | {a['rss']:.0f} | {b['rss']:.0f} | {b['rss'] / a['rss']:.2f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
