"""``wason runs``: list the runs of the store (filtered), or delete runs."""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Any

from wason.cli.common import ParserContext, _as_json, _db, _record_id

if TYPE_CHECKING:
    from rich.console import Console


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``runs`` command and its flags."""
    rn = ctx.command(
        sub,
        "runs",
        json=True,
        description="List the runs in the store, newest last, with their duration, tokens spent and key "
        "settings; filters combine. `wason runs --delete RUN...` deletes runs with their episodes, turns and "
        "model calls (and the solver baselines made for them).",
    )
    rn.add_argument("--family", metavar="NAME", help="only runs of this family")
    rn.add_argument("--model", metavar="TEXT", help="only runs whose model (or player) contains TEXT")
    rn.add_argument(
        "--status", metavar="STATUS", help="only runs with this status (running, completed, interrupted, ...)"
    )
    rn.add_argument("--since", metavar="DATE", help="only runs created on or after DATE (YYYY-MM-DD[THH:MM])")
    rn.add_argument("--until", metavar="DATE", help="only runs created before DATE (YYYY-MM-DD[THH:MM])")
    rn.add_argument(
        "--delete",
        type=_record_id("run"),
        nargs="+",
        metavar="RUN",
        help="delete these runs with their episodes, turns and model calls (their cached replies go too) and the "
        "solver baselines made for them",
    )
    rn.add_argument("--yes", action="store_true", help="delete without asking")


def run(args: argparse.Namespace, console: Console) -> int:
    from wason.report.runs import RunFilter, delete_command, runs_json, runs_table
    from wason.store import Store

    store = Store(_db(args))
    if args.delete:
        return delete_command(store, args.delete, yes=args.yes, write=print)
    wanted = RunFilter.parse(
        family=args.family, model=args.model, status=args.status, since=args.since, until=args.until
    )
    if _as_json(args):
        print(json.dumps(runs_json(store, wanted), indent=2))
    else:
        console.print(runs_table(store, wanted))
    return 0
