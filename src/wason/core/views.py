"""Pieces of terminal tables that every family's report shares, so that each fits an 80-column terminal the same
way: a narrow table, a legend wrapped at 80 columns, and model names broken where a reader expects it."""

from __future__ import annotations

import re
import textwrap

from rich import box
from rich.table import Table
from rich.text import Text

__all__ = ["legend", "narrow_table", "wrap_name"]


def narrow_table(title: str) -> Table:
    """A narrow table (no outer edge, one space between columns, the title on the left) so that it fits 80
    columns."""
    return Table(
        title=title, box=box.SIMPLE_HEAD, padding=(0, 1, 0, 0), show_edge=False, title_justify="left"
    )


def legend(text: str, style: str = "dim") -> Text:
    """A table's legend (or any paragraph under it), wrapped at 80 columns whatever the console's width."""
    return Text(textwrap.fill(text, width=80, break_on_hyphens=False), style=style)


def wrap_name(name: str, width: int = 20) -> str:
    """A model's name in lines of at most ``width`` characters, broken after ``:``, ``/``, ``-``, ``_``, ``.``
    or a space (where a reader expects a break) rather than anywhere; a piece longer than ``width`` stays whole
    (the table folds it)."""
    lines = [""]
    for piece in re.findall(r"[^:/_. -]*[:/_. -]|[^:/_. -]+", name):
        if lines[-1] and len(lines[-1]) + len(piece.rstrip()) > width:
            lines.append("")
        lines[-1] += piece
    return "\n".join(line.rstrip() for line in lines)
