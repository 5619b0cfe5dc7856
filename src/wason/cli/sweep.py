"""``wason sweep SWEEP.toml``: every cell of a sweep file, here or on a Ray cluster."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from wason.cli import COMMANDS
from wason.cli.common import ParserContext, _as_json, _db

if TYPE_CHECKING:
    from rich.console import Console


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``sweep`` command and its flags."""
    store_opts = ctx.store_opts
    json_opt = ctx.json_opt
    sw = sub.add_parser(
        "sweep",
        parents=[store_opts, json_opt],
        help=COMMANDS["sweep"].help,
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
    from wason.engine.sweep import sweep_command

    return sweep_command(args.file, db=_db(args), ray=args.ray, console=console, as_json=_as_json(args))
