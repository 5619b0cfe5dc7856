"""The Python API: run an evaluation, open a store, and read runs, episodes, turns, model calls and scores as pandas
DataFrames, from a script or a notebook. Everything here is re-exported from :mod:`wason`.

Example:
    >>> import wason
    >>> run = wason.evaluate("NAME", player="solver", db="results.db")  # doctest: +SKIP
    >>> store = wason.open_store("results.db")  # doctest: +SKIP
    >>> wason.episodes_frame(store, [run]).groupby("status").size()  # doctest: +SKIP

The DataFrames have exactly the columns of ``wason export`` (``docs/export.md``); pandas comes with
``pip install 'wason[data]'``. See ``docs/python.md``.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from wason.core import registry
from wason.core.family import RunSettings
from wason.engine import baselines_of, check_constrain, play_run
from wason.models.base import GenerationParams
from wason.models.spec import DEFAULT_MODEL, LOCAL_DEFAULT_MAX_TOKENS
from wason.report.export import frame, require_pandas, table_rows
from wason.report.runs import RunFilter
from wason.store import Store

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "calls_frame",
    "episodes_frame",
    "evaluate",
    "open_store",
    "runs_frame",
    "scores_frame",
    "turns_frame",
]

"""The reply limit of the embedded local model when none is given (as ``wason eval`` sets it)."""

T = TypeVar("T")


def open_store(url: str | None = None) -> Store:
    """Open (and create or migrate if needed) a store.

    Args:
        url: a SQLite path or a SQLAlchemy URL (``postgresql+psycopg://...``); by default ``$WASON_DB``, else
            ``wason.db`` in the working directory.

    Example:
        >>> store = wason.open_store("results.db")  # doctest: +SKIP
        >>> [run.id for run in store.list_runs()]  # doctest: +SKIP
    """
    return Store(url)


def _off_loop(call: Callable[[], T]) -> T:
    """``call()``, which runs an event loop of its own: here, or in a thread of its own when this thread already
    runs one (a notebook's), since a loop cannot be started inside another."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return call()
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            result["value"] = call()
        except BaseException as exc:  # handed to the caller's thread
            result["error"] = exc

    thread = threading.Thread(target=work, name="wason-evaluate")
    thread.start()
    thread.join()
    if "error" in result:
        raise result["error"]
    value: T = result["value"]
    return value


def _generation(
    model: str | None, params: GenerationParams | None, given: dict[str, Any]
) -> GenerationParams:
    fields = {k: v for k, v in given.items() if v is not None}
    if params is not None and fields:
        raise ValueError(f"give either params= or {', '.join(sorted(fields))}, not both")
    if params is not None:
        return params
    if "stop" in fields:
        fields["stop"] = tuple(fields["stop"])
    if "max_tokens" not in fields and (model or "").split(":", 1)[0] == "local":
        fields["max_tokens"] = LOCAL_DEFAULT_MAX_TOKENS
    return GenerationParams(**fields)


def evaluate(
    family: str,
    *,
    model: str | None = DEFAULT_MODEL,
    player: str = "llm",
    db: Store | str | None = None,
    baseline: bool = False,
    api_key: str | None = None,
    temperature: float | None = None,
    max_tokens: int | None = None,
    top_p: float | None = None,
    model_seed: int | None = None,
    stop: Sequence[str] | None = None,
    reasoning_effort: str | None = None,
    extra_body: dict[str, Any] | None = None,
    params: GenerationParams | None = None,
    **settings: Any,
) -> int:
    """Run an evaluation to its end, as ``wason eval`` does, and return the run's id.

    Args:
        family: the task family's name (``wason eval --help`` lists them).
        model: the model spec ``PROVIDER:MODEL`` (default: the embedded local model); ignored unless
            ``player`` is ``"llm"``.
        player: ``"llm"`` (the model plays through the family's protocol) or ``"solver"`` (the reference
            solver, for families that have one).
        db: the store, or its URL (see :func:`open_store`).
        baseline: after a model run, also run the solver on the same items as its baseline (its run id:
            ``wason.engine.baselines_of(store, run)``).
        api_key: the provider's key (default: its environment variable); never stored.
        temperature: sampling temperature (default: the model's).
        max_tokens: the reply's token limit (the embedded local model: 256 unless given).
        top_p: nucleus sampling.
        model_seed: the sampling seed, where the backend supports it.
        stop: sequences that end a reply.
        reasoning_effort: how much a reasoning model thinks (``minimal``, ``low``, ``medium``, ``high``).
        extra_body: fields merged into every request's body (OpenAI-compatible servers).
        params: all the generation settings at once, instead of the six above.
        **settings: the family's own settings, as the fields of its configuration (``split="lite"``,
            ``trials=3``, ...; the flags of ``wason eval NAME --help`` with ``_`` for ``-``), and the run's:
            ``base_url``, ``timeout``, ``retries``, ``retry_delay``, ``concurrency``, ``use_cache``,
            ``system_as_user``.

    Returns:
        The run's id; its results: ``wason show RUN``, :func:`scores_frame`, :func:`episodes_frame`.

    Raises:
        ValueError: an unknown family, player or setting, or a bad value (naming the field).
        wason.ModelError: the model cannot be reached (checked before the run starts, where the backend can).

    Example:
        >>> run = wason.evaluate("NAME", player="solver", db="results.db", split="lite")  # doctest: +SKIP
        >>> run = wason.evaluate(  # doctest: +SKIP
        ...     "NAME", model="openai:gpt-4o-mini", temperature=0.0, baseline=True, db="results.db"
        ... )
    """
    if family not in registry.names():
        raise ValueError(f"no family {family!r} (families: {', '.join(registry.names())})")
    fam = registry.get(family)
    if player not in fam.players:
        raise ValueError(f"player {player!r}: {fam.title} is played by {', '.join(fam.players)}")
    config_type = fam.config_type
    allowed = set(config_type.model_fields) - set(config_type.internal_fields) - {"player", "model", "params"}
    unknown = sorted(set(settings) - allowed)
    if unknown:
        raise ValueError(
            f"{', '.join(unknown)}: not a setting of {fam.name} (its settings: {', '.join(sorted(allowed))})"
        )
    chosen = model if player == "llm" else None
    if player == "llm" and not chosen:
        raise ValueError("model: a model run needs a model spec PROVIDER:MODEL")
    generation = _generation(
        chosen,
        params,
        {
            "temperature": temperature,
            "max_tokens": max_tokens,
            "top_p": top_p,
            "seed": model_seed,
            "stop": stop,
            "reasoning_effort": reasoning_effort,
            "extra_body": extra_body,
        },
    )
    config: RunSettings = config_type(**settings, player=player, model=chosen, params=generation)
    store = db if isinstance(db, Store) else Store(db)
    try:
        config = fam.prepare(config, store)
        items = fam.items(config)
        if items:
            check_constrain(config, items[0][1])  # --constrain that cannot work: one error before the run
        play = play_run(store, config, items=items, baseline=baseline, api_key=api_key, group_writes=True)
        (run_id,) = _off_loop(lambda: asyncio.run(play))
        return run_id
    finally:
        if not isinstance(db, Store):
            store.close()


# -- DataFrames -------------------------------------------------------------------------------------------
def runs_frame(
    store: Store,
    *,
    family: str | None = None,
    model: str | None = None,
    status: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> pd.DataFrame:
    """The runs of the store, one row each, with the columns of the export's ``runs`` table.

    Args:
        family: only runs of this family.
        model: only runs whose model (or player) contains this text (case-insensitive).
        status: only runs with this status (``completed``, ``running``, ``interrupted``, ...).
        since: only runs created on or after this ISO date or date-time (UTC unless it has an offset).
        until: only runs created before this ISO date or date-time.

    Raises:
        ImportError: pandas is missing (``pip install 'wason[data]'``).
        ValueError: an unknown family or status, or a date that cannot be read.

    Example:
        >>> runs = wason.runs_frame(store, status="completed", since="2026-01-01")  # doctest: +SKIP
        >>> runs[["run_id", "family", "model", "successes", "episodes"]]  # doctest: +SKIP
    """
    wanted = RunFilter.parse(family=family, model=model, status=status, since=since, until=until)
    ids = [r.id for r in wanted.select(store)]
    return frame(table_rows(store, "runs", ids))


def episodes_frame(store: Store, run_ids: Sequence[int]) -> pd.DataFrame:
    """The episodes of the runs given, one row each (by run, then index), with the columns of the export's
    ``episodes`` table: the fixed ones, then a ``metric_<key>`` column per scalar metric.

    Example:
        >>> eps = wason.episodes_frame(store, [3, 4])  # doctest: +SKIP
        >>> eps.groupby("run_id")["success"].mean()  # doctest: +SKIP
    """
    return frame(table_rows(store, "episodes", run_ids))


def turns_frame(store: Store, run_ids: Sequence[int]) -> pd.DataFrame:
    """The turns of the runs' episodes, one row each, with the columns of the export's ``turns`` table.

    Example:
        >>> turns = wason.turns_frame(store, [3])  # doctest: +SKIP
        >>> turns.groupby("episode").size().describe()  # doctest: +SKIP
    """
    return frame(table_rows(store, "turns", run_ids))


def calls_frame(store: Store, run_ids: Sequence[int]) -> pd.DataFrame:
    """The model calls of the runs, one row each, with the columns of the export's ``calls`` table.

    Example:
        >>> calls = wason.calls_frame(store, [3])  # doctest: +SKIP
        >>> calls["latency_s"].median(), calls["finish_reason"].value_counts()  # doctest: +SKIP
    """
    return frame(table_rows(store, "calls", run_ids))


def scores_frame(store: Store, run_ids: Sequence[int], *, baselines: bool = False) -> pd.DataFrame:
    """The runs' scores, one row per run: ``run_id``, ``family``, ``player``, ``model``, then for each of the
    family's scores (in the paper's column order) a column named for it with its value, ``<name> low`` and
    ``<name> high`` (its 95% interval, where it has one) and, for a rate, ``<name> k`` and ``<name> n``.
    Runs of different families share the columns of scores with the same name.

    Args:
        baselines: also a row for each run's finished solver baseline, after its run.

    Example:
        >>> wason.scores_frame(store, [3, 4], baselines=True)  # doctest: +SKIP
    """
    pd = require_pandas()
    ids: list[int] = []
    for run_id in dict.fromkeys(run_ids):
        extra = baselines_of(store, run_id, completed_only=True) if baselines else []
        ids += [r for r in (run_id, *extra) if r not in ids]
    rows: list[dict[str, Any]] = []
    columns = ["run_id", "family", "player", "model"]
    for run_id in ids:
        run = store.get_run(run_id)
        row: dict[str, Any] = {"run_id": run.id, "family": run.task, "player": run.player, "model": run.model}
        for score in registry.get(run.task).scores(store, run_id):
            parts: dict[str, Any] = {score.name: score.value}
            if score.interval is not None:
                parts[f"{score.name} low"], parts[f"{score.name} high"] = score.interval
            if score.kind == "rate":
                parts[f"{score.name} k"], parts[f"{score.name} n"] = score.k, score.n
            for name, value in parts.items():
                if name not in columns:
                    columns.append(name)
                row[name] = value
        rows.append(row)
    out = pd.DataFrame.from_records(rows, columns=columns)
    out["run_id"] = out["run_id"].astype("Int64")
    return out
