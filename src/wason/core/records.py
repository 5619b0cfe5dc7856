"""The records the store returns and reports read: plain frozen dataclasses, no database types."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel, SerializerFunctionWrapHandler, model_serializer

from wason.models.base import CallContext

__all__ = [
    "CallContext",
    "CallTotals",
    "EpisodeRow",
    "RunReport",
    "RunRow",
    "TurnConflict",
    "run_header",
    "run_label",
]


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


class TurnConflict(RuntimeError):
    """Another step of the same episode was stored first (a session stepped from two places at once)."""


class CallTotals(BaseModel):
    """A run's model calls: how many, from the cache, failed after retries, and tokens."""

    calls: int
    cached_calls: int
    failed_calls: int
    input_tokens: int
    output_tokens: int


class RunReport(BaseModel):
    """The fields every family's run report starts with (``wason show RUN --json``); families subclass it with
    their typed summary."""

    run: int
    task: str
    status: str
    player: str
    model: str | None
    config: dict[str, Any]

    @model_serializer(mode="wrap")
    def _baselines_only_where_reported(self, handler: SerializerFunctionWrapHandler) -> Any:
        # a report nested as another's baseline has no baselines of its own: the key is left out, not null
        data = handler(self)
        if isinstance(data, dict) and "baselines" in data and data["baselines"] is None:
            del data["baselines"]
        return data
