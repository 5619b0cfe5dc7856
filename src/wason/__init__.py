"""wason: measure whether language models can do science.

A game is pure logic over structured actions; a protocol turns it into text for a model; any player (a model, a
person, a solver, a script) plays it. A family bundles a game with its configuration, items, protocol, solver and
reports, and registers by name (``wason.core.registry``); a session is one game in the store, advanced one action
at a time (``wason.core.session``); ``wason.games`` plays the guess-the-rule games by their published names (the
same games ``wason serve`` offers over HTTP). :func:`evaluate` runs an evaluation from Python, :func:`open_store`
opens a store, and :func:`runs_frame`, :func:`episodes_frame`, :func:`turns_frame`, :func:`calls_frame` and
:func:`scores_frame` read it as pandas DataFrames (``pip install 'wason[data]'``). See the README,
``docs/families.md``, ``docs/python.md``, ``docs/export.md`` and ``docs/server.md``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wason.api import (
        calls_frame,
        episodes_frame,
        evaluate,
        open_store,
        runs_frame,
        scores_frame,
        turns_frame,
    )
    from wason.core import (
        ActionCodec,
        EpisodeContext,
        ExternalFailure,
        Family,
        Game,
        Malformed,
        Move,
        Outcome,
        Player,
        PlayIO,
        RunSettings,
        TextProtocol,
        registry,
        session,
    )
    from wason.core.records import CallContext, RunReport
    from wason.env.verifiers_env import load_environment
    from wason.games import Games, GuessTheRuleGame
    from wason.models.base import ChatMessage, GenerationParams, Model, ModelError, ModelResponse
    from wason.models.client import ModelClient, RetryPolicy
    from wason.report.export import read_export
    from wason.store import Store

__version__ = "0.1.0"

__all__ = [
    "ActionCodec",
    "CallContext",
    "ChatMessage",
    "EpisodeContext",
    "ExternalFailure",
    "Family",
    "Game",
    "Games",
    "GenerationParams",
    "GuessTheRuleGame",
    "Malformed",
    "Model",
    "ModelClient",
    "ModelError",
    "ModelResponse",
    "Move",
    "Outcome",
    "PlayIO",
    "Player",
    "RetryPolicy",
    "RunReport",
    "RunSettings",
    "Store",
    "TextProtocol",
    "__version__",
    "calls_frame",
    "episodes_frame",
    "evaluate",
    "load_environment",
    "open_store",
    "read_export",
    "registry",
    "runs_frame",
    "scores_frame",
    "session",
    "turns_frame",
]

# Each public name and the module it lives in, imported on first use (PEP 562): `import wason` and the CLI's
# start-up pay only for what a command touches - not for the store, the SDKs or the server (issue 39).
_WHERE: dict[str, str] = {
    "calls_frame": "wason.api",
    "episodes_frame": "wason.api",
    "evaluate": "wason.api",
    "open_store": "wason.api",
    "runs_frame": "wason.api",
    "scores_frame": "wason.api",
    "turns_frame": "wason.api",
    "ActionCodec": "wason.core",
    "EpisodeContext": "wason.core",
    "ExternalFailure": "wason.core",
    "Family": "wason.core",
    "Game": "wason.core",
    "Malformed": "wason.core",
    "Move": "wason.core",
    "Outcome": "wason.core",
    "Player": "wason.core",
    "PlayIO": "wason.core",
    "RunSettings": "wason.core",
    "TextProtocol": "wason.core",
    "CallContext": "wason.core.records",
    "RunReport": "wason.core.records",
    "Games": "wason.games",
    "GuessTheRuleGame": "wason.games",
    "ChatMessage": "wason.models.base",
    "GenerationParams": "wason.models.base",
    "Model": "wason.models.base",
    "ModelError": "wason.models.base",
    "ModelResponse": "wason.models.base",
    "ModelClient": "wason.models.client",
    "RetryPolicy": "wason.models.client",
    "read_export": "wason.report.export",
    "Store": "wason.store",
    # verifiers' `vf.load_environment("wason", family=...)` (the verifiers extra)
    "load_environment": "wason.env.verifiers_env",
}
_SUBMODULES = {"registry": "wason.core.registry", "session": "wason.core.session"}


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        value: Any = importlib.import_module(_SUBMODULES[name])
    elif name in _WHERE:
        value = getattr(importlib.import_module(_WHERE[name]), name)
    else:
        raise AttributeError(f"module 'wason' has no attribute {name!r}")
    globals()[name] = value  # found once; later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
