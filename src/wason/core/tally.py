"""Per-episode metrics tallied as every family's report counts them, and the comparison scores built from them.

A :class:`Tally` holds a group of episodes (a run, a level, a rule's trials): the finished ones' metrics, and
``played``, the ``n`` of every rate: the episodes finished or errored (an errored game counts as a loss), never
those not played yet. A family's summary and its comparison columns (:func:`scores`) read it instead of
counting again, so a rate, a mean and a count mean the same in every family.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple, TypeVar

from wason.core.records import EpisodeRow, Rate, Score

__all__ = ["WIN_LEGEND", "MeanScore", "Tally", "group_by", "judged_scores"]

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)
Metrics = Mapping[str, Any]

WIN_LEGEND = "games won (errored games count as losses)"


class Tally:
    """The episodes of a group and their metrics.

    Attributes:
        episodes: every episode of the group, in order.
        done: the finished ones (``completed``).
        metrics: the finished ones' metrics (``{}`` where none were stored).
        errored: how many errored.
        played: finished or errored: the ``n`` of every rate.
        unfinished: not played yet (in no rate).
    """

    def __init__(self, episodes: Iterable[EpisodeRow]) -> None:
        self.episodes = list(episodes)
        self.done = [e for e in self.episodes if e.status == "completed"]
        self.metrics: list[Metrics] = [e.metrics or {} for e in self.done]
        self.errored = sum(e.status == "errored" for e in self.episodes)
        self.played = len(self.done) + self.errored
        self.unfinished = len(self.episodes) - self.played

    def values(self, key: str, among: Sequence[Metrics] | None = None) -> list[Any]:
        """The metric ``key`` of each finished episode (or of ``among``), None where it is missing."""
        return [m.get(key) for m in (self.metrics if among is None else among)]

    def mean(self, key: str, among: Sequence[Metrics] | None = None) -> float | None:
        """The mean of :meth:`values` that are there (None when none is)."""
        from wason.metrics.rates import mean_present

        return mean_present(self.values(key, among))

    def total(self, key: str) -> int:
        """The metric ``key`` summed over the finished episodes (a count: format errors, truncated replies)."""
        return sum(int(m.get(key) or 0) for m in self.metrics)

    def where(self, test: Callable[[Metrics], Any]) -> list[Metrics]:
        """The finished episodes' metrics that pass ``test``."""
        return [m for m in self.metrics if test(m)]

    @property
    def won(self) -> list[Metrics]:
        """The metrics of the games whose ``status`` is ``won``."""
        return self.where(lambda m: m.get("status") == "won")

    @property
    def succeeded(self) -> list[Metrics]:
        """The metrics of the finished episodes that succeeded."""
        return [e.metrics or {} for e in self.done if e.success]

    def rate(self, k: int) -> Rate:
        """``k`` of the episodes played."""
        return Rate.of(k, self.played)

    def judge(self, name: str) -> Rate:
        """The episodes played whose judge ``name`` said yes (in ``metrics["judges"]``)."""
        return self.rate(sum(bool((m.get("judges") or {}).get(name)) for m in self.metrics))

    def judges(self, names: Iterable[str]) -> dict[str, Rate]:
        """:meth:`judge` of each name."""
        return {j: self.judge(j) for j in names}

    def agreement(self, judge: str, other: str = "llm") -> Rate:
        """How often judge ``other`` agreed with ``judge``, of the finished episodes both judged."""
        both = [
            m["judges"]
            for m in self.metrics
            if (m.get("judges") or {}).get(other) is not None and m["judges"].get(judge) is not None
        ]
        return Rate.of(sum(bool(j[other]) == bool(j[judge]) for j in both), len(both))


def group_by(items: Iterable[T], key: Callable[[T], K]) -> dict[K, list[T]]:
    """The items by ``key``, groups in the order they first appear."""
    groups: dict[K, list[T]] = {}
    for item in items:
        groups.setdefault(key(item), []).append(item)
    return groups


class MeanScore(NamedTuple):
    """A comparison column of a per-episode metric's mean (over the finished games, with its 95% t interval):
    its name, short name, the metric's key and its legend."""

    name: str
    short: str
    key: str
    legend: str
    higher_is_better: bool = False

    def of(self, tally: Tally) -> Score:
        return Score.mean_of(
            self.name, self.short, tally.values(self.key), self.legend, higher_is_better=self.higher_is_better
        )


def judged_scores(
    tally: Tally, won: int, means: Sequence[MeanScore], code_judge: str, agreement_legend: str
) -> list[Score]:
    """A judged game's comparison columns, in the papers' Table 2 order: the win rate (``won`` of the games
    played), the means, then how often the LLM judge agreed with the code's verdict (``code_judge``) where both
    judged (reported apart: the code decides)."""
    agree = tally.agreement(code_judge)
    return [
        Score.rate("Win rate", "Win", won, tally.played, WIN_LEGEND),
        *(m.of(tally) for m in means),
        Score.rate("LLM judge agreement", "Agree", agree.k, agree.n, agreement_legend),
    ]
