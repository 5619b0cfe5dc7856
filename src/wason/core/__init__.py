"""Engine contracts and the episode runner."""

from wason.core.game import ExternalFailure, Game, Malformed, Move, Outcome, Player, Settles, TextProtocol

__all__ = ["ExternalFailure", "Game", "Malformed", "Move", "Outcome", "Player", "Settles", "TextProtocol"]
