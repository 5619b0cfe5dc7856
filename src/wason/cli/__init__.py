"""The ``wason`` command. Its family subcommands and their flags are derived from the registry: ``wason eval
NAME --help`` lists exactly that family's flags (from its configuration's fields) and the shared model flags.

One module per command (:mod:`wason.cli.eval`, :mod:`wason.cli.play`, ...), each with ``add_arguments(sub, ctx)``
and ``run(args, console)``; :data:`COMMANDS` lists them, and a family's own commands (``wason NAME ...``) come
from the family."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn

from wason.cli.version import version_line
from wason.core import registry
from wason.failures import ExternalFailure
from wason.redaction import redact

if TYPE_CHECKING:
    from rich.console import Console

    from wason.cli.common import ParserContext, UserError, add_config_flags, family_fields

_REEXPORTED = ("UserError", "add_config_flags", "family_fields")


def __getattr__(name: str) -> Any:
    # wason.cli.common (and with it pydantic and the family machinery) is imported on first use, so that
    # `wason --version` pays for none of it (issue 39)
    if name in _REEXPORTED:
        from wason.cli import common

        return getattr(common, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["COMMANDS", "Command", "UserError", "add_config_flags", "build_parser", "family_fields", "main"]


@dataclass(frozen=True)
class Command:
    """A ``wason`` command: how its parser is made (given the subparsers and the shared context), and how it
    runs (its exit status)."""

    add_arguments: Callable[[Any, ParserContext], None]
    run: Callable[[argparse.Namespace, Console], int]
    help: str  # its line in ``wason --help`` (the parser ``add_arguments`` makes uses this)


def _lazy(module: str, name: str) -> Callable[..., Any]:
    """``wason.cli.MODULE.NAME``, its module imported on first call: a command's imports (the store, the
    engine, the server) are paid only by the command that runs, not by ``wason --version`` (issue 39)."""

    def call(*args: Any) -> Any:
        return getattr(importlib.import_module(f"wason.cli.{module}"), name)(*args)

    call.__name__ = call.__qualname__ = name
    call.__module__ = f"wason.cli.{module}"
    return call


def _command(module: str, help: str, add: str = "add_arguments", *, flags: str | None = None) -> Command:
    return Command(_lazy(flags or module, add), _lazy(module, "run"), help)


COMMANDS: dict[str, Command] = {
    "eval": _command("eval", "run a benchmark and print its results table", flags="eval_flags"),
    "play": _command("play", "play a game yourself in the terminal"),
    "session": _command(
        "session",
        "play any game one step per command (JSON in, JSON out), e.g. from a script in another process",
    ),
    "new": _command("new", "write a package for a new task family (its pyproject, the family, its test)"),
    "sweep": _command("sweep", "run a grid of runs from a TOML file, here or on a Ray cluster"),
    "runs": _command("runs", "list runs (filter by family, model, status, date), or delete runs"),
    "export": _command(
        "export",
        "write runs, episodes, turns and model calls as tidy tables (CSV, JSON lines, Parquet) or Inspect logs",
    ),
    "import": _command(
        "import_", "read Inspect logs of wason tasks (inspect eval wason/NAME) into the store"
    ),
    "trajectories": _command(
        "trajectories", "write solver games or stored model episodes as chat JSON lines (expert trajectories)"
    ),
    "audit": _command(
        "audit", "the reward audit of a family's text environment: solver at the top, hacks and leaks at zero"
    ),
    "serve": _command(
        "serve", "serve the HTTP API (sessions of every game, the published guess-the-rule routes)"
    ),
    "grid": _command(
        "grid", "one table across games: a row per player, a column per game and level, win rates"
    ),
    "report": _command(
        "report", "write a static HTML report of runs (opens from disk, no server, no network)"
    ),
    "show": _command("show", "a run's results, several runs in one table, or one transcript"),
    # = show RUN RUN...
    "compare": _command(
        "show",
        "one table of runs of one family: a row per model, baseline and person (= show RUN RUN...)",
        "add_compare_arguments",
    ),
}
"""The built-in commands, in the order ``wason --help`` lists them (a family's own commands after ``session``)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One clear line instead of argparse's usage dump.
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


def _top_parser() -> tuple[_Parser, Any]:
    """The ``wason`` parser without its commands, and the subparsers they are added to."""
    parser = _Parser(prog="wason", description="Measure whether language models can do science.")
    parser.add_argument("--version", action="version", version=version_line())
    return parser, parser.add_subparsers(dest="command", required=True, parser_class=_Parser)


def _top_help() -> str:
    """What ``wason --help`` prints, from the commands' help lines and the families' cards alone (0.1 s, where
    building every command's parser imports the commands' modules and pydantic): the same text."""
    from wason.core import registry

    family_commands = registry.command_lines()
    for reason in registry.bad_cards().values():
        print(f"wason: warning: {reason}", file=sys.stderr)
    parser, sub = _top_parser()
    for name, command in COMMANDS.items():
        sub.add_parser(name, help=command.help)
        if name == "session":
            for family, text in family_commands.items():
                sub.add_parser(family, help=text)
    return parser.format_help()


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``wason`` parser; a family's flags are added only when ``argv`` names the family (or asks for help)."""
    from wason.cli.common import ParserContext, _families_for

    parser, sub = _top_parser()

    store_opts = _Parser(add_help=False)
    store_opts.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        help="store: a SQLite path or SQLAlchemy URL (default $WASON_DB or wason.db)",
    )
    json_opt = _Parser(add_help=False)
    json_opt.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")

    names, loaded = _families_for(sys.argv[1:] if argv is None else argv)
    ctx = ParserContext(store_opts, json_opt, names, loaded, helps={n: c.help for n, c in COMMANDS.items()})
    for name, command in COMMANDS.items():
        command.add_arguments(sub, ctx)
        if name == "session":
            _add_family_commands(sub, ctx)
    return parser


def _add_family_commands(sub: Any, ctx: ParserContext) -> None:
    """``wason NAME`` of each family with commands of its own: their parser for a family the command line
    names, a choice with its card's line for the others (a plugin without a card is left out until named)."""
    from wason.core import registry

    for name in ctx.names:
        fam = ctx.loaded.get(name)
        if fam is not None:
            if fam.commands:
                fam.add_commands(sub.add_parser(name, help=fam.commands))
        elif name not in registry.broken() and (card := registry.card(name)) is not None and card.commands:
            sub.add_parser(name, help=card.commands)


def _loaded(module: str, name: str) -> tuple[type[BaseException], ...]:
    """``module.name`` if that module was imported, else nothing: an exception of a module nobody imported
    cannot have been raised, so catching it never imports the store or the sandbox."""
    found = getattr(sys.modules.get(module), name, None)
    return (found,) if isinstance(found, type) and issubclass(found, BaseException) else ()


def _user_errors() -> tuple[type[BaseException], ...]:
    """The exceptions shown as one line ``wason: error: ...``."""
    from wason.cli.common import UserError

    return (
        UserError,
        ValueError,
        ExternalFailure,
        *_loaded("wason.models.base", "ModelConfigError"),
        *_loaded("wason.store", "StoreError"),
        *_loaded("wason.sandbox", "GuessRejected"),
        *_loaded("wason.core.session", "SessionDiverged"),
    )


def _console() -> Console:
    from wason.cli.console import out_console

    # a terminal's width; piped output $COLUMNS or 100 wide, and a reader that leaves stops only the printing
    return out_console()


# the commands that name a family, and the position of its name in their arguments
_FAMILY_AT = {
    "eval": 1,
    "play": 1,
    "audit": 1,
    "trajectories": 1,
    "session start": 2,
    "session actions": 2,
    "session moves": 2,
}


def _file_families(argv: list[str]) -> list[str]:
    """``argv`` with a family named by where it is defined (``wason eval ./mygame.py``, ``./mygame.py:GAME``,
    ``mypackage.mygame:FAMILY``) loaded and replaced by its name, as ``inspect eval file.py`` runs a task from a
    file (:func:`wason.core.registry.load_target`)."""
    at = _FAMILY_AT.get(" ".join(argv[:2])) or _FAMILY_AT.get(argv[0] if argv else "")
    if at is None or len(argv) <= at:
        return argv
    from wason.core import registry

    if not registry.is_target(argv[at]):
        return argv
    return [*argv[:at], registry.load_target(argv[at]).name, *argv[at + 1 :]]


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if (given and given[0] in _FAMILY_AT) or " ".join(given[:2]) in _FAMILY_AT:
        from wason.core.registry import FamilyLoadError

        try:
            given = argv = _file_families(given)
        except FamilyLoadError as exc:
            print(f"wason: error: {exc}", file=sys.stderr)
            return 2
    if given == ["--version"]:  # answered before anything is imported (the parser says the same)
        print(version_line())
        return 0
    if given in (["--help"], ["-h"]):  # the parser's help, without building it
        sys.stdout.write(_top_help())
        return 0
    from wason.cli.common import _db_reason, _keep_undecodable_input, _not_text, _one_line, _reasons

    _keep_undecodable_input()
    try:
        parser = build_parser(argv)
        try:
            args, unknown = parser.parse_known_args(argv)
        except SystemExit as done:  # --help, or a bad flag already reported in one line
            return done.code if isinstance(done.code, int) else 2
        if unknown:
            where = " ".join(
                ["wason", args.command, *([args.family] if getattr(args, "family", None) else [])]
            )
            flags = " ".join(
                [t for t in unknown if t.startswith("-")] or unknown
            )  # the flags, not their values
            print(
                f"{where}: error: {flags}: not a flag of this command (see `{where} --help`)", file=sys.stderr
            )
            return 2
        command = COMMANDS.get(args.command)
        if command is not None:
            return command.run(args, _console())
        return registry.get(args.command).run_command(args, print)  # a family's own command
    except UnicodeError as exc:  # text that is not UTF-8 reached an encoder (an argument, a line read)
        print(f"wason: error: {_not_text(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `wason ... | head`: the reader left; nothing is lost
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stays open until the interpreter exits
        return 0
    except Exception as exc:
        if isinstance(exc, _user_errors()):
            reason = getattr(exc, "reason", None) or _reasons(exc)
            print(f"wason: error: {_one_line(redact(reason))}", file=sys.stderr)
            return 2
        if isinstance(exc, OSError) and exc.filename is not None:
            # a file or folder the command was told to read or write that cannot be (a missing folder, /proc,
            # no permission, a full disk): the path and the system's reason
            print(f"wason: error: {exc.filename}: {exc.strerror or type(exc).__name__}", file=sys.stderr)
            return 2
        if isinstance(exc, _loaded("sqlalchemy.exc", "SQLAlchemyError")):
            # the store failed under us (a corrupt page, a lost server)
            print(f"wason: error: the store failed: {_one_line(redact(_db_reason(exc)))}", file=sys.stderr)
            return 2
        raise
