"""wason: measure whether language models can do science.

A game is pure logic over structured actions; a protocol turns it into text for a model; any player (a model, a
person, a solver, a script) plays it. A family bundles a game with its configuration, items, protocol, solver and
reports, and registers by name (``wason.core.registry``); a session is one game in the store, advanced one action
at a time (``wason.core.session``); ``wason.games`` plays the guess-the-rule games by their published names (the
same games ``wason serve`` offers over HTTP). See the README, ``docs/families.md`` and ``docs/server.md``.
"""

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
    "registry",
    "session",
]
