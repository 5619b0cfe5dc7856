"""Small parts of the families' reports, written once: the words and tables several of them draw alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wason.core.results import Cell, Column, Table

__all__ = ["Fields", "fields_table", "games_text", "rule_text", "said_text"]

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


def rule_text(item: Mapping[str, Any]) -> str:
    """The text of an item's hidden ``rule`` ("" when it has none): an Inspect sample's target."""
    return str((item.get("rule") or {}).get("text") or "")


def said_text(record: Mapping[str, Any] | None, *keys: str) -> str | None:
    """The ``keys`` of a record that are set, one a line (None when none is): an Inspect sample's answer."""
    m = record or {}
    return "\n".join(str(m[k]) for k in keys if m.get(k)) or None


def games_text(n: int) -> str:
    """``1 game``, ``2 games``: a series' name in a figure says over how many games it is."""
    return f"{n} game" if n == 1 else f"{n} games"
