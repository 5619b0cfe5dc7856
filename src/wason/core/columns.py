"""Columns of a results table, declared in one line each: ``col.rate("won", "Won", "games won")``.

A family declares its tables' columns as data (:class:`~wason.core.results.Column`); these are the shorthands it
writes them with, one per kind, and the columns several families share word for word (the player, the level,
the seconds, the replies cut off at the token limit), so that each is written once.
"""

from __future__ import annotations

from wason.core.results import Column

__all__ = ["CUT", "LEVEL", "PLAYER", "count", "mean", "rate", "text"]


def text(key: str, name: str, legend: str = "") -> Column:
    """A column of words (a row's name, a status)."""
    return Column(key=key, name=name, legend=legend)


def rate(key: str, name: str, legend: str = "", *, higher_is_better: bool = True) -> Column:
    """A column of rates (``k`` of ``n`` with the 95% Wilson interval)."""
    return Column(key=key, name=name, kind="rate", legend=legend, higher_is_better=higher_is_better)


def mean(
    key: str, name: str, legend: str = "", *, digits: int | None = None, higher_is_better: bool = True
) -> Column:
    """A column of means, drawn with ``digits`` decimals (None: by their size)."""
    return Column(
        key=key, name=name, kind="mean", legend=legend, digits=digits, higher_is_better=higher_is_better
    )


def count(key: str, name: str, legend: str = "", *, higher_is_better: bool = True) -> Column:
    """A column of whole numbers."""
    return Column(key=key, name=name, kind="count", legend=legend, higher_is_better=higher_is_better)


PLAYER = text("player", "Player")
"""A row's player: the model or player of its run (:func:`~wason.core.results.named_runs`)."""
LEVEL = text("level", "Level")
CUT = count(
    "cut", "Cut", "replies cut off at the token limit (--max-tokens; each costs what a format error costs)"
)
"""Replies cut off at the token limit, counted apart from the format errors."""
