"""Generic players: a model through a family's text protocol, a script. (A family's solver and terminal
player live in its package.)"""

from wason.players.llm import LLMPlayer
from wason.players.scripted import ScriptedPlayer

__all__ = ["LLMPlayer", "ScriptedPlayer"]
