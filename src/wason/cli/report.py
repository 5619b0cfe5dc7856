"""``wason report RUN... -o DIR``: the runs' web pages as static HTML files."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wason.cli.common import ParserContext, UserError, _db, _record_id

if TYPE_CHECKING:
    from rich.console import Console


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``report`` command and its flags."""
    rp = ctx.command(
        sub,
        "report",
        description="Write the web pages of the runs (their summaries, baselines, plots, every episode's "
        "transcript and model calls, and a comparison when several runs of one family are given) as static "
        "HTML files into DIR, with the assets they use: open DIR/index.html from disk, or publish DIR. "
        "See docs/web.md.",
    )
    rp.add_argument("runs", type=_record_id("run"), nargs="+", metavar="RUN")
    rp.add_argument(
        "-o", "--output", required=True, metavar="DIR", help="the folder to write (made if missing)"
    )


def run(args: argparse.Namespace, console: Console) -> int:
    from wason.server.web.report import write_report
    from wason.store import Store

    store = Store(_db(args))
    for run_id in args.runs:
        store.get_run(run_id)  # an unknown run is one line, before anything is written
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise UserError(f"-o {out}: not a folder")
    written = write_report(store, args.runs, out)
    print(f"wrote {len(written)} files; open {out / 'index.html'}")
    return 0
