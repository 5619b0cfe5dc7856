"""Runs of one family in one table: a row per model, baseline and person, the family's columns in the paper's
order with intervals, then the columns every family shares; in the terminal, markdown, LaTeX or CSV; with paired
comparisons of runs on the same items.

The family gives its numbers (:meth:`wason.core.family.Family.scores`); this module adds, for every family, the
replies that could not be read (apart from those cut off at the token limit), the replies cut off, the errored
episodes and the tokens spent. Under the table, each run after the first that played some of the first run's items
is compared with it item by item (:mod:`wason.metrics.paired`): an exact McNemar test on the items only one of
the two succeeded on, and a paired bootstrap of the difference of success rates.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, cast

from pydantic import BaseModel, ConfigDict
from rich import box
from rich.console import Console
from rich.table import Table

from wason.core import registry
from wason.core.family import RunReader, RunSettings
from wason.core.game import VOID
from wason.core.labels import family_solver_legend
from wason.core.records import RATE_LEGEND, EpisodeRow, Matrix, Rate, RunRow, Score, rate_text, series_names
from wason.metrics.paired import BOOTSTRAP_RESAMPLES, compare_paired, pair_outcomes
from wason.report.render import (
    LABEL_WIDTH,
    Grid,
    latex_comment,
    latex_escape,
    latex_table,
    md_table,
    number,
    wrap_label,
)

__all__ = [
    "FORMATS",
    "PAIRED_SEED",
    "Comparison",
    "ComparisonColumn",
    "ComparisonRow",
    "PairedRow",
    "build_comparison",
    "comparison_runs",
    "format_comparison",
    "latex_escape",
    "print_comparison",
    "truncation_warning",
]

FORMATS = ("table", "markdown", "latex", "csv")
# the seed of the paired bootstraps: the same runs always give the same interval
PAIRED_SEED = 0
# a run warns about its token limit when at least this share of its replies were cut off by it
TRUNCATION_WARNING_SHARE = 0.10


# -- which runs ---------------------------------------------------------------------------------------------
# how a run calls a model: a run that calls none (a solver whose games ask no oracle) is the same measurement
# whatever these say (a baseline copies them from the model run it was made for)
_MODEL_CALL_FIELDS = frozenset(RunSettings.model_fields) - {"player", "limit"}  # a limit is what was measured


def _same_measurement(run: RunRow) -> tuple[str, str, str | None, str]:
    # a baseline's configuration apart from whose baseline it is: two such runs measured the same thing
    config = {k: v for k, v in run.config.items() if k != "baseline_for"}
    if run.player != "llm" and not _asks_a_model(run):
        config = {k: v for k, v in config.items() if k not in _MODEL_CALL_FIELDS}
    return run.task, run.player, run.model, json.dumps(config, sort_keys=True, default=str)


def _asks_a_model(run: RunRow) -> bool:
    """Whether the run's games ask a model (an LLM judge, a labeller, a game master), so that its model
    settings are part of what it measured; when it cannot be told, assume they are."""
    try:
        family = registry.get(run.task)
        return family.oracle(family.config_type.model_validate(run.config)) is not None
    except (
        KeyError,
        ValueError,
    ):  # an unloadable family or an old configuration: keep every field in the key
        return True


def comparison_runs(store: RunReader, run_ids: Sequence[int], *, baselines: bool) -> list[int]:
    """The runs a comparison shows: the runs given, then their finished solver baselines (once each).

    Two baselines with the same configuration apart from ``baseline_for`` (the baselines of two model runs on
    the same items) are the same measurement: the first is kept. A baseline that is the same measurement as a
    run given is left out too.

    Raises:
        ValueError: runs of different families, in one line naming each run and its family.
        KeyError: a run that is not in the store (the store's error).
    """
    from wason.engine import baselines_of
    from wason.store import Store

    given = list(dict.fromkeys(run_ids))
    runs = [store.get_run(r) for r in given]
    if len({r.task for r in runs}) > 1:
        which = ", ".join(f"run {r.id} is {r.task}" for r in runs)
        raise ValueError(f"compare runs of one family: {which}")
    if not baselines:
        return given
    shown = list(given)
    seen = {_same_measurement(r) for r in runs}
    for run_id in given:
        # the engine's definition of a run's baselines; it reads only list_runs, which every RunReader has
        for baseline in baselines_of(cast(Store, store), run_id, completed_only=True):
            key = _same_measurement(store.get_run(baseline))
            if baseline not in shown and key not in seen:
                shown.append(baseline)
                seen.add(key)
    return shown


def truncation_warning(store: RunReader, run_id: int) -> str | None:
    """One line when many of the run's replies hit the token limit, else None.

    "Many": at least 10% of its replies (calls made and replayed from the cache) ended at the token limit.
    """
    totals = store.call_totals(run_id)
    replies = totals["calls"] + totals["cached_calls"]
    cut = totals.get("truncated", 0)
    if not replies or cut < TRUNCATION_WARNING_SHARE * replies:
        return None
    params = store.get_run(run_id).config.get("params") or {}
    limit = params.get("max_tokens") if isinstance(params, dict) else None
    which = f"max_tokens {limit}" if limit is not None else "the endpoint's default max_tokens"
    return (
        f"run {run_id}: {cut} of {replies} replies ({100 * cut / replies:.0f}%) stopped at the token limit "
        f"({which}); they are counted as truncated, not as format errors; raise --max-tokens"
    )


# -- the comparison as data ---------------------------------------------------------------------------------
class ComparisonColumn(BaseModel):
    """One of the family's columns: its header, abbreviation, meaning and kind (from its first score)."""

    model_config = ConfigDict(frozen=True)

    name: str
    short: str
    legend: str
    kind: Literal["rate", "mean", "count"]


class PairedRow(BaseModel):
    """A run compared with the first run on the items both played (episodes paired by item and trial).

    Attributes:
        with_run: the first run's id.
        n: pairs (items, or item and trial, both runs finished).
        first: the first run's success on the pairs.
        this: this run's success on the pairs.
        b: pairs only the first run succeeded on.
        c: pairs only this run succeeded on.
        mcnemar_p: the exact McNemar test's two-sided p-value.
        difference: this run's success rate minus the first's, on the pairs.
        interval: its 95% paired-bootstrap percentile interval.
        bootstrap_p: the bootstrap's two-sided p-value.
        n_resamples: bootstrap resamples.
        seed: the bootstrap's seed.
    """

    with_run: int
    n: int
    first: Rate
    this: Rate
    b: int
    c: int
    mcnemar_p: float
    difference: float
    interval: tuple[float, float]
    bootstrap_p: float
    n_resamples: int
    seed: int


class ComparisonRow(BaseModel):
    """One run's row.

    Attributes:
        run: its id.
        label: the model (a model's run) or the player (``solver (reference)``, ``human:NAME``, ``scripted``;
            :func:`wason.core.records.series_names`), ``(run N)`` where two rows would share a label.
        player, model, status: the run's.
        baseline_for: the run it is a baseline of, or None.
        scores: the family's numbers, in the family's order.
        unreadable: replies that could not be read as a move, not counting those cut off at the token limit.
        truncated: replies (made or replayed) cut off at the token limit.
        errored: episodes that ended in an error after their retries (how a family's rates count them is the
            family's rule: rates over a split's rules count them as failures, per-cell rates of repeated trials
            leave them out).
        input_tokens, output_tokens: tokens spent (a model's run; None for the others).
        paired: the comparison with the first run, or None (the first run, or no items in common).
    """

    run: int
    label: str
    player: str
    model: str | None
    status: str
    baseline_for: int | None
    scores: list[Score]
    unreadable: int
    truncated: int
    errored: int
    input_tokens: int | None
    output_tokens: int | None
    paired: PairedRow | None = None


class Comparison(BaseModel):
    """Runs of one family in one table (``wason show RUN RUN... --json``).

    Attributes:
        task: the family's name.
        title: the family's title.
        columns: the family's columns, in order (the union of the rows' scores by name, first seen first).
        rows: one per run, the runs given first, then their baselines.
        notes: lines under the table (runs that share no items with the first).
        matrices: the family's tables of one score over two factors that these runs fill together (a
            models x evidence-sources matrix), printed under the comparison.
    """

    task: str
    title: str
    columns: list[ComparisonColumn]
    rows: list[ComparisonRow]
    notes: list[str] = []
    matrices: list[Matrix] = []


def _outcomes(episodes: Sequence[EpisodeRow]) -> list[tuple[str, bool | None]]:
    # every episode in order (so trials pair by their occurrence), None where there is no result to pair
    return [
        (
            e.item_key,
            bool(e.success) if e.status == "completed" and not (e.metrics or {}).get(VOID) else None,
        )
        for e in sorted(episodes, key=lambda e: e.index)
    ]


def _paired(
    first_id: int, first: list[tuple[str, bool | None]], mine: list[tuple[str, bool | None]]
) -> PairedRow | None:
    pairs = [(x, y) for x, y in pair_outcomes(first, mine) if x is not None and y is not None]
    if not pairs:
        return None
    result = compare_paired(pairs, seed=PAIRED_SEED, n_resamples=BOOTSTRAP_RESAMPLES)
    boot = result.bootstrap
    return PairedRow(
        with_run=first_id,
        n=result.n,
        first=Rate.of(result.first_k, result.n),
        this=Rate.of(result.second_k, result.n),
        b=result.b,
        c=result.c,
        mcnemar_p=result.mcnemar_p,
        difference=boot.difference,
        interval=boot.interval,
        bootstrap_p=boot.p_value,
        n_resamples=boot.n_resamples,
        seed=boot.seed,
    )


def build_comparison(store: RunReader, run_ids: Sequence[int], *, baselines: bool = True) -> Comparison:
    """The comparison of ``run_ids`` (and, with ``baselines``, their finished solver baselines) as data.

    Raises:
        ValueError: runs of different families.
        KeyError: a run that is not in the store.
    """
    ids = comparison_runs(store, run_ids, baselines=baselines)
    runs = [store.get_run(r) for r in ids]
    family = registry.get(runs[0].task)
    labels = series_names(runs)
    columns: dict[str, ComparisonColumn] = {}
    rows: list[ComparisonRow] = []
    notes: list[str] = []
    first_outcomes: list[tuple[str, bool | None]] = []
    for position, (run, label) in enumerate(zip(runs, labels, strict=True)):
        scores = family.scores(store, run.id)
        for s in scores:
            columns.setdefault(
                s.name, ComparisonColumn(name=s.name, short=s.short, legend=s.legend, kind=s.kind)
            )
        episodes = store.list_episodes(run.id)
        totals = store.call_totals(run.id)
        outcomes = _outcomes(episodes)
        paired = None
        if position == 0:
            first_outcomes = outcomes
        else:
            paired = _paired(runs[0].id, first_outcomes, outcomes)
            if paired is None:
                shared = {k for k, _ in first_outcomes} & {k for k, _ in outcomes}
                why = "finished none of the items it shares" if shared else "shares no items"
                notes.append(f"run {run.id} ({label}) {why} with run {runs[0].id}: no paired comparison")
        llm = run.player == "llm"
        baseline_for = run.config.get("baseline_for")
        rows.append(
            ComparisonRow(
                run=run.id,
                label=label,
                player=run.player,
                model=run.model,
                status=run.status,
                baseline_for=int(baseline_for) if baseline_for is not None else None,
                scores=scores,
                unreadable=store.unreadable_counts(run.id)["unreadable"],
                truncated=totals.get("truncated", 0),
                errored=sum(e.status == "errored" for e in episodes),
                input_tokens=totals["input_tokens"] if llm else None,
                output_tokens=totals["output_tokens"] if llm else None,
                paired=paired,
            )
        )
    return Comparison(
        task=family.name,
        title=family.title,
        columns=list(columns.values()),
        rows=rows,
        notes=notes,
        matrices=family.matrices(store, ids),
    )


# -- cells ----------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Generic:
    name: str
    short: str
    legend: str
    value: Callable[[ComparisonRow], int | None]


_GENERIC = (
    _Generic(
        "Unreadable",
        "Unread",
        "format errors (replies not readable as a move), not counting those cut off at the token limit",
        lambda r: r.unreadable,
    ),
    _Generic(
        "Truncated", "Trunc", "replies cut off at the token limit (--max-tokens)", lambda r: r.truncated
    ),
    _Generic(
        "Errored",
        "Err",
        "episodes ended by an error after retries (--resume replays them)",
        lambda r: r.errored,
    ),
)
# (name, short, meaning) of the tokens column: two numbers in one cell
_TOKENS = ("Tokens in/out", "Tok i/o", "tokens spent on prompts and replies (model runs)")
_LABEL = "Model"


def _by_name(row: ComparisonRow) -> dict[str, Score]:
    return {s.name: s for s in row.scores}


def _cell(score: Score | None, sep: str, between: str) -> str:
    # the one format of a score, in every format: ``sep`` before its interval (the terminal's is a line break),
    # ``between`` the interval's ends; a rate's is rate_text's
    if score is None or score.value is None:
        return "-"
    if score.kind == "rate":
        return rate_text(score.value, score.interval or (0.0, 1.0), score.k or 0, score.n or 0, sep=sep)
    if score.kind == "mean" and score.interval is not None:
        low, high = score.interval
        return f"{number(score.value)}{sep}[{number(low)}{between}{number(high)}]"
    return number(score.value) if score.kind == "mean" else str(int(score.value))


def _terminal_cell(score: Score | None) -> str:
    return _cell(score, "\n", "-")


def _paper_cell(score: Score | None) -> str:
    return _cell(score, " ", ", ")


def _compact(n: int) -> str:
    return str(n) if n < 10_000 else f"{n / 1000:.0f}k" if n < 1_000_000 else f"{n / 1_000_000:.1f}M"


def _tokens(row: ComparisonRow, *, compact: bool) -> str:
    if row.input_tokens is None or row.output_tokens is None:
        return "-"
    if compact:
        return f"{_compact(row.input_tokens)}/{_compact(row.output_tokens)}"
    return f"{row.input_tokens} / {row.output_tokens}"


def _p(value: float) -> str:
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _signed(value: float) -> str:
    return f"{value:+.2f}"


@dataclass(frozen=True)
class _Grid:
    """A table as plain text cells: headers (full and short), the label column first."""

    headers: list[str]
    shorts: list[str]
    rows: list[list[str]]


def _main_grid(data: Comparison, cell: Callable[[Score | None], str], *, compact: bool) -> _Grid:
    headers = [_LABEL, *(c.name for c in data.columns), *(g.name for g in _GENERIC), _TOKENS[0], "Run"]
    shorts = [_LABEL, *(c.short for c in data.columns), *(g.short for g in _GENERIC), _TOKENS[1], "Run"]
    rows = []
    for row in data.rows:
        scores = _by_name(row)
        rows.append(
            [
                row.label,
                *(cell(scores.get(c.name)) for c in data.columns),
                *(str(g.value(row)) for g in _GENERIC),
                _tokens(row, compact=compact),
                str(row.run),
            ]
        )
    return _Grid(headers, shorts, rows)


def _paired_grid(data: Comparison, *, terminal: bool) -> _Grid | None:
    # in percent and percentage points, as every rate is written; the terminal's narrow cells leave out k/n
    rows = []
    for row in data.rows:
        p = row.paired
        if p is None:
            continue
        low, high = p.interval
        first = f"{100 * (p.first.rate or 0):.0f}%" + ("" if terminal else f" {p.first.k}/{p.n}")
        this = f"{100 * (p.this.rate or 0):.0f}%" + ("" if terminal else f" {p.this.k}/{p.n}")
        diff = f"{100 * p.difference:+.0f} [{100 * low:+.0f}, {100 * high:+.0f}]"
        rows.append([row.label, str(p.n), first, this, str(p.b), str(p.c), _p(p.mcnemar_p), diff])
    if not rows:
        return None
    headers = [_LABEL, "Pairs", "First", "This", "b", "c", "McNemar p", "Diff [95% CI]"]
    shorts = [_LABEL, "Pairs", "First", "This", "b", "c", "McN p", "Diff [CI]"]
    return _Grid(headers, shorts, rows)


def _matrix_grid(matrix: Matrix, cell: Callable[[Score | None], str]) -> _Grid:
    headers = [matrix.row_title, *matrix.columns]
    rows = [
        [label, *(cell(c) for c in cells)] for label, cells in zip(matrix.rows, matrix.cells, strict=True)
    ]
    return _Grid(headers, headers, rows)


def _matrix_title(matrix: Matrix) -> str:
    return f"{matrix.title}; rows: {matrix.row_title.lower()}, columns: {matrix.column_title.lower()}"


def _paired_title(data: Comparison) -> str:
    return f"Paired with run {data.rows[0].run} ({data.rows[0].label}): success on the same items"


def _paired_caption() -> str:
    # one unit everywhere, as every rate is written in percent
    unit = "in percentage points"
    return (
        "Pairs: items (and trials) both runs finished; First, This: each run's success on them; b: pairs only "
        "the first won, c: pairs only this run won; McNemar p: exact two-sided test on b and c; Diff: this "
        f"run's success minus the first's ({unit}) with its 95% paired bootstrap interval "
        f"({BOOTSTRAP_RESAMPLES} resamples, seed {PAIRED_SEED}; --json adds the bootstrap's p-value)."
    )


def _legend(data: Comparison) -> list[tuple[str, str, str]]:
    # (name, short, meaning) of every column, the family's first
    out = [(c.name, c.short, c.legend) for c in data.columns]
    out += [(g.name, g.short, g.legend) for g in _GENERIC]
    out.append(_TOKENS)
    return out


def _legend_lines(data: Comparison, *, short: bool) -> list[str]:
    """What the columns mean, a line each: with ``short``, only the abbreviated ones (``Acc = Accuracy:
    ...``); else every column (``Accuracy: ...``)."""
    lines = []
    for name, abbrev, meaning in _legend(data):
        if short and abbrev == name:
            continue
        head = f"{abbrev} = {name}" if short else name
        lines.append(f"{head}: {meaning}" if meaning else head)
    return lines + _solver_legend(data)


def _solver_legend(data: Comparison) -> list[str]:
    """What a solver's row is and what it was measured to win, in the family's own words, when the table has
    one and the family declares it."""
    line = family_solver_legend(data.task) if any(r.player == "solver" for r in data.rows) else None
    return [line] if line is not None else []


# -- the terminal ---------------------------------------------------------------------------------------------
def _rich_table(grid: _Grid, columns: Sequence[int], *, short: bool, title: str | None) -> Table:
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, title_justify="left")
    table.add_column(grid.headers[0], overflow="fold", max_width=LABEL_WIDTH)
    for i in columns:
        header = grid.shorts[i] if short else grid.headers[i]
        table.add_column(header, justify="right", no_wrap=True)
    for row in grid.rows:
        table.add_row(wrap_label(row[0]), *(row[i] for i in columns))
    return table


def _width(console: Console, table: Table) -> int:
    return console.measure(table, options=console.options.update_width(10_000)).maximum


def _fit(console: Console, grid: _Grid, title: str) -> tuple[list[Table], bool]:
    """Tables that fit the console's width without cutting a cell: the whole table with its headers, else with
    abbreviated headers, else the columns split over several tables (each with the label column)."""
    everything = list(range(1, len(grid.headers)))
    for short in (False, True):
        table = _rich_table(grid, everything, short=short, title=title)
        if _width(console, table) <= console.width:
            return [table], short
    chunks: list[list[int]] = [[]]
    for i in everything:
        trial = [*chunks[-1], i]
        if chunks[-1] and _width(console, _rich_table(grid, trial, short=True, title=None)) > console.width:
            chunks.append([i])
        else:
            chunks[-1] = trial
    tables = [
        # the tables after the first continue it: one title, the label column repeated
        _rich_table(grid, chunk, short=True, title=title if n == 0 else None)
        for n, chunk in enumerate(chunks)
    ]
    return tables, True


def _print_table(data: Comparison, console: Console) -> None:
    def say(line: str) -> None:
        console.print(line, markup=False, highlight=False)

    tables, short = _fit(
        console, _main_grid(data, _terminal_cell, compact=True), f"{data.title}: runs compared"
    )
    for table in tables:
        console.print(table)
        console.print()
    say(f"{RATE_LEGEND.capitalize()}; means over [95% interval].")
    for line in _legend_lines(data, short=True) if short else _solver_legend(data):
        say(line)
    paired = _paired_grid(data, terminal=True)
    if paired is not None:
        console.print()
        for table in _fit(console, paired, _paired_title(data))[0]:
            console.print(table)
            console.print()
        say(_paired_caption())
    for note in data.notes:
        say(note)
    for matrix in data.matrices:
        console.print()
        for table in _fit(console, _matrix_grid(matrix, _terminal_cell), _matrix_title(matrix))[0]:
            console.print(table)
            console.print()
        for note in matrix.notes:
            say(note)


# -- markdown, LaTeX, CSV -------------------------------------------------------------------------------------
def _plain(grid: _Grid) -> Grid:
    # the label column left-aligned, the numbers right, as every paper table of the shared renderers
    return Grid(grid.headers, [True, *([False] * (len(grid.headers) - 1))], grid.rows)


def to_markdown(data: Comparison) -> str:
    """The comparison as GitHub markdown: the table, its legend, the paired comparisons and the notes."""
    lines = md_table(_plain(_main_grid(data, _paper_cell, compact=False)))
    lines += ["", f"{RATE_LEGEND.capitalize()}; means: mean [95% interval].", ""]
    lines += [f"- {line}" for line in _legend_lines(data, short=False)]
    paired = _paired_grid(data, terminal=False)
    if paired is not None:
        lines += [
            "",
            f"{_paired_title(data)}:",
            "",
            *md_table(_plain(paired)),
            "",
            _paired_caption(),
        ]
    if data.notes:
        lines += ["", *data.notes]
    for matrix in data.matrices:
        lines += ["", f"{_matrix_title(matrix)}:", "", *md_table(_plain(_matrix_grid(matrix, _paper_cell)))]
        if matrix.notes:
            lines += ["", *matrix.notes]
    return "\n".join(lines) + "\n"


def to_latex(data: Comparison) -> str:
    """The comparison as LaTeX ``tabular`` environments with ``booktabs`` rules (``\\usepackage{booktabs}``);
    the legend and notes as comments under them."""
    lines = latex_table(_plain(_main_grid(data, _paper_cell, compact=False)))
    lines.append(latex_comment(f"{RATE_LEGEND.capitalize()}; means: mean [95% interval]."))
    lines += [latex_comment(line) for line in _legend_lines(data, short=False)]
    paired = _paired_grid(data, terminal=False)
    if paired is not None:
        lines += ["", latex_comment(_paired_title(data))]
        lines += [*latex_table(_plain(paired)), latex_comment(_paired_caption())]
    lines += [latex_comment(note) for note in data.notes]
    for matrix in data.matrices:
        lines += [
            "",
            latex_comment(_matrix_title(matrix)),
            *latex_table(_plain(_matrix_grid(matrix, _paper_cell))),
        ]
        lines += [latex_comment(note) for note in matrix.notes]
    return "\n".join(lines) + "\n"


def to_csv(data: Comparison) -> str:
    """The comparison as CSV: one row per run, one column per number (a rate ``NAME`` has ``NAME k``,
    ``NAME n``, ``NAME low``, ``NAME high`` beside it; a mean ``NAME n``, ``NAME low``, ``NAME high``). The
    paired comparisons and the family's matrices are not in it (``--json`` has them; a matrix cell that is one
    run's number is that run's row here)."""
    header = ["run", "label", "player", "model", "baseline_for"]
    for c in data.columns:
        if c.kind == "rate":
            header += [c.name, f"{c.name} k", f"{c.name} n", f"{c.name} low", f"{c.name} high"]
        elif c.kind == "mean":
            header += [c.name, f"{c.name} n", f"{c.name} low", f"{c.name} high"]
        else:
            header.append(c.name)
    header += [g.name for g in _GENERIC] + ["Tokens in", "Tokens out"]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)

    def blank(value: object) -> object:
        return "" if value is None else value

    for row in data.rows:
        scores = _by_name(row)
        line: list[object] = [row.run, row.label, row.player, blank(row.model), blank(row.baseline_for)]
        for c in data.columns:
            s = scores.get(c.name)
            low, high = s.interval if s is not None and s.interval is not None else (None, None)
            value = None if s is None else s.value
            if c.kind == "rate":
                line += [blank(value), blank(s and s.k), blank(s and s.n), blank(low), blank(high)]
            elif c.kind == "mean":
                line += [blank(value), blank(s and s.n), blank(low), blank(high)]
            else:
                line.append("" if value is None else int(value))
        line += [g.value(row) for g in _GENERIC]
        line += [blank(row.input_tokens), blank(row.output_tokens)]
        writer.writerow(line)
    return out.getvalue()


class MatrixView(BaseModel):
    """A matrix of the comparison as cells of text for a web page."""

    title: str
    headers: list[str]
    rows: list[list[str]]
    notes: list[str]


class ComparisonView(BaseModel):
    """The comparison as cells of text for a web page: the main table, the paired comparisons (or None), and
    what the columns mean."""

    headers: list[str]
    rows: list[list[str]]
    paired_title: str
    paired_headers: list[str] | None
    paired_rows: list[list[str]]
    paired_caption: str
    legend: list[str]
    notes: list[str]
    matrices: list[MatrixView] = []


def comparison_view(data: Comparison) -> ComparisonView:
    """The comparison's cells as the paper formats write them (every rate as ``25% [5-57] 1/4``, as everywhere)."""
    main = _main_grid(data, _paper_cell, compact=False)
    paired = _paired_grid(data, terminal=False)
    return ComparisonView(
        headers=main.headers,
        rows=main.rows,
        paired_title=_paired_title(data),
        paired_headers=paired.headers if paired else None,
        paired_rows=paired.rows if paired else [],
        paired_caption=_paired_caption(),
        legend=_legend_lines(data, short=False),
        notes=list(data.notes),
        matrices=[
            MatrixView(
                title=_matrix_title(m),
                headers=(grid := _matrix_grid(m, _paper_cell)).headers,
                rows=grid.rows,
                notes=list(m.notes),
            )
            for m in data.matrices
        ],
    )


def format_comparison(data: Comparison, fmt: str) -> str:
    """The comparison as plain text in ``fmt`` (``markdown``, ``latex`` or ``csv``).

    Raises:
        ValueError: another format.
    """
    writers = {"markdown": to_markdown, "latex": to_latex, "csv": to_csv}
    if fmt not in writers:
        raise ValueError(f"format: one of {', '.join(writers)} as text, not {fmt!r}")
    return writers[fmt](data)


def print_comparison(
    store: RunReader, run_ids: Sequence[int], *, fmt: str, as_json: bool, baselines: bool, console: Console
) -> int:
    """Print the comparison of ``run_ids`` (and their baselines) in ``fmt``; JSON with ``as_json``.

    ``table`` is drawn by rich to fit the console's width (abbreviated headers with a legend, or the columns
    split over several tables); markdown, LaTeX, CSV and JSON are written as plain text.

    Raises:
        ValueError: runs of different families, or an unknown format.
    """
    if fmt not in FORMATS:
        raise ValueError(f"format: one of {', '.join(FORMATS)}, not {fmt!r}")
    data = build_comparison(store, run_ids, baselines=baselines)
    if as_json:
        console.out(data.model_dump_json(indent=2), highlight=False)
    elif fmt == "table":
        _print_table(data, console)
    else:
        console.out(format_comparison(data, fmt), highlight=False, end="")
    return 0
