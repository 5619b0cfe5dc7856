"""``wason import LOG...``: Inspect logs of wason tasks (``inspect eval wason/NAME``) into the store, one run per
log, so that ``wason show``, the paired tests, the solver comparison and the viewer work on runs played under
Inspect as on runs ``wason eval`` played.

Each sample's store holds its episode's record (:data:`wason.inspect.play.EPISODE_KEY`: the item, the turns,
the outcome, the model calls), written by wason's solvers as they played; the log's model is the run's model
(``openai/gpt-4o`` as ``openai:gpt-4o``; ``wason/local`` as the embedded model, constrained under ``-M
constrain=true``). A log imported before is found again by its eval id, never imported twice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wason.core import registry
from wason.models.spec import DEFAULT_MODEL
from wason.report.inspect_log import require_inspect
from wason.store import Store

__all__ = ["EPISODE_KEY", "Imported", "import_logs", "model_spec", "run_model"]

EPISODE_KEY = "wason:episode"
"""The key of the sample store that holds the episode's record (written by :mod:`wason.inspect.play`, which
imports inspect_ai's solvers; kept here so that reading a log needs none of them)."""
LOG_KEY = "inspect_eval_id"
"""The key of an imported run's stored configuration that holds the log's eval id (read back as nothing by the
family's configuration, which ignores keys it does not have)."""


@dataclass(frozen=True)
class Imported:
    """One log imported: its run, and whether the run was already in the store."""

    path: str
    run_id: int
    task: str
    player: str
    episodes: int
    again: bool


def model_spec(model: str) -> str:
    """An Inspect model name as a wason model spec: ``openai/gpt-4o`` is ``openai:gpt-4o``, ``wason/local`` the
    embedded model."""
    provider, _, name = model.partition("/")
    if provider == "wason":
        return DEFAULT_MODEL if name == "local" else f"local:{name.removeprefix('local/')}"
    return f"{provider}:{name}" if name else provider


def run_model(model: str, model_args: Mapping[str, Any] | None, player: str) -> tuple[str | None, bool]:
    """The run's model spec and whether its replies were constrained, from the log's model: None for a run
    played without a model (the solver, a person)."""
    if player != "llm":
        return None, False
    constrained = model.startswith("wason/") and str((model_args or {}).get("constrain", False)).lower() in (
        "true",
        "1",
        "yes",
    )
    return model_spec(model), constrained


def _records(log: Any) -> list[tuple[int, int, dict[str, Any]]]:
    out = []
    for sample in log.samples or []:
        record = (sample.store or {}).get(EPISODE_KEY)
        if not isinstance(record, dict):
            continue
        index = (sample.metadata or {}).get("index", 0)
        out.append((int(index) if isinstance(index, int) else 0, int(sample.epoch), record))
    # item by item, each with its epochs (trials) together: the order ``wason eval`` lists a run's episodes in
    out.sort(key=lambda r: (r[0], r[1]))
    return out


def _read(path: Path) -> Any:
    from inspect_ai.log import read_eval_log

    if not path.is_file():
        raise ValueError(f"{path}: no such log file")
    try:
        return read_eval_log(str(path))
    except Exception as exc:  # a file that is not an Inspect log, in any of the ways it can fail to be one
        raise ValueError(f"{path}: not an Inspect log ({type(exc).__name__})") from None


def import_logs(store: Store, paths: Sequence[str | Path]) -> list[Imported]:
    """Import each Inspect log of a wason task into ``store`` as one run (see the module); a log imported before
    gives its run again.

    Raises:
        ValueError: a file that is not an Inspect log, or a log of no wason task (nothing of it is stored);
            inspect_ai is not installed.
    """
    require_inspect()
    logs = [(Path(p), _read(Path(p))) for p in paths]  # every file read before anything is stored
    done = []
    for path, log in logs:
        records = _records(log)
        if not records:
            raise ValueError(f"{path}: a log of no wason task (no sample played a wason game)")
        done.append(_import_one(store, path, log, records))
    return done


def _import_one(
    store: Store, path: Path, log: Any, records: list[tuple[int, int, dict[str, Any]]]
) -> Imported:
    first = records[0][2]
    task = str(first["family"])
    player = str(first.get("player") or "llm")
    eval_id = str(log.eval.eval_id)
    for run in store.list_runs():
        if run.config.get(LOG_KEY) == eval_id:
            return Imported(str(path), run.id, run.task, run.player, len(store.list_episodes(run.id)), True)
    family = registry.get(task)
    model, constrained = run_model(str(log.eval.model), log.eval.model_args, player)
    config = family.config_type.model_validate(
        {**first["config"], "player": player, "model": model, "constrain": constrained}
    )
    stored: dict[str, Any] = config.model_dump(mode="json")
    stored[LOG_KEY] = eval_id
    run_id = store.create_run(
        task=family.name,
        player=player,
        model=model,
        config=stored,
        items=[(str(r["key"]), dict(r["item"])) for _, _, r in records],
    )
    for episode, (_, _, record) in zip(store.list_episodes(run_id), records, strict=True):
        store.start_episode(episode.id)
        for turn in record.get("turns") or []:
            store.add_turn(
                episode.id,
                int(turn["index"]),
                action=turn["action"],
                observation=turn["observation"],
                reply=turn.get("reply"),
                feedback=turn.get("feedback"),
                oracle=turn.get("oracle"),
            )
        ids: dict[int, Any] = {}
        for call in record.get("calls") or []:
            row = {k: v for k, v in call.items() if k != "local_id"}
            row["run_id"], row["episode_id"] = run_id, episode.id
            parent = call.get("parent_id")
            row["parent_id"] = ids.get(parent) if isinstance(parent, int) else None
            row["model"] = model or row.get("model")
            ids[int(call.get("local_id", len(ids)))] = store.record_call(row)
        status = str(record.get("status"))
        if status == "completed":
            store.finish_episode(
                episode.id, status="completed", success=record.get("success"), metrics=record.get("metrics")
            )
        else:
            error = record.get("error") or "the sample ended before its game did (a limit of the eval)"
            store.finish_episode(episode.id, status="errored", error=str(error))
    finished = all(e.status == "completed" for e in store.list_episodes(run_id))
    store.set_run_status(run_id, "completed" if finished else "incomplete")
    return Imported(str(path), run_id, family.name, player, len(records), False)
