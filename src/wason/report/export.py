"""``wason export``: runs, their episodes, turns and model calls as four tidy tables (one row per record, flat
columns) in CSV, JSON lines or Parquet, with the same columns and types in every format; and the same tables as
pandas DataFrames (:mod:`wason.api`). Every column is documented in ``docs/export.md``.

JSON documents the store keeps (a run's configuration, an episode's item and metrics, a turn's action and
observation, a call's parameters and messages) are columns of JSON text; the scalars a researcher filters and
groups by are flattened beside them. Nothing is hidden: an item's hidden rule is exported (the store is the
researcher's own).
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wason.report.runs import key_setting
from wason.store import Store

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "FORMATS",
    "TABLES",
    "Column",
    "ExportTable",
    "export_runs",
    "export_tables",
    "frame",
    "read_export",
    "read_table",
    "require_pandas",
    "require_pyarrow",
    "table_rows",
]

Kind = Literal["int", "float", "bool", "str", "datetime", "json"]
Format = Literal["csv", "jsonl", "parquet"]
FORMATS: tuple[Format, ...] = ("csv", "jsonl", "parquet")
PANDAS_MISSING = "pandas is needed for DataFrames: pip install 'wason[data]'"
PYARROW_MISSING = "Parquet needs pyarrow: pip install 'wason[data]'"
BATCH = 1000
"""Rows built and written at a time by an export (and runs read at a time for the runs table)."""


@dataclass(frozen=True)
class Column:
    """One column of an exported table.

    Attributes:
        name: the column's name.
        kind: ``int``, ``float``, ``bool``, ``str``, ``datetime`` (UTC) or ``json`` (a JSON document as text).
        doc: what it holds, one sentence.
    """

    name: str
    kind: Kind
    doc: str


def _c(name: str, kind: Kind, doc: str) -> Column:
    return Column(name, kind, doc)


RUN_COLUMNS = (
    _c("run_id", "int", "the run's id (`wason show RUN`)"),
    _c("family", "str", "the task family"),
    _c("player", "str", "who played: llm (a model), solver, human, session"),
    _c("model", "str", "the model spec PROVIDER:MODEL; empty when the player is not a model"),
    _c("status", "str", "running, completed, incomplete (some episodes errored), interrupted or failed"),
    _c("created_at", "datetime", "when the run was created (UTC)"),
    _c("finished_at", "datetime", "when it completed or failed; empty otherwise"),
    _c("duration_s", "float", "finished_at - created_at in seconds; empty while unfinished"),
    _c(
        "split", "str", "what the run played, as its label names it (a list joined with `,`, fields with `:`)"
    ),
    _c("split_setting", "str", "which settings `split` holds (the family's label fields: split, level, ...)"),
    _c("baseline_for", "int", "for a solver baseline: the run it was made for"),
    _c("sweep", "str", "the sweep the run is a cell of (`wason sweep`)"),
    _c("cell", "str", "the sweep cell's key"),
    _c("temperature", "float", "sampling temperature; empty: the model's default"),
    _c("max_tokens", "int", "the token limit of a reply"),
    _c("top_p", "float", "nucleus sampling"),
    _c("model_seed", "int", "the sampling seed sent to the model"),
    _c("reasoning_effort", "str", "reasoning effort sent to a reasoning model"),
    _c("seed", "int", "the seed that drew or generated the run's items"),
    _c("trials", "int", "how many times each item is played (families with trials)"),
    _c("base_url", "str", "the model's endpoint (a password in it is masked)"),
    _c("episodes", "int", "episodes in the run"),
    _c("episodes_completed", "int", "episodes that finished their game"),
    _c("episodes_errored", "int", "episodes that ended in an error (a failed model call, a crash)"),
    _c("successes", "int", "episodes whose game was won (the family's success)"),
    _c("calls", "int", "model calls made (answered, or failed after any retries), not from the cache"),
    _c("cached_calls", "int", "model calls replayed from the cache"),
    _c("failed_calls", "int", "model calls that failed after their retries"),
    _c("input_tokens", "int", "prompt tokens spent (replayed calls cost nothing and are not counted)"),
    _c("output_tokens", "int", "reply tokens spent"),
    _c("cached_input_tokens", "int", "prompt tokens of replies replayed from the cache"),
    _c("cached_output_tokens", "int", "reply tokens replayed from the cache"),
    _c("truncated", "int", "replies cut off at the token limit"),
    _c("config", "json", "the run's whole configuration (the family's settings, the model's parameters)"),
)

EPISODE_COLUMNS = (
    _c("run_id", "int", "the run"),
    _c("episode", "int", "the episode's index in its run, from 0 (`wason show RUN --episode N`)"),
    _c("episode_id", "int", "the episode's id in the store (a session's id)"),
    _c("item_key", "str", "the item's stable key (its rule, question or domain, and trial)"),
    _c("status", "str", "pending, running, completed or errored"),
    _c("success", "bool", "whether the game was won; empty when it did not finish"),
    _c("error", "str", "why the episode errored"),
    _c("started_at", "datetime", "when its last attempt started (UTC)"),
    _c("finished_at", "datetime", "when it ended (UTC)"),
    _c("seconds", "float", "finished_at - started_at"),
    _c("item", "json", "the item played, hidden rule and answer included"),
    _c("metrics", "json", "the family's metrics of the game (its summary)"),
)
"""The episodes table's fixed columns; after them, one ``metric_<key>`` column per scalar key of the metrics."""

TURN_COLUMNS = (
    _c("run_id", "int", "the run"),
    _c("episode", "int", "the episode's index in its run"),
    _c("turn", "int", "the turn's index in its episode, from 0"),
    _c(
        "action_type", "str", "the kind of action (the family's action class; Malformed: an unreadable reply)"
    ),
    _c("reply", "str", "the model's (or person's) reply the action was read from; empty for a solver"),
    _c("feedback", "str", "what the player was told after the action"),
    _c("created_at", "datetime", "when the turn was stored (UTC)"),
    _c("action", "json", "the action with its fields"),
    _c("observation", "json", "the game's answer to the action"),
    _c("oracle", "json", "outside work settled for the action (an LLM labeller's labels), if any"),
)

CALL_COLUMNS = (
    _c("call_id", "int", "the call's id in the store"),
    _c("run_id", "int", "the run"),
    _c("episode", "int", "the episode's index in its run; empty for a call outside an episode"),
    _c("turn", "int", "the turn the call was made for"),
    _c("parent_id", "int", "the conversation's previous call, whose request `messages` continue"),
    _c("model", "str", "the model spec asked"),
    _c("served_model", "str", "the model name the endpoint said answered"),
    _c("endpoint", "str", "the endpoint (a password in it is masked)"),
    _c("input_tokens", "int", "prompt tokens the endpoint counted"),
    _c("output_tokens", "int", "reply tokens"),
    _c("latency_s", "float", "seconds from the first attempt to the reply (0 for a replayed call)"),
    _c("finish_reason", "str", "how the reply ended: stop, length (cut at the token limit), ..."),
    _c("cached", "bool", "replayed from the cache rather than asked"),
    _c("attempts", "int", "requests sent (retries included; 0 for a replayed call)"),
    _c("error", "str", "why the call failed after its retries"),
    _c("created_at", "datetime", "when the call was recorded (UTC)"),
    _c("params", "json", "the generation parameters sent"),
    _c("messages", "json", "the request's messages new since the parent call (all of them without a parent)"),
    _c("response", "str", "the reply's text"),
    _c("errors", "json", "each failed attempt's error"),
    _c("cache_key", "str", "the cache key (model, endpoint, parameters, messages, sample)"),
)

TABLES: dict[str, tuple[Column, ...]] = {
    "runs": RUN_COLUMNS,
    "episodes": EPISODE_COLUMNS,
    "turns": TURN_COLUMNS,
    "calls": CALL_COLUMNS,
}
"""Every exported table's fixed columns, in order."""


@dataclass(frozen=True)
class ExportTable:
    """One exported table: its columns and its rows (a value per column name; None is missing)."""

    name: str
    columns: tuple[Column, ...]
    rows: list[dict[str, Any]]


# -- building the rows ------------------------------------------------------------------------------------
def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False, default=str)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _float(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _run_rows(store: Store, run_ids: Sequence[int]) -> Iterator[dict[str, Any]]:
    for start in range(0, len(run_ids), BATCH):
        yield from _run_rows_of(store, run_ids[start : start + BATCH])


def _run_rows_of(store: Store, run_ids: Sequence[int]) -> Iterator[dict[str, Any]]:
    counts = store.episode_counts(run_ids)
    calls = store.call_totals_of(run_ids)
    for run_id in run_ids:
        run = store.get_run(run_id)
        cfg = run.config
        params = cfg.get("params") or {}
        created, finished = _utc(run.created_at), _utc(run.finished_at)
        setting, value = key_setting(run)
        eps, spent = counts[run_id], calls[run_id]
        yield (
            {
                "run_id": run.id,
                "family": run.task,
                "player": run.player,
                "model": run.model,
                "status": run.status,
                "created_at": created,
                "finished_at": finished,
                "duration_s": (finished - created).total_seconds() if finished and created else None,
                "split": value,
                "split_setting": setting,
                "baseline_for": _int(cfg.get("baseline_for")),
                "sweep": run.sweep,
                "cell": run.cell,
                "temperature": _float(params.get("temperature")),
                "max_tokens": _int(params.get("max_tokens")),
                "top_p": _float(params.get("top_p")),
                "model_seed": _int(params.get("seed")),
                "reasoning_effort": params.get("reasoning_effort"),
                "seed": _int(cfg.get("seed")),
                "trials": _int(cfg.get("trials")),
                "base_url": cfg.get("base_url"),
                "episodes": eps["total"],
                "episodes_completed": eps["completed"],
                "episodes_errored": eps["errored"],
                "successes": eps["succeeded"],
                "calls": spent["calls"],
                "cached_calls": spent["cached_calls"],
                "failed_calls": spent["failed_calls"],
                "input_tokens": spent["input_tokens"],
                "output_tokens": spent["output_tokens"],
                "cached_input_tokens": spent["cached_input_tokens"],
                "cached_output_tokens": spent["cached_output_tokens"],
                "truncated": spent["truncated"],
                "config": _json(cfg),
            }
        )


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, bool | int | float | str)


class _MetricKinds:
    """The type of each scalar metric's column, learnt one episode at a time: a flag when every value given is
    one, text when flags mix with numbers or any value is text, an integer when every value is, else a float."""

    def __init__(self) -> None:
        # per key, in the order first met: values present, flags, texts, integers (flags included)
        self.counts: dict[str, list[int]] = {}

    def add(self, metrics: Mapping[str, Any] | None) -> None:
        for key, value in (metrics or {}).items():
            if not _is_scalar(value):
                continue
            seen = self.counts.setdefault(key, [0, 0, 0, 0])
            if value is None:
                continue
            seen[0] += 1
            seen[1] += isinstance(value, bool)
            seen[2] += isinstance(value, str)
            seen[3] += isinstance(value, int)

    def kinds(self) -> dict[str, Kind]:
        out: dict[str, Kind] = {}
        for key, (present, flags, texts, ints) in self.counts.items():
            if present and flags == present:
                out[key] = "bool"
            elif flags or texts:
                out[key] = "str"
            else:
                out[key] = "int" if ints == present else "float"
        return out


def _metric_value(kind: Kind, value: Any) -> Any:
    if value is None:
        return None
    if kind == "str":
        return value if isinstance(value, str) else json.dumps(value)
    if kind == "float":
        return float(value)
    return value


def _metric_columns(store: Store, run_ids: Sequence[int]) -> dict[str, Kind]:
    """The episodes' scalar metrics, in the order first met, each with its column's type (one pass over the
    metrics only)."""
    learnt = _MetricKinds()
    for metrics in store.stream_episode_metrics(run_ids):
        learnt.add(metrics)
    return learnt.kinds()


def _episode_columns(kinds: Mapping[str, Kind]) -> tuple[Column, ...]:
    return EPISODE_COLUMNS + tuple(
        _c(f"metric_{key}", kind, f"the metric {key!r} of the episode's game") for key, kind in kinds.items()
    )


def _episode_rows(
    store: Store, run_ids: Sequence[int], kinds: Mapping[str, Kind]
) -> Iterator[dict[str, Any]]:
    for e in store.stream_episodes(run_ids):
        started, finished = _utc(e.started_at), _utc(e.finished_at)
        row: dict[str, Any] = {
            "run_id": e.run_id,
            "episode": e.index,
            "episode_id": e.id,
            "item_key": e.item_key,
            "status": e.status,
            "success": e.success,
            "error": e.error,
            "started_at": started,
            "finished_at": finished,
            "seconds": (finished - started).total_seconds() if started and finished else None,
            "item": _json(e.item),
            "metrics": _json(e.metrics),
        }
        metrics = e.metrics or {}
        for key, kind in kinds.items():
            value = metrics.get(key)
            row[f"metric_{key}"] = _metric_value(kind, value if _is_scalar(value) else None)
        yield row


def _turn_rows(store: Store, run_ids: Sequence[int]) -> Iterator[dict[str, Any]]:
    for t in store.stream_turns(run_ids):
        action = t["action"]
        yield (
            {
                "run_id": t["run_id"],
                "episode": t["episode_index"],
                "turn": t["index"],
                "action_type": action.get("type") if isinstance(action, dict) else None,
                "reply": t["reply"],
                "feedback": t["feedback"],
                "created_at": _utc(t["created_at"]),
                "action": _json(action),
                "observation": _json(t["observation"]),
                "oracle": _json(t["oracle"]),
            }
        )


def _call_rows(store: Store, run_ids: Sequence[int]) -> Iterator[dict[str, Any]]:
    for m in store.stream_calls(run_ids):
        yield (
            {
                "call_id": m["id"],
                "run_id": m["run_id"],
                "episode": m["episode_index"],
                "turn": m["turn"],
                "parent_id": m["parent_id"],
                "model": m["model"],
                "served_model": m["served_model"],
                "endpoint": m["endpoint"],
                "input_tokens": m["input_tokens"],
                "output_tokens": m["output_tokens"],
                "latency_s": m["latency_s"],
                "finish_reason": m["finish_reason"],
                "cached": m["cached"],
                "attempts": m["attempts"],
                "error": m["error"],
                "created_at": _utc(m["created_at"]),
                "params": _json(m["params"]),
                "messages": _json(m["messages"]),
                "response": m["response"],
                "errors": _json(m["errors"]),
                "cache_key": m["cache_key"],
            }
        )


def _stream(
    store: Store, name: str, run_ids: Sequence[int]
) -> tuple[tuple[Column, ...], Iterator[dict[str, Any]]]:
    """One table's columns and its rows, built as they are read (``run_ids`` known and without repeats)."""
    if name == "runs":
        return RUN_COLUMNS, _run_rows(store, run_ids)
    if name == "episodes":
        kinds = _metric_columns(store, run_ids)
        return _episode_columns(kinds), _episode_rows(store, run_ids, kinds)
    if name == "turns":
        return TURN_COLUMNS, _turn_rows(store, run_ids)
    return CALL_COLUMNS, _call_rows(store, run_ids)


def table_rows(store: Store, name: str, run_ids: Sequence[int]) -> ExportTable:
    """One table (``runs``, ``episodes``, ``turns`` or ``calls``) of the runs given, in their order.

    Raises:
        StoreError: an unknown run.
        ValueError: an unknown table.
    """
    if name not in TABLES:
        raise ValueError(f"no table {name!r} (tables: {', '.join(TABLES)})")
    ids = list(dict.fromkeys(run_ids))
    for run_id in ids:
        store.get_run(run_id)  # an unknown run is one line
    columns, rows = _stream(store, name, ids)
    return ExportTable(name, columns, list(rows))


def export_tables(store: Store, run_ids: Sequence[int]) -> list[ExportTable]:
    """The four tables of the runs given: runs, episodes, turns, calls."""
    return [table_rows(store, name, run_ids) for name in TABLES]


# -- writing ----------------------------------------------------------------------------------------------
def _text(kind: Kind, value: Any) -> str:
    """A value as CSV text: empty for a missing one, ISO 8601 for a time, true/false for a flag."""
    if value is None:
        return ""
    if kind == "bool":
        return "true" if value else "false"
    if kind == "datetime":
        return str(value.isoformat())
    if kind == "float":
        return repr(float(value))
    return str(value)


def _plain(kind: Kind, value: Any) -> Any:
    """A value as JSON: a time as ISO 8601 text, JSON documents as text (as in every format)."""
    if value is None:
        return None
    if kind == "datetime":
        return value.isoformat()
    return value


def _batches(rows: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """Rows :data:`BATCH` at a time."""
    it = iter(rows)
    while batch := list(islice(it, BATCH)):
        yield batch


def _write_csv(columns: Sequence[Column], rows: Iterable[dict[str, Any]], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow([c.name for c in columns])
        for batch in _batches(rows):
            writer.writerows([_text(c.kind, row[c.name]) for c in columns] for row in batch)


def _write_jsonl(columns: Sequence[Column], rows: Iterable[dict[str, Any]], path: Path) -> None:
    with path.open("w", encoding="utf-8") as f:
        for batch in _batches(rows):
            lines = (
                json.dumps({c.name: _plain(c.kind, row[c.name]) for c in columns}, ensure_ascii=False)
                for row in batch
            )
            f.write("".join(line + "\n" for line in lines))


def _arrow_type(kind: Kind) -> Any:
    import pyarrow as pa

    return {
        "int": pa.int64(),
        "float": pa.float64(),
        "bool": pa.bool_(),
        "str": pa.string(),
        "json": pa.string(),
        "datetime": pa.timestamp("us", tz="UTC"),
    }[kind]


def _write_parquet(columns: Sequence[Column], rows: Iterable[dict[str, Any]], path: Path) -> None:
    """One row group per batch of rows, written as it is built (a table without rows is one empty group)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([pa.field(c.name, _arrow_type(c.kind)) for c in columns])

    def group(batch: list[dict[str, Any]]) -> Any:
        arrays = [pa.array([row[c.name] for row in batch], type=_arrow_type(c.kind)) for c in columns]
        return pa.Table.from_arrays(arrays, schema=schema)

    with pq.ParquetWriter(path, schema) as writer:
        empty = True
        for batch in _batches(rows):
            writer.write_table(group(batch))
            empty = False
        if empty:
            writer.write_table(group([]))


def _columns_doc(tables: Mapping[str, Sequence[Column]]) -> dict[str, list[dict[str, str]]]:
    return {
        name: [{"name": c.name, "type": c.kind, "doc": c.doc} for c in columns]
        for name, columns in tables.items()
    }


def export_runs(store: Store, run_ids: Sequence[int], directory: Path | str, fmt: str = "csv") -> list[Path]:
    """Write the runs given, their episodes, turns and model calls as ``runs``, ``episodes``, ``turns`` and
    ``calls`` files (``.csv``, ``.jsonl`` or ``.parquet``) into ``directory`` (made if missing), with
    ``columns.json``: every table's columns, their types and meanings. Returns the files written.

    Example:
        >>> export_runs(Store("results.db"), [3, 4], "out", "parquet")  # doctest: +SKIP
        [PosixPath('out/runs.parquet'), PosixPath('out/episodes.parquet'), ..., PosixPath('out/columns.json')]

    Raises:
        StoreError: an unknown run (nothing is written).
        ValueError: an unknown format, or Parquet without pyarrow (``pip install 'wason[data]'``).
    """
    if fmt not in FORMATS:
        raise ValueError(f"format {fmt!r}: not one of {', '.join(FORMATS)}")
    if fmt == "parquet":
        require_pyarrow()
    ids = list(dict.fromkeys(run_ids))
    for run_id in ids:
        store.get_run(run_id)  # an unknown run is one line, before anything is written
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    writer = {"csv": _write_csv, "jsonl": _write_jsonl, "parquet": _write_parquet}[fmt]
    written = []
    tables: dict[str, tuple[Column, ...]] = {}
    # one table at a time, written a batch of rows at a time: memory does not grow with the store
    for name in TABLES:
        columns, rows = _stream(store, name, ids)
        path = out / f"{name}.{fmt}"
        writer(columns, rows, path)
        tables[name] = columns
        written.append(path)
    columns_json = out / "columns.json"
    columns_json.write_text(json.dumps(_columns_doc(tables), indent=2) + "\n", encoding="utf-8")
    written.append(columns_json)
    return written


def require_pyarrow() -> None:
    """Check that pyarrow, which Parquet needs, can be imported.

    Raises:
        ValueError: it is not installed; the message is one line with the pip command.
    """
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ValueError(PYARROW_MISSING) from None


# -- pandas -----------------------------------------------------------------------------------------------
def require_pandas() -> Any:
    """The pandas module.

    Raises:
        ImportError: it is not installed; the message gives the pip line.
    """
    try:
        import pandas
    except ImportError:
        raise ImportError(PANDAS_MISSING) from None
    return pandas


_DTYPES: dict[Kind, str] = {
    "int": "Int64",
    "float": "float64",
    "bool": "boolean",
    "str": "string",
    "json": "string",
    "datetime": "datetime64[us, UTC]",
}
"""The pandas type of each kind of column (nullable integers and flags: a missing value stays missing)."""


def _typed(pd: Any, kind: Kind, values: Any) -> Any:
    if kind == "datetime":
        return pd.to_datetime(values, utc=True, format="ISO8601").astype(_DTYPES[kind])
    if kind == "bool":
        mapped = [None if _missing(pd, v) else v in (True, "true", "True", 1) for v in values]
        return pd.array(mapped, dtype="boolean")
    if kind in ("str", "json"):
        return pd.array([None if _missing(pd, v) else str(v) for v in values], dtype="string")
    return pd.array([None if _missing(pd, v) else v for v in values], dtype=_DTYPES[kind])


def _missing(pd: Any, value: Any) -> bool:
    return value is None or (not isinstance(value, str | bytes) and bool(pd.isna(value)))


def frame(table: ExportTable) -> pd.DataFrame:
    """A table as a pandas DataFrame with its columns' types (``Int64``, ``float64``, ``boolean``, ``string``,
    ``datetime64[us, UTC]``).

    Raises:
        ImportError: pandas is not installed (``pip install 'wason[data]'``).
    """
    pd = require_pandas()
    data = {c.name: _typed(pd, c.kind, [row[c.name] for row in table.rows]) for c in table.columns}
    return pd.DataFrame(data, columns=[c.name for c in table.columns])


def read_table(path: Path | str, columns: Sequence[Column] | None = None) -> pd.DataFrame:
    """Read one exported file back as a DataFrame with the types :func:`frame` gives: the columns are read from
    ``columns.json`` beside it unless given.

    Example:
        >>> episodes = read_table("out/episodes.csv")  # doctest: +SKIP
    """
    pd = require_pandas()
    file = Path(path)
    name, fmt = file.stem, file.suffix.lstrip(".")
    if columns is None:
        described = json.loads((file.parent / "columns.json").read_text(encoding="utf-8"))
        columns = [Column(c["name"], c["type"], c["doc"]) for c in described[name]]
    if fmt == "csv":
        raw = pd.read_csv(file, dtype=str, keep_default_na=False, na_values=[""])
    elif fmt == "jsonl":
        records = [json.loads(line) for line in file.read_text(encoding="utf-8").splitlines() if line]
        raw = pd.DataFrame.from_records(records, columns=[c.name for c in columns])
    elif fmt == "parquet":
        raw = pd.read_parquet(file)
    else:
        raise ValueError(f"{file}: not an exported table (.csv, .jsonl or .parquet)")
    data = {}
    for c in columns:
        values = list(raw[c.name]) if len(raw) else []
        if fmt == "csv" and c.kind in ("int", "float"):
            values = [None if _missing(pd, v) else (int(v) if c.kind == "int" else float(v)) for v in values]
        data[c.name] = _typed(pd, c.kind, values)
    return pd.DataFrame(data, columns=[c.name for c in columns])


def read_export(directory: Path | str) -> dict[str, pd.DataFrame]:
    """Every table ``wason export`` wrote into ``directory`` (any format), as DataFrames by name.

    Example:
        >>> tables = read_export("out")  # doctest: +SKIP
        >>> tables["episodes"].groupby("run_id")["success"].mean()  # doctest: +SKIP
    """
    folder = Path(directory)
    out = {}
    for name in TABLES:
        found = [folder / f"{name}.{fmt}" for fmt in FORMATS if (folder / f"{name}.{fmt}").exists()]
        if not found:
            raise ValueError(
                f"{folder}: no {name} table (write one with `wason export RUN... --to {folder}`)"
            )
        out[name] = read_table(found[0])
    return out
