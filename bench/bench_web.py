"""Step latency of ``wason serve`` under load: many concurrent sessions through the generic sessions API (issue 12).

Setup: ``wason serve`` in its own process (uvicorn on 127.0.0.1, a fresh SQLite store in a temporary folder, log
level warning), driven from this process by ``sessions`` concurrent clients (one keep-alive connection each, a minimal
HTTP/1.1 client: httpx cost more CPU per request than the server, on the same two cores). Each
client starts a WILT game (``POST /api/sessions``, the lite split, the game drawn by its seed), then plays it to
the end one request at a time: ``steps - 1`` test triples (``POST /api/sessions/{id}/step`` with a ``ProposeTest``
action, each a new triple) and a final guess. Every client starts at once.

Two passes of ``sessions`` clients:

- ``think`` = 1 s (default): each client starts within the first second and waits 0.5 to 1.5 s before each
  step, as a person or a model does between moves: 100 sessions open at once, about 100 steps a second offered;
- ``think`` = 0: back to back, every client sends its next step the moment the last is answered, so
  ``sessions`` steps are always in flight: the server's saturation. By Little's law the latency is then
  ``sessions / throughput`` whatever the server does per step, so this pass is read for its steps per second.

Measured: each request's latency as the client sees it (send to whole reply), the starts and the steps apart;
p50, p95, p99 and the slowest; steps per second over the pass. A first pass with one client gives a step's
latency with nothing else in flight (the work per step).

Goal (issue 12): p95 step latency under 50 ms with 100 sessions on this 2-core machine. Numbers are printed,
never asserted; the client shares the machine with the server.

    python bench/bench_web.py [--sessions 100] [--steps 21]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
SERVER = """
import sys
from wason.cli import main
argv = ["serve", "--port", sys.argv[1], "--db", sys.argv[2], "--log-level", "warning"]
if len(sys.argv) > 3:  # --profile: the server's own time, by function, written when it stops
    import cProfile
    cProfile.run("main(argv)", sys.argv[3])
else:
    sys.exit(main(argv))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


class Connection:
    """One keep-alive HTTP/1.1 connection speaking just enough of the protocol for JSON posts: a client far
    lighter than httpx, so the CPU it shares with the server on this machine goes to the server."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        data = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        )
        self.writer.write(head.encode() + data)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        reply = json.loads(await self.reader.readexactly(length)) if length else {}
        return int(status_line.split()[1]), reply

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


async def play(
    url: str, seed: int, steps: int, think: float, starts: list[float], lat: list[float]
) -> str | None:
    """One game to its end on its own connection; the first failure (not 2xx, a dropped connection) as a line."""
    rng = random.Random(seed)
    host, port = url.removeprefix("http://").split(":")
    conn = Connection(host, int(port))
    try:
        if think:  # people and models do not all arrive in the same millisecond
            await asyncio.sleep(rng.uniform(0, think))
        t = time.perf_counter()
        status, reply = await conn.post(
            "/api/sessions", {"family": "wilt", "config": {"split": "lite"}, "seed": seed}
        )
        starts.append(time.perf_counter() - t)
        if status != 201:
            return f"start: {status} {reply}"
        sid = reply["session"]
        for i in range(steps):
            if think:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            if i < steps - 1:
                action = {
                    "type": "ProposeTest",
                    "values": [str(seed + i), str(2 * i - seed), str(i * i % 17)],
                }
            else:
                action = {"type": "FinalGuess", "expression": "lambda x, y, z: x < y < z"}
            t = time.perf_counter()
            status, reply = await conn.post(f"/api/sessions/{sid}/step", {"action": action})
            lat.append(time.perf_counter() - t)
            if status != 200:
                return f"step: {status} {reply}"
            if reply.get("done"):
                break
    except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        conn.close()
    return None


@dataclass
class Pass:
    starts: list[float]
    steps: list[float]
    wall: float
    errors: list[str]
    server_cpu: float  # seconds of CPU the server process used during the pass
    client_cpu: float  # and this process


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def load(url: str, pid: int, sessions: int, steps: int, think: float) -> Pass:
    starts: list[float] = []
    lat: list[float] = []
    server0, client0, t = cpu_seconds(pid), time.process_time(), time.perf_counter()
    done = await asyncio.gather(*(play(url, 1000 + i, steps, think, starts, lat) for i in range(sessions)))
    wall = time.perf_counter() - t
    server, client = cpu_seconds(pid) - server0, time.process_time() - client0
    return Pass(starts, lat, wall, [e for e in done if e is not None], server, client)


def row(name: str, values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return (
        f"{name:<34}{len(ms):>7}{statistics.median(ms):>9.1f}{percentile(ms, 95):>9.1f}"
        f"{percentile(ms, 99):>9.1f}{max(ms):>9.1f}"
    )


def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        profile = [str(Path(tmp) / "server.prof")] if args.profile else []
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])),
        }
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(port), str(Path(tmp) / "bench.db"), *profile],
            cwd=ROOT,
            env=env,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if httpx.get(f"{url}/api/families", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the server did not start")
                time.sleep(0.1)
            asyncio.run(
                load(url, proc.pid, 4, 3, 0.0)
            )  # warm up: imports, the family's first items, the store's pages
            alone = asyncio.run(load(url, proc.pid, 1, args.steps, 0.0))
            passes = [
                (think, asyncio.run(load(url, proc.pid, args.sessions, args.steps, think)))
                for think in args.think
            ]
        finally:
            # uvicorn ends by raising the signal it caught again: SIGINT lets the profile be written first
            proc.send_signal(signal.SIGINT if profile else signal.SIGTERM)
            proc.wait(timeout=30)
            if profile:
                import pstats

                print(f"the server's time by function (cumulative), top {args.profile}:")
                pstats.Stats(profile[0]).sort_stats("cumulative").print_stats(args.profile)
    n = args.sessions
    print(f"wason serve: {n} concurrent sessions x {args.steps} requests (WILT lite, SQLite), latency in ms")
    print(f"{'':<34}{'n':>7}{'p50':>9}{'p95':>9}{'p99':>9}{'max':>9}")
    print(row("start, alone", alone.starts))
    print(row("step, alone", alone.steps))
    for think, p in passes:
        how = "back to back" if think == 0 else f"{think:g} s apart"
        print(row(f"start, {n} at once", p.starts))
        print(row(f"step, {n} sessions, {how}", p.steps))
        rate = len(p.steps) / p.wall
        errors = f"; {len(p.errors)} sessions failed (first: {p.errors[0]})" if p.errors else ""
        print(f"{'':<34}{rate:.0f} steps/s over {p.wall:.1f} s{errors}")
        requests = len(p.steps) + len(p.starts)
        print(
            f"{'':<34}CPU per request: server {p.server_cpu / requests * 1000:.1f} ms, "
            f"this client {p.client_cpu / requests * 1000:.1f} ms; server busy {p.server_cpu / p.wall:.0%} "
            f"of the pass"
        )
    for think, p in passes:
        print(f"p95 / goal (50 ms), steps {think:g} s apart: {percentile(p.steps, 95) * 1000 / 50:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=100)
    parser.add_argument("--steps", type=int, default=21, help="requests per game: tests, then the guess")
    parser.add_argument(
        "--think",
        type=float,
        nargs="+",
        default=[1.0, 0.0],
        help="seconds each session waits before a step (a person or a model thinking; x0.5 to x1.5 at random); "
        "0: back to back (default: 1 then 0)",
    )
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also profile the server and print its top N functions",
    )
    run(parser.parse_args())


if __name__ == "__main__":
    main()
