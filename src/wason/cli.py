"""The ``wason`` command. Its family subcommands and their flags are derived from the registry: ``wason eval
NAME --help`` lists exactly that family's flags (from its configuration's fields) and the shared model flags."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import io
import json
import os
import random
import re
import sys
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError
from pydantic.fields import FieldInfo
from rich.console import Console
from rich.table import Table
from sqlalchemy.exc import SQLAlchemyError

from wason.core import registry, session
from wason.core.family import Family, Item, PlayIO, RunSettings, field_range
from wason.core.game import ExternalFailure, PlayerLeft
from wason.core.records import HUMAN, person_name
from wason.engine import (
    Lease,
    baselines_of,
    check_constrain,
    create_run,
    execute_run,
    family_of,
    hold_run,
    llm_player_factory,
    load_config,
    make_client,
    make_oracle_client,
    run_baseline,
    solve_run,
    wants_baseline,
)
from wason.models.base import GenerationParams, ModelConfigError
from wason.models.client import ModelClient
from wason.models.spec import LOCAL_DEFAULT_MAX_TOKENS
from wason.redaction import redact
from wason.sandbox import GuessRejected
from wason.store import MAX_ID, Store, StoreError


class UserError(Exception):
    """A mistake the user can fix; shown as one line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One clear line instead of argparse's usage dump.
        self.exit(2, f"{self.prog}: error: {message} (see `{self.prog} --help`)\n")


# -- flags derived from a family's configuration -----------------------------------------------------------
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
        if not 1 <= value <= MAX_ID:
            raise argparse.ArgumentTypeError(
                f"{shown!r} is not a {what} id (a whole number from 1 to {MAX_ID})"
            )
        return value

    return parse


def family_fields(config_type: type[RunSettings], *, play: bool = False) -> dict[str, FieldInfo]:
    """The fields of a family's configuration that are its own command-line flags."""
    shared = set(RunSettings.model_fields)
    # in `wason play` and `wason session start`, --seed draws the item to play
    skip = set(config_type.internal_fields) | ({"seed", *config_type.not_in_play} if play else set())
    return {n: f for n, f in config_type.model_fields.items() if n not in shared and n not in skip}


def add_config_flags(parser: argparse.ArgumentParser, config_type: type[RunSettings], *, play: bool) -> None:
    """One flag per field; every default is left to the configuration (flags not given are not passed)."""
    for name, info in family_fields(config_type, play=play).items():
        flag = "--" + config_type.flag_names.get(name, name).replace("_", "-")
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
        kw: dict[str, Any] = {"dest": name, "default": argparse.SUPPRESS, "help": help_text}
        if name in config_type.flag_metavars:
            kw["metavar"] = config_type.flag_metavars[name]
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


def _add_model_flags(parser: argparse.ArgumentParser, family: Family[Any]) -> None:
    from wason.models.spec import DEFAULT_MODEL

    players = family.players
    parser.add_argument(
        "--player",
        choices=list(players),
        default="llm",
        help="llm: the model plays through the family's protocol (default)"
        + ("; solver: the reference solver" if "solver" in players else ""),
    )
    parser.add_argument(
        "--model", default=DEFAULT_MODEL, help=f"model spec PROVIDER:MODEL (default {DEFAULT_MODEL})"
    )
    parser.add_argument("--base-url", help="endpoint for OpenAI-compatible or Anthropic providers")
    parser.add_argument("--api-key", help="API key (default: the provider's environment variable)")
    parser.add_argument("--temperature", type=float, help="sampling temperature (default: the model's)")
    parser.add_argument(
        "--max-tokens",
        type=int,
        help=f"max tokens per reply (local model default {LOCAL_DEFAULT_MAX_TOKENS}); OpenAI's own endpoint gets "
        "it as max_completion_tokens",
    )
    parser.add_argument("--top-p", type=float, help="nucleus sampling")
    parser.add_argument(
        "--reasoning-effort",
        metavar="EFFORT",
        help="how much a reasoning model thinks: none, minimal, low, medium, high, xhigh or max (sent as "
        "reasoning_effort; Anthropic: output_config.effort, low to max)",
    )
    parser.add_argument(
        "--extra-body",
        metavar="JSON",
        help="a JSON object merged into every request's body as is, for server options such as vLLM's or "
        "llama.cpp's (e.g. '{\"top_k\": 20}')",
    )
    parser.add_argument(
        "--stop",
        action="append",
        metavar="TEXT",
        help="a sequence that ends a reply where it appears (repeat the flag for up to 4)",
    )
    parser.add_argument("--model-seed", type=int, help="sampling seed, where the backend supports it")
    parser.add_argument(
        "--timeout", type=float, default=120.0, help="seconds per model call attempt (default 120)"
    )
    parser.add_argument("--retries", type=int, default=6, help="retries of a failing call (default 6)")
    parser.add_argument(
        "--retry-delay",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="first backoff ceiling; each retry doubles it, up to 60 s (default 1)",
    )
    parser.add_argument(
        "--concurrency", type=int, help="episodes/calls in flight (default: 1 local, 8 remote)"
    )
    parser.add_argument(
        "--system-as-user",
        action="store_true",
        help="send the instructions as the first user message (for models that refuse system messages)",
    )
    parser.add_argument(
        "--constrain",
        nargs="?",
        const="on",
        choices=["on", "both"],
        help="hold every reply to the protocol's reply format: free reasoning, then the action in its required "
        "form (a GBNF grammar for the embedded model, llama.cpp and vLLM servers; a JSON schema for OpenAI-style "
        "APIs), so that format failures and reasoning failures can be told apart; `--constrain both` plays the "
        "items twice, free then constrained, and shows the two runs side by side",
    )
    parser.add_argument(
        "--completions",
        action="store_true",
        help="send the prompt as raw text to the completions API (/v1/completions; the embedded model in raw "
        "mode), for base models; the protocol must send one message",
    )
    parser.add_argument(
        "--no-cache", action="store_true", help="do not answer identical requests from the cache"
    )
    if "solver" in players:
        parser.add_argument(
            "--no-baseline",
            action="store_true",
            help="do not also run the solver on the same items (its row is printed beside the model's)",
        )


def _families_for(argv: list[str]) -> tuple[list[str], dict[str, Family[Any]]]:
    """Every family name, and the families this command line needs loaded: the ones it names (all of them for
    ``--help``). Importing a family is most of wason's start-up, so ``wason runs`` or ``wason eval NAME`` do
    not pay for the others."""
    names = registry.names()
    wanted = names if {"-h", "--help"} & set(argv) else [n for n in names if n in argv]
    loaded = {}
    for name in wanted:
        try:
            loaded[name] = registry.get(name)
        except registry.FamilyLoadError:
            continue
    for reason in registry.broken().values():
        print(f"wason: warning: {reason}", file=sys.stderr)
    return names, loaded


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The ``wason`` parser; a family's flags are added only when ``argv`` names the family (or asks for help)."""
    parser = _Parser(prog="wason", description="Measure whether language models can do science.")
    parser.add_argument("--version", action="version", version=f"wason {_version()}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    store_opts = _Parser(add_help=False)
    store_opts.add_argument(
        "--db",
        default=argparse.SUPPRESS,
        help="store: a SQLite path or SQLAlchemy URL (default $WASON_DB or wason.db)",
    )
    json_opt = _Parser(add_help=False)
    json_opt.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")

    names, loaded = _families_for(sys.argv[1:] if argv is None else argv)
    fams = list(loaded.values())
    ev = sub.add_parser(
        "eval",
        parents=[store_opts, json_opt],
        help="run a benchmark and print its results table",
        description="Run a benchmark: `wason eval NAME [flags]` (see `wason eval NAME --help`), or finish an "
        "interrupted run with `wason eval --resume RUN`.",
    )
    ev.add_argument("--resume", type=_record_id("run"), metavar="RUN", help="finish an interrupted run")
    ev.add_argument("--api-key", default=argparse.SUPPRESS, help="API key of a resumed run's model")
    ev.add_argument(
        "--base-url",
        default=argparse.SUPPRESS,
        help="endpoint of a resumed run's model, when it moved or its URL holds a password (never stored)",
    )
    ev.add_argument(
        "--no-baseline",
        action="store_true",
        default=argparse.SUPPRESS,
        help="do not run the solver baseline after the resumed run",
    )
    ev_sub = ev.add_subparsers(dest="family", metavar="NAME", parser_class=_Parser)
    pl = sub.add_parser(
        "play",
        parents=[store_opts],
        help="play a game yourself in the terminal",
        description="Play a game yourself: `wason play NAME [flags]`, or go on with a session that was "
        "interrupted: `wason play --session ID`.",
    )
    pl.add_argument("--session", type=_record_id("session"), metavar="ID", help="go on with a stored game")
    pl_sub = pl.add_subparsers(dest="family", metavar="NAME", parser_class=_Parser)
    st_sub = _session_parsers(sub, store_opts)
    for name in names:  # a family this command line does not name is a choice, without its flags
        if name not in loaded and name not in registry.broken():
            for choices in (ev_sub, pl_sub, st_sub):
                choices.add_parser(name)
    for fam in fams:
        fe = ev_sub.add_parser(
            fam.name,
            parents=[store_opts, json_opt],
            help=fam.summary,
            description=f"{fam.title}: {fam.summary}",
        )
        add_config_flags(fe, fam.config_type, play=False)
        _add_model_flags(fe, fam)
        if fam.playable:
            fp = pl_sub.add_parser(fam.name, parents=[store_opts], help=f"{fam.title}: {fam.summary}")
            add_config_flags(fp, fam.config_type, play=True)
            fp.add_argument("--rule", type=int, metavar="ID", help="the item (rule) id to play")
            fp.add_argument("--name", help="your name: you play as human:NAME (asked once when not given)")
            fp.add_argument(
                "--seed", type=int, help="draw the item with this seed (default: a random seed, printed)"
            )
        fs = st_sub.add_parser(fam.name, parents=[store_opts], help=fam.summary)
        add_config_flags(fs, fam.config_type, play=True)
        fs.add_argument("--index", type=int, help="the configuration's item with this index (0-based)")
        fs.add_argument("--rule", type=int, metavar="ID", help="the item (rule) id to play")
        fs.add_argument("--seed", type=int, help="draw the item with this seed (default 0)")
        if fam.commands:
            fam.add_commands(sub.add_parser(fam.name, help=fam.commands))

    sw = sub.add_parser(
        "sweep",
        parents=[store_opts, json_opt],
        help="run a grid of runs from a TOML file, here or on a Ray cluster",
        description="Run every cell of a sweep file (families x their settings x models x generation settings) "
        "as one run per cell, then print a row per cell; run it again to finish what did not complete. "
        "The file format and running on a cluster: docs/scale.md.",
    )
    sw.add_argument("file", nargs="?", metavar="SWEEP.toml", help="the sweep file")
    sw.add_argument(
        "--ray",
        nargs="?",
        const="auto",
        metavar="ADDRESS",
        help="run each cell as a Ray task on the cluster at ADDRESS (default: this machine's cluster or "
        "$RAY_ADDRESS); the store must be PostgreSQL (--db postgresql+psycopg://...)",
    )

    rn = sub.add_parser(
        "runs",
        parents=[store_opts, json_opt],
        help="list runs (filter by family, model, status, date), or delete runs",
        description="List the runs in the store, newest last, with their duration, tokens spent and key "
        "settings; filters combine. `wason runs --delete RUN...` deletes runs with their episodes, turns and "
        "model calls (and the solver baselines made for them).",
    )
    rn.add_argument("--family", metavar="NAME", help="only runs of this family")
    rn.add_argument("--model", metavar="TEXT", help="only runs whose model (or player) contains TEXT")
    rn.add_argument(
        "--status", metavar="STATUS", help="only runs with this status (running, completed, interrupted, ...)"
    )
    rn.add_argument("--since", metavar="DATE", help="only runs created on or after DATE (YYYY-MM-DD[THH:MM])")
    rn.add_argument("--until", metavar="DATE", help="only runs created before DATE (YYYY-MM-DD[THH:MM])")
    rn.add_argument(
        "--delete",
        type=_record_id("run"),
        nargs="+",
        metavar="RUN",
        help="delete these runs with their episodes, turns and model calls (their cached replies go too) and the "
        "solver baselines made for them",
    )
    rn.add_argument("--yes", action="store_true", help="delete without asking")

    ex = sub.add_parser(
        "export",
        parents=[store_opts],
        help="write runs, episodes, turns and model calls as tidy tables (CSV, JSON lines, Parquet)",
        description="Write the runs given, their episodes, turns and model calls as four tables into DIR "
        "(runs, episodes, turns, calls), one row per record, columns documented in docs/export.md. Parquet "
        "needs `pip install 'wason[data]'`.",
    )
    ex.add_argument("runs", type=_record_id("run"), nargs="+", metavar="RUN")
    ex.add_argument("--to", required=True, metavar="DIR", help="the folder to write (made if missing)")
    ex.add_argument(
        "--format", choices=["csv", "jsonl", "parquet"], default="csv", help="file format (default csv)"
    )

    sv = sub.add_parser(
        "serve",
        parents=[store_opts],
        help="serve the HTTP API (sessions of every game, the published guess-the-rule routes)",
        description="Start the HTTP API on HOST:PORT (uvicorn). Games are sessions in the store and are judged "
        "by code only; routes and examples: docs/server.md. With --token (or $WASON_TOKEN) every write "
        "(play, start or stop a run) needs the token and reads stay open; without one nothing is asked, so keep "
        "the default host unless the network is trusted.",
    )
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sv.add_argument(
        "--token",
        default=None,
        help="require this token for every write request: 'Authorization: Bearer TOKEN', or log in at /login "
        "in a browser (default $WASON_TOKEN; none: writes are open)",
    )
    sv.add_argument(
        "--model",
        dest="models",
        action=_AllowModel,
        default=[],
        metavar="SPEC",
        help="a model a run started from the server's pages (or a configuration sent to it) may name, as a "
        "player, judge, labeller or game master; repeatable. Its key comes from the provider's variable, read "
        "now, and goes only to its address. The embedded model is always allowed",
    )
    sv.add_argument(
        "--base-url",
        dest="models",
        action=_ModelAddress,
        metavar="URL",
        help="the address of the --model before it (default: the provider's variable, then its default)",
    )
    sv.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    sv.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST",
        help="another name requests may call the server by, besides 127.0.0.1, localhost, [::1] and --host "
        "(repeatable): NAME (at --port), NAME:PORT, or https://NAME behind a TLS proxy; other Host headers are "
        "refused (DNS rebinding), and writes must come from these hosts' own pages",
    )
    sv.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="let pages of ORIGIN (SCHEME://NAME[:PORT], or * for any, the reference backend's setting) use the "
        "published /guess-the-rule/ routes from their own site (CORS), as the reference's web app does; "
        "repeatable, at most 32. /api/ and the pages stay same-origin (docs/server.md, Security)",
    )
    sv.add_argument(
        "--max-body",
        type=int,
        default=1 << 20,
        metavar="BYTES",
        help="the largest request body taken, 65536 to 104857600 (default 1048576, 1 MiB); larger is a 413",
    )
    sv.add_argument(
        "--log-level",
        choices=["critical", "error", "warning", "info", "debug"],
        default="info",
        help="uvicorn's log level (default info)",
    )

    gr = sub.add_parser(
        "grid",
        parents=[store_opts, json_opt],
        help="one table across games: a row per player, a column per game and level, win rates",
        description="One table of runs of any games: a row per player (model, solver, human), a column per "
        "game and level, each cell the win rate with its 95%% Wilson interval (the layout of the "
        "guess-the-rule paper's Table 2). Runs of one player and column are pooled; each run's finished "
        "solver baseline is added as the solver's row.",
    )
    gr.add_argument("runs", type=_record_id("run"), nargs="+", metavar="RUN")
    gr.add_argument("--no-baselines", action="store_true", help="leave the runs' solver baselines out")

    rp = sub.add_parser(
        "report",
        parents=[store_opts],
        help="write a static HTML report of runs (opens from disk, no server, no network)",
        description="Write the web pages of the runs (their summaries, baselines, plots, every episode's "
        "transcript and model calls, and a comparison when several runs of one family are given) as static "
        "HTML files into DIR, with the assets they use: open DIR/index.html from disk, or publish DIR. "
        "See docs/web.md.",
    )
    rp.add_argument("runs", type=_record_id("run"), nargs="+", metavar="RUN")
    rp.add_argument(
        "-o", "--output", required=True, metavar="DIR", help="the folder to write (made if missing)"
    )

    sh = sub.add_parser(
        "show",
        parents=[store_opts, json_opt],
        help="a run's results, several runs in one table, or one transcript",
        description="`wason show RUN` prints a run's tables (with its solver baseline); `wason show RUN RUN...` "
        "(or --format) prints one table of runs of one family, a row per model, baseline and person, with "
        "intervals and paired comparisons; `--episode N` prints a transcript.",
    )
    sh.add_argument("runs", type=_record_id("run"), nargs="+", metavar="RUN")
    sh.add_argument("--episode", type=int, metavar="N", help="print episode N's transcript (one run)")
    sh.add_argument("--full", action="store_true", help="with --episode: the whole system prompt, not folded")
    cp = sub.add_parser(
        "compare",
        parents=[store_opts, json_opt],
        help="one table of runs of one family: a row per model, baseline and person (= show RUN RUN...)",
    )
    cp.add_argument("runs", type=_record_id("run"), nargs="+", metavar="RUN")
    for p in (sh, cp):
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

    return parser


def _session_parsers(sub: Any, store_opts: argparse.ArgumentParser) -> Any:
    """``wason session start|step|view|summary``; returns the choices of ``start`` (one per family)."""
    se = sub.add_parser(
        "session",
        help="play any game one step per command (JSON in, JSON out), e.g. from a script in another process",
    )
    se_sub = se.add_subparsers(dest="session_command", required=True, parser_class=_Parser)
    st = se_sub.add_parser("start", parents=[store_opts], help="start a game; prints its session id and view")
    st_sub = st.add_subparsers(dest="family", metavar="NAME", required=True, parser_class=_Parser)
    sp = se_sub.add_parser("step", parents=[store_opts], help="apply one action to a session")
    sp.add_argument("session", type=_record_id("session"))
    sp.add_argument("action", nargs="?", help='the action as JSON, e.g. \'{"type": "ProposeTest", ...}\'')
    sp.add_argument("--text", help="a reply as a model would write it, read by the family's protocol")
    for name, text in (("view", "what the player sees now"), ("summary", "the result (the rule once over)")):
        v = se_sub.add_parser(name, parents=[store_opts], help=text)
        v.add_argument("session", type=_record_id("session"))
    return st_sub


# -- main -------------------------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    _keep_undecodable_input()
    console = Console()
    if not console.is_terminal and not os.environ.get("COLUMNS"):
        # piped output without a width asked for: do not squeeze tables to 80 columns
        console = Console(width=max(console.width, 160))
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
        if args.command == "eval":
            return _eval(args, console)
        if args.command == "runs":
            return _runs(args, console)
        if args.command in ("show", "compare"):
            return _show(args, console)
        if args.command == "export":
            return _export(args)
        if args.command == "grid":
            return _grid(args, console)
        if args.command == "report":
            return _static_report(args)
        if args.command == "play":
            return _play(args, console)
        if args.command == "session":
            return _session(args)
        if args.command == "serve":
            return _serve(args)
        if args.command == "sweep":
            from wason.engine.sweep import sweep_command

            return sweep_command(
                args.file, db=_db(args), ray=args.ray, console=console, as_json=_as_json(args)
            )
        return registry.get(args.command).run_command(args, print)
    except UnicodeError as exc:  # text that is not UTF-8 reached an encoder (an argument, a line read)
        print(f"wason: error: {_not_text(exc)}", file=sys.stderr)
        return 2
    except (
        UserError,
        ValueError,
        ModelConfigError,
        StoreError,
        GuessRejected,
        session.SessionDiverged,
        ExternalFailure,
    ) as exc:
        reason = getattr(exc, "reason", None) or _reasons(exc)
        print(f"wason: error: {_one_line(redact(reason))}", file=sys.stderr)
        return 2
    except SQLAlchemyError as exc:  # the store failed under us (a corrupt page, a lost server)
        print(f"wason: error: the store failed: {_one_line(redact(_db_reason(exc)))}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `wason ... | head`: the reader left; nothing is lost
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stays open until the interpreter exits
        return 0


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


def _db_reason(exc: SQLAlchemyError) -> str:
    # the driver's own message, without SQLAlchemy's statement and parameters
    orig = getattr(exc, "orig", None)
    lines = str(orig if orig is not None else exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _reasons(exc: Exception) -> str:
    if isinstance(exc, ValidationError):  # keep only the reasons, naming the field
        return "; ".join(
            f"{'.'.join(map(str, e['loc']))}: {_msg(e['msg'])}" if e["loc"] else _msg(e["msg"])
            for e in exc.errors()
        )
    return str(exc)


def _msg(text: object) -> str:
    # pydantic prefixes the message of a ValueError raised by a validator; the user reads only the message
    return str(text).removeprefix("Value error, ")


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _db(args: argparse.Namespace) -> str | None:
    return getattr(args, "db", None)


def _as_json(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "json", False))


def _given(args: argparse.Namespace, config_type: type[RunSettings], *, play: bool) -> dict[str, Any]:
    """The family's own fields the user gave (play: with the play defaults under them)."""
    given = {n: getattr(args, n) for n in family_fields(config_type, play=play) if hasattr(args, n)}
    return config_type.with_play_defaults(given) if play else given


def _params(args: argparse.Namespace) -> GenerationParams:
    from wason.models.spec import check_settings

    # the flag that sets each field, for error messages
    flags = {
        "temperature": "--temperature",
        "max_tokens": "--max-tokens",
        "top_p": "--top-p",
        "seed": "--model-seed",
        "stop": "--stop",
        "reasoning_effort": "--reasoning-effort",
        "extra_body": "--extra-body",
    }
    max_tokens = args.max_tokens
    if max_tokens is None and args.model.split(":", 1)[0] == "local":
        max_tokens = LOCAL_DEFAULT_MAX_TOKENS
    extra_body: Any = None
    if args.extra_body is not None:
        try:
            extra_body = json.loads(args.extra_body)
        except json.JSONDecodeError as exc:
            raise UserError(f"--extra-body is not JSON: {exc.msg} (column {exc.colno})") from None
        if not isinstance(extra_body, dict):
            raise UserError("--extra-body is a JSON object, e.g. '{\"top_k\": 20}'")
    try:
        params = GenerationParams(
            temperature=args.temperature,
            max_tokens=max_tokens,
            top_p=args.top_p,
            seed=args.model_seed,
            stop=tuple(args.stop) if args.stop else None,
            reasoning_effort=args.reasoning_effort,
            extra_body=extra_body,
            api="completions" if getattr(args, "completions", False) else None,
        )
    except ValidationError as exc:  # name the flag, not the field
        first = exc.errors()[0]
        field = str(first["loc"][0]) if first["loc"] else ""
        reason = str(first["msg"]).removeprefix("Value error, ")
        raise UserError(f"{flags.get(field, field)}: {reason}") from None
    if getattr(args, "player", "llm") == "llm":
        # settings the model's backend cannot send: one line now, not an error in every episode
        check_settings(args.model, params)
    return params


def _eval_config(args: argparse.Namespace, family: Family[Any]) -> RunSettings:
    fields = _given(args, family.config_type, play=False)
    config: RunSettings = family.config_type(
        **fields,
        player=args.player,
        model=args.model if args.player == "llm" else None,
        base_url=args.base_url,
        params=_params(args),
        timeout=args.timeout,
        retries=args.retries,
        retry_delay=args.retry_delay,
        concurrency=args.concurrency,
        use_cache=not args.no_cache,
        system_as_user=args.system_as_user,
        constrain=getattr(args, "constrain", None) is not None,
    )
    return config


def _eval(args: argparse.Namespace, console: Console) -> int:
    store = Store(_db(args))
    as_json = _as_json(args)
    items: list[Item] | None = None
    if args.resume is not None:
        if args.family is not None:
            raise UserError("--resume RUN finishes a stored run with its own settings; leave out the family")
        config = load_config(store, args.resume)
        if config.player not in ("llm", "solver"):
            raise UserError(
                f"run {args.resume} was played by {config.player}; only model and solver runs can be resumed "
                "(a game played by hand goes on with `wason play --session ID`)"
            )
        run_id = args.resume
        if getattr(args, "base_url", None):
            config = config.model_copy(update={"base_url": args.base_url})
        elif "***" in (config.base_url or ""):
            raise UserError(
                f"run {run_id}'s endpoint had a password, which is not stored: give it again with --base-url"
            )
        api_key = getattr(args, "api_key", None)
        # a run started with --no-baseline keeps it; --no-baseline here leaves the baseline out this time
        no_baseline = bool(getattr(args, "no_baseline", False)) or not wants_baseline(store.get_run(run_id))
        if config.player == "llm" and not no_baseline:
            _refuse_busy_baseline(store, run_id)
    else:
        if args.family is None:
            names = ", ".join(registry.names())
            raise UserError(f"name a task family ({names}) or --resume RUN; see `wason eval --help`")
        family = registry.get(args.family)
        config = family.prepare(_eval_config(args, family), store)
        # unknown rule ids and bad rules files fail here, before anything is written; drawing the items once
        # matters for generated rules and examples, which take seconds
        items = family.items(config)
        if items:
            check_constrain(config, items[0][1])
        run_id = -1
        api_key = args.api_key
        no_baseline = bool(getattr(args, "no_baseline", False))
    if config.player == "solver" and getattr(args, "constrain", None) is not None:
        raise UserError("--constrain holds a model's replies to a format; the solver writes none")
    if config.player == "solver":
        resumed = run_id >= 0
        if not resumed:
            run_id = create_run(store, config, items)
        n_todo = sum(e.status != "completed" for e in store.list_episodes(run_id))
        if not as_json:
            console.print(_header(config, run_id, store, n_todo, resumed=resumed))
        asyncio.run(solve_run(store, run_id, config))
        _report(store, [run_id], console, as_json=as_json)
        return _verdict(store, run_id)
    if getattr(args, "constrain", None) == "both" and run_id < 0:
        return _eval_both(console, store, config, items, api_key, as_json=as_json, no_baseline=no_baseline)
    state = {"run": run_id}
    stopped = _play_model_run(
        console, store, config, items, api_key, state, as_json=as_json, baseline=not no_baseline
    )
    if stopped is not None:
        return 130
    runs = [state["run"]]
    if not no_baseline:
        baseline = run_baseline(store, state["run"])
        if baseline is not None and store.get_run(baseline).status == "completed":
            runs.append(baseline)
    _report(store, runs, console, as_json=as_json)
    _warn_truncated(store, [state["run"]])
    return _verdict(store, state["run"])


def _play_model_run(
    console: Console,
    store: Store,
    config: RunSettings,
    items: list[Item] | None,
    api_key: str | None,
    state: dict[str, int],
    *,
    as_json: bool,
    baseline: bool,
) -> int | None:
    """Play (or resume, ``state["run"] >= 0``) a model run; 130 when interrupted (with the line saying how to
    finish it), else None. ``state["run"]`` holds the run's id once it exists; a new run records whether it
    gets its solver ``baseline``."""
    client = make_client(config, store, api_key=api_key)
    oracle = make_oracle_client(config, store, api_key=api_key, player_client=client)
    try:
        asyncio.run(
            _eval_async(
                console, store, config, client, state, oracle, items, as_json=as_json, baseline=baseline
            )
        )
    except KeyboardInterrupt:
        if state["run"] >= 0:  # the run marked itself interrupted; say how to finish it
            print(f"wason: interrupted; finish with `wason eval --resume {state['run']}`", file=sys.stderr)
        return 130
    return None


def _eval_both(
    console: Console,
    store: Store,
    config: RunSettings,
    items: list[Item] | None,
    api_key: str | None,
    *,
    as_json: bool,
    no_baseline: bool,
) -> int:
    """``--constrain both``: the items played free, then constrained (two runs), then the solver once, and the
    runs compared in one table (``--json``: the comparison's JSON)."""
    from wason.report.compare import print_comparison

    played = []
    for constrain in (False, True):
        state = {"run": -1}
        run_config = config.model_copy(update={"constrain": constrain})
        stopped = _play_model_run(
            console, store, run_config, items, api_key, state, as_json=as_json, baseline=not no_baseline
        )
        if stopped is not None:
            return 130
        played.append(state["run"])
    if not no_baseline:
        # the solver asks no model: one baseline serves both runs, which play the same items
        run_baseline(store, played[0])
    print_comparison(store, played, fmt="table", as_json=as_json, baselines=not no_baseline, console=console)
    _warn_truncated(store, played)
    return max(_verdict(store, run_id) for run_id in played)


def _refuse_busy_baseline(store: Store, run_id: int) -> None:
    """Refuse, before any request, to resume a run whose unfinished solver baseline another process is playing
    (the baseline is played after the run: it would be refused only then)."""
    for baseline in baselines_of(store, run_id):
        if (holder := store.get_run(baseline).owner) is not None:
            raise StoreError(
                f"run {run_id}'s solver baseline (run {baseline}) is being worked on by {holder}; wait for it to "
                f"finish or stop it, then `wason eval --resume {run_id}`"
            )


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


async def _eval_async(
    console: Console,
    store: Store,
    config: RunSettings,
    client: ModelClient,
    state: dict[str, int],
    oracle: ModelClient | None,
    items: list[Item] | None,
    *,
    as_json: bool,
    baseline: bool,
) -> None:
    # One event loop for the check and the run: the HTTP clients are bound to the loop they first ran on.
    resumed = state["run"] >= 0
    try:
        async with contextlib.AsyncExitStack() as held:
            lease = None
            if resumed:
                # the lease before anything else: a run another process is playing is refused before a single
                # request is sent (the pre-flight check is one), and no other process can start it meanwhile
                lease = await held.enter_async_context(hold_run(store, state["run"]))
            left = resumed and any(e.status != "completed" for e in store.list_episodes(state["run"]))
            if left or not resumed:  # a resumed run with nothing left to play asks the endpoint nothing
                await _preflight(client)
                if oracle is not None and oracle is not client:
                    await _preflight(oracle)
            if state["run"] < 0:
                state["run"] = create_run(store, config, items, baseline=baseline)
            run_id = state["run"]
            concurrency = config.concurrency or client.model.max_concurrency
            n_todo = sum(e.status != "completed" for e in store.list_episodes(run_id))
            if not as_json:
                console.print(_header(config, run_id, store, n_todo, resumed=resumed))
            await _run_with_progress(
                store, run_id, client, config, concurrency, n_todo, quiet=as_json, oracle=oracle, lease=lease
            )
    finally:
        await client.aclose()
        if oracle is not None and oracle is not client:
            await oracle.aclose()


async def _preflight(client: ModelClient) -> None:
    check = getattr(client.model, "check", None)
    if check is not None:
        await check()


def _header(config: RunSettings, run_id: int, store: Store, n_todo: int, *, resumed: bool) -> str:
    from wason.models.spec import describe_params

    n = len(store.list_episodes(run_id))  # the stored episodes: no need to rebuild a generated split
    shown = describe_params(config.params)
    verb = "Resuming" if resumed else "Running"
    held = ", replies constrained to the protocol's format" if config.constrain else ""
    who = (
        f"{config.model} ({shown or 'model defaults'}{held})"
        if config.player == "llm"
        else f"the {config.player}"
    )
    what = family_of(config).describe(config, n, n_todo, who)
    return f"{verb} run {run_id}: {what}; store {store.url}"


async def _run_with_progress(
    store: Store,
    run_id: int,
    client: ModelClient,
    config: RunSettings,
    concurrency: int,
    n_todo: int,
    *,
    quiet: bool,
    oracle: ModelClient | None = None,
    lease: Lease | None = None,
) -> None:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    factory = llm_player_factory(client, config, run_id)
    with Progress(
        TextColumn("episodes"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
        disable=quiet,
        transient=False,
    ) as progress:
        task = progress.add_task("episodes", total=n_todo, note="")
        counts = {"correct": 0, "errored": 0}

        def on_result(result: Any) -> None:
            if result.status == "errored":
                counts["errored"] += 1
            elif result.outcome is not None and result.outcome.success:
                counts["correct"] += 1
            progress.update(task, advance=1, note=f"{counts['correct']} correct, {counts['errored']} errored")

        await execute_run(
            store, run_id, factory, concurrency=concurrency, on_result=on_result, oracle=oracle, lease=lease
        )


def _report(store: Store, run_ids: list[int], console: Console, *, as_json: bool) -> int:
    """The first run, then its baselines: the family's JSON, or its tables."""
    from wason.report.tables import report_json, report_tables

    if as_json:
        print(json.dumps(report_json(store, run_ids), indent=2, default=str))
    else:
        for part in report_tables(store, run_ids):
            console.print(part)
    return 0


def _runs(args: argparse.Namespace, console: Console) -> int:
    from wason.report.runs import RunFilter, delete_command, runs_json, runs_table

    store = Store(_db(args))
    if args.delete:
        return delete_command(store, args.delete, yes=args.yes, write=print)
    wanted = RunFilter.parse(
        family=args.family, model=args.model, status=args.status, since=args.since, until=args.until
    )
    if _as_json(args):
        print(json.dumps(runs_json(store, wanted), indent=2))
    else:
        console.print(runs_table(store, wanted))
    return 0


def _export(args: argparse.Namespace) -> int:
    from wason.report.export import export_runs

    store = Store(_db(args))
    for run_id in args.runs:
        store.get_run(run_id)  # an unknown run is one line, before anything is written
    out = Path(args.to)
    if out.exists() and not out.is_dir():
        raise UserError(f"--to {out}: not a folder")
    written = export_runs(store, args.runs, out, args.format)
    for path in written:
        print(path)
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wason")
    except PackageNotFoundError:  # run from a source tree that was not installed
        from wason import __version__

        return __version__


def _grid(args: argparse.Namespace, console: Console) -> int:
    from wason.report.grid import grid_json, grid_table

    store = Store(_db(args))
    run_ids: list[int] = []
    for run_id in args.runs:
        store.get_run(run_id)  # an unknown run is one line before anything is printed
        extra = [] if args.no_baselines else baselines_of(store, run_id, completed_only=True)
        run_ids += [r for r in (run_id, *extra) if r not in run_ids]
    if _as_json(args):
        print(json.dumps(grid_json(store, run_ids), indent=2))
    else:
        console.print(grid_table(store, run_ids))
    return 0


def _static_report(args: argparse.Namespace) -> int:
    from wason.server.web.report import write_report

    store = Store(_db(args))
    for run_id in args.runs:
        store.get_run(run_id)  # an unknown run is one line, before anything is written
    out = Path(args.output)
    if out.exists() and not out.is_dir():
        raise UserError(f"-o {out}: not a folder")
    written = write_report(store, args.runs, out)
    print(f"wrote {len(written)} files; open {out / 'index.html'}")
    return 0


def _show(args: argparse.Namespace, console: Console) -> int:
    from wason.report.compare import comparison_runs, print_comparison
    from wason.report.tables import episode_json, transcript

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


# -- play -------------------------------------------------------------------------------------------------
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
    store = Store(_db(args))
    write: Callable[[str], None] = lambda s: console.print(s, markup=False, highlight=False)  # noqa: E731
    if args.session is not None:
        if args.family is not None:
            raise UserError("--session ID goes on with a stored game; leave out the family")
        return asyncio.run(_play_session(store, args.session, write, resumed=True))
    if args.family is None:
        raise UserError(f"name a game ({', '.join(registry.names())}) or --session ID")
    family = registry.get(args.family)
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
    family, config, episode, live = await session.load(store, session_id)
    if live.done or episode.status != "running":
        raise UserError(f"session {session_id} is {episode.status}; there is nothing left to play")
    player = family.human(config, episode.item, PlayIO(read=_typed_lines(write), write=write))
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
    for line in family.ending(episode.item, outcome.metrics if outcome else None):
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


# -- serve ------------------------------------------------------------------------------------------------
class _AllowModel(argparse.Action):
    """``wason serve --model SPEC``: one more allowed model, as a ``[spec, base_url]`` pair."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        pairs = list(getattr(namespace, self.dest) or [])
        pairs.append([str(values), None])
        setattr(namespace, self.dest, pairs)


class _ModelAddress(argparse.Action):
    """``wason serve --base-url URL``: the address of the ``--model`` just before it."""

    def __call__(self, parser: Any, namespace: Any, values: Any, option_string: str | None = None) -> None:
        pairs = list(getattr(namespace, self.dest) or [])
        if not pairs or pairs[-1][1] is not None:
            parser.error(
                "--base-url gives the address of the --model before it: write --model SPEC --base-url URL"
            )
        pairs[-1] = [pairs[-1][0], str(values)]
        setattr(namespace, self.dest, pairs)


def _serve(args: argparse.Namespace) -> int:
    from wason.server import serve

    token = args.token if args.token is not None else os.environ.get("WASON_TOKEN")
    if token is not None and not token.strip():
        raise UserError("--token (or $WASON_TOKEN) is empty; give a token or leave it out")
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        what = (
            "writes need the token, but anyone who reaches it can read every game in the store"
            if token
            else "the API has no authentication; anyone who reaches it can play and read every game in the store "
            "(--token protects writes)"
        )
        print(f"wason: note: serving on {args.host}: {what}", file=sys.stderr)
        if not args.allowed_host:
            print(
                "wason: note: requests must call the server by an allowed name: add the names or addresses other "
                "machines use with --allowed-host NAME (docs/server.md, Security)",
                file=sys.stderr,
            )
    serve(
        _db(args),
        host=args.host,
        port=args.port,
        log_level=args.log_level,
        token=token,
        models=[(spec, url) for spec, url in args.models],
        allowed_hosts=args.allowed_host,
        max_body=args.max_body,
        allow_origins=args.allow_origin,
    )
    return 0


# -- session ----------------------------------------------------------------------------------------------
def _session(args: argparse.Namespace) -> int:
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
    elif args.session_command == "step":
        out = asyncio.run(_step(store, args))
    elif args.session_command == "view":
        out = asyncio.run(session.view(store, args.session))
    else:
        out = asyncio.run(session.summary(store, args.session))
    print(json.dumps(out, indent=2, default=str))
    return 0


async def _step(store: Store, args: argparse.Namespace) -> dict[str, Any]:
    if (args.action is None) == (args.text is None):
        raise UserError("give the action as JSON or --text REPLY (one of them)")
    if args.text is not None:
        if (held := _undecodable(args.text)) is not None:
            raise UserError(f"--text is not UTF-8 text (it holds {held}); nothing was played")
        return await session.step(store, args.session, text=args.text)
    try:
        action = json.loads(args.action)
    except json.JSONDecodeError as exc:
        raise UserError(f"the action is not JSON: {exc.msg} (column {exc.colno})") from None
    if not isinstance(action, dict):
        raise UserError('the action is a JSON object, e.g. {"type": "FinalGuess", "expression": "..."}')
    if (held := _undecodable(json.dumps(action, ensure_ascii=False))) is not None:
        raise UserError(f"the action is not UTF-8 text (it holds {held}); nothing was played")
    return await session.step(store, args.session, action)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
