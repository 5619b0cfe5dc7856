"""Slow work of ``wason serve`` off its event loop: the pages that read much of the store and draw.

A page of the browser (a run's summary and figures, a comparison, the runs list, an episode) is built by a
function of the store and the request's parts (never the request itself), handed over by its route with
:func:`build`. The event loop only awaits it, so while pages are built every other request is answered.

Where pages are built:

- **worker processes**, for ``wason serve`` (:func:`use_processes`): :data:`PROCESS_LANES` processes, started
  with ``spawn`` when the server starts and stopped with it, each opening the store by its URL. Until a lane's
  process has started and imported the pages (about a second), its pages are built in a thread, so that the first
  page does not wait for it (2.0-2.7 s after start, now 1.2 s). Measured with ``bench/bench_loop.py`` (8 first
  visits of 500-episode run pages at once, a 2-core machine): with the pages built in a thread of the server's
  process, a trivial GET had a p95 of 34 to 81 ms, as the page's Python holds the GIL and the loop gets it back
  only every switch interval, several times per request; built in a worker process, 10 to 14 ms (idle: 5 to 6
  ms). A worker sees the families as a new process loads them (built-ins and entry points), so this is for the
  server ``wason serve`` starts, not for an app made in code, which may have registered families of its own or
  changed one;
- **a thread**, for every other app (tests, an app made in code): one lane, the process's families as they
  are. The loop is never blocked, though a trivial request may wait for the GIL while a page is built.

Figures are drawn on lanes of their own (:data:`FIGURE_LANES`, a process for ``wason serve``, else a thread;
``build(..., figures=True)``), so that no page waits behind matplotlib.

The moves of games (and the reads that restore a game by replaying its moves, which judges them again) are
applied with :func:`move` by a pool of :data:`MOVE_WORKERS` workers: processes started with ``wason serve`` (threads
until they have started), threads for an app made in code. Moves on one game are applied one after the other in
the order they came; moves on different games at once, up to the pool's size. A move is never cut short by the
clock (a verdict does not depend on how busy the machine is; the judges are bounded by their own work), but one
that cannot start, because :data:`MAX_MOVES` are under way or it waited :data:`MOVE_WAIT_SECONDS` for its game's
earlier moves and a free worker, is refused (:class:`Busy`, a 503 with ``Retry-After``) and not applied.

A worker process that ends under the server (killed, out of memory) is replaced by a new one, and the page it
was building is built again there, once; only when that one ends too is the page refused (:class:`WorkerLost`,
a 503), and the next page gets another worker. The server never needs a restart for it.

A lane builds one page at a time. A page about one run (its page, its figures) goes to the run's lane
(``key``), so a run's figures are drawn by one builder at a time (a second first visit finds them drawn); any
other page goes to the lane with the fewest pages waiting. The same page asked for while it is being built
shares that build. A page whose requests all went away before it started is dropped; one already being built is
finished and thrown away.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import functools
import importlib
import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import weakref
from collections.abc import AsyncIterator, Callable
from concurrent.futures import BrokenExecutor, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from wason.core import registry
from wason.store import Store

T = TypeVar("T")
log = logging.getLogger("wason.server")

PROCESS_LANES = max(1, min(4, (os.cpu_count() or 2) - 1))
"""Worker processes of ``wason serve`` that build pages: a core is left to the event loop (on two cores, a
second worker doubled the probe's p95 in ``bench/bench_loop.py``, 10 to 24 ms, and built the pages no sooner)."""
THREAD_LANES = 1
"""Threads that build pages in an app made in code: one, as more would only share the GIL."""
FIGURE_LANES = 1
"""Workers that draw figures (a process for ``wason serve``, else a thread): apart from the pages' lanes, so a
page is never queued behind a drawing."""
MAX_BUILDS = 32
"""Distinct pages waiting to be built or being built at once; one more is refused (:class:`Busy`, a 503) rather
than queued, so that no client can make the line of pages (and the requests held open for them) grow without
bound."""


MOVE_WORKERS = max(2, min(4, os.cpu_count() or 2))
"""Moves applied at once (a process each for ``wason serve``, else a thread): steps on different games run
concurrently up to this many; the next wait for a free worker."""
MAX_MOVES = 64
"""Moves under way at once in one server, applied or waiting to start; one more is refused (:class:`Busy`, a 503)
at once, so that no client can make the line of moves (and the requests held open for them) grow without bound."""
MOVE_WAIT_SECONDS = 30.0
"""The longest a move waits to start (for its game's earlier moves and a free worker); then it is refused (a 503)
and not applied. Once started, a move is never stopped by the clock: its verdict cannot depend on the machine."""


class Busy(RuntimeError):
    """Too many pages are waiting to be built, or moves to be applied; the request is refused (503, try again
    shortly) and nothing of it is applied."""


class WorkerLost(Busy):
    """The worker building a page ended under it (killed, out of memory) and so did the new one it was given
    (503, try again shortly; the next page gets another new worker)."""


class Lanes:
    """Executors of one worker each: the pages of a run on its own, the others on the least busy."""

    def __init__(
        self, kind: Literal["thread", "process"], count: int, families: dict[str, str] | None = None
    ) -> None:
        self.kind = kind
        # families registered in code in the server's process, registered again in each worker
        self.families = dict(families or {})
        self._executors = [self._new() for _ in range(count)]
        self._waiting = [0] * count
        self._warming: list[Future[None]] | None = None  # until warm() is called

    def _new(self) -> Executor:
        if self.kind == "thread":
            return ThreadPoolExecutor(max_workers=1, thread_name_prefix="wason-page")
        return ProcessPoolExecutor(
            max_workers=1,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_worker_started,
            initargs=(self.families,),
        )

    def _choose(self, key: int | None) -> int:
        if key is not None:
            return key % len(self._executors)
        return min(range(len(self._executors)), key=lambda i: self._waiting[i])

    async def run(self, key: int | None, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` on the lane of ``key``; the caller awaits it without blocking the loop.

        When the lane's worker has ended (killed, out of memory: its executor is broken), the lane gets a new
        one and the page is built again there, once (a page only reads); when that one breaks too, the page is
        refused (:class:`WorkerLost`, a 503) and the next page gets yet another."""
        lane = self._choose(key)
        loop = asyncio.get_running_loop()
        self._waiting[lane] += 1
        try:
            executor = self._executors[lane]
            try:
                return await loop.run_in_executor(executor, fn, *args)
            except BrokenExecutor:
                self._replace(lane, executor)
            executor = self._executors[lane]
            try:
                return await loop.run_in_executor(executor, fn, *args)
            except BrokenExecutor:
                self._replace(lane, executor)
                raise WorkerLost(
                    "the worker process building this page ended twice (killed, or out of memory); try again "
                    "in a few seconds"
                ) from None
        finally:
            self._waiting[lane] -= 1

    def _replace(self, lane: int, broken: Executor) -> None:
        """A new executor for ``lane`` in place of ``broken`` (once, however many pages saw it break)."""
        if self._executors[lane] is not broken:
            return
        log.warning("a page worker ended (killed, or out of memory); lane %d gets a new one", lane)
        self._executors[lane] = self._new()
        broken.shutdown(wait=False, cancel_futures=True)

    def warm(self, *, figures: bool = False) -> list[Future[None]]:
        """Start every worker now: a process imports the pages (and matplotlib, for ``figures``) before any
        request asks for one."""
        self._warming = [executor.submit(_warm, figures) for executor in self._executors]
        return list(self._warming)

    @property
    def warm_now(self) -> bool:
        """Whether every worker has started and imported what it builds with (pages asked for before are built
        in a thread of the server, so that its first page does not wait for a process to start)."""
        return self._warming is not None and all(future.done() for future in self._warming)

    def shutdown(self) -> None:
        """Stop the workers: pages not started are dropped, one being built is finished first."""
        for executor in self._executors:
            executor.shutdown(wait=True, cancel_futures=True)


_threads: Lanes | None = None
_figure_threads: Lanes | None = None
_guard = threading.Lock()


def _thread_lanes(figures: bool = False) -> Lanes:
    global _threads, _figure_threads
    with _guard:
        if figures:
            if _figure_threads is None:
                _figure_threads = Lanes("thread", FIGURE_LANES)
            return _figure_threads
        if _threads is None:
            _threads = Lanes("thread", THREAD_LANES)
        return _threads


def use_processes(app: Any, lanes: int = PROCESS_LANES, moves: int = MOVE_WORKERS) -> None:
    """Build ``app``'s pages in ``lanes`` worker processes and apply its moves in ``moves`` more (``wason
    serve``): started when the app starts, before its first request, and stopped when it stops."""
    inner = app.router.lifespan_context
    app.state.move_workers = moves

    @asynccontextmanager
    async def lifespan(a: Any) -> AsyncIterator[Any]:
        families = registry.explicit()
        if families is None:
            # a family registered in code that another process cannot import (in __main__): pages in a thread
            log.warning(
                "a family registered in code cannot be imported by another process: pages built in a thread"
            )
            async with inner(a) as state:
                yield state
            return
        workers = Lanes("process", lanes, families)
        drawers = Lanes("process", FIGURE_LANES, families)
        movers = MovePool("process", moves, families)
        # the drawing and move processes start once the page workers are ready: on two cores, three processes
        # importing at once put off the first page (a first request 2.2 s after start, against 1.5 s); moves
        # are applied in threads until then
        ready = workers.warm()
        remaining = [len(ready)]

        def page_worker_ready(done: Future[None]) -> None:
            with _guard:
                remaining[0] -= 1
                last = remaining[0] == 0
            if last and not done.cancelled():  # cancelled: the server stopped before its workers were ready
                with contextlib.suppress(RuntimeError):  # it stopped meanwhile: nothing more is started
                    drawers.warm(figures=True)
                    movers.warm()

        for future in ready:
            future.add_done_callback(page_worker_ready)
        app.state.page_lanes = workers
        app.state.figure_lanes = drawers
        app.state.move_processes = movers
        try:
            async with inner(a) as state:
                yield state
        finally:
            app.state.page_lanes = None
            app.state.figure_lanes = None
            app.state.move_processes = None
            await asyncio.to_thread(workers.shutdown)
            await asyncio.to_thread(drawers.shutdown)
            await asyncio.to_thread(movers.shutdown)

    app.router.lifespan_context = lifespan


def in_process(url: str) -> bool:
    """Whether a store at ``url`` can be opened by another process: not a SQLite database in memory."""
    return not (url.startswith("sqlite") and (url.split("://", 1)[-1] in ("", "/") or ":memory:" in url))


@dataclass
class _Build:
    task: asyncio.Task[Any]
    waiting: int = 0


async def build(
    app: Any, store: Store, key: int | None, fn: Callable[..., T], *args: Any, figures: bool = False
) -> T:
    """``fn(store, *args)`` off the event loop: in a worker process when ``app`` uses them (the store opened
    there by its URL, ``fn`` and ``args`` sent by pickle), else in a thread. ``key`` is a run id for a page
    about one run (its lane), else None; ``figures``: on the lanes that draw figures, not the pages'.

    The same page asked again while it is being built (the same ``fn`` and ``args``: a link opened by several
    people, a reload) waits for that build instead of queueing another; each request gets its own copy of the
    result. The build is dropped from its queue when every request waiting for it has gone."""
    builds: dict[tuple[Any, ...], _Build] | None = getattr(app.state, "page_builds", None)
    if builds is None:
        builds = app.state.page_builds = {}
    same = (asyncio.get_running_loop(), fn, store.connect_url, repr(args))
    shared = builds.get(same)
    if shared is None and len(builds) >= MAX_BUILDS:
        raise Busy(f"the server is building {len(builds)} pages; try again in a few seconds")
    if shared is None:
        shared = builds[same] = _Build(asyncio.ensure_future(_run(app, store, key, fn, args, figures)))
        shared.task.add_done_callback(lambda _: builds.pop(same, None))
    shared.waiting += 1
    try:
        result: T = await asyncio.shield(shared.task)
        return _own_copy(result)
    finally:
        shared.waiting -= 1
        if not shared.waiting and not shared.task.done():
            shared.task.cancel()


def _own_copy(response: T) -> T:
    """A copy of a response for one request: its headers its own (a file's are added as it is sent)."""
    out = copy.copy(response)
    raw = getattr(out, "raw_headers", None)
    if isinstance(raw, list):
        out.raw_headers = list(raw)  # type: ignore[attr-defined]
        vars(out).pop("_headers", None)  # made from the list on first use
    return out


async def _run(
    app: Any,
    store: Store,
    key: int | None,
    fn: Callable[..., T],
    args: tuple[Any, ...],
    figures: bool = False,
) -> T:
    lanes: Lanes | None = getattr(app.state, "figure_lanes" if figures else "page_lanes", None)
    if lanes is not None and lanes.kind == "process" and lanes.warm_now and in_process(store.connect_url):
        return await lanes.run(key, _in_worker, fn, store.connect_url, args)
    return await _thread_lanes(figures).run(key, functools.partial(fn, store), *args)


# -- moves ----------------------------------------------------------------------------------------------------
class MovePool:
    """The workers that apply moves: ``count`` threads, or ``count`` processes (``spawn``, each opening the store
    by its URL and loading the families before its first move)."""

    def __init__(
        self, kind: Literal["thread", "process"], count: int, families: dict[str, str] | None = None
    ) -> None:
        self.kind, self.count = kind, count
        self.families = dict(families or {})
        self._executor = self._new()
        self._warming: list[Future[None]] | None = None

    def _new(self) -> Executor:
        if self.kind == "thread":
            return ThreadPoolExecutor(max_workers=self.count, thread_name_prefix="wason-move")
        return ProcessPoolExecutor(
            max_workers=self.count,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_move_worker_started,
            initargs=(self.families,),
        )

    def warm(self) -> list[Future[None]]:
        """Start every worker now (a process each: one job per worker makes the pool start them all)."""
        self._warming = [self._executor.submit(_warm_moves) for _ in range(self.count)]
        return list(self._warming)

    @property
    def warm_now(self) -> bool:
        """Whether the workers have started (moves before that are applied in threads of the server)."""
        return self._warming is not None and all(future.done() for future in self._warming)

    async def run(self, store: Store, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        """``fn(store, *args)`` in a worker; the caller awaits it without blocking the loop."""
        executor = self._executor
        loop = asyncio.get_running_loop()
        try:
            if self.kind == "process":
                return await loop.run_in_executor(executor, _in_worker, fn, store.connect_url, args)
            return await loop.run_in_executor(executor, functools.partial(fn, store), *args)
        except BrokenExecutor:
            # the worker died (killed, out of memory): the next move gets a new pool; this one is a 500, not
            # tried again (the move may have been applied before its worker died)
            if self._executor is executor:
                self._executor = self._new()
            raise

    def shutdown(self) -> None:
        """Stop the workers: moves not started are dropped (their requests were answered), one under way is
        finished first."""
        self._executor.shutdown(wait=True, cancel_futures=True)


@dataclass
class _Moves:
    """One app's moves on one event loop: how many are under way, the lock of each game, the free workers."""

    loop: asyncio.AbstractEventLoop
    workers: int
    threads: MovePool
    slots: asyncio.Semaphore
    admitted: int = 0
    waiting: int = 0  # of the admitted, those not started yet
    locks: weakref.WeakValueDictionary[int, asyncio.Lock] = field(default_factory=weakref.WeakValueDictionary)

    def lock(self, session_id: int) -> asyncio.Lock:
        found = self.locks.get(session_id)
        if found is None:
            found = self.locks[session_id] = asyncio.Lock()
        return found


def _moves(app: Any) -> _Moves:
    loop = asyncio.get_running_loop()
    state: _Moves | None = getattr(app.state, "moves", None)
    if state is None or state.loop is not loop:
        # an app served on a new loop (a test's second client) keeps its threads, not its loop's locks
        workers = getattr(app.state, "move_workers", None) or MOVE_WORKERS
        threads = state.threads if state is not None else MovePool("thread", workers)
        state = app.state.moves = _Moves(loop, workers, threads, asyncio.Semaphore(workers))
    return state


def moves_under_way(app: Any) -> tuple[int, int]:
    """How many moves ``app`` has under way (applied or waiting) and how many of them wait for a lock or a worker
    (for the tests and the bench: which requests have reached the line)."""
    state: _Moves | None = getattr(app.state, "moves", None)
    return (0, 0) if state is None else (state.admitted, state.waiting)


async def move(app: Any, store: Store, session_id: int | None, fn: Callable[..., T], *args: Any) -> T:
    """``fn(store, *args)`` off the event loop, by the app's move workers (:class:`MovePool`): a move of session
    ``session_id`` after the earlier moves of that session (in the order they came), or, with None, a read that
    needs no order (a view that replays the game).

    ``fn`` and ``args`` are sent by pickle to a worker process where ``wason serve`` runs them (the store opened
    there by its URL); what ``fn`` raises is raised here.

    Raises:
        Busy: :data:`MAX_MOVES` are under way, or this one waited :data:`MOVE_WAIT_SECONDS` to start; it was not
            applied.
    """
    state = _moves(app)
    if state.admitted >= MAX_MOVES:
        raise Busy(
            f"the server has {state.admitted} moves under way; this one was not applied, send it again in a few "
            "seconds"
        )
    state.admitted += 1
    begun: list[bool] = []
    task = asyncio.ensure_future(_apply(app, state, store, session_id, fn, args, begun))

    def done(_: Any) -> None:
        state.admitted -= 1

    task.add_done_callback(done)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        # the client left: a move not begun is dropped; one under way is finished (and stored) all the same, and
        # holds its game's lock until then, so that the game's next move comes after it
        if not begun:
            task.cancel()
        raise


async def _apply(
    app: Any,
    state: _Moves,
    store: Store,
    session_id: int | None,
    fn: Callable[..., T],
    args: tuple[Any, ...],
    begun: list[bool],
) -> T:
    lock = state.lock(session_id) if session_id is not None else None
    state.waiting += 1
    try:
        # the clock decides only whether a move starts, never what it gives
        async with asyncio.timeout(MOVE_WAIT_SECONDS):
            if lock is not None:
                await lock.acquire()
            try:
                await state.slots.acquire()
            except BaseException:
                if lock is not None:
                    lock.release()
                raise
    except TimeoutError:
        raise Busy(
            f"this move waited {MOVE_WAIT_SECONDS:g} s to start (the server is busy with other moves); it was not "
            "applied, send it again in a few seconds"
        ) from None
    finally:
        state.waiting -= 1
    try:
        begun.append(True)
        pool: MovePool | None = getattr(app.state, "move_processes", None)
        if pool is None or not pool.warm_now or not in_process(store.connect_url):
            pool = state.threads
        job = asyncio.ensure_future(pool.run(store, fn, args))
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            if not job.done():
                await asyncio.wait([job])  # the worker finishes it whatever happens here
            raise
    finally:
        state.slots.release()
        if lock is not None:
            lock.release()


# -- in a worker process ---------------------------------------------------------------------------------------
_stores: dict[str, Store] = {}


MOVE_MODULES = ("wason.server.app", "wason.server.web.play")
"""What a worker that makes moves imports before its first move (by name: this module is below them; importing
is the point, not using them)."""

PAGE_MODULES = ("wason.server.web.browse",)
"""What a worker that builds pages imports before its first page (by name, as :data:`MOVE_MODULES`)."""


def _worker_started(families: dict[str, str]) -> None:
    registry.register_from(families)
    # Ctrl-C reaches the whole process group: the server stops its workers itself, without their tracebacks
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # a server killed without stopping them (uvicorn ends by raising the signal it caught) leaves nobody to tell
    # them; each watches its parent and ends with it
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_end_with, args=(parent.sentinel,), daemon=True, name="parent-watch").start()


def _end_with(sentinel: int) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)


def _move_worker_started(families: dict[str, str]) -> None:
    _worker_started(families)
    # every family's game and judges, and the moves' own modules, before the first move (about a second)
    for _ in registry.families():
        pass
    for module in MOVE_MODULES:
        importlib.import_module(module)


def _warm_moves() -> None:
    return None


def _warm(figures: bool) -> None:
    for module in PAGE_MODULES:
        importlib.import_module(module)

    if figures:  # matplotlib is the slowest import of a first figure
        import matplotlib.backends.backend_agg
        import matplotlib.figure  # noqa: F401


def _in_worker(fn: Callable[..., T], url: str, args: tuple[Any, ...]) -> T:
    store = _stores.get(url)
    if store is None:
        store = _stores[url] = Store(url)
    return fn(store, *args)


__all__ = [
    "FIGURE_LANES",
    "MAX_BUILDS",
    "MAX_MOVES",
    "MOVE_WAIT_SECONDS",
    "MOVE_WORKERS",
    "PROCESS_LANES",
    "THREAD_LANES",
    "Busy",
    "Lanes",
    "MovePool",
    "WorkerLost",
    "build",
    "in_process",
    "move",
    "moves_under_way",
    "use_processes",
]
