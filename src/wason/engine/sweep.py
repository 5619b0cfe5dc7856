"""Sweeps: a grid of runs (families x their settings x players and models x generation settings), one run per
cell, all in one store, described by a TOML file (``wason sweep SWEEP.toml``; the format is in docs/scale.md).

Each cell is a run made with the sweep's name and the cell's key, so the store holds at most one run per cell:
running a sweep again, or retrying a cell whose process died, finds the cell's run and finishes it instead of
starting another. Cells run one after another in this process, or each as a Ray task on a cluster
(:mod:`wason.engine.sweep_ray`), which then needs a store every node reaches (PostgreSQL).

Like the rest of the engine it names no family: each cell's configuration is built by its family's own
configuration class, found in the registry.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import tomllib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from wason.core import registry
from wason.core.family import (
    MAX_CONCURRENCY,
    MAX_RETRIES,
    MAX_RETRY_DELAY,
    MAX_TIMEOUT,
    Family,
    Item,
    RunSettings,
    own_fields,
)
from wason.core.records import Rate, RunRow
from wason.core.runner import EpisodeResult
from wason.engine.play import RunObserver, play_run
from wason.engine.runs import create_run, load_config, run_items
from wason.models.base import GenerationParams
from wason.redaction import redact
from wason.store import Store
from wason.store.db import RunBusy, StoreError

__all__ = [
    "MAX_CELLS",
    "MAX_SWEEP_BYTES",
    "Cell",
    "CellOutcome",
    "CellRow",
    "Sweep",
    "SweepError",
    "cell_rows",
    "load_sweep",
    "run_cell",
    "run_sweep",
    "sweep_table",
]

MAX_SWEEP_BYTES = 1 << 20
"""The largest sweep file read (1 MiB): a grid is a few dozen lines, and ``/dev/zero`` must not hang us."""

MAX_CELLS = 10_000
"""The most cells (runs) a sweep may make: a grid's axes multiply, so a short file could ask for billions."""


class SweepError(ValueError):
    """A sweep file that cannot be used, or a sweep that cannot start; the message is one line naming the key."""


# -- the sweep file -----------------------------------------------------------------------------------------
class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RunOptions(_Strict):
    """``[run]``: how every cell's model is called, and whether model runs get their solver baseline."""

    # the bounds of RunSettings, so a sweep file is refused where its cells would be
    timeout: float = Field(default=120.0, gt=0, le=MAX_TIMEOUT, allow_inf_nan=False)
    retries: int = Field(default=6, ge=0, le=MAX_RETRIES)
    retry_delay: float = Field(default=1.0, ge=0, le=MAX_RETRY_DELAY, allow_inf_nan=False)
    concurrency: int | None = Field(default=None, ge=1, le=MAX_CONCURRENCY)
    use_cache: bool = True
    system_as_user: bool = False
    baselines: bool = True


class PlayerSpec(_Strict):
    """One ``[[players]]`` entry: the models of one endpoint (``llm``), or the family's reference solver."""

    player: Literal["llm", "solver"] = "llm"
    models: list[str] = Field(default_factory=list)
    base_url: str | None = None

    @model_validator(mode="after")
    def _models_for_llm_only(self) -> PlayerSpec:
        if self.player == "llm" and not self.models:
            raise ValueError(
                "models: an llm player lists at least one model spec, e.g. models = ['vllm:NAME']"
            )
        if self.player == "solver" and (self.models or self.base_url):
            raise ValueError("the solver takes no models or base_url")
        return self


class SettingsSpec(GenerationParams):
    """One ``[[settings]]`` entry: generation parameters (absent means the model's default), checked as a
    run's are, with unknown keys refused."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    def params(self) -> GenerationParams:
        return GenerationParams(**self.model_dump())


class FamilySpec(BaseModel):
    """One ``[[families]]`` entry: a family by name, its grid axes, and any of its settings fixed for every cell
    (the keys besides ``name``, ``splits``, ``seeds`` and ``grid``)."""

    model_config = ConfigDict(extra="allow", frozen=True)

    name: str
    splits: list[Any] | None = None
    seeds: list[int] | None = None
    grid: dict[str, list[Any]] = Field(default_factory=dict)

    @field_validator("splits", "seeds")
    @classmethod
    def _not_empty(cls, v: list[Any] | None) -> list[Any] | None:
        if v is not None and not v:
            raise ValueError("an empty list makes no cells; leave the key out instead")
        return v

    @field_validator("grid")
    @classmethod
    def _axes_not_empty(cls, v: dict[str, list[Any]]) -> dict[str, list[Any]]:
        empty = [k for k, values in v.items() if not values]
        if empty:
            raise ValueError(f"grid.{empty[0]}: an empty list makes no cells")
        return v


class RaySpec(_Strict):
    """``[ray]``: how cells are scheduled on a Ray cluster (``wason sweep --ray``)."""

    cpus_per_cell: float = Field(default=1.0, gt=0)
    max_retries: int = Field(default=3, ge=0)
    cells_at_once: int | None = Field(default=None, ge=1)


class SweepFile(_Strict):
    """The whole sweep file."""

    name: str = Field(min_length=1, max_length=200)
    run: RunOptions = Field(default_factory=RunOptions)
    families: list[FamilySpec] = Field(min_length=1)
    players: list[PlayerSpec] = Field(min_length=1)
    settings: list[SettingsSpec] = Field(default_factory=lambda: [SettingsSpec()], min_length=1)
    ray: RaySpec = Field(default_factory=RaySpec)


# -- cells ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Cell:
    """One run of the grid.

    Attributes:
        key: the canonical text of the cell's parameters (its family, the family settings the sweep sets, who
            plays, the generation settings); the store keeps one run per (sweep, key).
        task: the family's name.
        config: the run configuration as JSON (the family's configuration class reads it back).
        fields: the family settings the sweep sets for this cell (shown in the summary).
        baseline: whether a model run gets its solver baseline.
    """

    key: str
    task: str
    config: dict[str, Any]
    fields: dict[str, Any]
    baseline: bool

    @property
    def player(self) -> str:
        return str(self.config.get("player"))

    @property
    def model(self) -> str | None:
        model = self.config.get("model")
        return None if model is None else str(model)

    @property
    def who(self) -> str:
        return self.model if self.player == "llm" and self.model else self.player

    @property
    def settings(self) -> str:
        params = self.config.get("params") or {}
        return _pairs({k: v for k, v in params.items() if v is not None}) if self.player == "llm" else "-"

    def run_config(self) -> RunSettings:
        config: RunSettings = registry.get(self.task).config_type.model_validate(self.config)
        return config


@dataclass(frozen=True)
class Sweep:
    """A loaded sweep file: its name, its cells in grid order, and its Ray options."""

    name: str
    path: str
    cells: list[Cell]
    ray: RaySpec = field(default_factory=RaySpec)
    notes: list[str] = field(default_factory=list)


def _pairs(values: dict[str, Any]) -> str:
    return " ".join(f"{k}={_show(v)}" for k, v in values.items()) or "-"


def _show(value: Any) -> str:
    if isinstance(value, list):
        return ",".join(map(str, value))
    return str(value)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def cell_key(config: RunSettings, fields: Iterable[str]) -> str:
    """The canonical key of a cell: JSON with sorted keys of what makes the cell's results what they are (the
    family, the family settings the sweep sets, the player, the model, the generation parameters given, and
    the instructions' role). Timeouts, retries, concurrency and the endpoint's URL are left out: they change
    how a cell runs, not what it measures, so editing them keeps the cells' runs."""
    data = config.model_dump(mode="json")
    key: dict[str, Any] = {
        "task": data["task"],
        "fields": {name: data[name] for name in sorted(fields)},
        "player": data["player"],
    }
    if config.player == "llm":
        key["model"] = data["model"]
        key["params"] = {k: v for k, v in data["params"].items() if v is not None}
        if config.system_as_user:
            key["system_as_user"] = True
    return _canonical(key)


def _own_fields(family: Family[Any]) -> set[str]:
    """The settings of a family's configuration a sweep may set (not the shared model settings, not the ones the
    engine sets), and ``limit`` (the first N items, which every family takes)."""
    return {*own_fields(family.config_type), "limit"}


def _where(index: int, spec: FamilySpec) -> str:
    return f"families[{index}] ({spec.name})"


def _family_cells(
    index: int, spec: FamilySpec, sweep: SweepFile, notes: list[str]
) -> Iterator[tuple[RunSettings, dict[str, Any]]]:
    where = _where(index, spec)
    try:
        family = registry.get(spec.name)
    except ValueError as exc:  # unknown, or a plugin that does not load
        raise SweepError(f"families[{index}].name: {exc}") from None
    own = _own_fields(family)
    known = ", ".join(sorted(own))
    fixed = dict(spec.model_extra or {})
    axes: dict[str, list[Any]] = {}
    for shorthand, name in (("splits", "split"), ("seeds", "seed")):
        values = getattr(spec, shorthand)
        if values is None:
            continue
        if name not in own:
            raise SweepError(f"{where}.{shorthand}: this family has no '{name}' setting (it has: {known})")
        if name in spec.grid:
            raise SweepError(f"{where}.{shorthand}: give either {shorthand} or grid.{name}, not both")
        axes[name] = values
    axes.update(spec.grid)
    for name in [*fixed, *spec.grid]:
        if name not in own:
            prefix = "grid." if name in spec.grid else ""
            raise SweepError(f"{where}.{prefix}{name}: not a setting of this family (it has: {known})")
    both = sorted(set(fixed) & set(axes))
    if both:
        raise SweepError(f"{where}.{both[0]}: set both as a fixed value and as a grid axis")
    solver_noted = False
    for combo in itertools.product(*axes.values()):
        fields = {**fixed, **dict(zip(axes, combo, strict=True))}
        for player in sweep.players:
            if player.player not in family.players:
                if not solver_noted:
                    notes.append(
                        f"{spec.name} has no {player.player}: its {player.player} cells are left out"
                    )
                    solver_noted = True
                continue
            if player.player == "solver":
                choices: list[tuple[str | None, str | None, GenerationParams]] = [
                    (None, None, GenerationParams())
                ]
            else:
                choices = [(m, player.base_url, s.params()) for m in player.models for s in sweep.settings]
            for model, base_url, params in choices:
                try:
                    config: RunSettings = family.config_type(
                        **fields,
                        player=player.player,
                        model=model,
                        base_url=base_url,
                        params=params,
                        timeout=sweep.run.timeout,
                        retries=sweep.run.retries,
                        retry_delay=sweep.run.retry_delay,
                        concurrency=sweep.run.concurrency,
                        use_cache=sweep.run.use_cache,
                        system_as_user=sweep.run.system_as_user,
                    )
                except ValidationError as exc:
                    raise SweepError(f"{where}: {_reasons(exc)}") from None
                except ValueError as exc:
                    raise SweepError(f"{where}: {exc}") from None
                yield config, fields


def _reasons(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(map(str, e['loc']))}: {e['msg']}" if e["loc"] else str(e["msg"]) for e in exc.errors()
    )


def _file_reasons(exc: ValidationError) -> str:
    parts = []
    for e in exc.errors():
        where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e["loc"]).lstrip(".")
        msg = "unknown key" if e["type"] == "extra_forbidden" else e["msg"]
        parts.append(f"{where}: {msg}" if where else msg)
    return "; ".join(parts)


def read_sweep_text(path: str | Path) -> str:
    """The sweep file's text: at most :data:`MAX_SWEEP_BYTES`, UTF-8 (a byte-order mark is allowed)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_SWEEP_BYTES + 1)
    except OSError as exc:
        raise SweepError(f"{path}: cannot read the sweep file: {exc.strerror or exc}") from None
    if len(data) > MAX_SWEEP_BYTES:
        raise SweepError(f"{path}: larger than {MAX_SWEEP_BYTES} bytes; is it a sweep file?")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SweepError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def parse_sweep(text: str, path: str = "SWEEP.toml") -> Sweep:
    """A sweep from the text of its TOML file (``path`` only names it in errors).

    Raises:
        SweepError: the text is not TOML, a key is unknown or has a bad value, or a cell's configuration is
            rejected by its family; the message is one line naming the key.
    """
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{path}: not valid TOML: {exc}") from None
    except RecursionError:  # arrays or tables nested thousands deep exhaust the TOML reader's recursion
        raise SweepError(f"{path}: nested too deeply to read (is it a sweep file?)") from None
    try:
        spec = SweepFile.model_validate(raw)
    except ValidationError as exc:
        raise SweepError(f"{path}: {_file_reasons(exc)}") from None
    except RecursionError:
        raise SweepError(f"{path}: nested too deeply to read (is it a sweep file?)") from None
    cells: dict[str, Cell] = {}
    notes: list[str] = []
    made = 0
    try:
        for index, fam in enumerate(spec.families):
            for config, fields in _family_cells(index, fam, spec, notes):
                made += 1
                if made > MAX_CELLS:
                    raise SweepError(f"the grid has more than {MAX_CELLS:,} cells; split the sweep")
                key = cell_key(config, fields)
                # the same cell from two entries (two endpoints of one model) is one run
                cells.setdefault(
                    key,
                    Cell(
                        key=key,
                        task=str(getattr(config, "task", "")),
                        config=config.model_dump(mode="json"),
                        fields=fields,
                        baseline=spec.run.baselines and config.player == "llm",
                    ),
                )
    except SweepError as exc:
        raise SweepError(f"{path}: {exc}") from None
    if not cells:
        raise SweepError(f"{path}: the grid has no cells ({'; '.join(notes) or 'nothing to play'})")
    return Sweep(name=spec.name, path=str(path), cells=list(cells.values()), ray=spec.ray, notes=notes)


def load_sweep(path: str | Path) -> Sweep:
    """Read and check a sweep file (see :func:`parse_sweep`)."""
    return parse_sweep(read_sweep_text(path), str(path))


# -- running one cell ---------------------------------------------------------------------------------------
class CellOutcome(BaseModel):
    """What running a cell came to: its run (None when it failed before it had one), and why it failed."""

    key: str
    run: int | None
    status: Literal["completed", "incomplete", "busy", "failed"]
    reason: str | None = None


def _one_line(text: str) -> str:
    return " ".join(redact(text).split())


class _Runs:
    """The runs a sweep's checks and summary look at, each read once when first asked for (by id; a run's
    baselines by the store's index): never every run of the store, however many it holds."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.runs: dict[int, RunRow | None] = {}
        self.baselines: dict[int, list[int]] = {}

    def get(self, run_id: int) -> RunRow | None:
        if run_id not in self.runs:
            try:
                self.runs[run_id] = self.store.get_run(run_id)
            except StoreError:  # deleted since its cell named it
                self.runs[run_id] = None
        return self.runs[run_id]

    def baseline(self, run_id: int) -> RunRow | None:
        """The newest baseline of the run, as baselines_of finds them."""
        if run_id not in self.baselines:
            self.baselines[run_id] = self.store.baselines_of(run_id)
        found = self.baselines[run_id]
        return self.get(found[-1]) if found else None

    def complete(self, run_id: int, baseline: bool) -> bool:
        """Whether the run completed and, when it should have one, its baseline too."""
        run = self.get(run_id)
        if run is None or run.status != "completed":
            return False
        if not baseline:
            return True
        made = self.baseline(run_id)
        if made is None:  # a family without a solver baseline has nothing more to do
            return family_has_no_baseline(_config_of(run), run_id)
        return made.status == "completed"


def _config_of(run: RunRow) -> RunSettings:
    config: RunSettings = registry.get(run.task).config_type.model_validate(run.config)
    return config


def family_has_no_baseline(config: RunSettings, run_id: int) -> bool:
    """Whether the family of ``config`` makes no solver baseline for a model run."""
    return registry.get(str(getattr(config, "task", ""))).baseline(config, run_id) is None


class _CellObserver(RunObserver):
    """A cell's run told to the sweep's episodes bar."""

    def __init__(
        self,
        on_start: Callable[[int], None] | None,
        on_result: Callable[[EpisodeResult], None] | None,
    ) -> None:
        self.on_start, self.on_result = on_start, on_result

    def started(self, run_id: int, n_todo: int, *, resumed: bool) -> None:
        if self.on_start is not None:
            self.on_start(n_todo)

    def result(self, result: EpisodeResult) -> None:
        if self.on_result is not None:
            self.on_result(result)


_HOW_A_CELL_RUNS = ("base_url", "timeout", "retries", "retry_delay", "concurrency", "use_cache")


def _current(stored: RunSettings, now: RunSettings) -> RunSettings:
    """A stored cell run's configuration with how it runs taken from the sweep file as it is now."""
    return stored.model_copy(update={name: getattr(now, name) for name in _HOW_A_CELL_RUNS})


def run_cell(
    store: Store,
    sweep: str,
    cell: Cell,
    *,
    items: list[Item] | None = None,
    lease_wait: float = 0.0,
    on_start: Callable[[int], None] | None = None,
    on_result: Callable[[EpisodeResult], None] | None = None,
) -> CellOutcome:
    """Make or find the cell's run, play what it has not finished, then its baseline; never raises for a cell
    that fails (the outcome says why), so one bad cell does not stop a sweep.

    Args:
        items: the cell's items when the caller already drew them (cells of one family setting share them).
        lease_wait: seconds to wait for the lease of a run whose holder may have died (a retried Ray task).
        on_start: told how many episodes are left, once the run is ready.
        on_result: told of each finished episode.
    """
    run_id: int | None = store.find_cell(sweep, cell.key)
    try:
        config = cell.run_config()
        if run_id is None:
            # completed from the store as `wason eval` does (evidence taken from another run), before it is stored
            config = registry.get(cell.task).prepare(config, store)
            run_id = create_run(store, config, items, sweep=sweep, cell=cell.key, baseline=cell.baseline)
        # the file's current endpoint, timeouts and retries (not in the key), with the stored run's own settings
        # for everything the key holds: a moved endpoint is followed, the cell stays the same; a completed run is
        # not played again, its baseline is made or finished if it has none
        asyncio.run(
            play_run(
                store,
                _current(load_config(store, run_id), config),
                run_id=run_id,
                baseline=cell.baseline,
                baseline_if_completed=True,
                lease_wait=lease_wait,
                observer=_CellObserver(on_start, on_result),
                group_writes=True,
            )
        )
    except RunBusy as exc:
        return CellOutcome(key=cell.key, run=run_id, status="busy", reason=_one_line(str(exc)))
    except Exception as exc:  # a cell's failure is reported in its row; the sweep goes on
        reason = getattr(exc, "reason", None) or str(exc) or type(exc).__name__
        return CellOutcome(key=cell.key, run=run_id, status="failed", reason=_one_line(reason))
    done = _Runs(store).complete(run_id, cell.baseline)
    return CellOutcome(key=cell.key, run=run_id, status="completed" if done else "incomplete")


# -- the summary ----------------------------------------------------------------------------------------------
class CellRow(BaseModel):
    """One cell in the sweep's summary (``wason sweep --json`` prints a list of them)."""

    cell: str
    family: str
    fields: dict[str, Any]
    player: str
    model: str | None
    settings: str
    run: int | None
    status: str
    episodes: int
    completed: int
    correct: int
    errored: int
    score: float | None
    # the 95% Wilson interval of the score (None without episodes)
    score_interval: tuple[float, float] | None = None
    baseline_run: int | None
    baseline_correct: int | None
    baseline_score: float | None
    baseline_interval: tuple[float, float] | None = None
    reason: str | None


def _counts(store: Store, run_id: int) -> tuple[int, int, int, int]:
    eps = store.list_episodes(run_id)
    # an episode's success is its correctness in every family, so the score is successes over all episodes
    return (
        len(eps),
        sum(e.status == "completed" for e in eps),
        sum(bool(e.success) for e in eps),
        sum(e.status == "errored" for e in eps),
    )


def cell_rows(store: Store, sweep: Sweep, outcomes: dict[str, CellOutcome] | None = None) -> list[CellRow]:
    """The summary of every cell of the sweep, from the store (with the reasons of cells that failed now)."""
    outcomes = outcomes or {}
    runs = _Runs(store)
    rows = []
    for cell in sweep.cells:
        outcome = outcomes.get(cell.key)
        run_id = store.find_cell(sweep.name, cell.key)
        n = done = correct = errored = 0
        status = "not started"
        b_run = b_correct = None
        b_score = None
        b_interval: tuple[float, float] | None = None
        run = None if run_id is None else runs.get(run_id)
        if run is not None:
            n, done, correct, errored = _counts(store, run.id)
            status = run.status
            made = runs.baseline(run.id) if cell.baseline else None
            if made is not None and made.status == "completed":
                # a baseline is a result only once it finished (as in `wason show`)
                b_run = made.id
                b_n, _, b_correct, _ = _counts(store, made.id)
                b_score = b_correct / b_n if b_n else None
                b_interval = Rate.of(b_correct, b_n).interval if b_n else None
            elif made is not None:
                status += f", baseline {made.status}"
            elif (
                cell.baseline
                and status == "completed"
                and not family_has_no_baseline(_config_of(run), run.id)
            ):
                status += ", no baseline yet"
        if outcome is not None and outcome.status in ("failed", "busy"):
            status = outcome.status
        rows.append(
            CellRow(
                cell=cell.key,
                family=cell.task,
                fields=cell.fields,
                player=cell.player,
                model=cell.model,
                settings=cell.settings,
                run=run_id,
                status=status,
                episodes=n,
                completed=done,
                correct=correct,
                errored=errored,
                score=correct / n if n else None,
                score_interval=Rate.of(correct, n).interval if n else None,
                baseline_run=b_run,
                baseline_correct=b_correct,
                baseline_score=b_score,
                baseline_interval=b_interval,
                reason=outcome.reason if outcome is not None else None,
            )
        )
    return rows


def _score(
    correct: int | None, n: int, score: float | None, interval: tuple[float, float] | None = None
) -> str:
    if correct is None or score is None:
        return "-"
    shown = f"{correct}/{n} ({score:.0%}"
    if interval is not None:
        shown += f" [{100 * interval[0]:.0f}-{100 * interval[1]:.0f}]"
    return shown + ")"


def sweep_table(sweep: Sweep, rows: Sequence[CellRow], store_url: str) -> Table:
    """One row per cell: family, its settings, who played, generation settings, run, status and score."""
    table = Table(title=f"Sweep {sweep.name!r}: {len(rows)} cells in {store_url}")
    for col in ("family", "settings of the family", "player / model", "generation", "run", "status", "score"):
        table.add_column(col, justify="right" if col in ("run", "score") else "left")
    if any(r.baseline_run is not None for r in rows):
        table.add_column("solver baseline", justify="right")
    for r in rows:
        status = r.status + (f": {r.reason}" if r.reason else "")
        if r.errored:
            status += f" ({r.errored} errored)"
        cols = [
            r.family,
            _pairs(r.fields),
            r.model if r.player == "llm" and r.model else r.player,
            r.settings,
            "-" if r.run is None else str(r.run),
            status,
            _score(r.correct, r.episodes, r.score, r.score_interval) if r.run is not None else "-",
        ]
        if table.columns[-1].header == "solver baseline":
            cols.append(_score(r.baseline_correct, r.episodes, r.baseline_score, r.baseline_interval))
        table.add_row(*cols)
    return table


# -- running a sweep ------------------------------------------------------------------------------------------
def todo_cells(store: Store, sweep: Sweep) -> list[Cell]:
    """The cells not yet complete (no run, an unfinished run, or a missing or unfinished baseline)."""
    runs = _Runs(store)
    todo = []
    for cell in sweep.cells:
        run_id = store.find_cell(sweep.name, cell.key)
        if run_id is None or not runs.complete(run_id, cell.baseline):
            todo.append(cell)
    return todo


def draw_items(store: Store, sweep: Sweep, todo: Sequence[Cell]) -> dict[str, list[Item]]:
    """The items of the cells that have no run yet, drawn once per family setting (many models share a split),
    before anything runs: an unknown split or rule id is one line now, not a failed cell later."""
    drawn: dict[str, list[Item]] = {}
    for cell in todo:
        if store.find_cell(sweep.name, cell.key) is not None:
            continue
        group = _canonical([cell.task, cell.fields])
        if group in drawn:
            continue
        family = registry.get(cell.task)
        try:
            drawn[group] = run_items(family.prepare(cell.run_config(), store))
        except (ValueError, OSError, StoreError) as exc:
            raise SweepError(
                f"{sweep.path}: {cell.task} with {_pairs(cell.fields)}: {_one_line(str(exc))}"
            ) from None
    return drawn


def cell_progress(console: Console | None, *, quiet: bool) -> Progress:
    """The progress display of a sweep: a bar per task (cells, a cell's episodes), its count, a note, time."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[note]}"),
        TimeElapsedColumn(),
        console=console,
        disable=quiet,
        transient=False,
    )


def run_sweep(
    store: Store,
    sweep: Sweep,
    *,
    console: Console | None = None,
    quiet: bool = False,
) -> dict[str, CellOutcome]:
    """Run the sweep's unfinished cells one after another in this process, with progress over the cells and
    over the current cell's episodes; returns the outcome of each cell run now."""
    todo = todo_cells(store, sweep)
    items = draw_items(store, sweep, todo)
    outcomes: dict[str, CellOutcome] = {}
    with cell_progress(console, quiet=quiet) as progress:
        cells_bar = progress.add_task(
            "cells", total=len(sweep.cells), completed=len(sweep.cells) - len(todo), note=""
        )
        episodes_bar = progress.add_task("episodes", total=0, note="", visible=False)
        for cell in todo:
            progress.update(cells_bar, note=_label(cell))

            started, finished = _episode_progress(progress, episodes_bar)
            group = _canonical([cell.task, cell.fields])
            outcome = run_cell(
                store, sweep.name, cell, items=items.get(group), on_start=started, on_result=finished
            )
            outcomes[cell.key] = outcome
            progress.update(episodes_bar, visible=False)
            progress.update(cells_bar, advance=1)
        progress.update(cells_bar, note="")
    return outcomes


def _label(cell: Cell) -> str:
    settings = f" {cell.settings}" if cell.player == "llm" and cell.settings != "-" else ""
    return f"{cell.task} {_pairs(cell.fields)} {cell.who}{settings}"


def _episode_progress(
    progress: Any, bar: Any
) -> tuple[Callable[[int], None], Callable[[EpisodeResult], None]]:
    """The callbacks that drive the episodes bar of one cell."""
    errored = 0

    def started(n_todo: int) -> None:
        progress.reset(bar, total=n_todo, note="", visible=n_todo > 0)

    def finished(result: EpisodeResult) -> None:
        nonlocal errored
        errored += result.status == "errored"
        progress.update(bar, advance=1, note=f"{errored} errored" if errored else "")

    return started, finished
