"""``wason trajectories``: expert games as chat JSON lines for supervised warm starts (docs/training.md)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wason.cli import _Parser
from wason.cli.common import ParserContext, UserError, _db, _given, _reasons, _record_id, add_config_flags
from wason.core import registry

if TYPE_CHECKING:
    from rich.console import Console


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``trajectories`` command: a family's solver games, or the model episodes of stored runs."""
    out = _Parser(add_help=False)
    out.add_argument("--to", required=True, metavar="FILE", help="the JSON lines file to write (replaced)")
    p = ctx.command(
        sub,
        "trajectories",
        description="Write games as chat JSON lines, one trajectory a line in exactly the messages a model sees: "
        "`wason trajectories NAME --games N --to FILE` plays the family's solver (its moves in the protocol's text), "
        "`wason trajectories --from-runs RUN... --to FILE` replays stored model episodes.",
    )
    p.add_argument(
        "--from-runs", nargs="+", type=_record_id("run"), metavar="RUN", help="runs played by a model"
    )
    p.add_argument("--success-only", action="store_true", help="with --from-runs: the won episodes only")
    p.add_argument("--to", metavar="FILE", help="the JSON lines file to write (replaced)")
    fams = p.add_subparsers(dest="family", metavar="NAME", parser_class=_Parser)
    ctx.add_unloaded(fams, lambda card: card.summary)  # choices without their flags
    for fam in ctx.families:
        fp = fams.add_parser(
            fam.name, parents=[out], help=fam.summary, description=f"{fam.title}: solver games"
        )
        add_config_flags(fp, fam.config_type, play=False)
        fp.add_argument(
            "--player", choices=["solver"], default="solver", help="who plays: the reference solver"
        )
        # --n and --seed are a family's own (how many items to generate, and from which seed)
        fp.add_argument("--games", type=int, default=10, metavar="N", help="how many games (default 10)")
        fp.add_argument(
            "--first-seed",
            type=int,
            default=0,
            metavar="S",
            help="game i is the item seed S + i draws (default 0)",
        )


def _write(path: str, trajectories: list[dict[str, Any]]) -> None:
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with target.open("w", encoding="utf-8") as f:
            for t in trajectories:
                f.write(json.dumps(t, ensure_ascii=False) + "\n")
    except OSError as exc:
        raise UserError(f"--to {path}: cannot write it ({exc.strerror or exc})") from None


def run(args: argparse.Namespace, console: Console) -> int:
    import asyncio

    from wason.env.trajectories import TrajectoryError, run_trajectories, solver_trajectories

    try:
        if args.family is not None:
            if args.from_runs:
                raise UserError("give a family (its solver's games) or --from-runs RUN..., not both")
            fam = registry.get(args.family)
            config = _given(args, fam.config_type, play=False)
            done = asyncio.run(solver_trajectories(fam.name, config, n=args.games, seed=args.first_seed))
            where = f"the {fam.name} solver, seeds {args.first_seed}-{args.first_seed + args.games - 1}"
        elif args.from_runs:
            if not args.to:
                raise UserError("--to FILE: where to write the trajectories")
            from wason.store import Store

            store = Store(_db(args))
            done = asyncio.run(run_trajectories(store, args.from_runs, success_only=args.success_only))
            where = "runs " + ", ".join(map(str, args.from_runs))
        else:
            raise UserError(
                "give a family (`wason trajectories NAME --games N --to FILE`) or --from-runs RUN..."
            )
    except (TrajectoryError, KeyError) as exc:
        raise UserError(str(exc).strip("'\"")) from None
    except ValueError as exc:  # a configuration the family refuses
        raise UserError(" ".join(_reasons(exc).split())) from None
    _write(args.to, done)
    won = sum(bool(t["success"]) for t in done)
    console.print(
        f"{len(done)} trajectories ({won} won) from {where} written to {args.to}",
        markup=False,
        highlight=False,
    )
    return 0
