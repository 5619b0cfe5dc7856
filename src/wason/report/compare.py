"""Runs of one family in one table: a row per model, baseline and person, the family's columns in the paper's
order with intervals, then the columns every family shares; in the terminal, markdown, LaTeX or CSV; with paired
comparisons of runs on the same items. (Skeleton: being written.)"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console

from wason.core.family import RunReader


def comparison_runs(store: RunReader, run_ids: Sequence[int], *, baselines: bool) -> list[int]:
    """The runs a comparison shows: the runs given, then their finished solver baselines (once each)."""
    raise NotImplementedError


def truncation_warning(store: RunReader, run_id: int) -> str | None:
    """One line when many of the run's replies hit the token limit, else None."""
    return None


def print_comparison(
    store: RunReader, run_ids: Sequence[int], *, fmt: str, as_json: bool, baselines: bool, console: Console
) -> int:
    """Print the comparison of ``run_ids`` (and their baselines) in ``fmt``; JSON with ``as_json``."""
    raise NotImplementedError


__all__ = ["comparison_runs", "print_comparison", "truncation_warning"]
