"""A person playing the math-sequence game at the terminal."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from wason.core.game import Move, PlayerLeft

MATH_HELP = """\
Find the rule that gives each term from the one before: next = f(current value v, index i), i = 0 for the first
term. Every sequence above follows it.
  more [N]          N more sequences (default: the game's number per turn)
  guess EXPR        your rule as a Python expression, e.g.  guess lambda v, i: v * 2 if i % 2 == 0 else v + 1
  guess TEXT        your rule in words (you will be asked for the expression)
  give up           end the game
  help              this text
  quit              leave (the session can be resumed)
Each more and each guess is a turn."""

_INT = re.compile(r"[+-]?\d{1,40}")


class MathHumanPlayer:
    """A person at the terminal: reads commands, shows sequences."""

    def __init__(self, *, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> None:
        self.read = read
        self.write = write

    async def _line(self, prompt: str = "> ") -> str:
        try:
            return (await asyncio.to_thread(self.read, prompt)).strip()
        except (EOFError, KeyboardInterrupt) as exc:
            raise PlayerLeft("input closed") from exc

    def _show(self, obs: Any) -> None:
        for s in obs.sequences:
            self.write("  " + ", ".join(str(t) for t in s))
        if obs.kind == "start":
            self.write(MATH_HELP)
        elif obs.kind == "wrong":
            self.write("Wrong guess" + (f": {obs.reason}" if obs.reason else "") + ".")
        elif obs.kind == "format_error" and obs.reason:
            self.write(obs.reason)
        if obs.kind in ("start", "examples", "wrong", "format_error"):
            self.write(f"[{obs.turns_left} turns left]")

    async def act(self, observation: Any) -> Move[Any]:
        from wason.tasks.math_rules.expression import find_expression
        from wason.tasks.math_rules.game import ExpressionAnswer, GiveUp, Guess, More

        self._show(observation)
        if observation.kind == "ask_expression":
            self.write("Write your rule as a Python expression, e.g.  lambda v, i: v + 3")
            line = await self._line("lambda v, i: ... > ")
            return Move(action=ExpressionAnswer(line), reply=line)
        if observation.kind == "ask_quiz":
            return await self._quiz(observation.quiz)
        while True:
            line = await self._line()
            word, _, rest = line.partition(" ")
            lowered = word.lower()
            if not line:
                continue
            if lowered in {"help", "h", "?"}:
                self.write(MATH_HELP)
            elif lowered in {"quit", "exit", "q"}:
                raise PlayerLeft("left the game")
            elif line.lower() == "give up":
                return Move(action=GiveUp(), reply=line)
            elif lowered == "more":
                count = rest.strip()
                if count and not count.isdigit():
                    self.write("Say how many, e.g.  more 3")
                    continue
                return Move(action=More(int(count) if count else None), reply=line)
            elif lowered in {"guess", "g"}:
                text = rest.strip()
                if not text:
                    self.write("Say the rule after 'guess', e.g.  guess lambda v, i: v + 3")
                    continue
                return Move(action=Guess(text, find_expression(text)), reply=line)
            else:
                self.write("Type more, guess RULE, give up or help.")

    async def _quiz(self, quiz: Any) -> Move[Any]:
        from wason.tasks.math_rules.game import QUIZ_ASKED, QuizAnswer

        self.write(f"Continue each sequence: type its next {QUIZ_ASKED} terms.")
        answers: list[tuple[int, ...] | None] = []
        for k, shown in enumerate(quiz, 1):
            line = await self._line(f"{k}. {', '.join(str(t) for t in shown)}, ... > ")
            numbers = tuple(int(x) for x in _INT.findall(line))[:QUIZ_ASKED]
            answers.append(numbers or None)
        return Move(action=QuizAnswer(tuple(answers)), reply="; ".join(str(a) for a in answers))
