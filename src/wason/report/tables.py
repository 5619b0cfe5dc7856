"""Reports of any family: one episode's record, and a run's tables, transcripts and JSON. The family declares
its results and transcripts as data (:meth:`wason.core.Family.results`, :meth:`~wason.core.Family.messages`);
:mod:`wason.report.render` draws them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import RenderableType
from rich.text import Text

from wason.core import registry
from wason.core.family import Family, RunReader
from wason.core.labels import run_label, solver_legend
from wason.core.records import run_footer, run_header
from wason.core.results import Results
from wason.report.render import results_terminal, transcript_terminal
from wason.store import Store, StoreError

__all__ = [
    "episode_json",
    "report_json",
    "report_tables",
    "results_of",
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
        "success": e.success,
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
    """One episode's transcript as its run's family declares it (``full``: system prompts not folded)."""
    data = episode_json(store, run_id, index)
    run = store.get_run(run_id)
    family = registry.get(run.task)
    hint = f"the whole prompt: wason show {run_id} --episode {index} --full"
    return transcript_terminal(family.messages(data, run), full=full, hint=hint)


def report_json(store: RunReader, run_ids: list[int]) -> dict[str, Any]:
    """``wason show RUN --json``: the first run's family reports it, with its baselines."""
    report = registry.get(store.get_run(run_ids[0]).task).report_json(store, run_ids)
    return report.model_dump(mode="json")


def report_tables(store: RunReader, run_ids: list[int]) -> list[RenderableType]:
    """``wason show RUN``: the first run's results as its family declares them, a row per baseline, then how
    to see more."""
    family = registry.get(store.get_run(run_ids[0]).task)
    more = ["--plots DIR"] if family.presents("figures") else []
    return [*results_terminal(results_of(family, store, run_ids)), Text(run_footer(run_ids[0], *more))]


def results_of(family: Family[Any], store: RunReader, run_ids: Sequence[int]) -> Results:
    """The runs' results as their family declares them, with the legend sentence of the family's solver under
    them when one of the runs is the solver's (:func:`wason.core.labels.solver_legend`: what the solver is and
    what it was measured to win, as the family declares it; none where it declares no measured figure)."""
    results = family.results(store, run_ids)
    legend = solver_legend([store.get_run(r) for r in run_ids])
    return results.model_copy(update={"notes": [*results.notes, *legend]}) if legend else results
