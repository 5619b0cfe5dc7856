"""Players: a model through a text protocol, a person at a terminal, a script."""

from wason.players.llm import LLMPlayer
from wason.players.scripted import ScriptedPlayer

__all__ = ["LLMPlayer", "ScriptedPlayer"]
