"""``wason audit NAME``: the reward-integrity table of a family's text environment (docs/training.md)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from wason.cli import COMMANDS, _Parser
from wason.cli.common import ParserContext, UserError, _given, _reasons, add_config_flags
from wason.core import registry

if TYPE_CHECKING:
    from rich.console import Console


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``audit`` command: one family's reward audit, a line per check."""
    p = sub.add_parser(
        "audit",
        help=COMMANDS["audit"].help,
        description="Play a family's text environment with the players a hole in its reward would pay (the "
        "solver, a format-breaker, the prompt's own examples, degenerate players, known hacks) and look for the "
        "hidden item in what a client reads: a line per check; exit 1 when one fails.",
    )
    fams = p.add_subparsers(dest="family", metavar="NAME", parser_class=_Parser)
    ctx.add_unloaded(fams, lambda card: card.summary)  # choices without their flags
    for fam in ctx.families:
        from wason.env.audit import MAX_AUDIT_GAMES  # gymnasium and numpy: only for the family named

        fp = fams.add_parser(fam.name, help=fam.summary, description=f"{fam.title}: the reward audit")
        add_config_flags(fp, fam.config_type, play=False)
        fp.add_argument(
            "--games",
            type=int,
            default=10,
            metavar="N",
            help=f"games each player plays (default 10, at most {MAX_AUDIT_GAMES})",
        )
        fp.add_argument(
            "--first-seed", type=int, default=0, metavar="S", help="game i is the item seed S + i draws"
        )


def run(args: argparse.Namespace, console: Console) -> int:
    import asyncio

    from wason.env.audit import audit, failed

    if args.family is None:
        raise UserError("name a family: wason audit NAME")
    fam = registry.get(args.family)
    try:
        config = _given(args, fam.config_type, play=False)
        checks = asyncio.run(audit(fam.name, config, games=args.games, seed=args.first_seed))
    except ValueError as exc:  # a configuration the family refuses, or a bound
        raise UserError(" ".join(_reasons(exc).split())) from None
    for check in checks:
        console.print(check.line(), markup=False, highlight=False)
    bad = failed(checks)
    skipped = sum(c.status == "skip" for c in checks)
    passed = len(checks) - len(bad) - skipped
    verdict = f"{len(bad)} of {len(checks)} checks failed" if bad else f"{passed} checks passed"
    console.print(
        f"{fam.name}: {verdict}" + (f", {skipped} skipped" if skipped else ""), markup=False, highlight=False
    )
    return 1 if bad else 0
