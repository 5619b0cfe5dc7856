"""A player that plays a fixed list of actions, for tests and benchmarks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wason.core.game import Malformed, Move


class ScriptedPlayer:
    """Plays the given actions in order; plays :class:`Malformed` once the script runs out."""

    def __init__(self, actions: Iterable[Any]) -> None:
        self._actions = list(actions)
        self._next = 0

    async def act(self, observation: Any) -> Move[Any]:
        if self._next >= len(self._actions):
            return Move(action=Malformed("the script has no more moves"))
        action = self._actions[self._next]
        self._next += 1
        return Move(action=action)
