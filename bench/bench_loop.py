"""Does heavy page work block ``wason serve``'s event loop? A trivial GET's latency while run pages are drawn
(issue 35).

Setup: a store with a WILT run of ``episodes`` episodes played by the reference solver (``wason eval wilt
--player solver --split full --trials N``, in a subprocess, about a minute for 500), and copies of it made
row by row in SQL (new run ids, the same episodes and turns), so every pass has run pages never visited yet; a
run page of WILT shows two figures (accuracy, and the reduction of the hypothesis space by test), drawn on a
page's first visit. ``wason serve`` runs in its own process (uvicorn on 127.0.0.1, log level warning), driven
from this process with a minimal HTTP/1.1 client (one keep-alive connection per request stream, as
``bench_web.py``). One warm-up visit of another copy's run page first, so imports and first-use caches are not
counted in the passes.

Measured: the latency of a trivial GET (``--probe``, default ``/static/wason.css``), sent one after another with
``gap`` seconds between (a browser's asset, or a script polling), in three passes:

- idle: nothing else in flight (``probes`` requests);
- same run: ``pages`` concurrent first visits of one run's page (``/runs/1``, as a link shared in a chat);
- distinct runs: ``pages`` concurrent first visits of as many different runs' pages (the worst a client can
  ask: nothing can be shared between them).

While the pages are in flight the probe runs until the last page is answered. Printed: p50, p95 and the slowest
of each, the ratio of each p95 to idle's in the same run, and the run pages' own latencies. Numbers are
printed, never asserted; the client shares the two cores with the server.

Goal (issue 35): the probe's p95 under 50 ms while 8 run pages are drawn.

``--moves`` measures hostile moves instead (issue 49, item 2): over a new store, while 4 moves that are slow to
judge are applied at once (three WILT guesses z3 cannot decide within its resource limit, against the rule
``(x * y * z) % 2 == 0``, 0.7 to 2.3 s each here, and a list predicate that spends the judgement's step budget,
0.6 s), ``--rounds`` times in a row (4 new sessions each round), the probe's latency, against idle; each move's
latency and status too. With ``--compare-src OLD/src`` the same passes run in the same invocation against another
version of the package (one that judged moves on the event loop), and the ratios of the probe's p95 are printed.
Goal: the probe's p95 under 100 ms while the 4 moves are judged.

    python bench/bench_loop.py [--episodes 500] [--pages 8] [--probe /static/wason.css] [--db STORE] [--keep STORE]
    python bench/bench_loop.py --db STORE --src OTHER/src     # the same against another version of the package
    python bench/bench_loop.py --db STORE --threads           # uvicorn alone: pages built in a thread
    python bench/bench_loop.py --moves [--rounds 3] [--compare-src OLD/src]
    python bench/bench_loop.py --streams 200 [--episodes 50] [--compare-src OLD/src]

``--streams N`` (issue 49, item 3): over a leased (live) WILT solver run of ``--episodes`` episodes, N event
streams of it are asked for, 8 from each client address (127.0.0.2, .3, ...), and kept open; the probe runs from
the moment they are asked for, ``--stream-seconds`` long (their first events, then their polls for changes);
printed: how many were accepted and refused (the default caps: 32 per server, 8 per client), and the probe's
latency against idle.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SERVER = """
import sys
from wason.cli import main
sys.exit(main(["serve", "--port", sys.argv[1], "--db", sys.argv[2], "--log-level", "warning"]))
"""
# the same app served by uvicorn without `wason serve`'s worker processes: its pages are built in a thread
IN_THREADS = """
import sys
import uvicorn
from wason.server import create_app
uvicorn.run(create_app(sys.argv[2]), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def environment(src: Path = ROOT / "src") -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(src), os.environ.get("PYTHONPATH")]))
    return {**os.environ, "PYTHONPATH": path}


# -- the store --------------------------------------------------------------------------------------------
def make_store(path: Path, episodes: int) -> float:
    """A WILT solver run of ``episodes`` episodes (the full split's 50 rules, ``episodes / 50`` trials each);
    the seconds it took."""
    trials = max(1, episodes // 50)
    t = time.perf_counter()
    argv = [
        "eval",
        "wilt",
        "--db",
        str(path),
        "--player",
        "solver",
        "--split",
        "full",
        "--trials",
        str(trials),
    ]
    subprocess.run(
        [sys.executable, "-m", "wason.cli", *argv, "--no-baseline", "--concurrency", "4"],
        cwd=ROOT,
        env=environment(),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - t


def copy_run(path: Path, run_id: int) -> int:
    """A copy of run ``run_id`` under a new id (its episodes and turns too); the new id."""
    from wason.store import Store
    from wason.store.db import episodes, runs, turns

    store = Store(str(path))
    try:
        with store.engine.begin() as c:
            run = dict(c.execute(runs.select().where(runs.c.id == run_id)).mappings().one())
            run.pop("id")
            new_run = int(c.execute(runs.insert().values(**run)).inserted_primary_key[0])  # type: ignore[index]
            for e in c.execute(episodes.select().where(episodes.c.run_id == run_id)).mappings().all():
                row = {**e, "run_id": new_run}
                old = row.pop("id")
                new_episode = int(c.execute(episodes.insert().values(**row)).inserted_primary_key[0])  # type: ignore[index]
                rows = c.execute(turns.select().where(turns.c.episode_id == old)).mappings().all()
                if rows:
                    c.execute(
                        turns.insert(),
                        [
                            {**{k: v for k, v in t.items() if k != "id"}, "episode_id": new_episode}
                            for t in rows
                        ],
                    )
        return new_run
    finally:
        store.close()


# -- the client -------------------------------------------------------------------------------------------
class Connection:
    """One keep-alive HTTP/1.1 connection for GETs with a Content-Length (every route measured here)."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def get(self, path: str) -> int:
        return await self.request("GET", path)

    async def request(self, method: str, path: str, body: object = None) -> int:
        status, _ = await self.exchange(method, path, body)
        return status

    async def exchange(self, method: str, path: str, body: object = None) -> tuple[int, bytes]:
        """One request (a JSON body, if any) and its answer: the status and the body."""
        if self.writer is None:
            self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        assert self.reader is not None
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
        data = b""
        if body is not None:
            data = json.dumps(body).encode()
            head += f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
        self.writer.write(head.encode() + b"\r\n" + data)
        status_line = await self.reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        answer = await self.reader.readexactly(length)
        return int(status_line.split()[1]), answer

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


@dataclass
class Pass:
    probes: list[float]
    pages: list[float]
    wall: float
    errors: list[str]


async def timed(conn: Connection, path: str, into: list[float], errors: list[str]) -> None:
    t = time.perf_counter()
    try:
        status = await conn.get(path)
    except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
        errors.append(f"{path}: {type(exc).__name__}: {exc}")
        return
    into.append(time.perf_counter() - t)
    if status != 200:
        errors.append(f"{path}: status {status}")


async def probe_until(conn: Connection, path: str, gap: float, done: asyncio.Event, n: int | None) -> Pass:
    lat: list[float] = []
    errors: list[str] = []
    while not done.is_set() and (n is None or len(lat) < n):
        await timed(conn, path, lat, errors)
        await asyncio.sleep(gap)
    return Pass(lat, [], 0.0, errors)


async def measure(host: str, port: int, probe: str, gap: float, pages: list[str], n_idle: int) -> Pass:
    """The probe alone (``n_idle`` requests, when ``pages`` is empty) or while ``pages`` are requested at once."""
    probe_conn = Connection(host, port)
    await probe_conn.get(probe)  # the connection opened before the clock starts
    done = asyncio.Event()
    page_lat: list[float] = []
    errors: list[str] = []
    t = time.perf_counter()

    async def visit(path: str) -> None:
        conn = Connection(host, port)
        try:
            await timed(conn, path, page_lat, errors)
        finally:
            conn.close()

    async def all_pages() -> None:
        await asyncio.gather(*(visit(p) for p in pages))
        done.set()

    if pages:
        prober = asyncio.create_task(probe_until(probe_conn, probe, gap, done, None))
        await all_pages()
        result = await prober
    else:
        result = await probe_until(probe_conn, probe, gap, done, n_idle)
    probe_conn.close()
    return Pass(result.probes, page_lat, time.perf_counter() - t, result.errors + errors)


def row(name: str, values: list[float], idle_p95: float | None) -> str:
    ms = [v * 1000 for v in values]
    if not ms:
        return f"{name:<40}{0:>6}"
    ratio = f"{percentile(ms, 95) / idle_p95:>9.1f}" if idle_p95 else f"{'':>9}"
    return f"{name:<40}{len(ms):>6}{statistics.median(ms):>10.1f}{percentile(ms, 95):>10.1f}{max(ms):>10.1f}{ratio}"


def run(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "loop.db"
        if args.db:
            shutil.copyfile(args.db, db)
            print(f"store: a copy of {args.db}")
        else:
            took = make_store(db, args.episodes)
            print(f"store: a WILT solver run of {args.episodes} episodes, made in {took:.0f} s")
        if args.keep:
            shutil.copyfile(db, args.keep)
        from wason.store import Store

        store = Store(str(db))
        episodes = len(store.list_episodes(1))
        store.close()
        # run 1 is the original; copies: the warm-up's, then one per page of the distinct pass
        copies = [copy_run(db, 1) for _ in range(args.pages + 1)]
        warm, distinct = copies[0], copies[1:]
        port = free_port()
        code = IN_THREADS if args.threads else SERVER
        proc = subprocess.Popen(
            [sys.executable, "-c", code, str(port), str(db)], cwd=tmp, env=environment(args.src.resolve())
        )
        host = "127.0.0.1"
        try:
            deadline = time.monotonic() + 60

            async def ready() -> bool:
                try:
                    return await Connection(host, port).get(args.probe) == 200
                except OSError:
                    return False

            while not asyncio.run(ready()):
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the server did not start")
                time.sleep(0.1)
            warm_up = asyncio.run(measure(host, port, args.probe, args.gap, [f"/runs/{warm}"], 0))
            idle = asyncio.run(measure(host, port, args.probe, args.gap, [], args.probes))
            same = asyncio.run(measure(host, port, args.probe, args.gap, ["/runs/1"] * args.pages, 0))
            apart = asyncio.run(
                measure(host, port, args.probe, args.gap, [f"/runs/{r}" for r in distinct], 0)
            )
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    n = args.pages
    how = "the app in uvicorn alone" if args.threads else "wason serve"
    print(f"{how}, the package in {args.src}")
    print(
        f"GET {args.probe} one after another ({args.gap * 1000:g} ms apart) while {n} run pages "
        f"({episodes} episodes, figures not drawn yet) are requested at once; latency in ms"
    )
    print(f"{'':<40}{'n':>6}{'p50':>10}{'p95':>10}{'max':>10}{'p95/idle':>9}")
    base = percentile([v * 1000 for v in idle.probes], 95)
    print(row(f"{args.probe}, idle", idle.probes, base))
    print(row(f"{args.probe}, {n} x /runs/1", same.probes, base))
    print(row(f"{args.probe}, {n} distinct runs", apart.probes, base))
    print(row("run page, warm-up (first of the server)", warm_up.pages, None))
    print(row(f"run page, {n} x /runs/1", same.pages, None))
    print(row(f"run page, {n} distinct runs", apart.pages, None))
    for name, p in (("warm-up", warm_up), ("idle", idle), ("same run", same), ("distinct runs", apart)):
        if p.errors:
            print(f"{name}: {len(p.errors)} failed requests (first: {p.errors[0]})")
    for name, p in (("same run", same), ("distinct runs", apart)):
        print(f"probe p95 / goal (50 ms), {name}: {percentile(p.probes, 95) * 1000 / 50:.2f}")


# -- hostile moves (issue 49, item 2) ------------------------------------------------------------------------
SLOW_RULE_INDEX = 30  # the full split's lambda x, y, z: (x * y * z) % 2 == 0
SLOW_GUESSES = (
    # equivalent to the rule on the numbers one can type, and beyond what z3 decides within its resource limit:
    # the judge spends the whole limit, then decides on the probes (a sampled verdict)
    "lambda x, y, z: (x * y * z) % 2 == 0 and (int(x) % 2 == 0 or int(y) % 2 == 0 or int(z) % 2 == 0 "
    "or x % 1 != 0 or y % 1 != 0 or z % 1 != 0)",
    "lambda x, y, z: (x * y * z) % 2 == 0 or (int(x) * int(y) % 2 == 0 and int(x) % 2 == 1 and int(y) % 2 == 1)",
    "lambda x, y, z: (x * y * z) % 2 == 0 and (int(x) * int(y) % 2 == 0) == (int(x) % 2 == 0 or int(y) % 2 == 0)",
)
# each probe list costs it the whole per-list step budget, until the judgement's budget is spent
SLOW_PREDICATE = (
    "lambda xs: len([i for i in range(50000) if i % 7 == 3]) > 0 and all(a < b for a, b in zip(xs, xs[1:]))"
)


async def _created(conn: Connection, body: dict[str, object]) -> int:
    """A new session's id."""
    status, answer = await conn.exchange("POST", "/api/sessions", body)
    if status != 201:
        raise SystemExit(f"a session could not be started: {answer[:500]!r}")
    return int(json.loads(answer)["session"])


async def _hostile_sessions(host: str, port: int) -> list[tuple[int, dict[str, object]]]:
    """Four new sessions, each with its slow move (a WILT guess, or a lists predicate after its hypothesis)."""
    conn = Connection(host, port)
    out: list[tuple[int, dict[str, object]]] = []
    try:
        for guess in SLOW_GUESSES:
            sid = await _created(
                conn, {"family": "wilt", "config": {"split": "full"}, "index": SLOW_RULE_INDEX}
            )
            out.append((sid, {"action": {"type": "FinalGuess", "expression": guess}}))
        sid = await _created(conn, {"family": "lists", "config": {"judges": ["predicate"]}, "index": 0})
        said = await conn.request(
            "POST", f"/api/sessions/{sid}/step", {"action": {"type": "FinalHypothesis", "text": "increasing"}}
        )
        if said != 200:
            raise SystemExit(f"the lists session did not take its hypothesis: {said}")
        out.append((sid, {"action": {"type": "PredicateAnswer", "source": SLOW_PREDICATE}}))
    finally:
        conn.close()
    return out


async def _moves_pass(host: str, port: int, probe: str, gap: float, rounds: int) -> tuple[Pass, list[int]]:
    """The probe while ``rounds`` times 4 hostile moves are applied at once; the moves' latencies and statuses."""
    probe_conn = Connection(host, port)
    await probe_conn.get(probe)
    done = asyncio.Event()
    move_lat: list[float] = []
    statuses: list[int] = []
    errors: list[str] = []
    prepared = [await _hostile_sessions(host, port) for _ in range(rounds)]
    t = time.perf_counter()

    async def one(sid: int, body: dict[str, object]) -> None:
        conn = Connection(host, port)
        started = time.perf_counter()
        try:
            statuses.append(await conn.request("POST", f"/api/sessions/{sid}/step", body))
            move_lat.append(time.perf_counter() - started)
        except (OSError, ValueError, asyncio.IncompleteReadError) as exc:
            errors.append(f"move: {type(exc).__name__}: {exc}")
        finally:
            conn.close()

    async def all_moves() -> None:
        for batch in prepared:
            await asyncio.gather(*(one(sid, body) for sid, body in batch))
        done.set()

    prober = asyncio.create_task(probe_until(probe_conn, probe, gap, done, None))
    await all_moves()
    result = await prober
    probe_conn.close()
    return Pass(result.probes, move_lat, time.perf_counter() - t, result.errors + errors), statuses


def _serve_moves(args: argparse.Namespace, src: Path) -> tuple[Pass, Pass, list[int], Pass]:
    """Idle, warm-up and hostile passes against a ``wason serve`` of the package in ``src``."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "moves.db"
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(port), str(db)], cwd=tmp, env=environment(src.resolve())
        )
        host = "127.0.0.1"
        try:
            deadline = time.monotonic() + 120

            async def ready() -> bool:
                try:
                    return await Connection(host, port).get(args.probe) == 200
                except OSError:
                    return False

            while not asyncio.run(ready()):
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the server did not start")
                time.sleep(0.1)
            time.sleep(args.settle)  # the server's worker processes start after its first second or two
            # every family's judges imported (z3 included) and each worker used once before the clock starts
            warm, _ = asyncio.run(_moves_pass(host, port, args.probe, args.gap, 1))
            idle = asyncio.run(measure(host, port, args.probe, args.gap, [], args.probes))
            hostile, statuses = asyncio.run(_moves_pass(host, port, args.probe, args.gap, args.rounds))
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    return idle, warm, statuses, hostile


def run_moves(args: argparse.Namespace) -> None:
    versions = [("this package", args.src)]
    if args.compare_src is not None:
        versions.append(("compared", args.compare_src))
    results = {name: _serve_moves(args, src) for name, src in versions}
    print(
        f"wason serve; GET {args.probe} one after another ({args.gap * 1000:g} ms apart) while {args.rounds} "
        "rounds of 4 hostile moves (3 WILT guesses at z3's resource limit, 1 list predicate spending its step "
        "budget) are applied at once; latency in ms"
    )
    print(f"{'':<40}{'n':>6}{'p50':>10}{'p95':>10}{'max':>10}{'p95/idle':>9}")
    hostile_p95: dict[str, float] = {}
    for name, src in versions:
        idle, warm, statuses, hostile = results[name]
        base = percentile([v * 1000 for v in idle.probes], 95)
        hostile_p95[name] = percentile([v * 1000 for v in hostile.probes], 95)
        print(f"{name}: {src}")
        print(row("  probe, idle", idle.probes, base))
        print(row("  probe, during the moves", hostile.probes, base))
        print(row("  hostile move (POST .../step)", hostile.pages, None))
        print(f"  statuses of the moves: {sorted(set(statuses))}, wall {hostile.wall:.1f} s")
        print(f"  probe p95 / goal (100 ms): {hostile_p95[name] / 100:.2f}")
        for what, p in (("warm-up", warm), ("idle", idle), ("moves", hostile)):
            if p.errors:
                print(f"  {what}: {len(p.errors)} failed requests (first: {p.errors[0]})")
    if len(versions) == 2:
        ours, theirs = hostile_p95["this package"], hostile_p95["compared"]
        print(f"probe p95 during the moves, compared / this package: {theirs / ours:.1f}x")


# -- open event streams (issue 49, item 3) --------------------------------------------------------------------
async def _open_stream(
    host: str, port: int, path: str, address: str
) -> tuple[int, asyncio.StreamWriter | None]:
    """An event stream from ``address`` (any of 127.0.0.0/8): its status, and its connection while it is open."""
    reader, writer = await asyncio.open_connection(host, port, local_addr=(address, 0))
    writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
    status = int((await reader.readline()).split()[1])
    if status != 200:
        writer.close()
        return status, None
    while (await reader.readline()) not in (b"\r\n", b""):
        pass

    async def drain() -> None:  # read what it sends, as a browser does
        with contextlib.suppress(OSError, ConnectionError):
            while await reader.read(65536):
                pass

    _draining.add(task := asyncio.get_running_loop().create_task(drain()))
    task.add_done_callback(_draining.discard)
    return status, writer


_draining: set[asyncio.Task[None]] = set()  # the loop keeps only weak references to tasks


async def _streams_pass(
    host: str, port: int, probe: str, gap: float, path: str, n: int, seconds: float
) -> tuple[Pass, list[int]]:
    """The probe from the moment ``n`` event streams of ``path`` are asked for (8 per client address) until
    ``seconds`` later, while they stay open; and their statuses."""
    probe_conn = Connection(host, port)
    await probe_conn.get(probe)
    done = asyncio.Event()
    prober = asyncio.create_task(probe_until(probe_conn, probe, gap, done, None))
    began = time.perf_counter()
    opened = [await _open_stream(host, port, path, f"127.0.0.{2 + i // 8}") for i in range(n)]
    await asyncio.sleep(max(0.0, seconds - (time.perf_counter() - began)))
    done.set()
    result = await prober
    probe_conn.close()
    still = sum(writer is not None and not writer.is_closing() for _, writer in opened)
    for _, writer in opened:
        if writer is not None:
            writer.close()
    if still != sum(status == 200 for status, _ in opened):
        result.errors.append(f"only {still} of the accepted streams were still open at the end")
    return result, [status for status, _ in opened]


def _serve_streams(args: argparse.Namespace, src: Path, db: Path) -> tuple[Pass, Pass, list[int]]:
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(port), str(db)], cwd=tmp, env=environment(src.resolve())
        )
        host = "127.0.0.1"
        try:
            deadline = time.monotonic() + 120

            async def ready() -> bool:
                try:
                    return await Connection(host, port).get(args.probe) == 200
                except OSError:
                    return False

            while not asyncio.run(ready()):
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the server did not start")
                time.sleep(0.1)
            time.sleep(args.settle)
            idle = asyncio.run(measure(host, port, args.probe, args.gap, [], args.probes))
            busy, statuses = asyncio.run(
                _streams_pass(
                    host,
                    port,
                    args.probe,
                    args.gap,
                    "/watch/1/events",
                    args.streams,
                    args.stream_seconds,
                )
            )
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
    return idle, busy, statuses


def run_streams(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "streams.db"
        took = make_store(db, args.episodes)
        from wason.store import Store

        store = Store(str(db))
        store.set_run_status(1, "running")
        store.acquire_lease(1, "elsewhere")  # another process plays it: its streams stay open
        store.close()
        print(f"store: a WILT solver run of {args.episodes} episodes (made in {took:.0f} s), leased: live")
        versions = [("this package", args.src)]
        if args.compare_src is not None:
            versions.append(("compared", args.compare_src))
        results = {name: _serve_streams(args, src, db) for name, src in versions}
    print(
        f"wason serve (default caps); GET {args.probe} one after another ({args.gap * 1000:g} ms apart) while "
        f"{args.streams} event streams of the run are asked for (8 per client address) and for "
        f"{args.stream_seconds:g} s after; latency in ms"
    )
    print(f"{'':<40}{'n':>6}{'p50':>10}{'p95':>10}{'max':>10}{'p95/idle':>9}")
    p95s: dict[str, float] = {}
    for name, src in versions:
        idle, busy, statuses = results[name]
        base = percentile([v * 1000 for v in idle.probes], 95)
        p95s[name] = percentile([v * 1000 for v in busy.probes], 95)
        counts = {code: statuses.count(code) for code in sorted(set(statuses))}
        print(f"{name}: {src}; stream statuses {counts}")
        print(row("  probe, idle", idle.probes, base))
        print(row(f"  probe, {args.streams} streams asked for", busy.probes, base))
        for error in busy.errors[:3]:
            print(f"  {error}")
    if len(versions) == 2:
        print(
            f"probe p95 with the streams, compared / this package: {p95s['compared'] / p95s['this package']:.1f}x"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=500, help="episodes of the run (50 per trial)")
    parser.add_argument("--pages", type=int, default=8, help="run pages requested at once")
    parser.add_argument("--probe", default="/static/wason.css", help="the trivial GET")
    parser.add_argument("--probes", type=int, default=200, help="probes of the idle pass")
    parser.add_argument("--gap", type=float, default=0.01, help="seconds between two probes")
    parser.add_argument(
        "--db", type=Path, help="start from a copy of this store (its run 1) instead of making one"
    )
    parser.add_argument("--keep", type=Path, help="also save the store made to this path (for --db later)")
    parser.add_argument(
        "--src",
        type=Path,
        default=ROOT / "src",
        help="serve the wason package of this folder (e.g. an older one)",
    )
    parser.add_argument(
        "--threads", action="store_true", help="serve the app with uvicorn alone: pages built in a thread"
    )
    parser.add_argument("--moves", action="store_true", help="hostile moves instead of run pages (issue 49)")
    parser.add_argument("--rounds", type=int, default=3, help="--moves: rounds of 4 hostile moves at once")
    parser.add_argument(
        "--settle", type=float, default=8.0, help="--moves: seconds for the server's workers to start"
    )
    parser.add_argument(
        "--compare-src",
        type=Path,
        help="--moves: also measure the package of this folder (e.g. an older one)",
    )
    parser.add_argument(
        "--streams", type=int, default=0, help="N event streams of a live run instead of run pages (issue 49)"
    )
    parser.add_argument(
        "--stream-seconds",
        type=float,
        default=30.0,
        help="--streams: how long the probe runs from the moment the streams are asked for",
    )
    args = parser.parse_args()
    if args.moves:
        run_moves(args)
    elif args.streams:
        run_streams(args)
    else:
        run(args)


if __name__ == "__main__":
    main()
