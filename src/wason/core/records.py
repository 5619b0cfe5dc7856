"""The records the store returns and reports read: plain frozen dataclasses, no database types."""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from wason.models.base import CallContext

__all__ = [
    "HUMAN",
    "PERSON_NAME",
    "RATE_LEGEND",
    "SOLVER_LABEL",
    "SOLVER_LEGEND",
    "CallContext",
    "CallTotals",
    "EpisodeRow",
    "Figure",
    "Matrix",
    "Rate",
    "RunReport",
    "RunRow",
    "Score",
    "Series",
    "TurnConflict",
    "calls_note",
    "fold_text",
    "label_of",
    "label_settings",
    "person_name",
    "player_name",
    "rate_text",
    "row_name",
    "run_header",
    "series_names",
    "setting_text",
    "to_json",
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


def episode_line(e: EpisodeRow, metrics: Sequence[str] = (), **fields: Any) -> dict[str, Any]:
    """An episode's line in a family's JSON report: its index, the ``fields`` its caller read from the item, its
    status and success, the named ``metrics`` (None where it has none) and its error, in that order."""
    m = e.metrics or {}
    return {
        "index": e.index,
        **fields,
        "status": e.status,
        "success": e.success,
        **{k: m.get(k) for k in metrics},
        "error": e.error,
    }


def to_json(value: Any) -> dict[str, Any]:
    """The stored record of an action or observation: pydantic models and dataclasses, tagged with their type."""
    if isinstance(value, BaseModel):
        return {"type": type(value).__name__, **value.model_dump(mode="json")}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"type": type(value).__name__, **_as_stored(dataclasses.asdict(value))}
    return {"type": type(value).__name__, "value": repr(value)}


def _as_stored(value: Any) -> Any:
    """``value`` as it reads back from the store's JSON: tuples (a dataclass's ``tuple[...]`` fields) as lists,
    so a replayed observation compares equal to its stored record."""
    if isinstance(value, dict):
        return {k: _as_stored(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_as_stored(v) for v in value]
    return value


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


def player_name(run: RunRow) -> str:
    """Who played a run: the model (``constrained`` after it when its replies were held to the protocol's
    format, ``--constrain``), or the player that asks no model (``solver``, ``human``)."""
    if run.player == "llm" and run.model:
        return f"{run.model} constrained" if run.config.get("constrain") else run.model
    return run.player


SOLVER_LABEL = "solver (reference)"
"""How a row of the solver (``--player solver``, a baseline) is labelled: a strong reference, not a ceiling."""

SOLVER_LEGEND = "SOLVER_LEGEND"
"""The name under which a family declares its solver's legend, as data: a module of its
:attr:`~wason.core.family.Family.reports` sets ``SOLVER_LEGEND`` to one sentence on what its solver is and what it
was measured to win (with the figure and where it was measured). A family with no measured figure declares none,
and its tables carry no legend for the solver's row."""


def row_name(run: RunRow) -> str:
    """How a table's row names the run's player: :func:`player_name`, the solver as :data:`SOLVER_LABEL`."""
    return SOLVER_LABEL if run.player == "solver" else player_name(run)


PLAYED_FALLBACK = ("split", "variations", "level", "difficulty", "source")
"""For a run whose family cannot be loaded: the configuration fields that may name what it plays, the first one
it holds is shown (a loaded family declares its own: ``RunSettings.label_fields``)."""


def setting_text(value: Any) -> str:
    """A configuration value as a label shows it: a list joined with ``,`` (``L1,L2,L3``), never Python's
    ``repr``; empty for None."""
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ",".join(setting_text(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, sort_keys=True, default=str)
    return str(value)


def label_settings(run: RunRow, names: Sequence[str] | None) -> list[tuple[str, str]]:
    """The settings that name what ``run`` played, as ``(field, text)``: of ``names`` (its family's
    ``RunSettings.label_fields``) those the configuration holds (a field hidden while a game is on is left out);
    ``names`` None (the family cannot be loaded): the first of :data:`PLAYED_FALLBACK` it holds."""
    if names is None:
        names = [n for n in PLAYED_FALLBACK if setting_text(run.config.get(n))][:1]
    texts = [(name, setting_text(run.config.get(name))) for name in names]
    return [(name, text) for name, text in texts if text]


def label_of(run: RunRow, names: Sequence[str] | None) -> str:
    """``task:what by who``, the title of a run's tables, what it played named by the settings ``names``
    (:func:`label_settings`; ``task by who`` where none is held, or shown while a game is on)."""
    what = ":".join(text for _, text in label_settings(run, names))
    return f"{run.task}{f':{what}' if what else ''} by {player_name(run)}"


HUMAN = "human:"
"""The prefix of a person's player name in the store (``human:ada``), on the web and at the terminal alike."""

PERSON_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}")
"""A person's name: 1 to 40 letters, digits, spaces, ``.``, ``_`` or ``-``, starting with a letter or digit
(short enough for a table's column; with :data:`HUMAN` well within a player's ``MAX_NAME_CHARS``)."""


def person_name(text: str) -> str:
    """``text`` stripped, checked as a person's name (:data:`PERSON_NAME`).

    Raises:
        ValueError: not such a name, in one line saying what a name may hold.
    """
    name = text.strip()
    if not PERSON_NAME.fullmatch(name):
        raise ValueError(
            "a name of 1 to 40 letters, digits, spaces, '.', '_' or '-', starting with a letter or digit"
        )
    return name


def series_names(runs: Sequence[RunRow]) -> list[str]:
    """How tables and figures name runs: the model (or the player, the solver as ``solver (reference)``:
    :func:`row_name`), ``(baseline)`` for another player's run made as another's baseline; where two runs would
    share a name, the model settings that tell them apart (``T=0.8 seed=3``), and ``(run N)`` where even those
    do not."""
    names = []
    for run in runs:
        who = row_name(run)
        baseline = run.config.get("baseline_for") is not None and who != SOLVER_LABEL
        names.append(f"{who} (baseline)" if baseline else who)
    settings = [
        _settings_label(run, [r for r, n in zip(runs, names, strict=True) if n == name])
        for run, name in zip(runs, names, strict=True)
    ]
    named = [f"{name} {extra}".rstrip() for name, extra in zip(names, settings, strict=True)]
    return [
        f"{name} (run {run.id})" if named.count(name) > 1 else name
        for name, run in zip(named, runs, strict=True)
    ]


_SETTING_LABELS = (
    ("temperature", "T"),
    ("top_p", "top_p"),
    ("seed", "seed"),
    ("max_tokens", "max"),
    ("reasoning_effort", "effort"),
)


def _settings_label(run: RunRow, same_name: Sequence[RunRow]) -> str:
    """The model settings of ``run`` that differ among ``same_name`` (the runs sharing its name), as
    ``T=0.8 seed=3``; empty for a run alone with its name, a run that is no model's, or settings all alike."""
    if len(same_name) < 2 or run.player != "llm":
        return ""
    params = [r.config.get("params") or {} for r in same_name]
    mine = run.config.get("params") or {}
    parts = []
    for key, label in _SETTING_LABELS:
        values = {_json_key(p.get(key)) for p in params}
        if len(values) > 1 and mine.get(key) is not None:
            parts.append(f"{label}={mine[key]}")
    return " ".join(parts)


def _json_key(value: Any) -> str:
    """A JSON value as a comparable text (settings may be lists or objects)."""
    return json.dumps(value, sort_keys=True, default=str)


def run_footer(run_id: int, *more: str) -> str:
    """The last line of a run's tables in ``wason show``: its id and how to see more (``more``: further flags)."""
    details = ", ".join([f"`wason show {run_id} --episode N`", *(f"`{m}`" for m in more)])
    return f"run id: {run_id}   (details: {details})"


TRUNCATED_FINISH_REASONS = frozenset({"length", "max_tokens"})
"""Finish reasons of a reply cut off at the token limit: OpenAI-compatible servers say ``length``, Anthropic says
``max_tokens``."""


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
        truncated: replies (made or replayed) the endpoint cut off at the token limit (finish reason ``length``,
            or Anthropic's ``max_tokens``).
    """

    calls: int
    cached_calls: int
    failed_calls: int
    attempts: int
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int
    cached_output_tokens: int
    truncated: int = 0


def calls_note(calls: dict[str, int]) -> str:
    """One line on a run's model calls for its table's notes: what was spent apart from what was replayed.

    ``model calls: 15 made (2 retries), 0 failed, 4 replayed from the cache; tokens spent 1200 in, 300 out
    (replayed 80 in, 20 out)``: retries are named only when there were any (a failed call may have had none:
    a refused request is not retried).
    """
    retries = calls["attempts"] - calls["calls"]
    tried = f" ({retries} retr{'y' if retries == 1 else 'ies'})" if retries > 0 else ""
    made = (
        f"model calls: {calls['calls']} made{tried}, {calls['failed_calls']} failed, "
        f"{calls['cached_calls']} replayed from the cache"
    )
    spent = f"tokens spent {calls['input_tokens']} in, {calls['output_tokens']} out"
    if calls["cached_calls"]:
        spent += f" (replayed {calls['cached_input_tokens']} in, {calls['cached_output_tokens']} out)"
    cut = calls.get("truncated", 0)
    tail = f"; {cut} replies cut off at the token limit (--max-tokens)" if cut else ""
    return f"{made}; {spent}{tail}"


def fold_text(text: str, *, lines: int = 6, full: bool = False, hint: str = "") -> str:
    """A long text (a system prompt) folded to its first ``lines`` lines for a transcript, with a line saying how
    much was left out and ``hint`` (how to see it all); the whole text when ``full`` or when it is short."""
    parts = text.splitlines()
    if full or len(parts) <= lines + 1:
        return text
    left = len(parts) - lines
    more = f"[... {left} more lines{'; ' + hint if hint else ''}]"
    return "\n".join([*parts[:lines], more])


class Rate(BaseModel):
    """A share with its counts and 95% Wilson interval, as every JSON report writes one: numbers, not text.

    Attributes:
        k: how many succeeded.
        n: out of how many (0: no rate; ``rate`` is None and the interval is ``[0, 1]``).
        rate: ``k / n``.
        interval: the 95% Wilson score interval.
    """

    model_config = ConfigDict(frozen=True)

    k: int
    n: int
    rate: float | None
    interval: tuple[float, float]

    @classmethod
    def of(cls, k: int, n: int) -> Rate:
        """The rate of ``k`` out of ``n``."""
        from wason.metrics.rates import wilson_interval

        if n < 0 or not 0 <= k <= max(n, 0):
            raise ValueError(f"a rate needs 0 <= k <= n, got k={k}, n={n}")
        low, high = wilson_interval(k, n) if n else (0.0, 1.0)
        return cls(k=k, n=n, rate=k / n if n else None, interval=(low, high))

    def __str__(self) -> str:
        return f"{self.k}/{self.n}"

    def text(self, sep: str = " ") -> str:
        """The rate as every report shows it (:func:`rate_text`): ``25% [5-57] 1/4``; ``-`` for no rate."""
        if self.rate is None:
            return "-"
        return rate_text(self.rate, self.interval, self.k, self.n, sep=sep)


RATE_LEGEND = "rates: percent [95% Wilson interval] over k/n"
"""What a rate's text (:func:`rate_text`) says, for the legend of every table holding one."""


def rate_text(rate: float, interval: tuple[float, float], k: int, n: int, *, sep: str = " ") -> str:
    """A rate in the one format every report uses, the terminal's, the web's and the papers' alike: its percent,
    its 95% Wilson interval in percent, and ``k/n`` (``25% [5-57] 1/4``); ``sep`` goes between the interval and
    the counts (a new line in the terminal's narrow cells)."""
    low, high = interval
    return f"{100 * rate:.0f}% [{100 * low:.0f}-{100 * high:.0f}]{sep}{k}/{n}"


ScoreKind = Literal["rate", "mean", "count"]


class Score(BaseModel):
    """One number of a run in a comparison table (``wason show RUN RUN...``): a column in the paper's order.

    Attributes:
        name: the column's header, in the paper's words (``Accuracy``).
        short: an abbreviation of at most 8 characters for narrow terminals (``Acc``); the table's legend spells
            it out.
        legend: what the number means, one short sentence (shown under the table).
        kind: ``rate`` (``k`` of ``n``, Wilson interval), ``mean`` (a mean, with an interval when one is known)
            or ``count`` (a whole number).
        value: the rate, the mean or the count; None when there is none (no finished episode).
        k: successes of a rate.
        n: trials of a rate, or the sample size of a mean.
        interval: the 95% interval of a rate or a mean.
        higher_is_better: which way is better (for the paired comparisons and the plots' captions).
    """

    model_config = ConfigDict(frozen=True)

    name: str
    short: str
    legend: str = ""
    kind: ScoreKind = "rate"
    value: float | None = None
    k: int | None = None
    n: int | None = None
    interval: tuple[float, float] | None = None
    higher_is_better: bool = True

    @classmethod
    def rate(cls, name: str, short: str, k: int, n: int, legend: str = "") -> Score:
        """A rate column: ``k`` of ``n`` with its Wilson interval."""
        r = Rate.of(k, n)
        return cls(
            name=name, short=short, legend=legend, kind="rate", value=r.rate, k=k, n=n, interval=r.interval
        )

    @classmethod
    def mean(
        cls,
        name: str,
        short: str,
        value: float | None,
        n: int | None = None,
        interval: tuple[float, float] | None = None,
        legend: str = "",
        *,
        higher_is_better: bool = True,
    ) -> Score:
        """A mean column (with its interval when known)."""
        return cls(
            name=name,
            short=short,
            legend=legend,
            kind="mean",
            value=value,
            n=n,
            interval=interval,
            higher_is_better=higher_is_better,
        )

    @classmethod
    def mean_of(
        cls,
        name: str,
        short: str,
        values: Sequence[float | int | None],
        legend: str = "",
        *,
        higher_is_better: bool = True,
    ) -> Score:
        """A mean column over per-episode values (None values left out), with its 95% Student t interval."""
        from wason.metrics.rates import t_interval

        present = [float(v) for v in values if v is not None]
        return cls.mean(
            name,
            short,
            sum(present) / len(present) if present else None,
            n=len(present),
            interval=t_interval(present),
            legend=legend,
            higher_is_better=higher_is_better,
        )

    @classmethod
    def count(
        cls, name: str, short: str, value: int, legend: str = "", *, higher_is_better: bool = False
    ) -> Score:
        """A count column (format errors, repeats...)."""
        return cls(
            name=name,
            short=short,
            legend=legend,
            kind="count",
            value=value,
            higher_is_better=higher_is_better,
        )


class Matrix(BaseModel):
    """A table of one score over two factors (guessing models x the runs whose evidence they read), as
    data: the comparison prints it under its table in every format and the plots draw it as grouped bars.

    Attributes:
        name: the file stem of its figure (letters, digits, ``-`` and ``_``).
        title: what the cells are.
        row_title: what the rows are (``Guessing model``).
        column_title: what the columns are (``Tests from``).
        rows: the row labels.
        columns: the column labels.
        cells: ``cells[i][j]`` for row ``i`` and column ``j``; None where no run measured it.
        notes: lines under it (runs left out, pooled cells).
        figure_title: a shorter title for its figure (the title when empty).
    """

    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    row_title: str
    column_title: str
    rows: list[str]
    columns: list[str]
    cells: list[list[Score | None]]
    notes: list[str] = []
    figure_title: str = ""

    def cell(self, row: str, column: str) -> Score | None:
        """The cell of ``row`` and ``column`` (by label)."""
        return self.cells[self.rows.index(row)][self.columns.index(column)]


class Series(BaseModel):
    """One series of a figure: a value per category (bars) or per x (lines), with an optional interval.

    Attributes:
        name: the legend's entry (the model or player: :func:`series_names`).
        values: a value per category or x; None where there is none (no bar, a gap in the line).
        low: the interval's lower ends (whiskers of bars, a band around lines), or None.
        high: the interval's upper ends, or None.
        labels: a short text over each bar (``7/10``), or None.
        reference: a line to compare against rather than a player (random experiments, chance): drawn dashed
            in grey-black, after the players' colours.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    values: list[float | None]
    low: list[float | None] | None = None
    high: list[float | None] | None = None
    labels: list[str] | None = None
    reference: bool = False

    @classmethod
    def of_rates(cls, name: str, rates: Sequence[Rate | None]) -> Series:
        """Bars of rates: each rate's value, its Wilson interval as whiskers and ``k/n`` over it (None: no bar)."""
        return cls(
            name=name,
            values=[r.rate if r else None for r in rates],
            low=[r.interval[0] if r else None for r in rates],
            high=[r.interval[1] if r else None for r in rates],
            labels=[f"{r.k}/{r.n}" if r else "" for r in rates],
        )


class Figure(BaseModel):
    """A figure a family contributes, as data: :mod:`wason.report.plots` draws every figure in one style (PNG and
    SVG), so families never import a plotting library.

    Attributes:
        name: the file stem (``accuracy``, ``reduction``): letters, digits, ``-`` and ``_``.
        title: the figure's title (it names the models: the series do).
        kind: ``bars`` (a group of bars per category, one bar per series, whiskers for intervals) or ``lines``
            (a line per series over numeric ``x``, a band for intervals).
        categories: the bar groups (``bars``).
        x: the x values (``lines``).
        series: the data, one per model or player.
        x_label: the x axis label.
        y_label: the y axis label.
        y_range: fixed y limits (rates: ``(0, 1)``); None: from the data.
        integer_y: whole-number ticks on the y axis (counts).
        caption: a line under the figure (what the whiskers are, what was left out).
        highlight: categories drawn marked out (hatched, outlined, on a shaded band), e.g. the correct answer of
            a distribution.
        highlight_label: what the mark means, for the legend (``correct answer``).
    """

    model_config = ConfigDict(frozen=True)

    name: str
    title: str
    kind: Literal["bars", "lines"]
    categories: list[str] = []
    x: list[float] = []
    series: list[Series]
    x_label: str = ""
    y_label: str = ""
    y_range: tuple[float, float] | None = None
    integer_y: bool = False
    caption: str = ""
    highlight: list[str] = []
    highlight_label: str = ""


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
