"""A run's WILT results in the paper's Table 1 columns, plus what the paper did not count."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

from wason.core.records import Rate
from wason.tasks.wilt.reduction import CURVE_POINTS, curve_at


class WiltSummary(BaseModel):
    """Table 1 of the WILT paper for one run: Accuracy (k/N), Approx. Correct (k/N), Avg. Guesses, Repeats.

    ``avg_guesses``: the mean attempts used before the final guess (each test, invalid test and unreadable or
    truncated reply costs one of the 30) over finished episodes. ``n`` counts every episode played, errored ones
    included, so an errored episode lowers accuracy rather than vanishing; those not played yet are in no rate.
    """

    n: int
    finished: int
    errored: int
    pending: int
    correct: int
    approximately_correct: int
    avg_guesses: float | None
    repeats: int
    invalid_tests: int
    format_errors: int
    truncated: int = 0
    no_guess: int
    rejected_guesses: int
    reduction: dict[int, float] | None = None
    uninformative_share: float | None = None
    hypothesis_space: str | None = None
    decided: dict[str, int] | None = None
    """How the accepted guesses' verdicts were reached: ``proved``, ``refuted``, ``sampled``, and ``earlier`` for
    verdicts stored by a judge before ``decided-1`` (sampled on the probes); None when there were none."""

    @property
    def accuracy(self) -> Rate:
        """Correct guesses over all episodes, with the 95% Wilson interval."""
        return Rate.of(self.correct, self.n)

    @property
    def approx(self) -> Rate:
        """Approximately correct guesses over all episodes, with the 95% Wilson interval."""
        return Rate.of(self.approximately_correct, self.n)


def summarize(episodes: Sequence[tuple[str, dict[str, Any] | None]]) -> WiltSummary:
    """Summarise ``(status, metrics)`` pairs of a run's episodes. The reduction curve is the mean over finished
    episodes of the share of the hypothesis space eliminated after tests 1, 5, 10, 20 and 30 (an episode that
    stopped earlier keeps its last value); the uninformative share: of valid tests, those eliminating nothing."""
    done = [m for status, m in episodes if status == "completed" and m is not None]
    verdicts = [m.get("verdict") for m in done]
    curves = [m["reduction"] for m in done if "reduction" in m]
    n_tests = sum(len(c) for c in curves)
    reduction = (
        {k: sum(curve_at(c, k) for c in curves) / len(curves) for k in CURVE_POINTS} if curves else None
    )
    uninformative = sum(m.get("uninformative_tests", 0) for m in done) / n_tests if n_tests else None
    return WiltSummary(
        reduction=reduction,
        uninformative_share=uninformative,
        hypothesis_space=next((m.get("hypothesis_space") for m in done if m.get("hypothesis_space")), None),
        # episodes not played yet are in no rate (a run under way does not show them as wrong); errored ones are
        n=sum(status in ("completed", "errored") for status, _ in episodes),
        finished=len(done),
        errored=sum(status == "errored" for status, _ in episodes),
        pending=sum(status in {"pending", "running"} for status, _ in episodes),
        correct=sum(bool(m["correct"]) for m in done),
        approximately_correct=sum(bool(m["approximately_correct"]) for m in done),
        avg_guesses=(sum(m["attempts"] for m in done) / len(done)) if done else None,
        repeats=sum(m["repeats"] for m in done),
        invalid_tests=sum(m["invalid_tests"] for m in done),
        format_errors=sum(m["format_errors"] for m in done),
        truncated=sum(int(m.get("truncated") or 0) for m in done),
        no_guess=sum(not m["guessed"] for m in done),
        rejected_guesses=sum(bool(v and not v.get("accepted", True)) for v in verdicts),
        decided=_decided(verdicts),
    )


DECIDED_ORDER = ("proved", "refuted", "sampled", "earlier")


def _decided(verdicts: Sequence[dict[str, Any] | None]) -> dict[str, int] | None:
    counts = dict.fromkeys(DECIDED_ORDER, 0)
    for v in verdicts:
        if v and v.get("accepted", True):
            counts[str(v.get("method") or "earlier")] += 1
    return counts if any(counts.values()) else None
