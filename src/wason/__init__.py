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
    "open_store",
    "read_export",
    "registry",
    "runs_frame",
    "scores_frame",
    "session",
    "turns_frame",
]
