"""A full-split WILT run (50 episodes) with the scripted player, store included.

Goal (issue 2): under 2 s on the 2-core reference machine. Each scripted episode proposes ten tests and then
guesses the rule's published lambda reworded (so every guess is judged equivalent over the whole probe set), so
the time covers the game, the judge and every store write (run, 50 episodes, 550 turns) in a fresh SQLite file.

    python bench/bench_run.py [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from wason.engine import create_run, execute_run
from wason.players.scripted import ScriptedPlayer
from wason.store import Store
from wason.tasks.wilt import FinalGuess, ProposeTest, WiltRunConfig, summarize

TESTS = [
    ("1", "2", "3"),
    ("3", "2", "1"),
    ("0", "0", "0"),
    ("-1", "5", "2.5"),
    ("2", "4", "6"),
    ("7", "7", "7"),
]
TESTS += [("1.5", "2", "-3"), ("999", "-999", "0"), ("10", "20", "30"), ("-4", "-2", "-1")]


def scripted(item: dict[str, Any], _episode: int, _index: int) -> ScriptedPlayer:
    body = item["rule"].split(":", 1)[1].strip()
    # the published rule, parenthesised: a different text with the same meaning
    return ScriptedPlayer([ProposeTest(t) for t in TESTS] + [FinalGuess(f"lambda x, y, z: ({body})")])


def one_run(db: Path) -> tuple[float, int, int]:
    start = time.perf_counter()
    store = Store(f"sqlite:///{db}")
    config = WiltRunConfig(split="full", player="scripted")
    run_id = create_run(store, config)
    asyncio.run(execute_run(store, run_id, scripted, concurrency=4))
    elapsed = time.perf_counter() - start
    eps = store.list_episodes(run_id)
    s = summarize([(e.status, e.metrics) for e in eps])
    store.close()
    return elapsed, s.correct, s.n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    # One-time, per-process builds, timed apart: the hypothesis space behind every episode's reduction curve.
    from wason.tasks.wilt.listed_space import build_space

    t0 = time.perf_counter()
    build_space(0)
    print(f"one-time build of the hypothesis space (reduction metric): {time.perf_counter() - t0:.3f} s")
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.repeat):
            elapsed, correct, n = one_run(Path(tmp) / f"bench{i}.db")
            times.append(elapsed)
            label = "first (judge probe sets built)" if i == 0 else "warm"
            print(f"run {i + 1}: {elapsed:.3f} s, {correct}/{n} judged correct  [{label}]")
    median = statistics.median(times)
    print(f"full split, 50 episodes x 11 turns, scripted player, store included: median {median:.3f} s")


if __name__ == "__main__":
    main()
