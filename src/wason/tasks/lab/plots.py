"""The lab's figures, as data (:mod:`wason.report.plots` draws them): test accuracy by number of experiments.

Each game scores an ideal learner on the experiments its player ran: the share of the game's test it predicts
after 0, 1, 2, ... experiments (``curve``), and the same learner on random experiments up to the budget
(``random_curve``). The figure has a line per run (a model's run, its solver baseline) and the random
experiments as a dashed comparison line, so a player's experiments read against a good design and a blind one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from wason.core.family import RunReader
from wason.core.game import VOID
from wason.core.records import Figure, Series, series_names
from wason.tasks.lab.report import curve_points, value_at


def _mean_curve(curves: Sequence[Mapping[int, float]], xs: Sequence[int]) -> list[float | None]:
    """The mean over games after each k of ``xs``; a game that stopped before k counts at its last point."""
    out: list[float | None] = []
    for k in xs:
        values = [v for v in (value_at(c, k) for c in curves if c) if v is not None]
        out.append(sum(values) / len(values) if values else None)
    return out


def curves_figure(store: RunReader, run_ids: Sequence[int]) -> Figure:
    """Mean test accuracy of an ideal learner after k experiments: on each run's experiments, and on random
    experiments (dashed)."""
    runs = [store.get_run(r) for r in run_ids]
    ideal: list[list[dict[int, float]]] = []
    rand: list[list[dict[int, float]]] = []
    for run in runs:
        ms: list[dict[str, Any]] = [
            e.metrics
            for e in store.list_episodes(run.id)
            if e.status == "completed" and e.metrics and not e.metrics.get(VOID)
        ]
        ideal.append([curve_points(m.get("curve")) for m in ms])
        rand.append([curve_points(m.get("random_curve")) for m in ms])
    top = max((max(c) for cs in (*ideal, *rand) for c in cs if c), default=0)
    xs = list(range(top + 1))
    series = [
        Series(name=f"{name} ({_games(sum(bool(c) for c in cs))})", values=_mean_curve(cs, xs))
        for name, cs in zip(series_names(runs), ideal, strict=True)
    ]
    references: list[tuple[str, list[float | None]]] = []
    for name, cs in zip(series_names(runs), rand, strict=True):
        values = _mean_curve(cs, xs)
        if any(v is not None for v in values) and values not in [v for _, v in references]:
            references.append((name, values))
    for name, values in references:
        # runs on different domains each have their own random line, named for the run whose games it is on
        label = "random experiments" + (f" (games of {name})" if len(references) > 1 else "")
        series.append(Series(name=label, values=values, reference=True))
    return Figure(
        name="test-accuracy-by-experiments",
        title="Lab: test accuracy an ideal learner reaches after k experiments",
        kind="lines",
        x=[float(k) for k in xs],
        series=series,
        x_label="experiments (k)",
        y_label="share of the test predicted right",
        y_range=(0.0, 1.0),
        caption="Solid: an ideal learner that saw the first k experiments a run's player made, mean over its "
        "finished games (a game that stopped earlier keeps its last point); dashed: the same learner on random "
        "experiments, up to the budget.",
    )


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


def figures(store: RunReader, run_ids: Sequence[int]) -> list[Figure]:
    """The lab's figures of ``run_ids``: test accuracy by number of experiments."""
    return [curves_figure(store, run_ids)]
