"""``wason import LOG...``: Inspect logs of wason tasks into the store (docs/inspect.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from wason.cli.common import ParserContext, UserError, _db

if TYPE_CHECKING:  # imported where used: building the parser imports no store (issue 53)
    from rich.console import Console


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``import`` command and its flags."""
    p = ctx.command(
        sub,
        "import",
        description="Read Inspect logs (.eval or .json) of `inspect eval wason/NAME` into the store, one run "
        "per log, so that `wason show`, the paired tests and the viewer work on them; a log imported before "
        "gives its run again. Needs `pip install 'wason[inspect]'`.",
    )
    p.add_argument("logs", nargs="+", metavar="LOG", help="an Inspect log file")


def run(args: argparse.Namespace, console: Console) -> int:
    from wason.inspect.logs import import_logs
    from wason.report.inspect_log import require_inspect

    require_inspect()
    from wason.store import Store

    store = Store(_db(args))
    try:
        done = import_logs(store, args.logs)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    for d in done:
        said = "already in the store as" if d.again else "imported as"
        console.print(
            f"{d.path}: {said} run {d.run_id} ({d.task}, {d.player}, {d.episodes} episodes)",
            markup=False,
            highlight=False,
        )
    return 0
