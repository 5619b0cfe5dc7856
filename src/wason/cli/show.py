"""``wason show RUN...`` (and ``wason compare RUN...``): a run's results, several runs in one table, or one
transcript."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wason.cli.common import ParserContext, UserError, _as_json, _db, _record_id, _report, _warn_truncated

if TYPE_CHECKING:  # imported where used: building the parser imports no store (issue 53)
    from rich.console import Console

    from wason.store import Store


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``show`` command and its flags."""
    sh = ctx.command(
        sub,
        "show",
        json=True,
        description="`wason show RUN` prints a run's tables (with its solver baseline); `wason show RUN RUN...` "
        "(or --format) prints one table of runs of one family, a row per model, baseline and person, with "
        "intervals and paired comparisons; `--episode N` prints a transcript.",
    )
    sh.add_argument("runs", type=_record_id("run"), nargs="+", metavar="RUN")
    sh.add_argument("--episode", type=int, metavar="N", help="print episode N's transcript (one run)")
    sh.add_argument("--full", action="store_true", help="with --episode: the whole system prompt, not folded")
    _add_table_flags(sh)


def add_compare_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``compare`` command (``show RUN RUN...``) and its flags."""
    cp = ctx.command(
        sub,
        "compare",
        json=True,
    )
    cp.add_argument("runs", type=_record_id("run"), nargs="+", metavar="RUN")
    _add_table_flags(cp)


def _add_table_flags(p: argparse.ArgumentParser) -> None:
    """The flags ``show`` and ``compare`` share."""
    p.add_argument(
        "--format",
        choices=["table", "markdown", "latex", "csv"],
        help="print the comparison table in this form (for papers); default: the terminal's table",
    )
    p.add_argument("--plots", metavar="DIR", help="also write the runs' figures into DIR (PNG and SVG)")
    p.add_argument("--no-baselines", action="store_true", help="leave the runs' solver baselines out")
    p.add_argument(
        "--novelty",
        action="store_true",
        help="show how novel each run's messages are instead (average and average minimum novelty, novelty "
        "by turn with --plots), embedded offline with all-MiniLM-L6-v2 (the novelty extra); "
        "the vectors are kept in the store",
    )


def run(args: argparse.Namespace, console: Console) -> int:
    from wason.engine import baselines_of
    from wason.report.compare import comparison_runs, print_comparison
    from wason.report.tables import episode_json, transcript
    from wason.store import Store

    store = Store(_db(args))
    runs: list[int] = list(dict.fromkeys(args.runs))
    for run_id in runs:
        store.get_run(run_id)  # an unknown run is one line before anything is printed
    episode = getattr(args, "episode", None)
    if episode is not None:
        if len(runs) > 1:
            raise UserError("--episode N shows one run's episode; give one run")
        if _as_json(args):
            print(json.dumps(episode_json(store, runs[0], episode), indent=2, default=str))
        else:
            console.print(transcript(store, runs[0], episode, full=getattr(args, "full", False)))
        return 0
    if getattr(args, "full", False):
        raise UserError("--full goes with --episode N")
    with_baselines = not args.no_baselines
    if getattr(args, "novelty", False):
        return _show_novelty(store, comparison_runs(store, runs, baselines=with_baselines), args, console)
    if args.plots:
        from wason.report.plots import write_plots

        shown = comparison_runs(store, runs, baselines=with_baselines)
        written = write_plots(store, shown, Path(args.plots))
        # on stderr: stdout is the table, which may be JSON, CSV or markdown piped into a file
        print(f"wason: wrote {len(written)} figure files into {args.plots}", file=sys.stderr)
        for path in written:
            print(f"  {path}", file=sys.stderr)
    for run_id in runs:
        for unfinished in set(baselines_of(store, run_id)) - set(
            baselines_of(store, run_id, completed_only=True)
        ):
            # an interrupted baseline is not a result: say how to finish it instead of printing its part
            print(
                f"wason: note: the solver baseline (run {unfinished}) is not finished; "
                f"`wason eval --resume {run_id}` finishes it",
                file=sys.stderr,
            )
    _warn_truncated(store, runs)
    if len(runs) == 1 and args.format is None and args.command == "show":
        extra = baselines_of(store, runs[0], completed_only=True) if with_baselines else []
        return _report(store, [runs[0], *extra], console, as_json=_as_json(args))
    return print_comparison(
        store,
        runs,
        fmt=args.format or "table",
        as_json=_as_json(args),
        baselines=with_baselines,
        console=console,
    )


def _show_novelty(store: Store, runs: list[int], args: argparse.Namespace, console: Console) -> int:
    from rich.table import Table

    from wason.metrics.embedding import EmbeddingUnavailable
    from wason.report.compare import latex_escape
    from wason.report.novelty import novelty_figure, novelty_report, novelty_rows

    try:
        report = novelty_report(store, runs, store)
    except EmbeddingUnavailable as exc:
        raise UserError(f"--novelty: {exc}") from None
    print(f"wason: embedded {report.computed} new messages ({report.model})", file=sys.stderr)
    if args.plots:
        from wason.report.plots import draw, has_data

        figure = novelty_figure(report)
        Path(args.plots).mkdir(parents=True, exist_ok=True)
        written = draw(figure, Path(args.plots)) if has_data(figure) else []
        print(f"wason: wrote {len(written)} figure files into {args.plots}", file=sys.stderr)
    if _as_json(args):
        print(report.model_dump_json(indent=2))
        return 0
    headers, rows = novelty_rows(report)
    fmt = args.format or "table"
    if fmt == "markdown":
        lines = ["| " + " | ".join(headers) + " |", "|:---|" + "---:|" * (len(headers) - 1)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
        console.out("\n".join(lines), highlight=False)
    elif fmt == "latex":
        lines = [
            f"\\begin{{tabular}}{{l{'r' * (len(headers) - 1)}}}",
            r"\toprule",
            " & ".join(headers) + r" \\",
        ]
        lines += [r"\midrule", *(" & ".join(latex_escape(c) for c in row) + r" \\" for row in rows)]
        console.out("\n".join([*lines, r"\bottomrule", r"\end{tabular}"]), highlight=False)
    elif fmt == "csv":
        import csv
        import io

        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(
            ["run", "label", "average", "average low", "average high", "average min", "episodes", "messages"]
        )
        for r in report.runs:
            low, high = r.average.interval or (None, None)
            writer.writerow(
                [r.run, r.label, r.average.value, low, high, r.average_min.value, r.episodes, r.messages]
            )
        console.out(out.getvalue(), highlight=False, end="")
    else:
        table = Table(title=f"Message novelty ({report.model}): mean [95% t interval]")
        for i, h in enumerate(headers):
            table.add_column(h, justify="left" if i == 0 else "right", overflow="fold")
        for row in rows:
            table.add_row(*row)
        console.print(table)
        console.print(
            "novelty: 1 - cosine similarity of a message to the closest earlier message of its episode (a reply as "
            "written; a solver's action as the shortest reply that makes it); Avg. Min.: each episode's least novel "
            "message, averaged",
            markup=False,
            highlight=False,
        )
    return 0
