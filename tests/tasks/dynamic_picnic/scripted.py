"""A scripted game master for Dynamic Picnic tests: it answers the published prompts from tables, and counts
and keeps every call (messages and sample), so tests can check what was asked and that a replay asks nothing."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from wason.core.records import CallContext
from wason.models.base import ChatMessage, GenerationParams, ModelResponse

_ITEM = re.compile(r"The player's example guess is: \"(.*)\"\.")
_GUESS = re.compile(r"The player's rule guess is: \"(.*)\"\.")


def _kind(messages: Sequence[Any]) -> str:
    first = messages[0]["content"] if isinstance(messages[0], dict) else messages[0].content
    last = messages[-1]["content"] if isinstance(messages[-1], dict) else messages[-1].content
    if first == "You are a creative and diverse assistant.":
        return "rule"
    if first.startswith("\nYou are an expert in analyzing"):
        return "level"
    if "Reply with exactly two lines:\nPREDICATE" in last:
        return "predicate"
    if first.startswith("You are an expert at evaluating whether specific examples"):
        return "panel"
    if first.startswith("You are an expert at identifying semantic equivalency"):
        return "judge"
    if "do NOT satisfy the secret rule" in last:
        return "write-"
    if "new and unique examples of items that satisfy the secret rule" in last:
        return "write+"
    return "player"


class ScriptedMaster:
    """Answers the game master's prompts.

    Args:
        fits: items the panel says fit (every other item is said not to fit).
        split: items on which the panel's votes disagree (the first vote differs from the others).
        positives, negatives: what the writer replies to the published and to our negative writer (a
            reply string, or a list of replies used in turn).
        judge: the rule judge's reply to a guess (a function of the guess text).
    """

    def __init__(
        self,
        *,
        fits: set[str] | None = None,
        split: set[str] | None = None,
        positives: str | list[str] = "",
        negatives: str | list[str] = "",
        judge: Callable[[str], str] | None = None,
        rules: list[str] | None = None,
        levels: list[str] | None = None,
        predicates: list[str] | None = None,
    ) -> None:
        self.rules = list(rules or [])
        self.levels = list(levels or [])
        self.predicates = list(predicates or [])
        self.fits = fits or set()
        self.split = split or set()
        self.positives = [positives] if isinstance(positives, str) else list(positives)
        self.negatives = [negatives] if isinstance(negatives, str) else list(negatives)
        self.judge = judge or (lambda guess: "no")
        self.calls: list[tuple[str, str, list[dict[str, str]]]] = []
        self.temperatures: list[float | None] = []
        self._votes: dict[str, int] = defaultdict(int)

    def reply(self, messages: Sequence[Any]) -> str:
        kind = _kind(messages)
        last = messages[-1]["content"] if isinstance(messages[-1], dict) else messages[-1].content
        if kind == "rule":
            return self.rules.pop(0) if self.rules else ""
        if kind == "level":
            return self.levels.pop(0) if self.levels else "L2"
        if kind == "predicate":
            return self.predicates.pop(0) if self.predicates else "PREDICATE: NONE"
        if kind == "write+":
            return self.positives.pop(0) if len(self.positives) > 1 else (self.positives or [""])[0]
        if kind == "write-":
            return self.negatives.pop(0) if len(self.negatives) > 1 else (self.negatives or [""])[0]
        if kind == "panel":
            found = _ITEM.search(last)
            item = found.group(1) if found else ""
            self._votes[item] += 1
            yes = item in self.fits
            if item in self.split and self._votes[item] == 1:
                yes = not yes
            return f"Correct! You can bring {item}" if yes else f"Incorrect. You cannot bring {item}"
        if kind == "judge":
            found = _GUESS.search(last)
            return self.judge(found.group(1) if found else "")
        return "I do not know."  # a call of no kind above

    def count(self, kind: str) -> int:
        return sum(1 for k, _, _ in self.calls if k == kind)


class ScriptedOracle:
    """A :class:`wason.core.Oracle` answering with a :class:`ScriptedMaster`, keeping every call."""

    def __init__(self, master: ScriptedMaster) -> None:
        self.master = master

    @property
    def model(self) -> Any:
        class _M:
            spec = "scripted:game-master"

        return _M()

    async def complete(
        self, messages: list[ChatMessage], params: GenerationParams, context: CallContext | None = None
    ) -> ModelResponse:
        text = self.master.reply(messages)
        self.master.temperatures.append(params.temperature)
        sample = context.sample if context else ""
        self.master.calls.append(
            (_kind(messages), sample, [{"role": m.role, "content": m.content} for m in messages])
        )
        return ModelResponse(text=text)


def openai_reply(
    master: ScriptedMaster, player: Callable[[str], str]
) -> Callable[[list[Mapping[str, Any]], dict[str, Any]], str]:
    """A reply function for the fake OpenAI server: the game master's prompts go to ``master``, the
    player's (the published turn prompt) to ``player``."""

    def reply(messages: list[Mapping[str, Any]], body: dict[str, Any]) -> str:
        kind = _kind(messages)
        if kind == "player":
            return player(str(messages[-1]["content"]))
        text = master.reply(messages)
        master.calls.append((kind, "", [dict(m) for m in messages]))
        return text

    return reply
