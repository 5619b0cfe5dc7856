"""List rules' figures, as data (:mod:`wason.report.plots` draws them): success per rule, and the rounds of
testing used per rule, a series per run.

Success is the run's primary judge (the first of predicate, quiz, LLM that ran), as the report's table counts it:
an errored game counts as a failure; games not over yet are left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from wason.core.family import RunReader
from wason.core.records import EpisodeRow, Figure, Rate, Series, series_names

RULES_IN_CAPTION = 8
"""The caption spells out the rules' texts up to this many rules."""


def _grouped(store: RunReader, run_ids: Sequence[int]) -> tuple[list[dict[str, list[EpisodeRow]]], list[str]]:
    """Each run's finished games (completed or errored) by rule key, and the rule keys in order of appearance.

    Games not over are left out: their rule is hidden from the web pages until they end."""
    groups: list[dict[str, list[EpisodeRow]]] = []
    for run_id in run_ids:
        by_rule: dict[str, list[EpisodeRow]] = {}
        for e in store.list_episodes(run_id):
            if e.status in ("completed", "errored"):
                by_rule.setdefault(str(e.item["rule"]["key"]), []).append(e)
        groups.append(by_rule)
    return groups, list(dict.fromkeys(k for g in groups for k in g))


def _key_note(rules: Sequence[str], groups: Sequence[dict[str, list[EpisodeRow]]]) -> str:
    if len(rules) > RULES_IN_CAPTION:
        return ""
    # a rule's text as its first run has it
    texts = {k: str(g[k][0].item["rule"].get("text", "")) for g in reversed(groups) for k in g}
    return " Rules: " + "; ".join(f"{r}: {texts.get(r, '').rstrip('.')}" for r in rules) + "."


def success_figure(store: RunReader, run_ids: Sequence[int]) -> Figure:
    """The share of a rule's games won, a series per run, with 95% Wilson whiskers."""
    groups, rules = _grouped(store, run_ids)
    names = series_names([store.get_run(r) for r in run_ids])
    series = []
    for name, by_rule in zip(names, groups, strict=True):
        rates = [
            Rate.of(sum(bool(e.success) for e in by_rule[k] if e.status == "completed"), len(by_rule[k]))
            if k in by_rule
            else None
            for k in rules
        ]
        series.append(Series.of_rates(name, rates))
    return Figure(
        name="success-by-rule",
        title="List rules: success per rule",
        kind="bars",
        categories=rules,
        series=series,
        x_label="rule",
        y_label="share of games won",
        y_range=(0.0, 1.0),
        caption="Bars: share of a rule's games (trials) won, by the run's primary judge; whiskers: 95% Wilson "
        "interval; an errored game counts as lost." + _key_note(rules, groups),
    )


def rounds_figure(store: RunReader, run_ids: Sequence[int]) -> Figure:
    """The mean rounds of a rule's finished games, a series per run, whiskers from the fewest to the most."""
    groups, rules = _grouped(store, run_ids)
    names = series_names([store.get_run(r) for r in run_ids])
    series = []
    limits: set[int] = set()
    for run_id, name, by_rule in zip(run_ids, names, groups, strict=True):
        limits.add(int(store.get_run(run_id).config.get("max_rounds", 19) or 19))
        rounds = [
            [
                int(e.metrics["rounds"])
                for e in by_rule.get(k, [])
                if e.status == "completed" and e.metrics and e.metrics.get("rounds") is not None
            ]
            for k in rules
        ]
        values: list[float | None] = [sum(r) / len(r) if r else None for r in rounds]
        low: list[float | None] = [float(min(r)) if r else None for r in rounds]
        high: list[float | None] = [float(max(r)) if r else None for r in rounds]
        series.append(Series(name=name, values=values, low=low, high=high))
    limit = "/".join(str(n) for n in sorted(limits))
    return Figure(
        name="rounds-by-rule",
        title="List rules: rounds of testing used per rule",
        kind="bars",
        categories=rules,
        series=series,
        x_label="rule",
        y_label="rounds",
        integer_y=True,
        caption=f"Bars: mean rounds of tests over a rule's finished games (at most {limit}); whiskers: the fewest "
        "and the most.",
    )


def figures(store: RunReader, run_ids: Sequence[int]) -> list[Figure]:
    """The list rules' figures of ``run_ids``: success per rule, rounds per rule."""
    return [success_figure(store, run_ids), rounds_figure(store, run_ids)]
