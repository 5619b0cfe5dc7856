"""Small parts of the families' reports, written once: the words and tables several of them draw alike."""

from __future__ import annotations

from collections.abc import Sequence

from wason.core.results import Cell, Column, Table

__all__ = ["Fields", "fields_table", "games_text"]

Fields = Sequence[tuple[str, Column]]
"""A table's columns after its key columns, each beside the number it shows (:func:`wason.core.guess_rule.cells`)."""


def fields_table(
    name: str,
    title: str,
    keys: Sequence[Column],
    fields: Fields,
    rows: list[dict[str, Cell]],
    legend: str = "",
) -> Table:
    """A table whose columns are its ``keys`` (the player, the level), then those of ``fields``."""
    return Table(name=name, title=title, columns=[*keys, *(c for _, c in fields)], rows=rows, legend=legend)


def games_text(n: int) -> str:
    """``1 game``, ``2 games``: a series' name in a figure says over how many games it is."""
    return f"{n} game" if n == 1 else f"{n} games"
