"""The published Static Picnic LLM judge (``judge_system.txt`` + ``judge.txt``), asked three times, majority
decides. Reported beside the code's verdict; it decides only guesses the code cannot read (flagged).

The reference asked once and counted exactly ``yes`` (after lower-casing) as right (``base.py:277-290``); here a
vote is read with surrounding punctuation, quotes and emphasis forgiven, and a reply that is neither yes nor no is
a vote for neither side.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from wason.core import ChatMessage, GenerationParams
from wason.core.family import Oracle
from wason.core.records import CallContext
from wason.judges.llm import majority_vote
from wason.tasks.picnic.protocol import load_text

_WORD = re.compile(r"[a-z]+")


def judge_messages(guess: str, rule: str, positives: Sequence[str]) -> list[ChatMessage]:
    """The published judge conversation: its system message and ``judge.txt`` with the guess, the rule text and
    the positives shown as a Python list repr (``base.py:323-334``)."""
    prompt = load_text("judge.txt").format(guess=guess, rule=rule, positive_examples=repr(list(positives)))
    return [
        ChatMessage(role="system", content=load_text("judge_system.txt")),
        ChatMessage(role="user", content=prompt),
    ]


def read_yes_no(reply: str) -> bool | None:
    """``yes`` -> True, ``no`` -> False (case, quotes, emphasis and a final period forgiven), else None."""
    words: list[str] = _WORD.findall(reply.lower())
    if not words:
        return None
    if len(words) <= 3 and words[0] in ("yes", "no"):
        return words[0] == "yes"
    return None


async def llm_verdict(
    client: Oracle,
    params: GenerationParams,
    context: CallContext,
    guess: str,
    rule: str,
    positives: Sequence[str],
) -> dict[str, Any]:
    """The majority of three published judge votes, as a JSON record (``wason.judges.Verdict``)."""
    verdict = await majority_vote(
        client, judge_messages(guess, rule, positives), params, context, read_yes_no
    )
    return verdict.model_dump(mode="json")
