"""Shared judging: an LLM judge with majority vote and an LLM labeller, reported beside the code's verdicts and
never instead of them. Each family's own code-judged equivalence (probe sets, verdicts) lives in its package."""

from wason.judges.labels import read_labels
from wason.judges.llm import (
    JudgeVote,
    LabelResult,
    LLMJudge,
    LLMJudgement,
    LLMLabeller,
    Verdict,
    VotingJudge,
    majority_vote,
    read_judgment,
    read_yes_no,
)

__all__ = [
    "JudgeVote",
    "LLMJudge",
    "LLMJudgement",
    "LLMLabeller",
    "LabelResult",
    "Verdict",
    "VotingJudge",
    "majority_vote",
    "read_judgment",
    "read_labels",
    "read_yes_no",
]
