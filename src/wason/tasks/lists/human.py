"""A person playing the list rules at the terminal."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from typing import Any

from wason.core.game import Move, PlayerLeft

_SPLIT = re.compile(r"[\s,()\[\]]+")


LISTS_HELP = """\
Find the hidden rule: it says Yes or No to lists of integers. The examples above all say Yes.
  1 2 3            queue the list [1, 2, 3] for this round  (also: [1, 2, 3] or 1,2,3; [] is the empty list)
  run              test the queued lists (a round runs by itself once {per_round} lists are queued)
  final TEXT       state your final rule in words, e.g.  final the items increase
  history          the lists tested so far
  help             this text
  quit             give up
You have {max_rounds} rounds of up to {per_round} lists. After your final rule you will be asked to write it as a
Python predicate (lambda xs: ...) and to label {quiz} new lists."""

_INTEGER = re.compile(r"[+-]?\d+")


class ListsHumanPlayer:
    """A person playing the list-rules game at the terminal: lists are queued and tested in rounds."""

    def __init__(
        self,
        *,
        per_round: int = 5,
        max_rounds: int = 19,
        quiz: int = 10,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        self.read = read
        self.write = write
        self.per_round = per_round
        self.max_rounds = max_rounds
        self.quiz = quiz
        self.history: list[str] = []
        self.queue: list[tuple[int, ...]] = []

    async def _line(self, prompt: str = "> ") -> str:
        try:
            return (await asyncio.to_thread(self.read, prompt)).strip()
        except (EOFError, KeyboardInterrupt) as exc:
            raise PlayerLeft("input closed") from exc

    async def act(self, observation: Any) -> Move[Any]:
        from wason.tasks.lists.game import PredicateAnswer

        self._show(observation)
        if observation.kind == "ask_predicate":
            self.write("Write your rule as a Python predicate, e.g.  lambda xs: all(x % 2 == 0 for x in xs)")
            line = await self._line("lambda xs: ... > ")
            return Move(action=PredicateAnswer(line), reply=line)
        if observation.kind == "ask_quiz":
            return await self._quiz(observation.quiz)
        while True:
            move = self._interpret(await self._line(), observation.must_finalize)
            if move is not None:
                return move

    def _show(self, obs: Any) -> None:
        if obs.kind == "start":
            self.write("Example lists that follow the rule:")
            for example in obs.examples or ():
                self.write(f"  {list(example)}")
            self.write(
                LISTS_HELP.format(per_round=self.per_round, max_rounds=self.max_rounds, quiz=self.quiz)
            )
        elif obs.kind == "labels":
            for case, label, repeat in zip(obs.cases, obs.labels, obs.repeats, strict=True):
                line = f"{list(case)} -> {'Yes' if label else 'No'}"
                self.history.append(line)
                self.write(line + ("  (tested or shown before)" if repeat else ""))
            self.write(f"[{obs.rounds_left} rounds left]")
        if getattr(obs, "must_finalize", False):
            self.write("No rounds left: state your rule with  final TEXT")

    def _interpret(self, line: str, must_finalize: bool) -> Move[Any] | None:
        from wason.tasks.lists.game import FinalHypothesis

        if not line:
            return None
        word, _, rest = line.partition(" ")
        lowered = word.lower()
        if lowered in {"help", "h", "?"}:
            self.write(
                LISTS_HELP.format(per_round=self.per_round, max_rounds=self.max_rounds, quiz=self.quiz)
            )
            return None
        if lowered in {"history", "hist"}:
            self.write("\n".join(self.history) or "No lists tested yet.")
            return None
        if lowered in {"quit", "exit", "q"}:
            raise PlayerLeft("gave up")
        if lowered in {"final", "f", "guess"}:
            if not rest.strip():
                self.write("Say the rule after 'final', e.g.  final every item is even")
                return None
            return Move(action=FinalHypothesis(rest.strip()), reply=line)
        if must_finalize:
            self.write("No rounds left: state your rule with  final TEXT")
            return None
        if lowered in {"run", "test", "go"}:
            if not self.queue:
                self.write("Queue some lists first, e.g.  2 4 6")
                return None
            return self._round()
        cleaned = _SPLIT.sub(" ", line).strip()
        if cleaned and not all(_INTEGER.fullmatch(t) for t in cleaned.split()):
            # A person's typo costs nothing: ask again instead of counting a format error.
            self.write("Type a list of integers (e.g. 2 4 6 or []), 'run', 'final TEXT' or 'help'.")
            return None
        self.queue.append(tuple(int(t) for t in cleaned.split()))
        if len(self.queue) >= self.per_round:
            return self._round()
        self.write(f"queued {len(self.queue)} of {self.per_round}; 'run' tests them now")
        return None

    def _round(self) -> Move[Any]:
        from wason.tasks.lists.game import TestRound

        cases, self.queue = tuple(self.queue), []
        return Move(action=TestRound(cases), reply="; ".join(str(list(c)) for c in cases))

    async def _quiz(self, lists: Any) -> Move[Any]:
        from wason.tasks.lists.game import QuizAnswer

        self.write("Does each of these lists follow the rule? Answer y or n.")
        answers: list[bool | None] = []
        for i, lst in enumerate(lists, 1):
            while True:
                line = (await self._line(f"{i}. {list(lst)}  y/n > ")).lower()
                if line in {"y", "yes", "n", "no"}:
                    answers.append(line.startswith("y"))
                    break
                if line in {"quit", "exit", "q"}:
                    raise PlayerLeft("gave up")
                self.write("Answer y or n.")
        return Move(action=QuizAnswer(tuple(answers)), reply=" ".join("y" if a else "n" for a in answers))
