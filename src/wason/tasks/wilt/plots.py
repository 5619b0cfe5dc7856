"""WILT's figures, as data: the hypothesis-space reduction curves (the paper's Figure 1), a line per run.

Accuracy with its intervals per model is every family's comparison figure (drawn from the scores), so it is not
repeated here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from wason.core.family import RunReader
from wason.core.records import Figure, Series, series_names
from wason.core.reporting import games_text
from wason.tasks.wilt.reduction import curve_at

Z95 = 1.959963984540054
"""The normal 97.5% quantile, for a 95% interval of a mean."""


def reduction_figure(store: RunReader, run_ids: Sequence[int]) -> Figure:
    """The mean share of the hypothesis space ruled out after k tests, a line per run, with a 95% band.

    Over a run's finished games; a game that stopped earlier (it guessed) keeps its last value, as the report's
    table reads the curve.
    """
    runs = [store.get_run(r) for r in run_ids]
    curves: list[list[list[float]]] = []
    budget = 0
    spaces: set[str] = set()
    for run in runs:
        budget = max(budget, int(run.config.get("max_tests", 30) or 30))
        done = [e.metrics for e in store.list_episodes(run.id) if e.status == "completed" and e.metrics]
        curves.append([list(m["reduction"]) for m in done if m.get("reduction")])
        spaces |= {str(m["hypothesis_space"]) for m in done if m.get("hypothesis_space")}
    longest = max((len(c) for cs in curves for c in cs), default=0)
    xs = list(range(1, max(budget, longest) + 1))
    series = []
    for name, cs in zip(series_names(runs), curves, strict=True):
        bands = [_mean_band([curve_at(c, k) for c in cs]) for k in xs]
        values, low, high = ([band[i] for band in bands] for i in range(3))
        series.append(Series(name=f"{name} ({games_text(len(cs))})", values=values, low=low, high=high))
    space = f" Hypothesis space: {', '.join(sorted(spaces))}." if spaces else ""
    return Figure(
        name="reduction",
        title="WILT: share of the hypothesis space ruled out after k tests",
        kind="lines",
        x=[float(k) for k in xs],
        series=series,
        x_label="tests made (k)",
        y_label="share of hypotheses ruled out",
        y_range=(0.0, 1.0),
        caption="Mean over each run's finished games (a game that ended earlier keeps its last value); band: 95% "
        "interval of the mean (normal approximation). A flat stretch is tests that ruled out nothing new."
        + space,
    )


def _mean_band(points: Sequence[float]) -> tuple[float | None, float | None, float | None]:
    n = len(points)
    if n == 0:
        return None, None, None
    mean = sum(points) / n
    if n < 2:
        return mean, None, None
    sd = math.sqrt(sum((p - mean) ** 2 for p in points) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def figures(store: RunReader, run_ids: Sequence[int]) -> list[Figure]:
    """WILT's own figures of ``run_ids`` (see the module's note)."""
    return [reduction_figure(store, run_ids)]
