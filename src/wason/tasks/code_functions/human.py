"""A person playing Code Functions Picnic at the terminal."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from wason.core.game import Move, PlayerLeft
from wason.tasks.code_functions.game import GiveUp, Guess, More, Observation, PredicateAnswer
from wason.tasks.code_functions.protocol import find_predicate, parse_quiz

HELP = """\
Find the hidden rule: it says which words can be brought to the picnic (it looks at the letters, not the
meaning).
  more N           show N more words that can be brought and N that cannot (e.g. more 3)
  guess TEXT       guess the rule in words; you will then write it as a Python predicate over the word w,
                   e.g.  guess words with at least 6 letters   then   lambda w: len(w) >= 6
                   (you may also put the lambda in the guess itself)
  words            every word shown so far
  help             this text
  give up          end the game
A guess wins when its predicate agrees with the rule on every word you have not seen."""


class CodeFunctionsHumanPlayer:
    """A person at the terminal."""

    def __init__(self, *, read: Callable[[str], str] = input, write: Callable[[str], None] = print) -> None:
        self.read = read
        self.write = write

    async def _line(self, prompt: str = "> ") -> str:
        try:
            return (await asyncio.to_thread(self.read, prompt)).strip()
        except (EOFError, KeyboardInterrupt) as exc:
            raise PlayerLeft("input closed") from exc

    def _show(self, obs: Observation) -> None:
        if obs.kind == "start":
            self.write(HELP)
        if obs.kind == "wrong":
            self.write("Not the rule." + (f" ({obs.reason})" if obs.reason else ""))
        if obs.kind == "format_error" and obs.reason:
            self.write(obs.reason)
        if obs.positives:
            self.write("I can bring: " + ", ".join(obs.positives))
        if obs.negatives:
            self.write("I cannot bring: " + ", ".join(obs.negatives))
        if obs.capped:
            self.write(f"(at most 100 at a time, not {obs.capped})")
        if obs.turns_left is not None and obs.kind not in ("ask_quiz", "ended"):
            self.write(f"Turns left: {obs.turns_left}")

    async def act(self, observation: Any) -> Move[Any]:
        obs: Observation = observation
        self._show(obs)
        if obs.kind == "ask_predicate":
            self.write("Write your rule as a predicate over the word w, e.g.  lambda w: w[0] in 'aeiou'")
            line = await self._line("lambda w: ... > ")
            return Move(action=PredicateAnswer(find_predicate(line) or line), reply=line)
        if obs.kind == "ask_quiz":
            self.write(f"The game is decided ({obs.status}). Can these words be brought? Answer y or n.")
            answers = []
            for i, word in enumerate(obs.quiz, 1):
                answer = (await self._line(f"{i}. {word}? ")).lower()
                answers.append(
                    f"{i}. {'yes' if answer.startswith('y') else 'no' if answer.startswith('n') else '?'}"
                )
            return Move(action=parse_quiz("\n".join(answers), len(obs.quiz)))
        while True:
            line = await self._line()
            low = line.lower()
            if low in ("help", "?"):
                self.write(HELP)
            elif low == "words":
                self.write("I can bring: " + ", ".join(obs.all_positives))
                self.write("I cannot bring: " + ", ".join(obs.all_negatives))
            elif low in ("give up", "quit"):
                return Move(action=GiveUp(), reply=line)
            elif low.startswith("more"):
                rest = low[4:].strip()
                if rest and not rest.isdigit():
                    self.write("more N: N is a number, e.g. more 3")
                    continue
                return Move(action=More(int(rest) if rest else 2), reply=line)
            elif low.startswith("guess"):
                text = line[5:].strip()
                if not text:
                    self.write("guess TEXT: say the rule, e.g. guess words ending in a vowel")
                    continue
                return Move(action=Guess(text=text, predicate=find_predicate(text)), reply=line)
            elif line:
                self.write("Type more N, guess TEXT, words, help or give up.")
