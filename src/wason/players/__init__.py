"""Players: a model through a text protocol, a person at a terminal, a reference solver, a script."""

from wason.players.llm import LLMPlayer
from wason.players.scripted import ScriptedPlayer
from wason.players.solver import WiltSolverPlayer

__all__ = ["LLMPlayer", "ScriptedPlayer", "WiltSolverPlayer"]
