"""The flags of ``wason eval`` and ``wason eval NAME``: built by every ``wason`` command line (``--help`` too),
so this module imports no more than the parser needs; the run itself is :mod:`wason.cli.eval` (issue 39)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from wason.cli import _Parser
from wason.cli.common import ParserContext, _record_id, add_config_flags

if TYPE_CHECKING:  # the family machinery is imported for a family the command line names (issue 53)
    from wason.core.family import Family


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``eval`` command, with a choice per family (its flags when the command line names it)."""
    quiet = _Parser(add_help=False)
    quiet.add_argument(
        "--quiet",
        "-q",
        action="store_true",
        default=argparse.SUPPRESS,
        help="print only the results: no header line, no live progress",
    )
    ev = ctx.command(
        sub,
        "eval",
        json=True,
        parents=[quiet],
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
    ctx.add_unloaded(ev_sub, lambda card: card.summary)  # choices without their flags
    for fam in ctx.families:
        fe = ev_sub.add_parser(
            fam.name,
            parents=[ctx.store_opts, ctx.json_opt, quiet],
            help=fam.summary,
            description=f"{fam.title}: {fam.summary}",
        )
        add_config_flags(fe, fam.config_type, play=False)
        _add_limit_flag(fe)
        _add_model_flags(fe, fam)


def _add_limit_flag(parser: argparse.ArgumentParser) -> None:
    """``--limit N``, which every family takes: the engine plays the first N items (each with all its trials)."""
    from wason.core.family import RunSettings, field_range

    info = RunSettings.model_fields["limit"]
    parser.add_argument(
        "--limit",
        type=int,
        metavar="N",
        default=argparse.SUPPRESS,
        help=f"{info.description} [{field_range(info)}]",
    )


def _add_model_flags(parser: argparse.ArgumentParser, family: Family[Any]) -> None:
    from wason.models.spec import DEFAULT_MODEL, LOCAL_DEFAULT_MAX_TOKENS

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
        "--timeout",
        type=float,
        default=120.0,
        help="seconds per call attempt to a model server (default 120); the embedded model has none",
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
