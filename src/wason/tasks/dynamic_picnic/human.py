"""A person playing Dynamic Picnic at the terminal: each line is read like a model's reply."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from wason.core.game import Malformed, Move, PlayerLeft
from wason.tasks.dynamic_picnic.game import Begin, PicnicObservation
from wason.tasks.dynamic_picnic.protocol import read_reply

HELP = """\
  Can I bring a kite?          ask whether an item fits the rule
  more examples / more 3       ask for more examples
  The rule is: ...             guess the rule (add  lambda w: ...  to have a lexical rule checked by code)
  give up                      end the game
  quit                         leave (the game can be resumed)"""


class PicnicHumanPlayer:
    def __init__(
        self,
        *,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        more_default: int = 0,
    ) -> None:
        self.read = read
        self.write = write
        self.more_default = more_default
        self._printed = 0

    async def _line(self) -> str:
        try:
            return (await asyncio.to_thread(self.read, "> ")).strip()
        except (EOFError, KeyboardInterrupt) as exc:
            raise PlayerLeft("input closed") from exc

    async def act(self, observation: Any) -> Move[Any]:
        obs: PicnicObservation = observation
        if obs.kind == "preparing":
            self.write(obs.message)
            return Move(action=Begin())
        for speaker, said in obs.history[self._printed :]:
            self.write(f"{speaker}: {said}")
        self._printed = len(obs.history)
        if obs.turn == 0:
            self.write(HELP)
        if obs.turns_left is not None:
            self.write(f"({obs.turns_left} turn{'s' if obs.turns_left != 1 else ''} left)")
        while True:
            line = await self._line()
            if line.lower() == "quit":
                raise PlayerLeft("the player quit")
            if line.lower() == "help":
                self.write(HELP)
                continue
            action = read_reply(line, final=obs.final, more_default=self.more_default)
            if isinstance(action, Malformed):
                self.write(f"Not understood: {action.reason}. Type help.")
                continue
            return Move(action=action, reply=line)
