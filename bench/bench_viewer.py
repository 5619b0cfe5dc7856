"""How long each page of the results viewer takes on a store of many runs (issue 38).

Setup: a temporary SQLite store of ``runs`` WILT model runs written through the Store API (each of ``episodes``
real games: a few tests and a guess, every reply a recorded model call, one episode in seven errored, a word that
occurs only in a few model replies), and one run of ``big`` episodes whose pages are timed. The app
(``create_app``) is driven in-process by Starlette's TestClient: pages are built as ``wason serve`` builds them
(off the event loop, in a thread here), without an HTTP client's costs.

Measured: the two runs' figures are drawn first (after their pages' first visits, off the pages; waited for here so
that matplotlib does not share the machine with the timed visits), then each page is visited once (a warm-up:
imports, first-use caches) and ``repeat`` times; last, ``repeat`` first visits of run pages never visited (each of
another run; its figures are waited for, untimed, before the next). Printed per page: the median and the slowest in
ms, and the median as a ratio of the home page's in the same run. Numbers are printed, never asserted. Goal: no page
over 200 ms.

    python bench/bench_viewer.py [--runs 300] [--episodes 10] [--big 50] [--repeat 10] [--db STORE]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

WORD = "xylophone"


def _play(store: Any, run_id: int, config: Any, episode: Any, fam: Any) -> None:
    from wason.core.family import EpisodeContext
    from wason.core.session import to_json

    i = episode.index
    store.start_episode(episode.id)
    game = fam.game(config, episode.item, EpisodeContext())
    game.start()
    n_tests = 1 + i % 4
    parent = None
    for t in range(n_tests + 1):
        if t == n_tests:
            expression = episode.item["rule"] if i % 2 == 0 else "lambda x, y, z: x == 7"
            action: dict[str, Any] = {"type": "FinalGuess", "expression": expression}
            reply = f"Final guess: {expression}"
        else:
            action = {"type": "ProposeTest", "values": [str(t), str(t + i), str(2 * t)]}
            reply = f"I will test ({t}, {t + i}, {2 * t}) to see whether the rule holds there."
        if i % 11 == 8 and t == 1:
            reply = f"Thinking like a {WORD} player.\n{reply}"
        call = {
            "run_id": run_id,
            "episode_id": episode.id,
            "turn": t,
            "model": "vllm:fake-model",
            "endpoint": "http://127.0.0.1:9/v1",
            "messages": [
                {"role": "user", "content": f"Turn {t}: the game answered. Propose a test or guess."}
            ],
            "parent_id": parent,
            "params": {},
            "response": reply,
            "finish_reason": "stop",
            "input_tokens": 300 + 40 * t,
            "output_tokens": 25,
            "latency_s": 0.4,
            "attempts": 1,
            "cached": False,
        }
        if i % 7 == 3 and t == 1:
            error = "endpoint failed after 6 attempts: HTTP 503"
            store.record_call(
                {**call, "response": None, "finish_reason": None, "error": error, "attempts": 6}
            )
            store.finish_episode(episode.id, status="errored", error=error)
            return
        observation = game.step(fam.actions.decode(action))
        store.add_turn(
            episode.id,
            t,
            action=action,
            observation=to_json(observation),
            reply=reply,
            feedback=str(t % 2 == 1),
        )
        parent = store.record_call(call)
    outcome = game.outcome()
    store.finish_episode(episode.id, status="completed", success=outcome.success, metrics=outcome.metrics)


def build(store: Any, runs: int, episodes: int, big: int) -> list[int]:
    """``runs`` runs (the first of ``big`` episodes, the others of ``episodes``); their ids."""
    from wason.core import registry

    fam = registry.get("wilt")
    fields = fam.config_type.with_play_defaults({})
    config = fam.config_type.model_validate({**fields, "player": "llm", "model": "vllm:fake-model"})
    items = fam.items(config)
    ids = []
    for r in range(runs):
        n = big if r == 0 else episodes
        chosen = [items[(r + k) % len(items)] for k in range(n)]
        run_id = store.create_run(
            task="wilt",
            player="llm",
            model="vllm:fake-model",
            config=config.model_dump(mode="json"),
            items=chosen,
        )
        for episode in store.list_episodes(run_id):
            _play(store, run_id, config, episode, fam)
        store.set_run_status(run_id, "completed")
        ids.append(run_id)
        if r % 50 == 49:
            print(f"  {r + 1} runs written", file=sys.stderr)
    return ids


def time_pages(client: Any, pages: dict[str, str], repeat: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for name, url in pages.items():
        first = client.get(url)
        if first.status_code != 200:
            raise SystemExit(f"{name}: {url} answered {first.status_code}: {first.text[:300]}")
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            r = client.get(url)
            times.append(time.perf_counter() - start)
            assert r.status_code == 200, (url, r.status_code)
        out[name] = times
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--big", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument(
        "--db", help="use (and keep) this store file: built when missing, reused when present"
    )
    args = parser.parse_args()

    from fastapi.testclient import TestClient

    from wason.server import create_app
    from wason.store import Store

    workdir = Path(tempfile.mkdtemp(prefix="wason-bench-viewer-"))
    try:
        path = Path(args.db) if args.db else workdir / "viewer.db"
        fresh = not path.exists()
        store = Store(f"sqlite:///{path}")
        if fresh:
            start = time.perf_counter()
            build(store, args.runs, args.episodes, args.big)
            print(f"built {args.runs} runs in {time.perf_counter() - start:.0f} s ({path})", file=sys.stderr)
        ids = [r.id for r in store.list_runs()]
        big, other = ids[0], ids[1]
        pages = {
            "/": "/",
            "/runs": "/runs",
            "/runs sorted by tokens": "/runs?sort=tokens",
            "run page": f"/runs/{big}",
            "run page, errored": f"/runs/{big}?outcome=errored",
            "run page, search": f"/runs/{big}?q={WORD}",
            "episode page": f"/runs/{big}/episodes/8",
            "compare": f"/compare?runs={big},{other}",
            "search (every run)": f"/search?q={WORD}",
            "figure (drawn)": f"/runs/{big}/plots/accuracy.png",
        }
        with TestClient(create_app(store), base_url="http://127.0.0.1") as client:
            # the run's figures are drawn after its first visit, in this process here (in a worker process of
            # `wason serve`): wait for them, so that no timed visit shares the machine with matplotlib
            for run_id in (big, other):
                client.get(f"/runs/{run_id}")
                client.get(f"/runs/{run_id}/plots/accuracy.png")
            times = time_pages(client, pages, args.repeat)
            # last (their figures are then drawn meanwhile): first visits of run pages never seen before, each
            # of another run; what a first visit cost before the figures left the page (27 s on a loaded machine)
            first: list[float] = []
            for run_id in ids[2 : 2 + args.repeat]:
                start = time.perf_counter()
                assert client.get(f"/runs/{run_id}").status_code == 200
                first.append(time.perf_counter() - start)
                # its figures, drawn after it (untimed): the next first visit does not share this process's
                # GIL with matplotlib, as under `wason serve`, whose figures are drawn in a process of their own
                client.get(f"/runs/{run_id}/plots/accuracy.png")
            times["run page, first visit"] = first
        store.close()
        home = statistics.median(times["/"])
        print(f"{len(ids)} runs; {args.repeat} visits of each page after one warm-up")
        print(f"{'page':<24} {'median ms':>10} {'slowest ms':>11} {'x home':>8}")
        for name, ts in times.items():
            median = statistics.median(ts)
            print(f"{name:<24} {1000 * median:>10.1f} {1000 * max(ts):>11.1f} {median / home:>8.2f}")
        slow = [name for name, ts in times.items() if statistics.median(ts) > 0.2]
        print("goal (no page over 200 ms): " + ("met" if not slow else f"not met by {', '.join(slow)}"))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
