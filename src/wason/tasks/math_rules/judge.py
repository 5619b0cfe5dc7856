"""The published LLM judge of a guess (``validate_sys_prompt.txt`` + ``judge_user.txt``), majority of three.

Reported beside the code's verdict, never instead of it. The reference counted a guess right only when the judge
replied exactly ``True`` (exp.py) or its reply contained ``Yes`` (base.py:388), so ``True.`` was a wrong guess;
here a reply is read by its first word once markdown, quotes and punctuation are stripped: ``true``/``yes`` is a
vote for, ``false``/``no`` a vote against, anything else no vote.
"""

from __future__ import annotations

import functools

from wason.core import ChatMessage, GenerationParams
from wason.core.family import Oracle
from wason.core.records import CallContext
from wason.judges import VotingJudge, read_yes_no
from wason.tasks.math_rules.protocol import load_text
from wason.tasks.math_rules.rules import MathRule


def judge_messages(rule: MathRule, guess: str) -> list[ChatMessage]:
    """The published judge's messages: the system prompt and the user message with the rule filled in."""
    user = load_text("judge_user.txt").format(rule_str=rule.text(), rule_code=rule.code(), guess=guess)
    return [
        ChatMessage(role="system", content=load_text("validate_sys_prompt.txt")),
        ChatMessage(role="user", content=user),
    ]


read_verdict = read_yes_no
"""A judge's reply as a vote, read by its first word (the shared reader)."""


class MathJudge(VotingJudge):
    """Asks the published judge about one guess, three votes, a majority of two; each guess its own samples."""

    def __init__(
        self, client: Oracle, rule: MathRule, params: GenerationParams, context: CallContext
    ) -> None:
        messages = functools.partial(judge_messages, rule)
        super().__init__(client, messages, params, context, read=read_verdict, sample="guess {n}")
