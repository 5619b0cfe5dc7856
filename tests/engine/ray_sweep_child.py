"""The Ray sweep test's child: run inside a private network and process namespace (loopback only), it starts a
throwaway PostgreSQL, a one-node Ray cluster (``ray start --head`` on 127.0.0.1) and the fake OpenAI-compatible
endpoint, runs ``wason sweep --ray`` against them, kills (SIGKILL) the Ray worker playing a model cell halfway
through it, lets the sweep finish, and writes what the store holds afterwards to ``OUT/result.json`` for the test
to judge. When the namespace's first process exits, the kernel ends every process left in it (the cluster too).

Usage: ``python -m tests.engine.ray_sweep_child OUT`` (from the repository's root).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from tests.fakes.openai_server import FakeOpenAIServer
from tests.postgres import PostgresUnavailable, ThrowawayPostgres, free_port
from wason.store import Store

SWEEP = "ray-grid"
RULES = 8


def slow_reply(messages: list[dict[str, Any]], body: dict[str, Any]) -> str:
    """Three tests, then the guess that the numbers increase; slow enough to kill a worker mid-cell."""
    time.sleep(0.08)
    turn = sum(m.get("role") == "assistant" for m in messages)
    if turn < 3:
        return f"Test Case: ```({turn}, {turn * 2 + 1}, {turn + 7})```"
    return "Final Guess: ```lambda x, y, z: x < y < z```"


def sweep_file(path: Path, base_url: str) -> None:
    path.write_text(
        f"""
name = "{SWEEP}"
[run]
timeout = 10
retries = 2
concurrency = 1
[[families]]
name = "wilt"
splits = ["lite"]
ids = {list(range(1, RULES + 1))}
[[players]]
player = "solver"
[[players]]
models = ["vllm:fake"]
base_url = "{base_url}"
[[settings]]
temperature = 0.0
[[settings]]
temperature = 0.7
[ray]
max_retries = 3
""",
        encoding="utf-8",
    )


def _query(url: str, sql: str, **params: Any) -> list[dict[str, Any]]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as c:
            return [dict(r._mapping) for r in c.execute(sa.text(sql), params)]
    finally:
        engine.dispose()


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def kill_a_worker_mid_cell(url: str, proc: subprocess.Popen[str], deadline: float) -> dict[str, Any] | None:
    """SIGKILL the Ray worker that holds a model cell's run when some but not all of its episodes are done."""
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
        try:
            runs = _query(
                url,
                "SELECT id, owner FROM runs WHERE sweep = :s AND player = 'llm' AND owner IS NOT NULL",
                s=SWEEP,
            )
        except Exception:  # the tables are not made yet
            continue
        for run in runs:
            done = _query(
                url,
                "SELECT count(*) AS n FROM episodes WHERE run_id = :r AND status = 'completed'",
                r=run["id"],
            )[0]["n"]
            pid = run["owner"].split(":")[1]
            if 2 <= done < RULES - 2 and pid.isdigit():
                cmdline = _cmdline(int(pid))
                os.kill(int(pid), signal.SIGKILL)
                return {"run": run["id"], "pid": int(pid), "cmdline": cmdline, "completed_before": done}
    return None


def facts(url: str) -> dict[str, Any]:
    store = Store(url)
    try:
        cells = _query(url, "SELECT id, cell, player, status FROM runs WHERE sweep = :s ORDER BY id", s=SWEEP)
        runs = store.list_runs()
        out = []
        for cell in cells:
            run_id = cell["id"]
            baselines = [r for r in runs if r.config.get("baseline_for") == run_id]
            episodes = store.list_episodes(run_id)
            out.append(
                {
                    "run": run_id,
                    "cell": cell["cell"],
                    "player": cell["player"],
                    "status": store.get_run(run_id).status,
                    "episodes": [e.status for e in episodes],
                    "turns": [[t["index"] for t in store.list_turns(e.id)] for e in episodes],
                    "baselines": [(b.id, b.status, len(store.list_episodes(b.id))) for b in baselines],
                }
            )
        return {"cells": out, "runs": len(runs)}
    finally:
        store.close()


def main(out: Path) -> None:
    result: dict[str, Any] = {}
    os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
    postgres = ThrowawayPostgres()
    try:
        url = postgres.start()
    except PostgresUnavailable as exc:
        (out / "result.json").write_text(json.dumps({"skip": str(exc)}))
        return
    # Ray's socket paths must stay short: a temporary directory of our own, not under pytest's tmp_path
    ray_dir = Path(tempfile.mkdtemp(prefix="wray-"))
    # removed by the test once the namespace, and the cluster with it, is gone
    result["ray_dir"] = str(ray_dir)
    try:
        port = free_port()
        ray = str(Path(sys.executable).parent / "ray")
        started = time.monotonic()
        subprocess.run(
            [ray, "start", "--head", "--node-ip-address", "127.0.0.1", "--port", str(port), "--num-cpus", "2",
             "--include-dashboard", "false", "--disable-usage-stats", "--temp-dir", str(ray_dir)],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
        result["ray_start_s"] = round(time.monotonic() - started, 1)
        with FakeOpenAIServer(slow_reply) as server:
            path = out / "sweep.toml"
            sweep_file(path, server.base_url)
            started = time.monotonic()
            proc = subprocess.Popen(
                [sys.executable, "-m", "wason.cli", "sweep", str(path), "--ray", f"127.0.0.1:{port}",
                 "--db", url, "--json"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )  # fmt: skip
            result["killed"] = kill_a_worker_mid_cell(url, proc, time.monotonic() + 120)
            try:
                stdout, stderr = proc.communicate(timeout=240)
            except subprocess.TimeoutExpired:
                proc.kill()
                stdout, stderr = proc.communicate()
            result["sweep_s"] = round(time.monotonic() - started, 1)
            result["returncode"] = proc.returncode
            result["stdout"] = stdout
            result["stderr"] = stderr[-4000:]
            result["requests"] = server.requests
        if result["killed"]:
            result["killed_pid_alive"] = Path(f"/proc/{result['killed']['pid']}").exists()
        result.update(facts(url))
    finally:
        (out / "result.json").write_text(json.dumps(result, indent=2, default=str))
        postgres.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1]))
