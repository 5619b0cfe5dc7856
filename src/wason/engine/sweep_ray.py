"""Sweeps on a Ray cluster: each cell is a Ray task that opens the shared store, finds or makes its run and
plays it (:func:`wason.engine.sweep.run_cell`).

A worker that dies mid-cell (a lost node, an out-of-memory kill) has its task retried by Ray. The retry finds
the cell's run by its (sweep, cell) key instead of making another, waits for the dead worker's lease on the run
to lapse, and plays only the episodes that had not completed, so no cell is lost or done twice.

Ray is an optional extra (``pip install 'wason[ray]'``); it is imported only here, and only when asked for.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
from typing import Any

from rich.console import Console

from wason.engine.sweep import (
    Cell,
    CellOutcome,
    Sweep,
    SweepError,
    cell_progress,
    draw_items,
    run_cell,
    todo_cells,
)
from wason.models.spec import parse_spec
from wason.store import Store
from wason.store.db import LEASE_TTL

__all__ = ["forwarded_env", "run_sweep_ray", "sweep_cell"]

LEASE_WAIT = LEASE_TTL + 10.0
"""How long a retried cell waits for the lease of the worker that died before it: on another machine the lease
lapses only when its heartbeat is older than the TTL."""


def sweep_cell(store_url: str, sweep: str, cell: Cell) -> dict[str, Any]:
    """The Ray task of one cell (its process is titled ``ray::sweep_cell``); returns its outcome as JSON."""
    store = Store(store_url)
    try:
        return run_cell(store, sweep, cell, lease_wait=LEASE_WAIT).model_dump()
    finally:
        store.close()


def forwarded_env(cells: list[Cell]) -> dict[str, str]:
    """The environment variables a cell's model may read (its provider's key and URL, e.g. ``PROVIDER_API_KEY``
    and ``PROVIDER_BASE_URL``), as set here, so workers started elsewhere call the same endpoints."""
    names = {"WASON_SHARED"}
    for cell in cells:
        if cell.model is None:
            continue
        provider = parse_spec(cell.model)[0].upper()
        names |= {f"{provider}_API_KEY", f"{provider}_BASE_URL"}
    return {n: os.environ[n] for n in sorted(names) if os.environ.get(n)}


HOW_TO_START = "start one with `ray start --head`, or give its address: --ray HOST:6379"


def _check_reachable(address: str) -> None:
    """Fail at once, in one line, when nothing listens at a ``HOST:PORT`` address (Ray itself would keep trying
    to reach it for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or "://" in address or not port.isdigit():
        return  # auto, local, a ray:// client address: Ray's own check answers quickly
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as exc:
        raise SweepError(
            f"cannot reach a Ray cluster at {address!r}: {exc.strerror or exc} ({HOW_TO_START})"
        ) from None


def _connect(address: str, env: dict[str, str]) -> Any:
    try:
        import ray
    except ImportError:
        raise SweepError("--ray needs Ray on this machine: pip install 'wason[ray]'") from None
    _check_reachable(address)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage report sent from a measurement run
    runtime_env = {"env_vars": env} if env else None
    try:
        ray.init(
            address=address,
            runtime_env=runtime_env,
            logging_level=logging.WARNING,
            log_to_driver=False,
            include_dashboard=False if address == "local" else None,
        )
    except (ConnectionError, RuntimeError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise SweepError(f"cannot reach a Ray cluster at {address!r}: {first} ({HOW_TO_START})") from None
    return ray


def run_sweep_ray(
    store: Store,
    sweep: Sweep,
    *,
    address: str,
    console: Console | None = None,
    quiet: bool = False,
) -> dict[str, CellOutcome]:
    """Run the sweep's unfinished cells as Ray tasks on the cluster at ``address`` (``auto``: the one this machine
    belongs to, or ``$RAY_ADDRESS``; ``local``: a cluster started for this sweep alone), with progress over
    cells; returns the outcome of each cell run now.

    Raises:
        SweepError: the store is a SQLite file (the workers of a cluster cannot share it), Ray is not installed,
            or no cluster answers at ``address``.
    """
    if store.engine.dialect.name == "sqlite":
        raise SweepError(
            "--ray needs a store every node of the cluster reaches: a PostgreSQL URL, e.g. "
            "--db postgresql+psycopg://USER@HOST/wason (pip install 'wason[ray]')"
        )
    todo = todo_cells(store, sweep)
    draw_items(store, sweep, todo)  # a bad split or rule id is one line here, before any task starts
    if not todo:
        return {}
    # Ray prints its own notices (a worker died and its task is retried) on standard output; with --json that
    # must hold only the JSON, so they go to standard error
    with contextlib.redirect_stdout(sys.stderr) if quiet else contextlib.nullcontext():
        return _run_tasks(sweep, todo, address, store.connect_url, console=console, quiet=quiet)


def _run_tasks(
    sweep: Sweep, todo: list[Cell], address: str, url: str, *, console: Console | None, quiet: bool
) -> dict[str, CellOutcome]:
    outcomes: dict[str, CellOutcome] = {}
    ray = _connect(address, forwarded_env(todo))
    try:
        task = ray.remote(sweep_cell).options(
            num_cpus=sweep.ray.cpus_per_cell, max_retries=sweep.ray.max_retries, retry_exceptions=False
        )
        waiting = list(todo)
        running: dict[Any, Cell] = {}
        limit = sweep.ray.cells_at_once or len(todo)
        with cell_progress(console, quiet=quiet) as progress:
            bar = progress.add_task(
                "cells", total=len(sweep.cells), completed=len(sweep.cells) - len(todo), note=""
            )
            failed = 0
            while waiting or running:
                while waiting and len(running) < limit:
                    cell = waiting.pop(0)
                    running[task.remote(url, sweep.name, cell)] = cell
                done, _ = ray.wait(list(running), num_returns=1)
                for ref in done:
                    cell = running.pop(ref)
                    try:
                        outcome = CellOutcome.model_validate(ray.get(ref))
                    except ray.exceptions.RayError as exc:  # the task's retries ran out (its workers died)
                        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                        outcome = CellOutcome(key=cell.key, run=None, status="failed", reason=first)
                    outcomes[cell.key] = outcome
                    failed += outcome.status != "completed"
                    progress.update(bar, advance=1, note=f"{failed} not completed" if failed else "")
    finally:
        ray.shutdown()  # the cells still in flight stop with this driver; running the sweep again finishes them
    return outcomes
