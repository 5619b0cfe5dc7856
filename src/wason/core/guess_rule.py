"""Parts the guess-the-rule families share: their published texts read from package data (the reference's short
messages among them), their results tables' rows, and the game API's view of a turn."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from wason.core.records import Rate
from wason.core.results import Cell, Column, Mean

__all__ = ["api_view", "bring_lines", "cells", "package_text", "short_messages"]


@cache
def package_text(package: str, name: str) -> str:
    """A published text of ``package``'s ``data/`` folder, byte for byte."""
    return (resources.files(package) / "data" / name).read_text(encoding="utf-8")


@cache
def short_messages(package: str) -> dict[str, str]:
    """``package``'s ``data/gm_short_messages.txt`` (each message under a ``=== SOURCE (when)`` line) as {SOURCE:
    message}, byte for byte but for the file's last newline."""
    blocks = ("\n" + package_text(package, "gm_short_messages.txt")).split("\n=== ")[1:]
    return {
        head.split(" ", 1)[0]: body.removesuffix("\n")
        for head, _, body in (b.partition("\n") for b in blocks)
    }


def cells(source: Any, fields: Iterable[tuple[str, Column]], *, means: bool = False) -> dict[str, Cell]:
    """A table row: each column's value under the name beside it, a key of ``source`` (a mapping) or else its
    attribute; a rate read from a mapping is validated (an empty one is None), and with ``means`` the value of
    a mean column is a :class:`~wason.core.results.Mean`."""
    row: dict[str, Cell] = {}
    for name, column in fields:
        value = source.get(name) if isinstance(source, Mapping) else getattr(source, name)
        if column.kind == "rate" and isinstance(source, Mapping):
            value = Rate.model_validate(value) if value else None
        row[column.key] = Mean(value=value) if means and column.kind == "mean" else value
    return row


def api_view(
    message: str,
    positives: Sequence[Any],
    negatives: Sequence[Any],
    available: int | None = None,
    result: bool | None = None,
) -> dict[str, Any]:
    """The reference's fields for the player after an action (:meth:`wason.core.family.GameApi.view`)."""
    return {
        "system_message": message,
        "positive_examples": list(positives),
        "negative_examples": list(negatives),
        "total_examples_available": available,
        "guess_result": result,
    }


def bring_lines(observation: Mapping[str, Any]) -> list[str]:
    """What a person reads of the examples an observation (its JSON) shows: what may come and what may not (none
    without either)."""
    positives = list(observation.get("positives") or ())
    negatives = list(observation.get("negatives") or ())
    if not positives and not negatives:
        return []
    return [
        f"You can bring: {', '.join(positives) or '(none)'}",
        f"You cannot bring: {', '.join(negatives) or '(none)'}",
    ]
