"""AIW's figures, as data (:mod:`wason.report.plots` draws them): the correct rate per variation with Wilson
intervals across models (the paper's main figure), and per (variation, prompt type) cell the distribution of the
answers given, the correct one marked.

Numbers are read from the episodes directly (a trial's ``correct``, ``status`` and ``answer``), the way the
run's report reads them, so a figure and the table never disagree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from wason.core.family import RunReader
from wason.core.records import Figure, Rate, Series, series_names
from wason.metrics import answer_distribution

UNPARSEABLE = "unparseable"
"""The category of the answers no number could be read from."""

Cell = tuple[str, str, str]
"""(problem family, variation, prompt type): generated variations of two problem families share names."""


def _trials(store: RunReader, run_id: int) -> dict[Cell, list[dict[str, Any]]]:
    """A run's finished trials per cell, in the order the run plays them."""
    cells: dict[Cell, list[dict[str, Any]]] = {}
    for e in store.list_episodes(run_id):
        if e.status == "completed" and e.metrics is not None:
            key = (str(e.item.get("family", "")), str(e.item["variation"]), str(e.item["prompt_type"]))
            cells.setdefault(key, []).append({**e.metrics, "expected": e.item["expected"]})
    return cells


def _natural(value: Any) -> int | None:
    text = str(value).strip() if value is not None else ""
    return int(text) if text.isdigit() else None


def _names(cells: Sequence[Cell]) -> dict[Cell, str]:
    """A cell's variation's name, with its problem family where two families' variations share a name."""
    variations: dict[str, set[str]] = {}
    for family, variation, _ in cells:
        variations.setdefault(variation, set()).add(family)
    return {c: f"{c[1]} ({c[0]})" if len(variations[c[1]]) > 1 else c[1] for c in cells}


def correct_rate_figure(names: Sequence[str], trials: Sequence[dict[Cell, list[dict[str, Any]]]]) -> Figure:
    """The share of trials answered right per cell, a series per run, with 95% Wilson whiskers."""
    cells = list(dict.fromkeys(c for t in trials for c in t))
    prompt_types = len({p for _, _, p in cells})
    series = []
    for name, by_cell in zip(names, trials, strict=True):
        rates = [
            Rate.of(sum(bool(t["correct"]) for t in by_cell[c]), len(by_cell[c])) if c in by_cell else None
            for c in cells
        ]
        series.append(Series.of_rates(name, rates))
    trials_per_cell = sorted({len(ts) for t in trials for ts in t.values()})
    per = "/".join(str(n) for n in trials_per_cell)
    return Figure(
        name="correct-by-variation",
        title="AIW: correct rate per variation" + (" and prompt type" if prompt_types > 1 else ""),
        kind="bars",
        categories=[_names(cells)[c] + (f", {c[2]}" if prompt_types > 1 else "") for c in cells],
        series=series,
        x_label="variation" + (", prompt type" if prompt_types > 1 else ""),
        y_label="share of trials answered right",
        y_range=(0.0, 1.0),
        caption=f"Bars: share of a cell's {per} trials whose answer was right; whiskers: 95% Wilson interval. "
        "A reply with no readable answer counts as wrong.",
    )


def distribution_figure(
    cell: Cell, label: str, names: Sequence[str], trials: Sequence[dict[Cell, list[dict[str, Any]]]]
) -> Figure | None:
    """How often each answer was given in one cell, a series per run; None for a symbolic right answer."""
    given = [t.get(cell, []) for t in trials]
    expected = next((_natural(t["expected"]) for ts in given for t in ts), None)
    if expected is None:
        return None
    dists = [answer_distribution([t["answer"] if t["status"] == "ok" else None for t in ts]) for ts in given]
    numbers = sorted({a for d in dists for a in d if a is not None} | {expected})
    categories = [str(a) for a in numbers]
    keys: list[int | None] = list(numbers)
    if any(d.get(None) for d in dists):
        categories.append(UNPARSEABLE)
        keys.append(None)
    shown = [(name, d, ts) for name, d, ts in zip(names, dists, given, strict=True) if ts]
    series = [
        Series(name=f"{name} (n = {len(ts)})", values=[float(d.get(k, 0)) for k in keys])
        for name, d, ts in shown
    ]
    prompt_type = cell[2]
    who = ", ".join(name for name, _, _ in shown)
    return Figure(
        name=_stem(f"distribution-{label}-{prompt_type}"),
        title=f"{label} ({prompt_type}): answers of {who}",
        kind="bars",
        categories=categories,
        series=series,
        x_label="answer given",
        y_label="trials",
        integer_y=True,
        highlight=[str(expected)],
        highlight_label=f"correct answer ({expected})",
        caption=f"Bars: how many of the cell's trials gave each answer; the correct answer ({expected}) is "
        "hatched on a shaded band"
        + (f"; {UNPARSEABLE}: no number could be read from the reply" if UNPARSEABLE in categories else "")
        + ". Answers are spaced evenly, not on a number line.",
    )


def _stem(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_")


def figures(store: RunReader, run_ids: Sequence[int]) -> list[Figure]:
    """AIW's figures of ``run_ids``: the correct rate per variation, then an answer distribution per cell."""
    runs = [store.get_run(r) for r in run_ids]
    names = series_names(runs)
    trials = [_trials(store, r) for r in run_ids]
    out = [correct_rate_figure(names, trials)]
    cells = list(dict.fromkeys(c for t in trials for c in t))
    labels = _names(cells)
    for cell in cells:
        figure = distribution_figure(cell, labels[cell], names, trials)
        if figure is not None:
            out.append(figure)
    return out
