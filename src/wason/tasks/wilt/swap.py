"""The test-swap matrix (the paper's appendix A.2, Figure 2): each guessing model's accuracy on the tests of each
source run, from a set of ``--protocol testswap`` runs."""

from __future__ import annotations

import json
from collections.abc import Sequence

from wason.core.family import RunReader
from wason.core.records import Matrix, RunRow, Score, series_names
from wason.core.tally import group_by
from wason.tasks.wilt.scoring import summarize

LEGEND = (
    "a rule's final guess equivalent to it, made in one turn from the source run's tests of that rule "
    "(reasoning stripped), of the rules the source finished"
)


def _guesser_key(run: RunRow) -> str:
    """Who guesses: the model with its settings (held to the reply format or not), or the player that asks no
    model (the solver)."""
    if run.player != "llm":
        return run.player
    params = {k: v for k, v in (run.config.get("params") or {}).items() if v is not None}
    return json.dumps([run.model, params, bool(run.config.get("constrain"))], sort_keys=True, default=str)


def _accuracy(store: RunReader, run_id: int) -> tuple[int, int]:
    s = summarize([(e.status, e.metrics) for e in store.list_episodes(run_id)])
    return s.correct, s.n


def matrices(store: RunReader, run_ids: Sequence[int]) -> list[Matrix]:
    """The family's matrices: the test-swap matrix, where ``run_ids`` hold test-swap runs."""
    matrix = swap_matrix(store, run_ids)
    return [matrix] if matrix is not None else []


def swap_matrix(store: RunReader, run_ids: Sequence[int]) -> Matrix | None:
    """The guessers x source runs matrix of the test-swap runs among ``run_ids`` (None without any); runs of one
    guesser on one source are pooled (a second run is more trials of the same cells), and a note says so."""
    runs = [store.get_run(r) for r in dict.fromkeys(run_ids)]
    swaps = [
        r for r in runs if r.config.get("protocol") == "testswap" and r.config.get("tests_from") is not None
    ]
    if not swaps:
        return None
    guessers = {key: group[0] for key, group in group_by(swaps, _guesser_key).items()}
    row_labels = [n.removesuffix(" (baseline)") for n in series_names(list(guessers.values()))]
    source_ids = list(dict.fromkeys(int(r.config["tests_from"]) for r in swaps))
    sources = [store.get_run(s) for s in source_ids]
    column_labels = [
        f"{name} (run {run.id})" for name, run in zip(series_names(sources), sources, strict=True)
    ]
    keys = list(guessers)
    pooled = group_by(
        swaps, lambda r: (keys.index(_guesser_key(r)), source_ids.index(int(r.config["tests_from"])))
    )
    counts: dict[tuple[int, int], tuple[int, int]] = {}
    for at, group in pooled.items():
        scores = [_accuracy(store, run.id) for run in group]
        counts[at] = (sum(k for k, _ in scores), sum(n for _, n in scores))
    cells: list[list[Score | None]] = [
        [
            Score.rate("Accuracy", "Acc", *counts[(i, j)], LEGEND) if (i, j) in counts else None
            for j in range(len(sources))
        ]
        for i in range(len(keys))
    ]
    notes = [
        f"{row_labels[i]} on the tests of run {source_ids[j]}: runs {', '.join(str(r.id) for r in group)} pooled"
        for (i, j), group in sorted(pooled.items())
        if len(group) > 1
    ]
    left_out = [r.id for r in runs if r not in swaps and r.id in source_ids]
    if left_out:
        runs_text = ", ".join(map(str, left_out))
        notes.append(
            f"runs {runs_text} are sources, not test-swap runs: their own accuracy is in the table above"
        )
    return Matrix(
        name="testswap",
        title="WILT test swap (appendix A.2): accuracy of each guessing model on each run's tests, "
        "k/n [95% Wilson interval]",
        row_title="Guessing model",
        column_title="Tests from",
        rows=row_labels,
        columns=column_labels,
        cells=cells,
        notes=notes,
        figure_title="WILT test swap: accuracy of each guessing model on each source's tests",
    )
