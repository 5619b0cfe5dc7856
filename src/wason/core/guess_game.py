"""What the guess-the-rule games share: the moves that ask for more examples and give up, the turns a limit
leaves, and the quiz some of them end with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["GiveUp", "More", "guess_json", "padded", "quiz_accuracy", "turns_left"]


@dataclass(frozen=True)
class More:
    """Ask for ``n`` more examples (``n`` of each where the game deals positives and negatives alike)."""

    n: int


@dataclass(frozen=True)
class GiveUp:
    """End the game now (a loss)."""


def guess_json(record: Any) -> dict[str, Any]:
    """A guess's record (a dataclass with the code's ``verdict``, a pydantic model, and the LLM judge's ``llm``
    record) as JSON."""
    verdict = record.verdict.model_dump(mode="json") if record.verdict else None
    return {**asdict(record), "verdict": verdict, "llm": dict(record.llm) if record.llm is not None else None}


def turns_left(limit: int | None, used: int) -> int | None:
    """The turns a limit leaves after ``used`` (None without a limit)."""
    return None if limit is None else max(0, limit - used)


def padded(answers: Sequence[Any], n: int) -> tuple[Any, ...]:
    """The first ``n`` answers, None for each one missing."""
    return tuple(answers[:n]) + (None,) * max(0, n - len(answers))


def quiz_accuracy(answers: Sequence[Any] | None, truths: Sequence[Any]) -> float | None:
    """The share of the quiz answered right (None before it is answered, or without a quiz)."""
    if not truths or answers is None:
        return None
    right: int = sum(a is not None and a == t for a, t in zip(answers, truths, strict=True))
    return right / len(truths)
