"""``wason play NAME`` (or ``--session ID``): play a game yourself at the terminal."""

from __future__ import annotations

import argparse
import contextlib
import getpass
import random
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from wason.cli import _Parser
from wason.cli.common import (
    ParserContext,
    UserError,
    _db,
    _given,
    _record_id,
    _undecodable,
    add_config_flags,
)
from wason.core import registry

if TYPE_CHECKING:  # imported where used: building the parser imports no store, no game machinery (issue 53)
    from rich.console import Console

    from wason.core.family import Family, Item, RunSettings
    from wason.store import Store


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``play`` command, with a choice per family (its flags when the command line names it)."""
    pl = ctx.command(
        sub,
        "play",
        description="Play a game yourself: `wason play NAME [flags]`, or go on with a session that was "
        "interrupted: `wason play --session ID`.",
    )
    pl.add_argument("--session", type=_record_id("session"), metavar="ID", help="go on with a stored game")
    pl_sub = pl.add_subparsers(dest="family", metavar="NAME", parser_class=_Parser)
    ctx.add_unloaded(
        pl_sub, lambda card: f"{card.title}: {card.summary}" if card.playable else None
    )  # choices without their flags
    for fam in ctx.families:  # one that is not for people is a choice too: `wason play` says so in a line
        shown = f"{fam.title}: {fam.summary}" if fam.playable else f"{fam.title}: not played by a person"
        fp = pl_sub.add_parser(fam.name, parents=[ctx.store_opts], help=shown)
        add_config_flags(fp, fam.config_type, play=True)
        fp.add_argument("--rule", type=int, metavar="ID", help="the item (rule) id to play")
        fp.add_argument("--name", help="your name: you play as human:NAME (asked once when not given)")
        fp.add_argument(
            "--seed", type=int, help="draw the item with this seed (default: a random seed, printed)"
        )


def run(args: argparse.Namespace, console: Console) -> int:
    return _play(args, console)


def _pick(family: Family[Any], args: argparse.Namespace, items: list[Item], where: str) -> tuple[Item, str]:
    """The item to play: ``--rule ID``, or one drawn with ``--seed`` (a random seed, shown, by default)."""
    if args.rule is None:
        seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
        return random.Random(seed).choice(items), f"drawn with --seed {seed}"
    if args.seed is not None:
        raise UserError("give either --rule or --seed, not both")
    matches = [it for it in items if family.item_id(it[1]) == args.rule]
    if not matches:
        ids = ", ".join(str(family.item_id(it[1])) for it in items)
        raise UserError(f"the {where} has no rule {args.rule} (its rules: {ids})")
    return matches[0], f"rule {args.rule}"


def _play(args: argparse.Namespace, console: Console) -> int:
    import asyncio

    from wason.core import session
    from wason.core.records import HUMAN
    from wason.store import Store

    store = Store(_db(args))
    write: Callable[[str], None] = lambda s: console.print(s, markup=False, highlight=False)  # noqa: E731
    if args.session is not None:
        if args.family is not None:
            raise UserError("--session ID goes on with a stored game; leave out the family")
        return asyncio.run(_play_session(store, args.session, write, resumed=True))
    if args.family is None:
        raise UserError(f"name a game ({', '.join(registry.names())}) or --session ID")
    family = registry.get(args.family)
    if not family.playable:
        cards = [(n, registry.card(n)) for n in registry.names()]
        games = ", ".join(n for n, card in cards if card is not None and card.playable)
        raise UserError(
            f"{family.title} is not played by a person (its games are for models: wason eval {family.name}); "
            f"games to play: {games}"
        )
    player = HUMAN + _person(args.name)
    config = family.config_type(**_given(args, family.config_type, play=True), player=player)
    config = family.prepare(config, store)  # evidence from another run, as `wason eval` takes it
    items = family.items(config)
    (key, item), origin = _pick(family, args, items, _where(config))
    session_id = session.start(store, family.name, config, item=(key, item), player=player)
    run_id = store.get_episode(session_id).run_id
    write(f"{family.intro(config, item, origin)} Run {run_id} in {store.url}.")
    return asyncio.run(_play_session(store, session_id, write, resumed=False))


def _person(given: str | None) -> str:
    """Who plays at the terminal, as on the web: ``--name``, else asked once (the login name on Enter), or the
    login name when no one is at a terminal to ask (input piped in)."""
    from wason.core.records import person_name

    login = getpass.getuser()
    if given is None and sys.stdin.isatty():
        try:
            given = input(f"Your name [{login}]: ").strip() or login
        except EOFError:
            raise UserError("no name given (type one, or pass --name NAME)") from None
    if given is None:
        with contextlib.suppress(ValueError):
            return person_name(login)
        return "player"  # a login name a person's name cannot hold: the player is still a person
    try:
        return person_name(given)
    except ValueError as exc:
        raise UserError(f"--name: {exc}") from None


def _where(config: RunSettings) -> str:
    split = getattr(config, "split", None)
    if split == "file":
        return f"rules file {getattr(config, 'rules_file', '')}"
    return f"{split} split" if split else "game"


async def _play_session(store: Store, session_id: int, write: Callable[[str], None], *, resumed: bool) -> int:
    from wason.core import session
    from wason.core.family import PlayIO
    from wason.core.game import PlayerLeft

    family, config, episode, live = await session.load(store, session_id)
    if live.done or episode.status != "running":
        raise UserError(f"session {session_id} is {episode.status}; there is nothing left to play")
    player = family.human(config, episode.item, PlayIO(_typed_lines(write), write, lambda: live.turn))
    if player is None:
        raise UserError(f"{family.title} cannot be played at the terminal")
    if resumed:
        write(f"Going on with session {session_id} ({family.title}) after {live.turn} turn(s).")
    try:
        while not live.done:
            await live.play_turn(player)
    except PlayerLeft as exc:
        live.fail(f"{exc.what}: {exc}")
        session.close(store, session_id)
        write(f"Game over: {exc.what}: {exc}")
        for line in family.ending(episode.item, None):
            write(line)
        return 0
    session.close(store, session_id)
    outcome = live.outcome()
    lines = family.ending(episode.item, outcome.metrics if outcome else None)
    if (
        not lines and outcome is not None
    ):  # the family says nothing after a game: its last answer, and who won
        lines = [family.terminal_text(config, episode.item, live.observation, live.turn).strip()]
        lines.append("You won." if outcome.success else "Game over: not won.")
    for line in lines:
        write(line)
    return 0


def _typed_lines(write: Callable[[str], None]) -> Callable[[str], str]:
    """``input``, except that a line that is not UTF-8 text is not played: one line says so and the next line
    is read (the game loses nothing, and the lines after it are read as usual)."""

    def read(prompt: str) -> str:
        while True:
            line = input(prompt)
            held = _undecodable(line)
            if held is None:
                return line
            write(f"That line is not UTF-8 text (it holds {held}); nothing was played. Type it again.")

    return read
