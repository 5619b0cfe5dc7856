"""A person playing Static Picnic at the terminal."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from wason.core.game import Move, PlayerLeft
from wason.tasks.picnic.game import GiveUp, Guess, More, PicnicObservation

PICNIC_HELP = """\
Find the hidden rule: which items may come to the picnic. The rule is one to three categories (an item comes
when it is in all of them); the examples say what may and may not come.
  more N           N more items that may come and N that may not (e.g. more 3)
  guess TEXT       your rule, e.g.  guess Items from the category 'fruit'   or   guess fruit and food
  give up          end the game and see the rule
  history          the items seen so far
  categories       the category names
  help             this text"""

_MORE = re.compile(r"^more\s+(\d{1,6})$", re.I)


class PicnicHumanPlayer:
    """A person at the terminal: typos cost nothing (they are asked again, never counted as moves)."""

    def __init__(self, *, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> None:
        self.read = read
        self.write = write
        self.positives: list[str] = []
        self.negatives: list[str] = []

    async def _line(self, prompt: str = "> ") -> str:
        try:
            return (await asyncio.to_thread(self.read, prompt)).strip()
        except (EOFError, KeyboardInterrupt) as exc:
            raise PlayerLeft("input closed") from exc

    def _show(self, obs: PicnicObservation) -> None:
        if obs.kind == "start":
            self.write(PICNIC_HELP)
        if obs.kind == "wrong_guess":
            self.write("That is not the rule.")
        if obs.kind == "format_error":
            self.write(f"That move could not be read: {obs.reason}")
        if obs.capped:
            self.write(f"Only {len(obs.positives)} of each were left.")
        self.positives += obs.positives
        self.negatives += obs.negatives
        if obs.positives or obs.negatives:
            self.write(f"Can come:    {', '.join(obs.positives)}")
            self.write(f"Cannot come: {', '.join(obs.negatives)}")
        left = "" if obs.turns_left is None else f"; {obs.turns_left} moves left"
        if obs.remaining <= 0:
            self.write(f"[turn {obs.turn}; no more examples: make your guess{left}]")
        else:
            self.write(f"[turn {obs.turn}; {obs.remaining} more of each available{left}]")

    async def act(self, observation: PicnicObservation) -> Move[Any]:
        from wason.tasks.picnic.catalog import catalog

        self._show(observation)
        while True:
            line = await self._line()
            if not line:
                continue
            lowered = " ".join(line.lower().split())
            if lowered in ("help", "h", "?"):
                self.write(PICNIC_HELP)
            elif lowered in ("history", "hist"):
                self.write(f"Can come:    {', '.join(self.positives)}")
                self.write(f"Cannot come: {', '.join(self.negatives)}")
            elif lowered in ("categories", "cats"):
                self.write(", ".join(catalog().tags))
            elif lowered in ("give up", "quit", "exit", "q"):
                return Move(action=GiveUp(), reply=line)
            elif _MORE.match(lowered):
                return Move(action=More(int(_MORE.match(lowered).group(1))), reply=line)  # type: ignore[union-attr]
            elif lowered.startswith(("guess ", "g ")):
                text = line.split(None, 1)[1].strip()
                return Move(action=Guess(text), reply=line)
            else:
                self.write("Type 'more N', 'guess TEXT', 'give up' or 'help'.")
