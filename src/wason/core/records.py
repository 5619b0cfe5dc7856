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
    "calls_note",
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
    sweep: str | None = None
    cell: str | None = None
    owner: str | None = None  # the live process working on it, described; None when nobody is


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
    started_at: datetime | None = None
    finished_at: datetime | None = None

    @property
    def seconds(self) -> float | None:
        """How long its last attempt took, from start to end (None while it has not ended)."""
        if self.started_at is None or self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()


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


def run_footer(run_id: int, *more: str) -> str:
    """The last line of a run's tables in ``wason show``: its id and how to see more (``more``: further flags)."""
    details = ", ".join([f"`wason show {run_id} --episode N`", *(f"`{m}`" for m in more)])
    return f"run id: {run_id}   (details: {details})"


class TurnConflict(RuntimeError):
    """Another step of the same episode was stored first (a session stepped from two places at once)."""


class CallTotals(BaseModel):
    """A run's model calls, counted apart by where their reply came from.

    Attributes:
        calls: calls the endpoint answered or that failed after their retries (none from the cache).
        cached_calls: calls replayed from the cache (a rerun, or a resumed episode replaying its turns).
        failed_calls: calls that failed after their retries.
        attempts: requests sent, retries included.
        input_tokens: tokens spent on prompts (replies from the cache cost nothing and are not counted here).
        output_tokens: tokens spent on replies.
        cached_input_tokens: prompt tokens of the replies replayed from the cache.
        cached_output_tokens: reply tokens replayed from the cache.
    """

    calls: int
    cached_calls: int
    failed_calls: int
    attempts: int
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int
    cached_output_tokens: int


def calls_note(calls: dict[str, int]) -> str:
    """One line on a run's model calls for its table's notes: what was spent apart from what was replayed.

    ``model calls: 15 made (17 attempts, 0 failed after retries), 4 replayed from the cache; tokens spent
    1200 in, 300 out (replayed 80 in, 20 out)``
    """
    made = (
        f"model calls: {calls['calls']} made ({calls['attempts']} attempts, "
        f"{calls['failed_calls']} failed after retries), {calls['cached_calls']} replayed from the cache"
    )
    spent = f"tokens spent {calls['input_tokens']} in, {calls['output_tokens']} out"
    if calls["cached_calls"]:
        spent += f" (replayed {calls['cached_input_tokens']} in, {calls['cached_output_tokens']} out)"
    return f"{made}; {spent}"


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
