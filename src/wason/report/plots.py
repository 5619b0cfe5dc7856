"""Every figure of every family drawn in one style, as PNG and SVG.

A family hands its figures over as data (:class:`wason.core.records.Figure`); this module is the only place that
draws them, so every figure looks alike: the Okabe-Ito colour-blind-safe palette (players in colour, comparison
lines dashed in grey-black), titles wrapped to the figure's width, legends beside the axes (never over the
bars), whole-number ticks on count axes, rates on a fixed [0, 1] axis, and the caption under the figure. Every
family also gets one figure of its own numbers here: the rates of :meth:`Family.scores` per run, with their 95%
Wilson intervals.

Drawing uses matplotlib's object-oriented API on the Agg canvas, never pyplot: a bare ``Figure`` on a
``FigureCanvasAgg`` is not registered with pyplot's figure manager, so nothing has to be closed, no "too many
open figures" warning builds up in a long-lived server, and the process-wide backend is left as it was. The SVG
files are reproducible: a fixed ``svg.hashsalt`` names their clip paths and no date is written, so two runs of
the same data give the same bytes.
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from wason.core import registry
from wason.core.family import Family, RunReader
from wason.core.records import Figure, Matrix, RunRow, Score, Series, series_names

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure as MplFigure

# matplotlib (0.4 s to import) is imported by the functions that draw: what figures a run has is data, which a
# page that only links to them asks for without it

__all__ = ["PALETTE", "REFERENCE_COLOR", "accuracy_figure", "draw", "figures_of", "render", "write_plots"]

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#56B4E9", "#CC79A7", "#F0E442", "#000000")
"""Okabe and Ito's colour-blind-safe palette, the yellow late (it is faint on white)."""
REFERENCE_COLOR = "#555555"
"""Comparison lines (random experiments, chance): dashed, in a grey that no player's colour is."""
HIGHLIGHT_SHADE = "#FFF3C4"
"""The band behind a highlighted category."""

PNG_DPI = 120
SVG_SALT = "wason"
TITLE_SIZE = 11.0
FONT_SIZE = 9.0
CAPTION_SIZE = 8.0
TICK_WIDTH = 14
"""Characters per line of a category's tick label (longer names are wrapped at ``/ : - _`` and spaces)."""
LEGEND_WIDTH = 28
"""Characters per line of a legend entry."""
LEGEND_INCHES = 1.8
"""Inches added to a figure for the legend beside its axes."""
MAX_BAR_LABELS = 16
"""Bars labelled with their text (``7/10``) only up to this many: beyond, the labels would overlap."""

_NAME = re.compile(r"[A-Za-z0-9_-]+")
_STYLE: Any = {  # matplotlib types the keys as a Literal of every rc name
    "font.size": FONT_SIZE,
    "axes.titlesize": TITLE_SIZE,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "axes.axisbelow": True,
    "grid.alpha": 0.35,
    "legend.fontsize": 8.0,
    "legend.frameon": False,
    "svg.hashsalt": SVG_SALT,
    "svg.fonttype": "path",
    "hatch.linewidth": 0.8,
}


# -- what is drawn ---------------------------------------------------------------------------------------------
def write_plots(store: RunReader, run_ids: Sequence[int], directory: Path) -> list[Path]:
    """Write the figures of ``run_ids`` (the comparison's accuracy figure and the family's own) into
    ``directory`` as ``NAME.png`` and ``NAME.svg``.

    Args:
        store: where the runs are.
        run_ids: runs of one family (a comparison's runs, their baselines included by the caller).
        directory: created when missing.

    Returns:
        The paths written, PNG then SVG of each figure in turn; a figure with nothing to show (no finished
        episode yet) is left out.

    Raises:
        ValueError: runs of different families, or a family's figure that is malformed (its message names the
            figure and the field).
    """
    if not run_ids:
        return []
    figures = figures_of(store, run_ids)
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for figure in figures:
        written += draw(figure, directory)
    return written


def figures_of(store: RunReader, run_ids: Sequence[int]) -> list[Figure]:
    """The figures :func:`write_plots` draws for ``run_ids``, as data, checked, those with nothing to show left
    out: what a page lists before anything is drawn (``NAME.png`` and ``NAME.svg`` of each).

    Raises:
        ValueError: as :func:`write_plots`.
    """
    ids = list(dict.fromkeys(run_ids))
    if not ids:
        return []
    runs = [store.get_run(r) for r in ids]
    tasks = sorted({r.task for r in runs})
    if len(tasks) > 1:
        raise ValueError(f"plots are drawn for runs of one family; these are of {', '.join(tasks)}")
    family = registry.get(tasks[0])
    figures = [
        accuracy_figure(store, family, runs),
        *family.figures(store, ids),
        *(matrix_figure(m) for m in family.matrices(store, ids)),
    ]
    names = [f.name for f in figures]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        raise ValueError(f"figure names must differ; {', '.join(doubled)} is used twice")
    for figure in figures:
        _check(figure)  # all of them before any file is written
    return [f for f in figures if has_data(f)]


def accuracy_figure(store: RunReader, family: Family[Any], runs: Sequence[RunRow]) -> Figure:
    """Every family's own figure: the rate columns of :meth:`Family.scores` (the first is its headline), a
    group of bars per run with 95% Wilson whiskers, each bar labelled ``k/n``."""
    names = series_names(runs)
    columns: dict[str, list[Any]] = {}
    legends: dict[str, str] = {}
    for i, run in enumerate(runs):
        for score in family.scores(store, run.id):
            if score.kind != "rate":
                continue
            cells = columns.setdefault(score.name, [None] * len(runs))
            cells[i] = score
            legends.setdefault(score.name, score.legend)
    series = [rate_series(column, cells) for column, cells in columns.items()]
    shown = list(columns) or ["Success"]
    meaning = "; ".join(f"{c}: {legends[c]}" for c in columns if legends[c])
    return Figure(
        name="accuracy",
        title=f"{family.title}: {' and '.join(shown)} per player",
        kind="bars",
        categories=names,
        series=series,
        y_label="rate (k of n)",
        y_range=(0.0, 1.0),
        caption=(meaning + ". " if meaning else "")
        + "Bars: k of n (written over each bar); whiskers: 95% Wilson interval.",
    )


def rate_series(name: str, cells: Sequence[Score | None]) -> Series:
    """Bars of rates: each cell's value with its interval as whiskers and ``k/n`` over it (a blank bar where a
    cell is missing)."""
    return Series(
        name=name,
        values=[c.value if c is not None else None for c in cells],
        low=[c.interval[0] if c is not None and c.interval else None for c in cells],
        high=[c.interval[1] if c is not None and c.interval else None for c in cells],
        labels=[f"{c.k}/{c.n}" if c is not None and c.n else "" for c in cells],
    )


def matrix_figure(matrix: Matrix) -> Figure:
    """A family's matrix as grouped bars: a group per row, a bar per column, 95% Wilson whiskers and ``k/n``
    over each bar (a heat map's cells, with their intervals)."""
    series = [
        rate_series(column, [row[j] for row in matrix.cells]) for j, column in enumerate(matrix.columns)
    ]
    return Figure(
        name=matrix.name,
        title=matrix.figure_title or matrix.title,
        kind="bars",
        categories=matrix.rows,
        series=series,
        x_label=matrix.row_title,
        y_label="rate (k of n)",
        y_range=(0.0, 1.0),
        caption=f"Legend: {matrix.column_title.lower()}. Bars: k of n (written over each bar); whiskers: 95% "
        "Wilson interval.",
    )


def has_data(figure: Figure) -> bool:
    """Whether any series of ``figure`` has a value to draw."""
    return any(v is not None and math.isfinite(v) for s in figure.series for v in s.values)


# -- drawing ---------------------------------------------------------------------------------------------------
def draw(figure: Figure, directory: Path) -> list[Path]:
    """Draw ``figure`` into ``directory`` as ``NAME.png`` and ``NAME.svg``; the two paths.

    Raises:
        ValueError: a name that is not a plain file stem, or a series whose length does not match the
            figure's categories or x values.
    """
    with _style():
        fig = render(figure)
        png = directory / f"{figure.name}.png"
        svg = directory / f"{figure.name}.svg"
        fig.savefig(png, format="png", dpi=PNG_DPI)
        fig.savefig(svg, format="svg", metadata={"Date": None})
    return [png, svg]


def render(figure: Figure) -> MplFigure:
    """The matplotlib figure of ``figure`` in the house style (:func:`draw` saves it; a test measures it).

    Raises:
        ValueError: as :func:`draw`.
    """
    _check(figure)
    with _style():
        return _render(figure)


def _render(figure: Figure) -> MplFigure:
    n_series = len(figure.series)
    if figure.kind == "bars":
        groups = len(figure.categories)
        width = min(16.0, max(5.0, 1.6 + groups * (0.3 * n_series + 0.45)))
    else:
        width = 7.2
    width += LEGEND_INCHES  # the legend, beside the axes
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure
    from matplotlib.ticker import MaxNLocator

    fig = MplFigure(figsize=(width, 4.4), layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    handles = _bars(ax, figure, width) if figure.kind == "bars" else _lines(ax, figure)
    ax.set_xlabel(figure.x_label)
    ax.set_ylabel(figure.y_label)
    if figure.y_range is not None:
        low, high = figure.y_range
        labelled = figure.kind == "bars" and any(s.labels for s in figure.series)
        # headroom for the k/n written over a full bar, without a tick beyond the range
        ax.set_ylim(low, high + (0.1 * (high - low) if labelled else 0.0))
        if (low, high) == (0.0, 1.0):
            ax.set_yticks([t / 5 for t in range(6)])
    if figure.integer_y:
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if handles:
        # beside the axes, so never over a bar or a line; it names the models even when there is one
        fig.legend(handles=handles, loc="outside right upper")
    # title and caption start at the left edge, as a paper's do, wrapped never clipped: the title beside the
    # legend's column (the legend starts at the top), the caption under both to the figure's width
    title_width = width - LEGEND_INCHES if handles else width
    fig.suptitle(_wrap(figure.title, _chars(title_width, TITLE_SIZE)), fontsize=TITLE_SIZE, x=0.01, ha="left")
    if figure.caption:
        fig.supxlabel(
            _wrap(figure.caption, _chars(width, CAPTION_SIZE)),
            fontsize=CAPTION_SIZE,
            color="#333333",
            x=0.01,
            ha="left",
            multialignment="left",
        )
    return fig


def _bars(ax: Axes, figure: Figure, width: float) -> list[Any]:
    from matplotlib.patches import Patch

    n = len(figure.series)
    groups = len(figure.categories)
    slot = min(0.8 / n, 0.5)  # a lone series's bars are not slabs
    total_bars = sum(v is not None for s in figure.series for v in s.values)
    highlighted = [i for i, c in enumerate(figure.categories) if c in set(figure.highlight)]
    for i in highlighted:
        ax.axvspan(i - 0.48, i + 0.48, color=HIGHLIGHT_SHADE, zorder=0, linewidth=0)
    handles: list[Any] = []
    for j, series in enumerate(figure.series):
        color = REFERENCE_COLOR if series.reference else _color(figure.series, j)
        positions = [i - slot * n / 2 + slot * (j + 0.5) for i in range(groups)]
        shown = [
            (p, v, i) for i, (p, v) in enumerate(zip(positions, series.values, strict=True)) if v is not None
        ]
        xs = [p for p, _, _ in shown]
        heights = [v for _, v, _ in shown]
        marked = [i in highlighted for _, _, i in shown]
        bars = ax.bar(
            xs,
            heights,
            width=slot * 0.92,
            color=color,
            edgecolor=["black" if m else color for m in marked],
            linewidth=[1.6 if m else 0.0 for m in marked],
            hatch=None,
            zorder=2,
        )
        for bar, m in zip(bars, marked, strict=True):
            if m:
                bar.set_hatch("///")
        handles.append(Patch(facecolor=color, label=_wrap(series.name, LEGEND_WIDTH)))
        if series.low is not None and series.high is not None:
            whiskers = [
                (p, v, lo, hi)
                for p, v, lo, hi in zip(positions, series.values, series.low, series.high, strict=True)
                if v is not None and lo is not None and hi is not None
            ]
            if whiskers:
                ax.errorbar(
                    [w[0] for w in whiskers],
                    [w[1] for w in whiskers],
                    yerr=[
                        [max(0.0, w[1] - w[2]) for w in whiskers],
                        [max(0.0, w[3] - w[1]) for w in whiskers],
                    ],
                    fmt="none",
                    ecolor="black",
                    elinewidth=0.9,
                    capsize=3,
                    zorder=3,
                )
        if series.labels is not None and total_bars <= MAX_BAR_LABELS:
            texts = [series.labels[i] for _, _, i in shown]
            tops = [
                max(v, series.high[i] or v) if series.high is not None and series.high[i] is not None else v
                for _, v, i in shown
            ]
            for x, top, text in zip(xs, tops, texts, strict=True):
                if text:
                    ax.annotate(
                        text,
                        (x, top),
                        xytext=(0, 2),
                        textcoords="offset points",
                        ha="center",
                        va="bottom",
                        fontsize=7,
                    )
    per_group = width / max(1, groups)
    tick_width = max(TICK_WIDTH, _chars(per_group * 0.7, FONT_SIZE))
    crowded = per_group < 0.45  # many answers at the widest figure: upright labels would run together
    ax.set_xticks(
        range(groups),
        [c if crowded else _wrap(c, tick_width) for c in figure.categories],
        rotation=90 if crowded else 0,
    )
    for i in highlighted:
        ax.get_xticklabels()[i].set_fontweight("bold")
    ax.set_xlim(-0.6, groups - 0.4)
    if figure.highlight:
        label = figure.highlight_label or "marked"
        handles.append(Patch(facecolor=HIGHLIGHT_SHADE, edgecolor="black", hatch="///", label=label))
    return handles


def _alone(values: list[float], i: int) -> bool:
    """Whether ``values[i]`` has no value beside it (so a line through it draws nothing)."""
    before = i > 0 and not math.isnan(values[i - 1])
    after = i + 1 < len(values) and not math.isnan(values[i + 1])
    return not (before or after)


def _lines(ax: Axes, figure: Figure) -> list[Any]:
    from matplotlib.lines import Line2D
    from matplotlib.ticker import MaxNLocator

    handles: list[Any] = []
    dense = len(figure.x) > 12
    for j, series in enumerate(figure.series):
        color = REFERENCE_COLOR if series.reference else _color(figure.series, j)
        values = [math.nan if v is None else v for v in series.values]
        style: Literal["--", "-"] = "--" if series.reference else "-"
        # a dense line has no markers, except on a value with no neighbour to draw a line to (it would vanish)
        isolated = [i for i, v in enumerate(values) if not math.isnan(v) and _alone(values, i)]
        ax.plot(
            figure.x,
            values,
            linestyle=style,
            color=color,
            marker="o" if not dense or isolated else None,
            markevery=isolated if dense and isolated else None,
            markersize=3.5,
            linewidth=1.6,
            zorder=3 if not series.reference else 2,
        )
        if series.low is not None and series.high is not None:
            low = [math.nan if v is None else v for v in series.low]
            high = [math.nan if v is None else v for v in series.high]
            ax.fill_between(figure.x, low, high, color=color, alpha=0.15, linewidth=0, zorder=1)
        handles.append(
            Line2D(
                [], [], color=color, linestyle=style, linewidth=1.6, label=_wrap(series.name, LEGEND_WIDTH)
            )
        )
    if figure.x and all(float(x).is_integer() for x in figure.x):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, axis="x", alpha=0.2)
    return handles


def _color(series: Sequence[Series], j: int) -> str:
    """The player's colour: the j-th of the players (comparison lines take none)."""
    players = [s for s in series[:j] if not s.reference]
    return PALETTE[len(players) % len(PALETTE)]


def _check(figure: Figure) -> None:
    if not _NAME.fullmatch(figure.name):
        raise ValueError(f"figure name {figure.name!r}: letters, digits, '-' and '_' only")
    if figure.kind == "bars":
        size, field = len(figure.categories), "categories"
    else:
        size, field = len(figure.x), "x"
    for s in figure.series:
        for part in ("values", "low", "high", "labels"):
            got = getattr(s, part)
            if got is not None and len(got) != size:
                raise ValueError(
                    f"figure {figure.name}: series {s.name!r} has {len(got)} {part} for {size} {field}"
                )


# -- text ------------------------------------------------------------------------------------------------------
def _chars(width_in: float, size: float) -> int:
    """How many characters of ``size`` points fit across ``width_in`` inches (a DejaVu Sans average, with a
    margin)."""
    return max(8, int(width_in * 72 / (size * 0.62)))


def _wrap(text: str, width: int) -> str:
    """``text`` broken into lines of at most ``width`` characters, at spaces or after ``/ : - _`` (model names
    have no spaces); a word longer than a line is cut."""
    lines: list[str] = []
    for paragraph in text.split("\n"):
        line = ""
        for token in re.findall(r"[^\s/:_-]*[/:_-]+|[^\s/:_-]+\s*|\s+", paragraph):
            while len(token.rstrip()) > width:
                if line.strip():
                    lines.append(line.rstrip())
                    line = ""
                lines.append(token[:width])
                token = token[width:]
            if len((line + token).rstrip()) > width and line.strip():
                lines.append(line.rstrip())
                line = token.lstrip()
            else:
                line += token
        lines.append(line.rstrip())
    return "\n".join(lines)


_DRAWING = threading.RLock()
"""Held while a figure is drawn: matplotlib's settings (``rc_context`` changes them for the whole process) and its
font cache are shared by every thread, so two figures drawn at once in two threads (a server's pages) could each
be drawn in the other's settings, or in none."""


@contextmanager
def _style() -> Iterator[None]:
    import matplotlib

    with _DRAWING, matplotlib.rc_context(_STYLE):
        yield
