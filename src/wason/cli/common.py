"""What the commands share: the parser class, flags derived from a family's configuration, record ids, the store
and JSON flags, one-line errors, and the results printed after a run."""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from wason.core import registry

if (
    TYPE_CHECKING
):  # the store, rich, pydantic and the family machinery are imported where used (issues 39, 53)
    from pydantic.fields import FieldInfo
    from rich.console import Console

    from wason.core.family import Family, RunSettings
    from wason.store import Store


@dataclass
class ParserContext:
    """What every command's ``add_arguments`` is given: the shared ``--db`` and ``--json`` flags (as parents),
    and the families: every name, and the ones this command line needs loaded (the ones it names)."""

    store_opts: argparse.ArgumentParser
    json_opt: argparse.ArgumentParser
    names: list[str]
    loaded: dict[str, Family[Any]]
    helps: dict[str, str]  # each command's help line (``COMMANDS``), by name

    def command(
        self,
        sub: Any,
        name: str,
        *,
        json: bool = False,
        parents: Sequence[argparse.ArgumentParser] = (),
        **kw: Any,
    ) -> Any:
        """The parser of command ``name``: its help line, the store's ``--db`` (and ``--json`` with ``json``)
        flags and ``parents``; ``kw`` goes to ``add_parser`` (the description)."""
        shared = [self.store_opts, *([self.json_opt] if json else []), *parents]
        return sub.add_parser(name, parents=shared, help=self.helps[name], **kw)

    @property
    def families(self) -> list[Family[Any]]:
        return list(self.loaded.values())

    @property
    def unloaded(self) -> list[str]:
        """The families this command line does not name: choices, without their flags."""
        return [n for n in self.names if n not in self.loaded and n not in registry.broken()]

    def add_unloaded(self, sub: Any, shown: Callable[[registry.Card], str | None]) -> None:
        """A choice of ``sub`` for each family of :attr:`unloaded`, without its flags: with the help line
        ``shown`` makes of the family's card (None: the family is not a choice of this command), or its name
        alone for a plugin without a card (nothing is imported to say more)."""
        for name in self.unloaded:
            card = registry.card(name)
            if card is None:
                sub.add_parser(name, help="")
            elif (text := shown(card)) is not None:
                sub.add_parser(name, help=text)


class UserError(Exception):
    """A mistake the user can fix; shown as one line."""


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """``X | None`` -> (X, True)."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def _comma_list(kind: type[Any], flag: str) -> Callable[[str], list[Any]]:
    def parse(text: str) -> list[Any]:
        parts = [t.strip() for t in text.split(",") if t.strip()]
        try:
            return [kind(p) for p in parts]
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a comma-separated list for {flag}, got {text!r}"
            ) from None

    return parse


def _record_id(what: str) -> Callable[[str], int]:
    """An argument that names a stored run or session: a whole number from 1 to the store's largest id, or one
    line saying so (a larger number is not even sent to the database)."""

    def parse(text: str) -> int:
        shown = text if len(text) <= 40 else text[:37] + "..."
        if not text.strip().lstrip("+-").replace("_", "").isdigit():
            raise argparse.ArgumentTypeError(f"invalid int value: {shown!r}")  # argparse's own words
        try:
            value = int(text)
        except ValueError:  # a number of more than 4300 digits
            value = 0
        from wason.store import MAX_ID

        if not 1 <= value <= MAX_ID:
            raise argparse.ArgumentTypeError(
                f"{shown!r} is not a {what} id (a whole number from 1 to {MAX_ID})"
            )
        return value

    return parse


def family_fields(config_type: type[RunSettings], *, play: bool = False) -> dict[str, FieldInfo]:
    """The fields of a family's configuration that are its own command-line flags (in ``wason play`` and
    ``wason session start``: all but its ``not_in_play``, each under :meth:`~RunSettings.play_flag`, so that a
    field named like one of those commands' own options is ``--config-NAME`` there, never dropped)."""
    from wason.core.family import own_fields

    skip = config_type.not_in_play if play else frozenset()
    return {n: config_type.model_fields[n] for n in own_fields(config_type) if n not in skip}


def flag_of(config_type: type[RunSettings], name: str, *, play: bool) -> str:
    """The command-line flag of a family's field (``--rules`` for ``rules_file``)."""
    if play:
        return config_type.play_flag(name)
    return "--" + config_type.flag_names.get(name, name).replace("_", "-")


def _dest(config_type: type[RunSettings], name: str, *, play: bool) -> str:
    """Where argparse keeps a family's field: its name, or, for a field under another flag in ``wason play``
    (it may share a name with an option of the command's own), a name no option of the command has."""
    renamed = play and config_type.play_flag(name) != flag_of(config_type, name, play=False)
    return f"field:{name}" if renamed else name


def add_config_flags(parser: argparse.ArgumentParser, config_type: type[RunSettings], *, play: bool) -> None:
    """One flag per field; every default is left to the configuration (flags not given are not passed)."""
    from wason.core.family import field_range

    for name, info in family_fields(config_type, play=play).items():
        flag = flag_of(config_type, name, play=play)
        kind, _ = _unwrap(info.annotation)
        own_default = info.get_default(call_default_factory=True)
        default = config_type.play_defaults.get(name, own_default) if play else own_default
        help_text = info.description or ""
        shown_default = default is not None and default is not False and default != []
        if shown_default and not callable(default) and "default" not in help_text:
            shown = ",".join(map(str, default)) if isinstance(default, list) else default
            help_text += f" (default {shown})"
        if (limits := field_range(info)) is not None:
            help_text += f" [{limits}]"
        if flag != flag_of(config_type, name, play=False):  # a flag of the field's own only here
            help_text += f" ({flag_of(config_type, name, play=False)} in `wason eval`)"
        kw: dict[str, Any] = {
            "dest": _dest(config_type, name, play=play),
            "default": argparse.SUPPRESS,
            "help": help_text,
        }
        if name in config_type.flag_metavars:
            kw["metavar"] = config_type.flag_metavars[name]
        elif kw["dest"] != name and kind is not bool:
            kw["metavar"] = name.upper()
        origin = typing.get_origin(kind)
        if kind is bool:
            if info.default is True:
                parser.add_argument("--no-" + flag[2:], action="store_false", **kw)
            else:
                parser.add_argument(flag, action="store_true", **kw)
        elif origin is typing.Literal:
            parser.add_argument(flag, choices=list(typing.get_args(kind)), **kw)
        elif origin is list:
            (inner,) = typing.get_args(kind) or (str,)
            parser.add_argument(flag, type=_comma_list(inner, flag), **kw)
        elif kind in (int, float, str):
            parser.add_argument(flag, type=kind, **kw)
        else:  # pragma: no cover - a family with a field type the command line cannot take
            raise TypeError(f"{config_type.__name__}.{name}: no command-line flag for {kind!r}")


def _families_for(argv: list[str]) -> tuple[list[str], dict[str, Family[Any]]]:
    """Every family name, and the families this command line needs loaded: the ones it names. Importing a family
    is most of wason's start-up, so ``wason runs`` or ``wason eval NAME`` do not pay for the others, and help that
    lists every family (``wason eval --help``) shows their cards (:func:`wason.core.registry.card`)."""
    names = registry.names()
    loaded = {}
    for name in [n for n in names if n in argv]:
        try:
            loaded[name] = registry.get(name)
        except registry.FamilyLoadError:
            continue
    registry.cards()  # read now, to warn of a broken one here
    for reason in [*registry.broken().values(), *registry.bad_cards().values()]:
        print(f"wason: warning: {reason}", file=sys.stderr)
    return names, loaded


def _keep_undecodable_input() -> None:
    """Read standard input so that bytes that are not UTF-8 reach us (as lone surrogates, which the readers
    refuse in one line) instead of failing the read: a strict decoder drops the whole chunk it was decoding,
    good lines with it. A closed standard input reads as empty."""
    if sys.stdin is None:  # started with stdin closed (`<&-`): input() would fail with "lost sys.stdin"
        sys.stdin = open(os.devnull)  # noqa: SIM115 - stays open until the interpreter exits
    if isinstance(sys.stdin, io.TextIOWrapper) and sys.stdin.errors == "strict":
        sys.stdin.reconfigure(errors="surrogateescape")


# an undecodable byte read from standard input or the command line arrives as a lone surrogate (U+DC80 to
# U+DCFF), and so does "\\ud800" written in JSON
_SURROGATE = re.compile("[\ud800-\udfff]")


def _undecodable(text: str) -> str | None:
    """What in ``text`` is not UTF-8 text (``the byte 0xff``), or None."""
    found = _SURROGATE.search(text)
    if found is None:
        return None
    code = ord(found.group())
    return f"the byte 0x{code - 0xDC00:02x}" if code >= 0xDC80 else f"U+{code:04X}, half of a UTF-16 pair"


def _not_text(exc: UnicodeError) -> str:
    if isinstance(exc, UnicodeEncodeError):
        held = _undecodable(exc.object[exc.start : exc.end]) or exc.reason
    elif isinstance(exc, UnicodeDecodeError):
        held = " ".join(f"the byte 0x{b:02x}" for b in exc.object[exc.start : exc.end][:4])
    else:  # e.g. a host name the IDNA codec refuses
        return str(exc)
    return f"the input is not UTF-8 text ({held}); give text as UTF-8"


def _json_text(text: str, what: str) -> Any:
    """``text`` read as JSON, or one line saying why ``what`` is not JSON (nested too deeply included: a few
    thousand brackets exhaust the decoder's recursion)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{what} is not JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise UserError(f"{what} is nested too deeply to read as JSON") from None


def _db_reason(exc: Exception) -> str:
    # the driver's own message, without SQLAlchemy's statement and parameters
    orig = getattr(exc, "orig", None)
    lines = str(orig if orig is not None else exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _reasons(exc: Exception) -> str:
    """An error's reasons in one line: a configuration's, each naming its field."""
    from pydantic import ValidationError

    from wason.core.family import refusal

    if isinstance(exc, ValidationError):  # keep only the reasons, naming the field
        return refusal(exc)
    return str(exc)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _db(args: argparse.Namespace) -> str | None:
    return getattr(args, "db", None)


def _as_json(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "json", False))


def _given(args: argparse.Namespace, config_type: type[RunSettings], *, play: bool) -> dict[str, Any]:
    """The family's own fields the user gave (play: with the play defaults under them)."""
    dests = {n: _dest(config_type, n, play=play) for n in family_fields(config_type, play=play)}
    given = {n: getattr(args, d) for n, d in dests.items() if hasattr(args, d)}
    return config_type.with_play_defaults(given) if play else given


def _report(store: Store, run_ids: list[int], console: Console, *, as_json: bool) -> int:
    """The first run, then its baselines: the family's JSON, or its tables."""
    from wason.report.tables import report_json, report_tables

    if as_json:
        print(json.dumps(report_json(store, run_ids), indent=2, default=str))
    else:
        for part in report_tables(store, run_ids):
            console.print(part)
    return 0


def _warn_truncated(store: Store, run_ids: list[int]) -> None:
    """One line on stderr for each run many of whose replies hit the token limit."""
    from wason.report.compare import truncation_warning

    for run_id in run_ids:
        if (warning := truncation_warning(store, run_id)) is not None:
            print(f"wason: warning: {warning}", file=sys.stderr)


def _verdict(store: Store, run_id: int) -> int:
    """The exit status of a finished run: 1, with one line, when not one episode completed."""
    episodes = store.list_episodes(run_id)
    errored = [e for e in episodes if e.status == "errored"]
    if episodes and len(errored) == len(episodes):
        first = _one_line(errored[0].error or "no reason recorded").split(" Traceback")[0]
        print(
            f"wason: error: every episode of run {run_id} errored (the first: {first[:300]}); "
            f"fix the cause, then `wason eval --resume {run_id}`",
            file=sys.stderr,
        )
        return 1
    return 0
