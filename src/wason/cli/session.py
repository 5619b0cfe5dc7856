"""``wason session start|step|view|summary|moves|actions``: any game one step per command, JSON in and out."""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wason.cli import COMMANDS, _Parser
from wason.cli.common import (
    ParserContext,
    UserError,
    _db,
    _given,
    _json_text,
    _record_id,
    _undecodable,
    add_config_flags,
)
from wason.cli.play import _pick, _where
from wason.core import registry

if TYPE_CHECKING:  # imported where used: building the parser imports no store, no sessions (issue 53)
    from rich.console import Console

    from wason.store import Store


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """``wason session start|step|view|summary``, with a choice of ``start`` per family."""
    st_sub = _session_parsers(sub, ctx.store_opts, ctx.names)
    ctx.add_unloaded(st_sub, lambda card: card.summary)  # choices without their flags
    for fam in ctx.families:
        fs = st_sub.add_parser(fam.name, parents=[ctx.store_opts], help=fam.summary)
        add_config_flags(fs, fam.config_type, play=True)
        fs.add_argument("--index", type=int, help="the configuration's item with this index (0-based)")
        fs.add_argument("--rule", type=int, metavar="ID", help="the item (rule) id to play")
        fs.add_argument("--seed", type=int, help="draw the item with this seed (default 0)")


def run(args: argparse.Namespace, console: Console) -> int:
    return _session(args)


def _session_parsers(sub: Any, store_opts: argparse.ArgumentParser, names: list[str]) -> Any:
    """``wason session start|step|view|summary``; returns the choices of ``start`` (one per family)."""
    se = sub.add_parser(
        "session",
        help=COMMANDS["session"].help,
    )
    se_sub = se.add_subparsers(dest="session_command", required=True, parser_class=_Parser)
    st = se_sub.add_parser("start", parents=[store_opts], help="start a game; prints its session id and view")
    st_sub = st.add_subparsers(dest="family", metavar="NAME", required=True, parser_class=_Parser)
    sp = se_sub.add_parser("step", parents=[store_opts], help="apply one action to a session")
    sp.add_argument("session", type=_record_id("session"))
    sp.add_argument(
        "action",
        nargs="?",
        help="the action as JSON; `wason session moves ID` lists the moves open now, `wason session actions NAME` "
        "every action of a game with an example",
    )
    sp.add_argument("--text", help="a reply as a model would write it, read by the family's protocol")
    mv = se_sub.add_parser(
        "moves", parents=[store_opts], help="the moves a game takes and the action JSON of each"
    )
    mv.add_argument(
        "target",
        metavar="SESSION|NAME",
        help="a session id (the moves open now), or a game's name (as `actions`)",
    )
    ac = se_sub.add_parser(
        "actions",
        help="every action of a game: its JSON schema and an example `wason session step` accepts",
        description="Every kind of action a game's `wason session step` takes: its JSON with each field's type "
        "and one example, found by playing a game of item 0 of the default configuration in a scratch store "
        "(the reference solver's moves, then giving up) and sending each example as `wason session step` does.",
    )
    ac.add_argument("family", metavar="NAME", help=f"the game's name ({', '.join(names)})")
    for name, text in (("view", "what the player sees now"), ("summary", "the result (the rule once over)")):
        v = se_sub.add_parser(name, parents=[store_opts], help=text)
        v.add_argument("session", type=_record_id("session"))
    return st_sub


def _actions(family: str) -> list[str]:
    """``wason session actions NAME``: its examples are found in games played in a scratch store, never the
    user's."""
    if family not in registry.names():
        raise UserError(f"{family!r} is not a game ({', '.join(registry.names())})")
    import asyncio

    from wason.core import session
    from wason.store import Store

    with tempfile.TemporaryDirectory(prefix="wason-actions-") as scratch:
        store = Store(f"sqlite:///{Path(scratch) / 'actions.db'}")
        try:
            examples = asyncio.run(session.action_examples(store, family))
        finally:
            store.close()
    return session.describe_actions(family, examples)


def _session(args: argparse.Namespace) -> int:
    if args.session_command == "actions" or (
        args.session_command == "moves" and not args.target.isdigit() and args.target in registry.names()
    ):
        print("\n".join(_actions(args.family if args.session_command == "actions" else args.target)))
        return 0
    import asyncio

    from wason.core import session
    from wason.store import Store

    store = Store(_db(args))
    out: dict[str, Any]
    if args.session_command == "start":
        family = registry.get(args.family)
        config = family.config_type(**_given(args, family.config_type, play=True), player="session")
        if sum(x is not None for x in (args.index, args.rule, args.seed)) > 1:
            raise UserError("give one of --rule, --index and --seed")
        item = None
        if args.rule is not None:
            item, _ = _pick(family, args, family.items(config), _where(config))
        sid = session.start(store, family.name, config, item=item, index=args.index, seed=args.seed or 0)
        out = asyncio.run(session.view(store, sid))
    elif args.session_command == "moves":
        print("\n".join(asyncio.run(session.moves(store, args.target))))
        return 0
    elif args.session_command == "step":
        out = asyncio.run(_step(store, args))
    elif args.session_command == "view":
        out = asyncio.run(session.view(store, args.session))
    else:
        out = asyncio.run(session.summary(store, args.session))
    print(json.dumps(out, indent=2, default=str))
    return 0


async def _step(store: Store, args: argparse.Namespace) -> dict[str, Any]:
    from wason.core import session

    if (args.action is None) == (args.text is None):
        raise UserError("give the action as JSON or --text REPLY (one of them)")
    if args.text is not None:
        if (held := _undecodable(args.text)) is not None:
            raise UserError(f"--text is not UTF-8 text (it holds {held}); nothing was played")
        return await session.step(store, args.session, text=args.text)
    action = _json_text(args.action, "the action")
    if not isinstance(action, dict):
        raise UserError('the action is a JSON object, e.g. {"type": "FinalGuess", "expression": "..."}')
    if (held := _undecodable(json.dumps(action, ensure_ascii=False))) is not None:
        raise UserError(f"the action is not UTF-8 text (it holds {held}); nothing was played")
    return await session.step(store, args.session, action)
