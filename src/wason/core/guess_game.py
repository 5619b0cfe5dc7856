"""What the guess-the-rule games share: the moves that ask for more examples and give up, the turns a limit
leaves, and the quiz some of them end with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["GiveUp", "More", "padded", "quiz_accuracy", "turns_left"]


@dataclass(frozen=True)
class More:
    """Ask for ``n`` more examples (``n`` of each where the game deals positives and negatives alike)."""

    n: int


@dataclass(frozen=True)
class GiveUp:
    """End the game now (a loss)."""


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
