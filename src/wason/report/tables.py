"""Reports of any family: one episode's record, and a run's tables and JSON, which each family
renders for itself (:meth:`wason.core.Family.report`)."""

from __future__ import annotations

from typing import Any

from rich.console import RenderableType

from wason.core import registry
from wason.core.family import RunReader
from wason.core.records import run_header, run_label
from wason.store import Store, StoreError

__all__ = [
    "episode_json",
    "report_json",
    "report_tables",
    "run_header",
    "run_label",
    "transcript",
]


def episode_json(store: Store, run_id: int, index: int) -> dict[str, Any]:
    eps = {e.index: e for e in store.list_episodes(run_id)}
    if index not in eps:
        raise StoreError(f"run {run_id} has no episode {index} (episodes are 0..{len(eps) - 1})")
    e = eps[index]
    return {
        "run": run_id,
        "index": e.index,
        "rule": e.item_key,
        "rule_text": e.item.get("rule"),
        "item": e.item,
        "status": e.status,
        "error": e.error,
        "metrics": e.metrics,
        "turns": [
            {
                "index": t["index"],
                "reply": t["reply"],
                "action": t["action"],
                "observation": t["observation"],
                "feedback": t["feedback"],
            }
            for t in store.list_turns(e.id)
        ],
    }


def transcript(store: Store, run_id: int, index: int, *, full: bool = False) -> RenderableType:
    """One episode's transcript, rendered by its run's family (``full``: system prompts not folded)."""
    data = episode_json(store, run_id, index)
    run = store.get_run(run_id)
    return registry.get(run.task).transcript(data, run, full=full)


def report_json(store: RunReader, run_ids: list[int]) -> dict[str, Any]:
    """``wason show RUN --json``: the first run's family reports it, with its baselines."""
    report = registry.get(store.get_run(run_ids[0]).task).report_json(store, run_ids)
    return report.model_dump(mode="json")


def report_tables(store: RunReader, run_ids: list[int]) -> list[RenderableType]:
    """``wason show RUN``: the first run's family draws its tables, a row per baseline."""
    return registry.get(store.get_run(run_ids[0]).task).report(store, run_ids)
