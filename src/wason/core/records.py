"""The records the store returns and reports read: plain frozen dataclasses, no database types."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class RunRow:
    id: int
    task: str
    player: str
    model: str | None
    config: dict[str, Any]
    status: str
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True)
class EpisodeRow:
    id: int
    run_id: int
    index: int
    item_key: str
    item: dict[str, Any]
    status: str
    success: bool | None
    metrics: dict[str, Any] | None
    error: str | None


def run_header(run: RunRow) -> dict[str, Any]:
    """The fields every JSON report of a run starts with, whatever its family."""
    return {
        "run": run.id,
        "task": run.task,
        "status": run.status,
        "player": run.player,
        "model": run.model,
        "config": run.config,
    }


def run_label(run: RunRow) -> str:
    """``task:split by who``, the title of a run's tables."""
    cfg = run.config
    who = run.model if run.player == "llm" and run.model else run.player
    return f"{run.task}:{cfg.get('split', '?')} by {who}"


@dataclass(frozen=True)
class CallContext:
    """Where a model call belongs, for the record and the cache key.

    ``sample`` distinguishes episodes that may send identical requests (different rules share the first turn,
    repeated trials share every turn) so that they never share one sampled reply; rerunning or resuming the same
    episode gives the same key and so hits the cache.
    """

    run_id: int | None = None
    episode_id: int | None = None
    turn: int | None = None
    sample: str = ""
