"""``wason serve``: the HTTP API (FastAPI, run by uvicorn) over the store's sessions. See ``docs/server.md``."""

from __future__ import annotations

import socket
from collections.abc import Sequence

from wason.models.base import ModelConfigError
from wason.server import guard, offload
from wason.server.allowed import AllowedModels
from wason.server.app import create_app
from wason.server.web import auth

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


class ServeError(ValueError):
    """The server cannot start (a bad port, an address in use); one line for the user."""


def check_address(host: str, port: int) -> None:
    """Fail in one line, before uvicorn starts, when ``host:port`` cannot be listened on."""
    if not 1 <= port <= 65535:
        raise ServeError(f"--port must be from 1 to 65535, got {port}")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ServeError(f"--host {host!r} cannot be resolved: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            raise ServeError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None


def serve(
    db: str | None = None,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    log_level: str = "info",
    token: str | None = None,
    models: Sequence[tuple[str, str | None]] = (),
    allowed_hosts: Sequence[str] = (),
    max_body: int = guard.DEFAULT_MAX_BODY,
    allow_origins: Sequence[str] = (),
) -> None:
    """Run the app with uvicorn until interrupted (the store is opened first, so a bad store fails at once).

    With ``token``, every write request needs it (:mod:`wason.server.web.auth`). ``models`` are the
    ``(spec, base_url)`` pairs a configuration sent to the server may name besides the embedded model, each
    resolved now with its key from the provider's environment variable (:mod:`wason.server.allowed`). Requests
    must name the server as 127.0.0.1, localhost, [::1] or ``host`` (at ``port``), or one of ``allowed_hosts``,
    and bodies are at most ``max_body`` bytes; pages of ``allow_origins`` (``*``: any) may use the published routes
    from their own origin (CORS, :mod:`wason.server.guard`). Open event streams are given a few
    seconds to close when the server stops; runs still playing are then left interrupted."""
    import uvicorn

    check_address(host, port)
    try:
        allowed = AllowedModels.configure(models)
    except ModelConfigError as exc:
        raise ServeError(str(exc)) from None
    try:
        rules = guard.policy([*guard.LOOPBACK, guard.host_for(host), *allowed_hosts], max_body, allow_origins)
    except ValueError as exc:
        raise ServeError(str(exc)) from None
    app = create_app(db, models=allowed)
    guard.configure(app, rules)
    if token is not None:
        auth.protect(app, token)
    # the browser's slow pages (a run's summary and figures) are built in worker processes, not in a thread
    # that would share the GIL with the event loop (see wason.server.offload)
    offload.use_processes(app)
    # keep-alive 30 s (uvicorn: 5): under load a busy loop may read a waiting request only after a short
    # keep-alive timer has closed its connection, and the client sees it dropped
    uvicorn.run(
        app, host=host, port=port, log_level=log_level, timeout_graceful_shutdown=5, timeout_keep_alive=30
    )


__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "AllowedModels",
    "ServeError",
    "check_address",
    "create_app",
    "serve",
]
