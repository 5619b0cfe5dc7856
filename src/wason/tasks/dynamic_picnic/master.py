"""The game master's model work: writing items, a validator panel deciding them, the rule-guess judge.

Everything here is asked of an injected :class:`wason.core.Oracle` (the run's game-master model), through
:func:`wason.judges.majority_vote` for every vote, and returns JSON-ready records holding every reply, so a
game replays from its stored turns without asking again. Replies are read strictly by code:

* an item vote (the published ``judge_example`` prompt) is yes when the reply starts ``Correct!``, no when it
  starts ``Incorrect.``, unreadable otherwise (also when it holds both, as an echoed format line does);
* a rule-guess vote (``judge_rule``) is the reply's final answer being exactly ``yes`` or ``no`` (after
  brackets, quotes, asterisks, a trailing period and a ``final answer:`` label are taken off); the reference's
  substring test (``"yes" in reply``, base.py:281) passed an echoed ``[your final answer: yes or no]``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from wason.core import ChatMessage
from wason.core.family import Oracle
from wason.core.records import CallContext
from wason.judges import majority_vote
from wason.sandbox.words import WordProgram
from wason.tasks.dynamic_picnic import prompts
from wason.tasks.dynamic_picnic.rules import mentions_spelling, read_level, read_rule

MAX_ITEM_CHARS = 60
MAX_ITEMS_PER_REPLY = 50
_LABEL = re.compile(r"^\s*(?:your\s+)?final\s+answer\s*[:\-]\s*", re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:a|an|the|some)\s+", re.IGNORECASE)
_NUMBERING = re.compile(r"^\s*(?:\d+[.)]|[-*\u2022])\s*")


def normalize_item(raw: str) -> str:
    """An item as the game keeps it: lower case, single spaces, no quotes, brackets, numbering, trailing
    punctuation or leading article (``"A Kite."`` -> ``kite``)."""
    text = _NUMBERING.sub("", str(raw))
    text = " ".join(text.replace("\u201c", " ").replace("\u201d", " ").split()).strip(" \"'`[](){}*.,;:!?")
    return _ARTICLE.sub("", text).strip(" \"'`.,;:!?").lower()


def valid_item(item: str) -> bool:
    """An item the game accepts: 1-60 characters, a letter in it, one line."""
    return 0 < len(item) <= MAX_ITEM_CHARS and any(c.isalpha() for c in item) and "\n" not in item


def read_items(reply: str) -> list[str]:
    """The items of a writer's comma-separated reply, normalised, de-duplicated in order, invalid ones left
    out (at most 50)."""
    out: list[str] = []
    for line in reply.replace("\r", "\n").split("\n"):
        for piece in line.split(","):
            item = normalize_item(piece)
            if valid_item(item) and item not in out:
                out.append(item)
    return out[:MAX_ITEMS_PER_REPLY]


def read_item_vote(reply: str) -> bool | None:
    """A validator's vote on one item, from the published example judge's reply format."""
    text = _LABEL.sub("", reply.strip().strip("[]").strip()).strip().lstrip("\"'*[ ")
    has_yes, has_no = "Correct!" in reply, "Incorrect" in reply
    if has_yes and has_no:
        return None
    if text.startswith("Correct!"):
        return True
    if text.startswith("Incorrect."):
        return False
    return None


def read_rule_vote(reply: str) -> bool | None:
    """A judge's yes/no on a rule guess, read strictly (the whole final answer must be the word)."""
    text = reply.strip()
    for _ in range(3):
        text = _LABEL.sub("", text.strip().strip("[]*\"'` ").strip()).rstrip(".!").strip().strip("[]*\"'` ")
    word = text.lower()
    return True if word == "yes" else False if word == "no" else None


@dataclass(frozen=True)
class MasterSettings:
    """How the game master works: ``panel`` validators per item (shown only when all agree), ``judge_votes``
    votes of the rule-guess judge (published: 3), ``judge_majority`` of them deciding."""

    panel: int = 3
    judge_votes: int = 3
    judge_majority: int = 2

    def __post_init__(self) -> None:
        if self.panel < 1:
            raise ValueError("panel must be at least 1")
        if self.judge_votes < 1 or not 1 <= self.judge_majority <= self.judge_votes:
            raise ValueError("judge_votes must be at least 1 and judge_majority between 1 and judge_votes")


class GameMaster:
    """One episode's game master: its model (retried, cached and recorded by whoever injected it), generation
    parameters and call identity (each call adds its own ``sample`` suffix)."""

    def __init__(self, oracle: Oracle, params: Any, context: CallContext, settings: MasterSettings) -> None:
        self.oracle, self.params, self.context, self.settings = oracle, params, context, settings

    def _ctx(self, turn: int, what: str) -> CallContext:
        return replace(self.context, turn=turn, sample=f"{self.context.sample}|{what}")

    async def reply(self, messages: list[ChatMessage], turn: int, what: str) -> str:
        """The model's reply to ``messages``, its call's sample suffixed with ``what``."""
        return (await self.oracle.complete(messages, self.params, self._ctx(turn, what))).text

    async def write(
        self,
        rule: str,
        existing: Sequence[str],
        guesses: Sequence[str],
        n: int,
        *,
        fits: bool,
        turn: int,
        round_: int,
    ) -> dict[str, Any]:
        """Ask for ``n`` new items that fit the rule (the published writer) or do not (ours); the record holds
        the reply and the items read from it."""
        messages = prompts.example_writer(rule, existing, guesses, n, fits=fits)
        reply = await self.reply(messages, turn, f"write{'+' if fits else '-'}|{round_}")
        return {"fits": fits, "round": round_, "reply": reply, "items": read_items(reply)}

    async def vote(self, rule: str, item: str, *, turn: int) -> dict[str, Any]:
        """The panel's k votes on one item (the published example judge, each vote its own sample)."""
        k = self.settings.panel
        verdict = await majority_vote(
            self.oracle,
            prompts.example_judge(rule, item),
            self.params,
            self._ctx(turn, f"item|{item}"),
            read_item_vote,
            role="panel",
            votes=k,
            majority=k // 2 + 1,
        )
        votes = list(verdict.votes)
        unanimous = all(v is True for v in votes) or all(v is False for v in votes)
        return {
            "votes": votes,
            "replies": list(verdict.replies),
            "majority": verdict.verdict,
            "unanimous": unanimous,
            "model": verdict.model,
        }

    async def votes(self, rule: str, items: Sequence[str], *, turn: int) -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(self.vote(rule, item, turn=turn) for item in items)))

    async def judge(self, rule: str, guess: str, *, turn: int) -> dict[str, Any]:
        """The published rule judge, ``judge_votes`` times; the verdict needs ``judge_majority`` yes votes."""
        s = self.settings
        verdict = await majority_vote(
            self.oracle,
            prompts.rule_judge(rule, guess),
            self.params,
            self._ctx(turn, "rule"),
            read_rule_vote,
            role="judge",
            votes=s.judge_votes,
            majority=s.judge_majority,
        )
        return {
            "verdict": verdict.verdict is True,
            "votes": list(verdict.votes),
            "replies": list(verdict.replies),
            "majority": s.judge_majority,
            "model": verdict.model,
        }


def decide(
    kind: str, program: WordProgram | None, item: str, vote: dict[str, Any] | None
) -> tuple[bool | None, str]:
    """An item's label and who decided it: the predicate alone (lexical), the predicate then the panel
    (mixed: a "no" by the predicate is final), or the panel (semantic). The panel decides only when
    unanimous; otherwise the label is None (the item is never shown)."""
    if kind in ("lexical", "mixed") and program is not None:
        fits = program(item)
        if kind == "lexical" or not fits:
            return fits, "predicate"
    if vote is None or not vote["unanimous"]:
        return None, "panel"
    label = vote["votes"][0]
    return (bool(label) if label is not None else None), ("predicate+panel" if kind == "mixed" else "panel")


def needs_vote(kind: str, program: WordProgram | None, item: str) -> bool:
    """Whether the panel must vote on an item (semantic rules, and mixed rules the predicate accepts)."""
    if kind == "lexical" and program is not None:
        return False
    if kind == "mixed" and program is not None:
        return program(item)
    return True


# -- writing rules --------------------------------------------------------------------------------------------
LEVEL_TRIES = 5  # the reference re-asked the classifier up to 5 times, then took L2


async def write_rule(
    master: GameMaster, rule_type: str, existing: Sequence[str], *, simple: bool, turn: int = 0
) -> dict[str, Any]:
    """The published rule writer, the published level classifier (re-asked until it answers a level, at most
    five times) and, for a rule about letters, our predicate writer; every reply is in the record."""
    written = await master.reply(prompts.rule_writer(rule_type, existing, simple=simple), turn, "rule-writer")
    record: dict[str, Any] = {"rule_type": rule_type, "simple": simple, "rule_reply": written}
    text = read_rule(written)
    levels: list[str] = []
    if text:
        for attempt in range(LEVEL_TRIES):
            levels.append(await master.reply(prompts.level_classifier(text), turn, f"level|{attempt}"))
            if read_level(levels[-1]):
                break
        if mentions_spelling(text):
            record["predicate_reply"] = await master.reply(
                prompts.predicate_writer(text), turn, "predicate-writer"
            )
    record["level_replies"] = levels
    return record
