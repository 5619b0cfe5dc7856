"""``wason serve``: the HTTP API and the web pages."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any

from wason.cli.common import ParserContext, UserError, _db

if TYPE_CHECKING:
    from rich.console import Console


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


def add_arguments(sub: Any, ctx: ParserContext) -> None:
    """The ``serve`` command and its flags."""
    sv = ctx.command(
        sub,
        "serve",
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
        "--max-streams",
        type=int,
        default=32,
        metavar="N",
        help="event streams (a /watch page following a run) the server follows at once, 1 to 1000 (default 32); "
        "one more is a 503",
    )
    sv.add_argument(
        "--max-client-streams",
        type=int,
        default=8,
        metavar="N",
        help="event streams one client (a remote address) may follow at once, 1 to 1000 (default 8); one more "
        "is a 429",
    )
    sv.add_argument(
        "--log-level",
        choices=["critical", "error", "warning", "info", "debug"],
        default="info",
        help="uvicorn's log level (default info)",
    )


def run(args: argparse.Namespace, console: Console) -> int:
    from wason.server import serve
    from wason.server.web import watch

    # bounded where they are declared (StreamLimits: a ValueError naming the flag, one line); the app serve() makes
    # takes the process's limits
    watch.use_stream_limits(watch.StreamLimits(server=args.max_streams, client=args.max_client_streams))

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
