"""Results as data: what a family declares it measures, for the shared renderers to draw everywhere.

A family never draws a table. It fills a :class:`Results` (its paper's tables: columns with their kind and legend,
then rows of cells) and a :class:`Transcript` per episode (structured messages with annotations), and
:mod:`wason.report.render` draws them in one style for the terminal (fitting 80 columns), the web viewer (HTML
tables, sortable, rows linking to episodes), papers (markdown, LaTeX, CSV) and JSON. Figures and matrices are
data already (:class:`wason.core.records.Figure`, :class:`~wason.core.records.Matrix`).

A cell is typed by its column's kind:

- ``rate``: a :class:`~wason.core.records.Rate` (``k`` of ``n`` with its 95% Wilson interval);
- ``mean``: a :class:`Mean` (a value with its interval and sample size), or a bare number;
- ``count``: a whole number;
- ``text``: a string.

None (or a missing key) is an empty cell, drawn ``-``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

from wason.core.records import EpisodeRow, Rate, RunReport, RunRow, Score, calls_note, label_of, series_names

__all__ = [
    "Cell",
    "Column",
    "Mean",
    "Message",
    "Results",
    "ResultsReport",
    "Table",
    "Transcript",
    "calls_notes",
    "describe_move",
    "end_reason_text",
    "episode_outcome",
    "episode_summary",
    "episode_title",
    "mean_cell",
    "named_runs",
    "run_notes",
    "run_title",
    "score_table",
    "turn_messages",
    "votes_text",
    "yes_no",
]

ColumnKind = Literal["rate", "mean", "count", "text"]


class Mean(BaseModel):
    """A mean with its 95% interval (None when not known) and how many values it is over."""

    model_config = ConfigDict(frozen=True)

    value: float | None
    interval: tuple[float, float] | None = None
    n: int | None = None


Cell = Rate | Mean | int | float | str | None
"""One cell of a :class:`Table` (its column's kind says how it reads)."""


def mean_cell(values: Iterable[float | int | None]) -> Mean:
    """The mean of per-episode values (None left out) with its 95% Student t interval."""
    from wason.metrics.rates import t_interval

    present = [float(v) for v in values if v is not None]
    return Mean(
        value=sum(present) / len(present) if present else None,
        interval=t_interval(present) if len(present) > 1 else None,
        n=len(present),
    )


class Column(BaseModel):
    """One column of a table.

    Attributes:
        key: the key of its cells in each row.
        name: its header, in the paper's words; short, so the table fits 80 columns (the legend says more).
        kind: ``rate``, ``mean``, ``count`` or ``text`` (see the module's docstring).
        legend: what it means, one short clause for the legend under the table ("" for a self-explaining name).
        digits: the decimals of a mean (None: by its size).
        higher_is_better: which way is better (the viewer's sort starts with the best).
    """

    model_config = ConfigDict(frozen=True)

    key: str = Field(pattern=r"^[A-Za-z0-9_.:-]{1,64}$")
    name: str
    kind: ColumnKind = "text"
    legend: str = ""
    digits: int | None = Field(default=None, ge=0, le=6)
    higher_is_better: bool = True


class Table(BaseModel):
    """One table of a run's results: a header row of columns and one row per group (a level, a variation, a run).

    Attributes:
        name: a stable key (``levels``, ``per-run``), for exports and links.
        title: its title, one short line (the run it is about is said once, by :attr:`Results.title`).
        columns: the columns, left to right; the first names the row.
        rows: each row's cells by column key; a row may also hold ``episode`` (an episode's index) or ``run`` (a
            run id), which the web viewer links the row to.
        legend: said under the table after the columns' legends (what the rows are, how errored games count).
    """

    model_config = ConfigDict(frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")
    title: str
    columns: list[Column]
    rows: list[dict[str, Cell]]
    legend: str = ""

    @field_validator("columns")
    @classmethod
    def _unique_keys(cls, columns: list[Column]) -> list[Column]:
        keys = [c.key for c in columns]
        if len(set(keys)) != len(keys) or not keys:
            raise ValueError(f"columns: at least one, keys unique (got {keys})")
        return columns

    def cells(self, row: Mapping[str, Cell]) -> list[Cell]:
        """A row's cells in column order."""
        return [row.get(c.key) for c in self.columns]


class Results(BaseModel):
    """A run's results as a family declares them (its baselines' rows beside its own where it has them).

    Attributes:
        title: what the tables are about: the run, what was played and by whom (``Run 3: game:L1 by gpt-4o``).
        protocol: which protocol and options were used (every report states it), or "".
        tables: the paper's tables, in order.
        notes: lines under the tables (model calls, errored episodes, what was left out).
    """

    model_config = ConfigDict(frozen=True)

    title: str
    protocol: str = ""
    tables: list[Table] = []
    notes: list[str] = []


def score_table(
    name: str, title: str, label: str, rows: Sequence[tuple[str, int | None, Sequence[Score]]]
) -> Table:
    """A table of :class:`~wason.core.records.Score` lists (one per run): a column per score, in order.

    Args:
        name: the table's key.
        title: its title.
        label: the header of the first column (``Player``).
        rows: each run's label, id (None: no link) and scores; every run has the same scores in the same order.
    """
    first = rows[0][2] if rows else []
    columns = [Column(key="label", name=label)]
    columns += [
        Column(
            key=f"s{i}",
            name=s.name,
            kind=s.kind,
            legend=s.legend,
            higher_is_better=s.higher_is_better,
        )
        for i, s in enumerate(first)
    ]
    body: list[dict[str, Cell]] = []
    for text, run_id, scores in rows:
        row: dict[str, Cell] = {"label": text}
        if run_id is not None:
            row["run"] = run_id
        for i, s in enumerate(scores):
            row[f"s{i}"] = _score_cell(s)
        body.append(row)
    return Table(name=name, title=title, columns=columns, rows=body)


def _score_cell(score: Score) -> Cell:
    if score.kind == "rate":
        return Rate.of(score.k or 0, score.n or 0) if score.n else None
    if score.kind == "mean":
        return Mean(value=score.value, interval=score.interval, n=score.n)
    return None if score.value is None else int(score.value)


Role = Literal["system", "player", "game", "note", "outcome"]


class Message(BaseModel):
    """One message of an episode's transcript.

    Attributes:
        role: ``system`` (the prompt the player read; folded in views unless asked in full), ``player`` (a move, as
            the player wrote it), ``game`` (what the game answered), ``note`` (what the harness records beside the
            conversation: a judge's reasoning, a verdict on a guess) or ``outcome`` (how the episode ended).
        text: the message.
        name: who speaks, as the transcript names them (``model, turn 3``, ``host``, ``harness``).
        turn: the turn it belongs to (0-based), or None.
        annotations: short labelled facts shown beside the message (``verdict: correct``, ``tokens: 120``).
    """

    model_config = ConfigDict(frozen=True)

    role: Role
    text: str
    name: str = ""
    turn: int | None = None
    annotations: dict[str, str] = {}


class Transcript(BaseModel):
    """One episode as a conversation.

    Attributes:
        title: the episode: run, index and the hidden item (shown only once the episode is over).
        messages: the messages in order.
        success: how it ended (None: not over, or no verdict).
    """

    model_config = ConfigDict(frozen=True)

    title: str
    messages: list[Message]
    success: bool | None = None


class _Reader(Protocol):
    def get_run(self, run_id: int) -> RunRow: ...

    def list_episodes(self, run_id: int) -> list[EpisodeRow]: ...

    def call_totals(self, run_id: int) -> dict[str, int]: ...


def named_runs(store: _Reader, run_ids: Sequence[int]) -> list[tuple[str, RunRow]]:
    """The runs of a results table with the names their rows take (:func:`~wason.core.records.series_names`:
    the model or player, ``(baseline)``, the settings that tell two apart)."""
    runs = [store.get_run(r) for r in run_ids]
    return list(zip(series_names(runs), runs, strict=True))


def run_title(run: RunRow, label_fields: Sequence[str] | None) -> str:
    """The line every run's results open with: ``Run 3: game:L1 by gpt-4o [completed]``, what it played named by
    its family's ``label_fields`` (:func:`wason.core.records.label_of`; by name:
    :func:`wason.core.labels.results_title`)."""
    return f"Run {run.id}: {label_of(run, label_fields)} [{run.status}]"


def run_notes(store: _Reader, run_id: int) -> list[str]:
    """The notes every run's results end with: episodes errored or not finished, then the model calls."""
    episodes = store.list_episodes(run_id)
    errored = sum(e.status == "errored" for e in episodes)
    unfinished = sum(e.status not in ("completed", "errored") for e in episodes)
    notes = []
    if errored or unfinished:
        notes.append(f"episodes: {errored} errored (counted as failures), {unfinished} not finished")
    return notes + calls_notes(store.call_totals(run_id))


def calls_notes(calls: Mapping[str, int] | BaseModel) -> list[str]:
    """The note on a run's model calls (:func:`~wason.core.records.calls_note`), when it made or replayed any;
    none for a run without a model."""
    given = calls.model_dump() if isinstance(calls, BaseModel) else dict(calls)
    return [calls_note(given)] if given.get("calls") or given.get("cached_calls") else []


def yes_no(value: Any) -> str:
    """A verdict as every report writes it: ``yes`` or ``no`` for a boolean, ``-`` for none (never Python's
    ``True``, ``False`` or ``None``); anything else as its text."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def votes_text(votes: Any) -> str:
    """A judge's votes as every report writes them: ``yes, yes, no`` (``-`` for a vote not cast); empty for
    none."""
    if not isinstance(votes, list | tuple):
        return "" if votes is None else str(votes)
    return ", ".join(yes_no(v) for v in votes)


def end_reason_text(metrics: Mapping[str, Any] | None) -> str:
    """How an episode ended, for a reader: its stored ``end_reason`` (data, kept as stored in JSON and exports),
    except that ``format_errors`` (too many replies in a row that could not be used) says what they were:
    ``unreadable replies (0 format errors, 2 cut off at the token limit)``, since a reply cut off at the token
    limit ends a game as a format error does but is counted apart (``truncated``). ``-`` when there is none."""
    m = metrics or {}
    reason = m.get("end_reason")
    if reason is None:
        return "-"
    if reason == "format_errors":
        errors, cut = int(m.get("format_errors") or 0), int(m.get("truncated") or 0)
        return (
            f"unreadable replies ({errors} format error{'' if errors == 1 else 's'}, {cut} cut off at the "
            "token limit)"
        )
    return str(reason)


def episode_summary(episode: EpisodeRow) -> dict[str, Any]:
    """An episode's line in a default JSON report: its index, item key, status, success, metrics and error."""
    return {
        "index": episode.index,
        "key": episode.item_key,
        "status": episode.status,
        "success": episode.success,
        "metrics": episode.metrics,
        "error": episode.error,
    }


def episode_title(data: Mapping[str, Any]) -> str:
    """A transcript's title from an episode's JSON record: ``Run 1, episode 0: KEY``."""
    return f"Run {data.get('run')}, episode {data.get('index')}: {data.get('rule')}"


def player_message(run: RunRow, index: int, text: str, step: str = "turn") -> Message:
    """What the player wrote at turn ``index`` of an episode of ``run``, named for who played (``model`` for a
    model run, else the player: ``solver``, ``human:NAME``) and the turn (``model, turn 3``)."""
    who = "model" if run.player == "llm" else run.player
    return Message(role="player", name=f"{who}, {step} {index + 1}", text=text, turn=index)


Moves = Mapping[str, "str | Callable[[Mapping[str, Any]], str]"]
"""How a family says its moves that wrote no text, by action type: a template of the action's fields
(``"guess: {text}"``) or a function of the action (:func:`describe_move`)."""


class _Fields(dict[str, Any]):
    def __missing__(self, key: str) -> None:
        return None


def describe_move(action: Mapping[str, Any], moves: Moves) -> str:
    """A move that wrote no text, as its transcript says it: ``moves[type]`` of the action (a template of its
    fields, a missing one ``None``, or a function of it); a move of another type ``TYPE: reason``."""
    kind = action.get("type")
    how = moves.get(str(kind))
    if how is None:
        return f"{kind}: {action.get('reason', '')}"
    return how(action) if callable(how) else how.format_map(_Fields(action))


def turn_messages(
    data: Mapping[str, Any],
    run: RunRow,
    describe: Callable[[dict[str, Any]], str] | Moves,
    *,
    game: str = "game",
    step: str = "turn",
) -> list[Message]:
    """An episode's turns from its JSON record, as its transcript shows them: each move as the player wrote it
    (where it wrote no text, ``describe`` of its action, or :func:`describe_move` by the ``describe`` given as
    :data:`Moves`), then what the game (named ``game``) answered, if anything."""
    out: list[Message] = []
    for t in data.get("turns") or []:
        if t.get("reply") is not None:
            text = t["reply"]
        elif callable(describe):
            text = describe(t["action"])
        else:
            text = describe_move(t["action"], describe)
        out.append(player_message(run, t["index"], str(text), step))
        if t.get("feedback"):
            out.append(Message(role="game", name=game, text=str(t["feedback"]), turn=t["index"]))
    return out


def episode_outcome(data: Mapping[str, Any]) -> Message:
    """How an episode ended, as the last message of its transcript."""
    status = str(data.get("status"))
    if status != "completed":
        error = data.get("error")
        return Message(role="outcome", name="ended", text=f"{status}{f': {error}' if error else ''}")
    success = data.get("success")
    said = "succeeded" if success else "did not succeed" if success is not None else "completed"
    return Message(role="outcome", name="ended", text=said)


class ResultsReport(RunReport):
    """``wason show RUN --json`` of a family that declares no JSON report of its own: the run's header, its
    results (the first run's only, its baselines' rows included), its episodes and its baselines' reports."""

    results: Results | None = None
    episodes: list[dict[str, Any]] = Field(default_factory=list)
    baselines: list[ResultsReport] | None = None
