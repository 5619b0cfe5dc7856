"""Language models as judges and labellers, for reproducing published protocols that used them.

Code is the oracle in wason: these exist because a published pilot judged free-text hypotheses with an LLM
(three votes, success needs two "true") and labelled test lists with one. Their results are always reported
beside the code's, never instead of them. Every call goes through a :class:`~wason.models.client.ModelClient`, so
it is retried, cached and recorded like a player's call. Votes are independent samples: the vote number is part
of the cache key's sample.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict

from wason.core.family import Oracle
from wason.core.records import CallContext
from wason.judges.labels import read_labels
from wason.models.base import ChatMessage, GenerationParams

# The pilot asked three times and needed two "true" votes.
VOTES = 3
MAJORITY = 2

_JUDGMENT = re.compile(r"""["']?judgment["']?\s*:\s*["']?(true|false)\b""", re.IGNORECASE)
_EXPLANATION = re.compile(r"""["']?explanation["']?\s*:\s*"((?:[^"\\]|\\.)*)\"""", re.IGNORECASE | re.DOTALL)


class JudgeVote(BaseModel):
    """One vote: the judgment read from the reply (None when unreadable) and its explanation."""

    model_config = ConfigDict(frozen=True)

    judgment: bool | None
    explanation: str | None = None


class LLMJudgement(BaseModel):
    """The majority of the votes: ``equivalent`` needs at least ``majority`` "true" votes."""

    model_config = ConfigDict(frozen=True)

    equivalent: bool
    votes: list[JudgeVote]
    majority: int
    model: str


def read_judgment(reply: str) -> JudgeVote:
    """The ``judgment`` boolean of a judge's JSON reply (the last one in the reply), read tolerantly.

    The pilot's prompt asks for JSON with the keys in an order that invites a missing comma, so the reply is
    read with patterns rather than ``json``; a reply without a readable judgment is a vote for neither side.
    """
    found = _JUDGMENT.findall(reply)
    explanation = _EXPLANATION.findall(reply)
    return JudgeVote(
        judgment=found[-1].lower() == "true" if found else None,
        explanation=explanation[-1] if explanation else None,
    )


class LLMJudge:
    """Asks a model whether a hypothesis is extensionally the real rule, ``votes`` times; majority decides.

    Args:
        client: the judge model.
        template: a ``str.format`` template with ``{real_rule}`` and ``{model_hypothesis}`` (the pilot's
            ``judgment_prompt.txt``).
        params: generation parameters of every vote.
        votes: how many independent votes (the pilot: 3).
        majority: "true" votes needed (the pilot: 2).
    """

    def __init__(
        self,
        client: Oracle,
        template: str,
        params: GenerationParams,
        *,
        votes: int = VOTES,
        majority: int = MAJORITY,
    ) -> None:
        if votes < 1 or not 1 <= majority <= votes:
            raise ValueError("votes must be at least 1 and majority between 1 and votes")
        self.client = client
        self.template = template
        self.params = params
        self.votes = votes
        self.majority = majority

    async def __call__(self, real_rule: str, hypothesis: str, context: CallContext) -> LLMJudgement:
        """Judge ``hypothesis`` against ``real_rule``; the votes are recorded under ``context``'s episode."""
        prompt = self.template.format(real_rule=real_rule, model_hypothesis=hypothesis)
        messages = [ChatMessage(role="user", content=prompt)]
        votes = []
        for vote in range(self.votes):
            ctx = _context(context, f"judge|{vote}")
            response = await self.client.complete(messages, self.params, ctx)
            votes.append(read_judgment(response.text))
        yes = sum(v.judgment is True for v in votes)
        return LLMJudgement(
            equivalent=yes >= self.majority, votes=votes, majority=self.majority, model=self.client.model.spec
        )


class LabelResult(BaseModel):
    """What an LLM labeller said about one round's lists, and its reply."""

    model_config = ConfigDict(frozen=True)

    labels: list[bool | None]
    reply: str


class LLMLabeller:
    """Labels test lists with a model, as the pilot did with ``analysis_prompt.txt``.

    Args:
        client: the labelling model.
        template: a ``str.format`` template with ``{rule}`` and ``{test_cases}``.
        params: generation parameters.
        format_cases: renders the round's test cases into the template's ``{test_cases}``.
    """

    def __init__(
        self,
        client: Oracle,
        template: str,
        params: GenerationParams,
        format_cases: Any,
    ) -> None:
        self.client = client
        self.template = template
        self.params = params
        self.format_cases = format_cases

    async def __call__(self, rule: str, cases: Sequence[object], context: CallContext) -> LabelResult:
        """Label ``cases`` under ``rule``; a label the reply does not give is None."""
        prompt = self.template.format(rule=rule, test_cases=self.format_cases(cases))
        response = await self.client.complete(
            [ChatMessage(role="user", content=prompt)], self.params, _context(context, "label")
        )
        return LabelResult(labels=read_labels(response.text, len(cases)), reply=response.text)


class Verdict(BaseModel):
    """What a panel of votes decided: the verdict (None when no side has ``majority`` readable votes), each
    vote as read (None when unreadable) and each raw reply, so the record keeps every word the judge said."""

    model_config = ConfigDict(frozen=True)

    verdict: bool | None
    votes: list[bool | None]
    replies: list[str]
    majority: int
    model: str


_FIRST_WORD = re.compile(r"[A-Za-z]+")


def read_yes_no(reply: str) -> bool | None:
    """A judge's reply as a vote by its first word: ``yes``/``true`` for, ``no``/``false`` against, anything else
    (or no word in its first 2,000 characters) no vote."""
    found = _FIRST_WORD.search(reply[:2000])
    if found is None:
        return None
    word = found.group(0).lower()
    if word in ("true", "yes"):
        return True
    if word in ("false", "no"):
        return False
    return None


async def majority_vote(
    client: Oracle,
    messages: list[ChatMessage],
    params: GenerationParams,
    context: CallContext,
    read: Callable[[str], bool | None],
    *,
    role: str = "judge",
    votes: int = VOTES,
    majority: int = MAJORITY,
) -> Verdict:
    """Ask ``client`` the same question ``votes`` times (independent samples, each its own cache key) and read
    each reply with ``read``; ``verdict`` is the side with at least ``majority`` votes, or None.

    Shared by the published yes/no judges and validator panels, whose prompts and reply readers differ.
    """
    if votes < 1 or not 1 <= majority <= votes:
        raise ValueError("votes must be at least 1 and majority between 1 and votes")
    read_votes: list[bool | None] = []
    replies: list[str] = []
    for vote in range(votes):
        response = await client.complete(messages, params, _context(context, f"{role}|{vote}"))
        replies.append(response.text)
        read_votes.append(read(response.text))
    yes = sum(v is True for v in read_votes)
    no = sum(v is False for v in read_votes)
    verdict = True if yes >= majority else False if no >= majority else None
    return Verdict(
        verdict=verdict, votes=read_votes, replies=replies, majority=majority, model=client.model.spec
    )


class VotingJudge:
    """A game's yes/no judge of one answer: each call asks ``client`` the question ``messages(*answer)`` makes,
    :data:`VOTES` times, reads each reply with ``read`` and returns the majority (:class:`Verdict`) as JSON.

    Args:
        client: the judge model; ``params`` its generation parameters; ``context`` the episode's call context.
        messages: the judge's messages about the answer it is called with.
        read: a reply as a vote (default: :func:`read_yes_no`, by its first word).
        sample: what each call adds to the context's sample (``"guess {n}"``: ``n`` counts the calls from 1),
            so that the votes of each call are their own samples; None adds nothing.
    """

    def __init__(
        self,
        client: Oracle,
        messages: Callable[..., list[ChatMessage]],
        params: GenerationParams,
        context: CallContext,
        *,
        read: Callable[[str], bool | None] = read_yes_no,
        sample: str | None = None,
    ) -> None:
        self.client = client
        self.messages = messages
        self.params = params
        self.context = context
        self.read = read
        self.sample = sample
        self._asked = 0

    async def __call__(self, *answer: Any) -> dict[str, Any]:
        self._asked += 1
        ctx = self.context
        if self.sample is not None:
            ctx = CallContext(
                run_id=ctx.run_id,
                episode_id=ctx.episode_id,
                sample=f"{ctx.sample}|{self.sample.format(n=self._asked)}",
            )
        verdict = await majority_vote(self.client, self.messages(*answer), self.params, ctx, self.read)
        return verdict.model_dump(mode="json")


def _context(context: CallContext, role: str) -> CallContext:
    return CallContext(
        run_id=context.run_id,
        episode_id=context.episode_id,
        turn=context.turn,
        sample=f"{context.sample}|{role}",
    )
