"""Engine contracts: games, players, protocols, task families and their registry, sessions."""

from wason.core.family import (
    ActionCodec,
    EndpointRef,
    EpisodeContext,
    Family,
    GameApi,
    Item,
    JudgedSettings,
    ModelRef,
    Oracle,
    OracleSpec,
    PlayIO,
    RunReader,
    RunSettings,
)
from wason.core.game import (
    ExternalFailure,
    Game,
    Malformed,
    Move,
    Outcome,
    Player,
    PlayerLeft,
    ReplyFormat,
    Settles,
    TextProtocol,
)
from wason.core.records import EpisodeRow, Figure, Matrix, Rate, RunRow, Score, Series

# the message and parameter types of the Oracle contract (families build the prompts their oracles send)
from wason.models.base import ChatMessage, GenerationParams

__all__ = [
    "ActionCodec",
    "ChatMessage",
    "EndpointRef",
    "EpisodeContext",
    "EpisodeRow",
    "ExternalFailure",
    "Family",
    "Figure",
    "Game",
    "GameApi",
    "GenerationParams",
    "Item",
    "JudgedSettings",
    "Malformed",
    "Matrix",
    "ModelRef",
    "Move",
    "Oracle",
    "OracleSpec",
    "Outcome",
    "PlayIO",
    "Player",
    "PlayerLeft",
    "Rate",
    "ReplyFormat",
    "RunReader",
    "RunRow",
    "RunSettings",
    "Score",
    "Series",
    "Settles",
    "TextProtocol",
]
