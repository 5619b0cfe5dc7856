"""wason: measure whether language models can do science.

A game is pure logic over structured actions; a protocol turns it into text for a model; any player (a model, a
person, a solver, a script) plays it. See the README and ``docs/``.
"""

from wason.core import ExternalFailure, Game, Malformed, Move, Outcome, Player, TextProtocol
from wason.core.records import CallContext
from wason.models.base import ChatMessage, GenerationParams, Model, ModelError, ModelResponse
from wason.models.client import ModelClient, RetryPolicy
from wason.store import Store

__version__ = "0.1.0"

__all__ = [
    "CallContext",
    "ChatMessage",
    "ExternalFailure",
    "Game",
    "GenerationParams",
    "Malformed",
    "Model",
    "ModelClient",
    "ModelError",
    "ModelResponse",
    "Move",
    "Outcome",
    "Player",
    "RetryPolicy",
    "Store",
    "TextProtocol",
    "__version__",
]
