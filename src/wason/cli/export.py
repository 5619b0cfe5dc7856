"""``wason export RUN... --to DIR``: runs, episodes, turns and model calls as tidy tables."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wason.cli.common import ParserContext, UserError, _db, _record_id

if TYPE_CHECKING:  # imported where used: building the parser imports no store (issue 53)
    from rich.console import Console


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``export`` command and its flags."""
    ex = ctx.command(
        sub,
        "export",
        description="Write the runs given, their episodes, turns and model calls as four tables into DIR "
        "(runs, episodes, turns, calls), one row per record, columns documented in docs/export.md. Parquet "
        "needs `pip install 'wason[data]'`. `--format inspect` writes one Inspect log (.eval) per run instead "
        "(samples = episodes), for `inspect view`; it needs `pip install 'wason[inspect]'`.",
    )
    ex.add_argument("runs", type=_record_id("run"), nargs="+", metavar="RUN")
    ex.add_argument("--to", required=True, metavar="DIR", help="the folder to write (made if missing)")
    ex.add_argument(
        "--format",
        choices=["csv", "jsonl", "parquet", "inspect"],
        default="csv",
        help="file format (default csv); inspect: one Inspect log per run",
    )


def run(args: argparse.Namespace, console: Console) -> int:
    from wason.report.export import export_runs

    # a missing extra is one line saying what to install, before the store is opened
    if args.format == "inspect":
        from wason.report.inspect_log import require_inspect

        require_inspect()
    elif args.format == "parquet":
        from wason.report.export import require_pyarrow

        require_pyarrow()
    from wason.store import Store

    store = Store(_db(args))
    for run_id in args.runs:
        store.get_run(run_id)  # an unknown run is one line, before anything is written
    out = Path(args.to)
    if out.exists() and not out.is_dir():
        raise UserError(f"--to {out}: not a folder")
    try:
        # made here, so that a folder that cannot be made (/proc/..., no permission) is one line before any work
        out.mkdir(parents=True, exist_ok=True)
        if args.format == "inspect":
            from wason.report.inspect_log import export_inspect

            written = export_inspect(store, args.runs, out)
        else:
            written = export_runs(store, args.runs, out, args.format)
    except OSError as exc:
        where = exc.filename if exc.filename is not None else out
        raise UserError(f"--to {out}: cannot write {where} ({exc.strerror or exc})") from None
    for path in written:
        print(path)
    return 0
