"""The score of a wason sample: the family's code verdict of the episode, as ``wason eval`` stores it.

The value is the episode's success (``C`` or ``I``; an episode that ended without a verdict is unscored); the
answer is what the player guessed and the explanation how the game ended. The family's metrics of the episode
(its paper's per-episode columns: guesses, repeats, a judge's verdict, ...) are in the score's metadata, and
:func:`family_metrics` averages each numeric one over the samples that have it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    accuracy,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from wason.inspect.logs import EPISODE_KEY
from wason.report.inspect_log import target_and_answer

__all__ = ["family_metrics", "verdict"]


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(value):
        return float(value)
    return None


@metric(name="family")
def family_metrics() -> Metric:
    """The mean of each numeric metric of the family's episodes (booleans as 0 and 1), over the samples that
    have it: one value per metric, named as the family names it."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        sums: dict[str, float] = defaultdict(float)
        counts: dict[str, int] = defaultdict(int)
        for s in scores:
            metrics = (s.score.metadata or {}).get("metrics") or {}
            for name, value in metrics.items():
                number = _number(value)
                if number is not None:
                    sums[name] += number
                    counts[name] += 1
        return {name: sums[name] / counts[name] for name in sorted(sums)}

    return compute


def _scalars(metrics: dict[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (metrics or {}).items() if v is None or isinstance(v, str | int | float | bool)}


@scorer(metrics=[accuracy(), stderr(), family_metrics()], name="verdict")
def verdict() -> Scorer:
    """The family's code verdict of the episode the sample played (see the module)."""

    async def score(state: TaskState, target: Target) -> Score:
        record = state.store.get(EPISODE_KEY)
        if not isinstance(record, dict):
            return Score(value=math.nan, explanation="the sample played no wason game")
        status = record.get("status")
        metrics = record.get("metrics")
        _, answer = target_and_answer(str(record.get("family")), record.get("item") or {}, metrics)
        metadata = {
            "status": status,
            "success": record.get("success"),
            "metrics": _scalars(metrics),
            "turns": len(record.get("turns") or []),
            "item_key": record.get("key"),
        }
        if status != "completed":
            reason = record.get("error") or "a limit of the eval stopped it"
            return Score(
                value=INCORRECT,
                answer=answer,
                explanation=f"the game did not end: {reason}",
                metadata=metadata,
            )
        success = record.get("success")
        if success is None:
            return Score(
                value=math.nan,
                answer=answer,
                explanation="the game ended without a verdict",
                metadata=metadata,
            )
        return Score(
            value=CORRECT if success else INCORRECT,
            answer=answer,
            explanation="the game was won" if success else "the game was not won",
            metadata=metadata,
        )

    return score
