"""Small parts of the families' reports, written once: the words and numbers several of them print alike."""

from __future__ import annotations

__all__ = ["games_text"]


def games_text(n: int) -> str:
    """``1 game``, ``2 games``: a series' name in a figure says over how many games it is."""
    return f"{n} game" if n == 1 else f"{n} games"
