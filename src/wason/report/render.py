"""The shared renderers of results as data (:mod:`wason.core.results`): one style for every family.

- the terminal: narrow tables that fit 80 columns (a wide table is split into several, the first column
  repeated), the columns' legends wrapped under them, then the notes;
- HTML for the web viewer: real ``<table>`` elements (sortable by the page's script through ``data-sort``, rows
  linking to their episode or run), messages as a chat;
- markdown, LaTeX (``booktabs``) and CSV for papers; JSON is the model itself.

Cells read the same everywhere: a rate is ``25% [5-57] 1/4`` (percent, its 95% Wilson interval, ``k/n``) in the
terminal (the counts under it, in a narrow cell), on the web and in papers; a mean is its value (its interval
under it where known); a count is a whole number; a yes/no is ``yes`` or ``no``, never Python's ``True``.
"""

from __future__ import annotations

import csv
import html
import io
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table as RichTable
from rich.text import Text

from wason.core.records import RATE_LEGEND, Rate, fold_text
from wason.core.results import Cell, Column, Mean, Results, Table, Transcript, yes_no

__all__ = [
    "LABEL_WIDTH",
    "Grid",
    "cell_text",
    "fit_tables",
    "fold_repeated",
    "latex_comment",
    "latex_escape",
    "latex_table",
    "md_table",
    "number",
    "results_csv",
    "results_html",
    "results_latex",
    "results_markdown",
    "results_terminal",
    "transcript_html",
    "transcript_terminal",
    "wrap_label",
]

LABEL_WIDTH = 24
"""A long label (a model's name) folds within this many columns rather than push numbers off the screen."""

WIDTH = 80
"""The terminal width every table and legend fits."""


# -- cells ----------------------------------------------------------------------------------------------------
def number(value: float, digits: int | None = None) -> str:
    """A mean's digits: ``digits`` decimals, else by its size (the same decimals down a column of similar
    numbers), never scientific notation."""
    if digits is not None:
        return f"{value:.{digits}f}"
    size = abs(value)
    return f"{value:.2f}" if size < 100 else f"{value:.1f}" if size < 1000 else f"{value:.0f}"


def _rate(cell: Cell) -> Rate | None:
    return cell if isinstance(cell, Rate) and cell.n else None


def cell_text(column: Column, cell: Cell, *, paper: bool = False) -> str:
    """One cell as text: for the terminal (``paper`` False; a rate or a mean may take two lines) or for papers
    (one line)."""
    if cell is None or cell == "":
        return "-"
    if isinstance(cell, bool):  # a verdict: in words, never Python's True and False
        return yes_no(cell)
    if column.kind == "rate":
        rate = _rate(cell)
        if rate is None or rate.rate is None:
            return "-"
        return rate.text(" " if paper else "\n")
    if column.kind == "mean":
        mean = _mean(cell)
        if mean is None or mean.value is None:
            return "-" if mean is not None else str(cell)
        text = number(mean.value, column.digits)
        if mean.interval is None:
            return text
        low_text, high_text = (number(v, column.digits) for v in mean.interval)
        return f"{text} [{low_text}, {high_text}]" if paper else f"{text}\n[{low_text}, {high_text}]"
    if column.kind == "count" and isinstance(cell, int | float):
        return str(int(cell))
    return str(cell)


def _mean(cell: Cell) -> Mean | None:
    """A mean cell as a :class:`Mean` (a bare number is one without interval); None for anything else."""
    if isinstance(cell, Mean):
        return cell
    if isinstance(cell, int | float) and not isinstance(cell, bool):
        return Mean(value=float(cell))
    return None


def _numeric(cell: Cell) -> bool:
    return isinstance(cell, int | float) and not isinstance(cell, bool)


def sort_key(column: Column, cell: Cell) -> str:
    """The value a viewer sorts a cell by (empty: no value, sorted last)."""
    if column.kind == "rate":
        rate = _rate(cell)
        return "" if rate is None or rate.rate is None else f"{rate.rate:.6f}"
    if column.kind == "mean":
        mean = _mean(cell)
        return "" if mean is None or mean.value is None else f"{mean.value:.6f}"
    if column.kind == "count":
        return str(cell) if _numeric(cell) else ""
    return "" if cell is None else str(cell)


# -- a table as text cells ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Grid:
    """A table as text cells: its headers, which columns are text (left-aligned, folding) and its rows."""

    headers: list[str]
    text: list[bool]
    rows: list[list[str]]


def grid(table: Table, *, paper: bool = False) -> Grid:
    """A table's cells as text."""
    return Grid(
        headers=[c.name for c in table.columns],
        text=[c.kind == "text" for c in table.columns],
        rows=[
            [cell_text(c, v, paper=paper) for c, v in zip(table.columns, table.cells(r), strict=True)]
            for r in table.rows
        ],
    )


def wrap_label(label: str, width: int = LABEL_WIDTH) -> str:
    """A long label in lines of at most ``width`` characters, broken after ``:``, ``/``, ``-``, ``_``, ``.`` or a
    space (where a reader expects a break of a model's name); a piece longer than ``width`` is left for the
    column to fold."""
    if len(label) <= width or "\n" in label:
        return label
    lines = [""]
    for piece in re.findall(r"[^:/_. -]*[:/_. -]|[^:/_. -]+", label):
        if lines[-1] and len(lines[-1]) + len(piece.rstrip()) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)


HEADER_MIN = 8
"""A number column's header of at most this many characters is never broken."""

TEXT_MIN = 12
"""The narrowest a text column other than the first is squeezed to (its cells wrap within it)."""


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _header(g: Grid, i: int) -> str:
    """A number column's header broken at its spaces where it is wider than the numbers under it (``Approx.
    Correct`` over two lines), so a long header does not widen the table."""
    header = g.headers[i]
    if g.text[i]:
        return header
    cells = max((len(line) for row in g.rows for line in _lines(row[i])), default=1)
    width = max(cells, HEADER_MIN, *(len(word) for word in header.split()))
    return textwrap.fill(header, width=width, break_long_words=False) if len(header) > width else header


def _natural(g: Grid, i: int) -> int:
    """The width column ``i`` takes unwrapped: its widest cell or header line (the first column's label
    wrapped where a reader expects a break)."""
    cells = [line for row in g.rows for line in _lines(wrap_label(row[i]) if i == 0 else row[i])]
    return max([len(line) for line in [*cells, *_lines(_header(g, i))]], default=1)


def _needed(g: Grid, i: int) -> int:
    """The width column ``i`` needs: a number column its natural width; the first (the row's name) at most
    :data:`LABEL_WIDTH`; another text column at most :data:`TEXT_MIN` (or its longest header word), as it may
    wrap."""
    widest = _natural(g, i)
    if g.text[i] and i > 0:
        return min(widest, max(TEXT_MIN, *(len(w) for w in _header(g, i).split())))
    return min(widest, LABEL_WIDTH) if g.text[i] else widest


def _rich(g: Grid, columns: Sequence[int], title: str | None) -> RichTable:
    table = RichTable(
        title=title,
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1, 0, 0),
        title_justify="left",
        title_style="bold",
    )
    for i in columns:
        if g.text[i]:
            table.add_column(_header(g, i), overflow="fold", max_width=LABEL_WIDTH if i == 0 else None)
        else:
            table.add_column(_header(g, i), justify="right", no_wrap=True)
    for row in g.rows:
        table.add_row(*(wrap_label(row[i]) if i == 0 and g.text[i] else row[i] for i in columns))
    # whatever the console's width, the table takes at most 80 columns: its text columns wrap to fit
    natural = sum(_natural(g, i) for i in columns) + len(columns) - 1
    if natural > WIDTH:
        table.width = WIDTH
    return table


def _fits(g: Grid, columns: Sequence[int], width: int) -> bool:
    # each column its width, and one space after every column but the last
    return sum(_needed(g, i) for i in columns) + len(columns) - 1 <= width


def fit_tables(g: Grid, title: str | None, width: int = WIDTH) -> list[RichTable]:
    """Tables that fit ``width`` columns without cutting a number: the whole table (its text columns wrapping
    where they must), else its columns split over several tables, each repeating the first column (the row's
    name)."""
    everything = list(range(len(g.headers)))
    if _fits(g, everything, width) or len(everything) <= 2:
        return [_rich(g, everything, title)]
    chunks: list[list[int]] = [[0]]
    for i in everything[1:]:
        if len(chunks[-1]) > 1 and not _fits(g, [*chunks[-1], i], width):
            chunks.append([0, i])
        else:
            chunks[-1].append(i)
    return [_rich(g, chunk, title if n == 0 else None) for n, chunk in enumerate(chunks)]


def _legend_text(table: Table, *, paper: bool = False) -> str:
    parts = [f"{c.name}: {c.legend}" for c in table.columns if c.legend]
    if any(c.kind == "rate" for c in table.columns):
        parts.append(RATE_LEGEND)
    if any(isinstance(v, Mean) and v.interval for r in table.rows for v in r.values()):
        parts.append("means: mean [95% interval]" if paper else "means over [95% interval]")
    text = "; ".join(parts)
    if text:
        text += "."
    if table.legend:
        text = f"{text} {table.legend}".strip()
    return text


def _wrapped(text: str, style: str = "dim") -> Text:
    lines = [textwrap.fill(p, width=WIDTH, break_on_hyphens=False) for p in text.split("\n")]
    return Text("\n".join(lines), style=style)


# -- the terminal ---------------------------------------------------------------------------------------------
def results_terminal(results: Results) -> list[RenderableType]:
    """A run's results for the terminal: its title and protocol, each table with its legend, then the notes;
    every line fits 80 columns."""
    parts: list[RenderableType] = [_wrapped(results.title, style="bold")]
    if results.protocol:
        parts.append(_wrapped(f"protocol: {results.protocol}"))
    for table in results.tables:
        parts.append(Text(""))
        # the title above the table rather than in it: rich would wrap it to the table's width
        parts.append(_wrapped(table.title, style="bold"))
        parts += fit_tables(grid(table), None)
        legend = _legend_text(table)
        if legend:
            parts.append(_wrapped(legend))
    if results.notes:
        parts.append(Text(""))
        parts += [_wrapped(note, style="") for note in results.notes]
    parts.append(Text(""))
    return parts


_ROLE_STYLE = {"system": "dim", "player": "", "game": "green", "note": "yellow", "outcome": "bold"}


def transcript_terminal(transcript: Transcript, *, full: bool = False, hint: str = "") -> RenderableType:
    """An episode's conversation for the terminal: the system prompt folded to its first lines (unless
    ``full``; ``hint`` says how to see it all), each move and answer, the notes and how it ended."""
    parts: list[RenderableType] = [Text(transcript.title, style="bold")]
    previous: str | None = None
    for m in transcript.messages:
        text = m.text
        if m.role == "system":
            text = fold_text(m.text, full=full, hint=hint)
        elif m.role == "game":
            text = fold_repeated(m.text, previous, full=full, hint=hint)
            previous = m.text
        head = f"[{m.name or m.role}]"
        if m.role == "player":
            parts.append(Text(f"\n{head}", style="bold cyan"))
            parts.append(Text(text))
        elif m.role == "system":
            parts.append(Text(f"{head}\n{text}", style="dim"))
        else:
            parts.append(Text(f"{head} {text}", style=_ROLE_STYLE[m.role]))
        if m.annotations:
            said = "; ".join(f"{k}: {v}" for k, v in m.annotations.items())
            parts.append(Text(f"  ({said})", style="yellow"))
    return Group(*parts)


def fold_repeated(text: str, previous: str | None, *, full: bool, hint: str) -> str:
    """``text`` with the lines it ends with that the previous message ended with too (the instructions a game
    repeats every turn) folded to one line, unless ``full``; a line or two in common is not a repeated text."""
    if full or previous is None:
        return text
    lines, before = text.splitlines(), previous.splitlines()
    same = 0
    while same < min(len(lines), len(before)) and lines[-1 - same] == before[-1 - same]:
        same += 1
    if same < 3:
        return text
    folded = fold_text("\n".join(lines[-same:]), lines=0, hint=f"as in the previous turn; {hint}")
    return "\n".join([*lines[:-same], folded])


# -- HTML -----------------------------------------------------------------------------------------------------
def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def table_html(
    table: Table,
    *,
    episode_href: Callable[[int], str | None] | None = None,
    run_href: Callable[[int], str | None] | None = None,
) -> str:
    """One table as HTML: a caption, sortable headers (``data-kind``), cells with ``data-sort`` and the row's
    first cell linking to its episode or run when the row names one and a link is given."""
    out = [f'<table class="results sortable" data-name="{_esc(table.name)}">']
    out.append(f"<caption>{_esc(table.title)}</caption>")
    out.append("<thead><tr>")
    for c in table.columns:
        title = f' title="{_esc(c.legend)}"' if c.legend else ""
        out.append(f'<th scope="col" data-kind="{c.kind}"{title}>{_esc(c.name)}</th>')
    out.append("</tr></thead><tbody>")
    for row in table.rows:
        href = None
        episode, run = row.get("episode"), row.get("run")
        if episode_href is not None and isinstance(episode, int) and not isinstance(episode, bool):
            href = episode_href(episode)
        elif run_href is not None and isinstance(run, int) and not isinstance(run, bool):
            href = run_href(run)
        out.append("<tr>")
        for i, (c, v) in enumerate(zip(table.columns, table.cells(row), strict=True)):
            text = _esc(cell_text(c, v, paper=True))
            if i == 0 and href is not None:
                text = f'<a href="{_esc(href)}">{text}</a>'
            cls = "text" if c.kind == "text" else "num"
            out.append(f'<td class="{cls}" data-sort="{_esc(sort_key(c, v))}">{text}</td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    legend = _legend_text(table, paper=True)
    if legend:
        out.append(f'<p class="legend">{_esc(legend)}</p>')
    return "".join(out)


def results_html(
    results: Results,
    *,
    episode_href: Callable[[int], str | None] | None = None,
    run_href: Callable[[int], str | None] | None = None,
) -> str:
    """A run's results as an HTML fragment (no script, no style: the page's assets give both)."""
    out = [f'<div class="results"><p class="results-title">{_esc(results.title)}</p>']
    if results.protocol:
        out.append(f'<p class="protocol">protocol: {_esc(results.protocol)}</p>')
    for table in results.tables:
        out.append('<div class="table-scroll">')
        out.append(table_html(table, episode_href=episode_href, run_href=run_href))
        out.append("</div>")
    out += [f'<p class="note">{_esc(note)}</p>' for note in results.notes]
    out.append("</div>")
    return "".join(out)


def transcript_html(transcript: Transcript) -> str:
    """An episode's conversation as an HTML fragment: one block per message, by role (the system prompt folded
    in a ``<details>``), annotations beside it."""
    out = ['<div class="chat">']
    for m in transcript.messages:
        who = _esc(m.name or m.role)
        notes = "".join(
            f'<span class="annotation">{_esc(k)}: {_esc(v)}</span>' for k, v in m.annotations.items()
        )
        body = f'<pre class="message-text">{_esc(m.text)}</pre>'
        if m.role == "system":
            out.append(f'<details class="message system"><summary>{who}</summary>{body}{notes}</details>')
        else:
            out.append(f'<div class="message {m.role}"><div class="who">{who}</div>{body}{notes}</div>')
    out.append("</div>")
    return "".join(out)


# -- papers ---------------------------------------------------------------------------------------------------
def _md_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def md_table(g: Grid) -> list[str]:
    """A grid as a markdown pipe table (text columns left-aligned, numbers right)."""
    lines = [
        "| " + " | ".join(_md_escape(h) for h in g.headers) + " |",
        "|" + "|".join(":---" if t else "---:" for t in g.text) + "|",
    ]
    lines += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in g.rows]
    return lines


def results_markdown(results: Results) -> str:
    """A run's results as markdown: a heading, each table with its legend in italics, the notes."""
    lines = [f"## {_md_escape(results.title)}", ""]
    if results.protocol:
        lines += [f"Protocol: {_md_escape(results.protocol)}", ""]
    for table in results.tables:
        lines += [f"**{_md_escape(table.title)}**", "", *md_table(grid(table, paper=True)), ""]
        legend = _legend_text(table, paper=True)
        if legend:
            lines += [f"*{_md_escape(legend)}*", ""]
    lines += [f"- {_md_escape(n)}" for n in results.notes]
    return "\n".join(lines).rstrip() + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_escape(text: str) -> str:
    """``text`` with LaTeX's special characters escaped, for a table cell."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def latex_table(g: Grid) -> list[str]:
    """A grid as a ``tabular`` with ``booktabs`` rules."""
    spec = "".join("l" if t else "r" for t in g.text)
    lines = [f"\\begin{{tabular}}{{{spec}}}", r"\toprule"]
    lines.append(" & ".join(latex_escape(h) for h in g.headers) + r" \\")
    lines.append(r"\midrule")
    for row in g.rows:
        line = " & ".join(latex_escape(c.replace("\n", " ")) for c in row) + r" \\"
        # a row opening with "[" would be read as the optional argument of the previous row's "\\"
        lines.append("{}" + line if line.startswith("[") else line)
    lines += [r"\bottomrule", r"\end{tabular}"]
    return lines


def latex_comment(text: str) -> str:
    """A line of text as a LaTeX comment."""
    return "% " + text.replace("\n", " ")


def results_latex(results: Results) -> str:
    """A run's results as LaTeX tables (``\\usepackage{booktabs}``), titles and legends as comments."""
    lines = [latex_comment(results.title)]
    if results.protocol:
        lines.append(latex_comment(f"protocol: {results.protocol}"))
    for table in results.tables:
        lines += ["", latex_comment(table.title), *latex_table(grid(table, paper=True))]
        legend = _legend_text(table, paper=True)
        if legend:
            lines.append(latex_comment(legend))
    lines += [latex_comment(n) for n in results.notes]
    return "\n".join(lines) + "\n"


def results_csv(results: Results) -> str:
    """A run's results as one CSV: a row per table row, ``table`` first, then every table's columns (a rate
    ``NAME`` has ``NAME k``, ``NAME n``, ``NAME low``, ``NAME high`` beside it; a mean ``NAME low``,
    ``NAME high``); empty where a table has no such column."""
    header: list[str] = ["table"]
    for table in results.tables:
        for c in table.columns:
            names = [c.name]
            if c.kind == "rate":
                names += [f"{c.name} k", f"{c.name} n", f"{c.name} low", f"{c.name} high"]
            elif c.kind == "mean":
                names += [f"{c.name} low", f"{c.name} high"]
            header += [n for n in names if n not in header]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
    writer.writeheader()
    for table in results.tables:
        for row in table.rows:
            line: dict[str, object] = {"table": table.name}
            for c, v in zip(table.columns, table.cells(row), strict=True):
                if c.kind == "rate":
                    rate = _rate(v)
                    if rate is not None:
                        line |= {
                            c.name: rate.rate,
                            f"{c.name} k": rate.k,
                            f"{c.name} n": rate.n,
                            f"{c.name} low": rate.interval[0],
                            f"{c.name} high": rate.interval[1],
                        }
                elif c.kind == "mean":
                    mean = _mean(v)
                    if mean is not None and mean.value is not None:
                        line[c.name] = mean.value
                        if mean.interval is not None:
                            line |= {f"{c.name} low": mean.interval[0], f"{c.name} high": mean.interval[1]}
                elif v is not None:
                    line[c.name] = v
            writer.writerow(line)
    return out.getvalue()
