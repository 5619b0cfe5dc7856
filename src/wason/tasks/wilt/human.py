"""A person playing WILT at the terminal."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from wason.core.game import Move, PlayerLeft
from wason.tasks.wilt.game import FinalGuess, ProposeTest, WiltObservation
from wason.tasks.wilt.judge import is_lambda
from wason.tasks.wilt.values import format_value

HELP = """\
Find the hidden rule: it takes three numbers x, y, z and answers True or False.
  1 2 3            test the triple (1, 2, 3)  (also: (1, 2, 3) or 1,2,3)
  guess EXPR       your one final guess, e.g.  guess x < y < z   or  guess lambda x, y, z: x + y == z
  history          the tests so far
  help             this text
  quit             give up
Values: numbers typed with at most three digits, not counting sign and decimal point (e.g. -11.3, .005, 250).
You have {max_tests} tests, then one guess. The guess language is Python-like: + - * / // % **, comparisons,
and/or/not, abs min max round int, math.floor/ceil/sqrt/gcd, all(...)/any(...), x % 1 == 0 for integers."""

HELP_SINGLE = """\
Find the hidden rule: it takes one whole number x from 1 to 100 and answers True or False.
  42               test the number 42  (also: (42))
  guess EXPR       your one final guess, e.g.  guess x > 50   or  guess lambda x: x % 3 == 0
  history          the tests so far
  help             this text
  quit             give up
You have {max_tests} tests, then one guess, judged on every number from 1 to 100. The guess language is
Python-like: + - * / // % **, comparisons, and/or/not, abs min max round int, math.floor/ceil/sqrt/gcd."""

_SPLIT = re.compile(r"[\s,()\[\]]+")


class HumanPlayer:
    """Reads moves from a person; shows results in plain words."""

    def __init__(
        self,
        max_tests: int = 30,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
        *,
        arity: int = 3,
    ) -> None:
        self.arity = arity
        self.help = HELP if arity == 3 else HELP_SINGLE
        self.read = read
        self.write = write
        self.max_tests = max_tests
        self.history: list[str] = []

    async def act(self, observation: Any) -> Move[Any]:
        if isinstance(observation, WiltObservation):
            self._show(observation)
        while True:
            try:
                line = await asyncio.to_thread(self.read, "> ")
            except (EOFError, KeyboardInterrupt) as exc:
                raise PlayerLeft("input closed") from exc
            move = self._interpret(line.strip())
            if move is not None:
                return move

    def _show(self, obs: WiltObservation) -> None:
        if obs.kind == "start":
            self.write(self.help.format(max_tests=self.max_tests))
            return
        if obs.kind == "result" and obs.values is not None:
            shown = ", ".join(format_value(v) for v in obs.values[: self.arity])
            note = "  (you tried this before)" if obs.repeat else ""
            line = f"({shown}) -> {obs.result}{note}"
            self.history.append(line)
            self.write(f"{line}    [{obs.remaining} tests left]")
        elif obs.kind == "invalid_test":
            self.write(f"Not a valid test: {obs.reason}. That used one test. [{obs.remaining} tests left]")
        elif obs.kind == "format_error":
            self.write(f"Could not read that: {obs.reason}. [{obs.remaining} tests left]")
        if obs.must_guess:
            self.write("No tests left: make your final guess with  guess EXPR")

    def _interpret(self, line: str) -> Move[Any] | None:
        if not line:
            return None
        word, _, rest = line.partition(" ")
        lowered = word.lower()
        if lowered in {"help", "h", "?"}:
            self.write(self.help.format(max_tests=self.max_tests))
            return None
        if lowered in {"history", "hist"}:
            self.write("\n".join(self.history) or "No tests yet.")
            return None
        if lowered in {"quit", "exit", "q"}:
            raise PlayerLeft("gave up")
        if lowered in {"guess", "g", "final"}:
            if not rest.strip():
                self.write("Say the rule after 'guess', e.g.  guess x < y < z")
                return None
            guess = rest.strip()
            if not is_lambda(guess):  # a person may leave out the lambda (the model protocol may not)
                guess = f"lambda x: {guess}" if self.arity == 1 else f"lambda x, y, z: {guess}"
            return Move(action=FinalGuess(guess), reply=line)
        tokens = tuple(t for t in _SPLIT.split(line) if t)
        if len(tokens) == self.arity:
            return Move(action=ProposeTest(tokens), reply=line)
        # A person's typo costs nothing: ask again instead of counting a format error.
        what = "three numbers" if self.arity == 3 else "a number"
        self.write(f"Type {what} to test, or 'guess EXPR', or 'help'.")
        return None
