"""Engine contracts: games, players, protocols, task families and their registry, sessions.

Each name is imported from its module on first use (PEP 562), so that importing a submodule (the registry for
``wason --help``) does not import them all (issue 39)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wason.core.family import (
        ActionCodec,
        EndpointRef,
        EpisodeContext,
        Family,
        FormField,
        GameApi,
        Item,
        JudgedSettings,
        ModelRef,
        Oracle,
        OracleSpec,
        PlayIO,
        RunReader,
        RunSettings,
        form_number,
        form_value,
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
    from wason.core.moves import Command
    from wason.core.records import (
        EpisodeRow,
        Figure,
        Matrix,
        Rate,
        RunRow,
        Score,
        Series,
    )
    from wason.models.base import (
        ChatMessage,
        GenerationParams,
    )

# the message and parameter types of the Oracle contract (families build the prompts their oracles send) come
# from wason.models.base
_WHERE: dict[str, str] = {
    "ActionCodec": "wason.core.family",
    "EndpointRef": "wason.core.family",
    "EpisodeContext": "wason.core.family",
    "Family": "wason.core.family",
    "FormField": "wason.core.family",
    "form_number": "wason.core.family",
    "form_value": "wason.core.family",
    "Command": "wason.core.moves",
    "GameApi": "wason.core.family",
    "Item": "wason.core.family",
    "JudgedSettings": "wason.core.family",
    "ModelRef": "wason.core.family",
    "Oracle": "wason.core.family",
    "OracleSpec": "wason.core.family",
    "PlayIO": "wason.core.family",
    "RunReader": "wason.core.family",
    "RunSettings": "wason.core.family",
    "ExternalFailure": "wason.core.game",
    "Game": "wason.core.game",
    "Malformed": "wason.core.game",
    "Move": "wason.core.game",
    "Outcome": "wason.core.game",
    "Player": "wason.core.game",
    "PlayerLeft": "wason.core.game",
    "ReplyFormat": "wason.core.game",
    "Settles": "wason.core.game",
    "TextProtocol": "wason.core.game",
    "EpisodeRow": "wason.core.records",
    "Figure": "wason.core.records",
    "Matrix": "wason.core.records",
    "Rate": "wason.core.records",
    "RunRow": "wason.core.records",
    "Score": "wason.core.records",
    "Series": "wason.core.records",
    "ChatMessage": "wason.models.base",
    "GenerationParams": "wason.models.base",
}


__all__ = [
    "ActionCodec",
    "ChatMessage",
    "Command",
    "EndpointRef",
    "EpisodeContext",
    "EpisodeRow",
    "ExternalFailure",
    "Family",
    "Figure",
    "FormField",
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
    "form_number",
    "form_value",
]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'wason.core' has no attribute {name!r}")
    value = getattr(importlib.import_module(_WHERE[name]), name)
    globals()[name] = value  # found once; later lookups do not come here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
