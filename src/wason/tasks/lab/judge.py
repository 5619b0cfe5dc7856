"""The optional LLM judge of a player's free-text report: does it state the domain's laws? Three votes, a
majority of two; reported apart from the code's scores and deciding nothing.

Not a published judge: the prompt is ours (``docs/lab.md`` shows it). The judge sees the hidden laws, written in
the law language, and the report; a reply is read by its first word (``yes``/``true`` for, ``no``/``false``
against, anything else no vote).
"""

from __future__ import annotations

from wason.core import ChatMessage
from wason.tasks.lab.world import Domain

JUDGE_SYSTEM = (
    "You grade a scientist's report on an invented domain against the domain's true laws. Answer Yes if the "
    "report states every law correctly (in any words or notation: the operation, the object affected, the "
    "change, and any condition), and No if it misses a law, gets one wrong, or adds effects that do not exist. "
    "Answer with Yes or No first, then one sentence of explanation."
)
JUDGE_USER = (
    "The true laws (one per line; a is the object or the actor, b the target):\n"
    "{laws}\n\nThe report:\n{report}"
)


def judge_messages(domain: Domain, report: str) -> list[ChatMessage]:
    user = JUDGE_USER.format(laws="\n".join(domain.law_text()), report=report)
    return [ChatMessage(role="system", content=JUDGE_SYSTEM), ChatMessage(role="user", content=user)]
