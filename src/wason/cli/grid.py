"""``wason grid RUN...``: one table across games, a row per player, a column per game and level."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from wason.cli.common import ParserContext, _as_json, _db, _record_id

if TYPE_CHECKING:
    from rich.console import Console


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``grid`` command and its flags."""
    gr = ctx.command(
        sub,
        "grid",
        json=True,
        description="One table of runs of any games: a row per player (model, solver, human), a column per "
        "game and level, each cell the win rate with its 95%% Wilson interval (the layout of the "
        "guess-the-rule paper's Table 2). Runs of one player and column are pooled; each run's finished "
        "solver baseline is added as the solver's row.",
    )
    gr.add_argument("runs", type=_record_id("run"), nargs="+", metavar="RUN")
    gr.add_argument("--no-baselines", action="store_true", help="leave the runs' solver baselines out")


def run(args: argparse.Namespace, console: Console) -> int:
    from wason.engine import baselines_of
    from wason.report.grid import grid_json, grid_table
    from wason.store import Store

    store = Store(_db(args))
    run_ids: list[int] = []
    for run_id in args.runs:
        store.get_run(run_id)  # an unknown run is one line before anything is printed
        extra = [] if args.no_baselines else baselines_of(store, run_id, completed_only=True)
        run_ids += [r for r in (run_id, *extra) if r not in run_ids]
    if _as_json(args):
        print(json.dumps(grid_json(store, run_ids), indent=2))
    else:
        console.print(grid_table(store, run_ids))
    return 0
