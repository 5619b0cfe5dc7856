"""``wason sweep SWEEP.toml``: every cell of a sweep file, here or on a Ray cluster."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from wason.cli.common import ParserContext, _as_json, _db

if TYPE_CHECKING:
    from rich.console import Console


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``sweep`` command and its flags."""
    sw = ctx.command(
        sub,
        "sweep",
        json=True,
        description="Run every cell of a sweep file (families x their settings x models x generation settings) "
        "as one run per cell, then print a row per cell; run it again to finish what did not complete. "
        "The file format and running on a cluster: docs/scale.md.",
    )
    sw.add_argument("file", nargs="?", metavar="SWEEP.toml", help="the sweep file")
    sw.add_argument(
        "--ray",
        nargs="?",
        const="auto",
        metavar="ADDRESS",
        help="run each cell as a Ray task on the cluster at ADDRESS (default: this machine's cluster or "
        "$RAY_ADDRESS); the store must be PostgreSQL (--db postgresql+psycopg://...)",
    )


def run(args: argparse.Namespace, console: Console) -> int:
    return sweep_command(args.file, db=_db(args), ray=args.ray, console=console, as_json=_as_json(args))


def sweep_command(
    path: str | None,
    *,
    db: str | None,
    ray: str | None,
    console: Console,
    as_json: bool = False,
) -> int:
    """``wason sweep SWEEP.toml [--ray [ADDRESS]]``: run the unfinished cells, print the summary of all of them;
    returns the exit status (1 when a cell did not complete, 130 when interrupted)."""
    from wason.engine.sweep import SweepError, cell_rows, load_sweep, run_sweep, sweep_table, todo_cells
    from wason.engine.sweep_ray import run_sweep_ray
    from wason.store import Store

    if path is None and ray is not None and ray.endswith(".toml"):
        path, ray = ray, "auto"  # `wason sweep --ray SWEEP.toml`: the file, not a cluster's address
    if path is None:
        raise SweepError("name the sweep file: wason sweep SWEEP.toml (its format: docs/scale.md)")
    sweep = load_sweep(path)
    store = Store(db)
    try:
        if not as_json:
            for note in sweep.notes:
                console.print(f"note: {note}", markup=False, highlight=False)
            where = "on Ray" if ray is not None else "in this process"
            n_todo = len(todo_cells(store, sweep))
            console.print(
                f"Sweep {sweep.name!r}: {len(sweep.cells)} cells, {n_todo} to run {where}; store {store.url}",
                markup=False,
                highlight=False,
            )
        try:
            if ray is not None:
                outcomes = run_sweep_ray(store, sweep, address=ray, console=console, quiet=as_json)
            else:
                outcomes = run_sweep(store, sweep, console=console, quiet=as_json)
        except KeyboardInterrupt:
            print(f"wason: interrupted; finish with `wason sweep {path}`", file=sys.stderr)
            return 130
        rows = cell_rows(store, sweep, outcomes)
        if as_json:
            print(json.dumps([r.model_dump(mode="json") for r in rows], indent=2))
        else:
            console.print(sweep_table(sweep, rows, store.url))
        left = [r for r in rows if r.status != "completed"]
        if left:
            print(
                f"wason: {len(left)} of {len(rows)} cells did not complete; run `wason sweep {path}` again to "
                "finish them",
                file=sys.stderr,
            )
            return 1
        return 0
    finally:
        store.close()
