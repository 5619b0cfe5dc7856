"""Live progress of a run being played: where it stands, how fast it goes and when it should end.

The counts come from the store (:meth:`~wason.store.Store.play_counts` and
:meth:`~wason.store.Store.call_totals`, two small indexed queries), so turns, model calls and tokens show as they
are written, whichever player makes them; the episodes finished in this sitting come from the run's observer.
:class:`Standing` words them as one line for a log (what ``wason eval`` prints when its output is not a
terminal) and as the fields of a terminal bar.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from wason.core.runner import EpisodeResult
from wason.store import Store

__all__ = ["SUMMARY_EVERY", "Standing", "Tracker", "duration"]

SUMMARY_EVERY = 30.0
"""Seconds between the summary lines of a run whose progress goes to a log, not a terminal."""


def duration(seconds: float) -> str:
    """``42 s``, ``3 min 5 s``, ``1 h 12 min``: a span as a person reads it in a progress line."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s" if s < 600 else f"{round(s / 60)} min"
    return f"{s // 3600} h {(s % 3600) // 60} min"


def _n(value: int) -> str:
    return f"{value:,}"


@dataclass(frozen=True)
class Standing:
    """A run at one moment: ``todo`` episodes to play in this sitting, ``done`` of them finished (``correct``,
    ``errored``), ``running`` being played, the run's stored ``turns`` and model-call totals (``calls``, as
    :data:`~wason.store.db.CALL_TOTALS`), and the seconds since this sitting began."""

    todo: int
    done: int
    correct: int
    errored: int
    running: int
    turns: int
    calls: dict[str, int]
    elapsed: float
    model: bool = True

    @property
    def per_minute(self) -> float | None:
        """Episodes finished a minute in this sitting (None before the first)."""
        return self.done / self.elapsed * 60 if self.done and self.elapsed > 0 else None

    @property
    def eta(self) -> float | None:
        """Seconds until the last episode should finish at this sitting's pace (0 once all are done; None
        before the first episode finished, when there is no pace yet)."""
        if self.done >= self.todo:
            return 0.0
        if not self.done or self.elapsed <= 0:
            return None
        return (self.todo - self.done) * self.elapsed / self.done

    def eta_text(self) -> str:
        eta = self.eta
        if eta is None:
            return "ETA after the first episode"
        return "ETA now" if eta == 0 else f"ETA {duration(eta)}"

    def calls_text(self) -> str:
        """``model calls 50 (2 retries, 1 failed, 4 replayed); tokens 12,300 in, 1,100 out``, or that the player
        calls no model."""
        c = self.calls
        if not self.model and not c["calls"] and not c["cached_calls"]:
            return "no model calls"
        extra = []
        if (retries := c["attempts"] - c["calls"]) > 0:
            extra.append(f"{_n(retries)} retr{'y' if retries == 1 else 'ies'}")
        if c["failed_calls"]:
            extra.append(f"{_n(c['failed_calls'])} failed")
        if c["cached_calls"]:
            extra.append(f"{_n(c['cached_calls'])} replayed")
        calls = f"model calls {_n(c['calls'])}" + (f" ({', '.join(extra)})" if extra else "")
        tokens = f"tokens {_n(c['input_tokens'])} in, {_n(c['output_tokens'])} out"
        return f"{calls}; {tokens}"

    def summary(self) -> str:
        """The whole standing in one line, e.g. ``3/10 episodes (2 correct, 0 errored), 1 running; 45 turns;
        model calls 50; tokens 12,300 in, 1,100 out; 0.6 episodes/min; 4 min 50 s; ETA 11 min``."""
        rate = self.per_minute
        if rate is None:
            pace = "no episode finished yet"
        else:
            pace = f"{rate:.{0 if rate >= 10 else 1 if rate >= 1 else 2}f} episodes/min"
        left = "" if self.done >= self.todo else f"; {self.eta_text()}"
        return (
            f"{self.done}/{self.todo} episodes ({self.correct} correct, {self.errored} errored), "
            f"{self.running} running; {_n(self.turns)} turns; {self.calls_text()}; {pace}; "
            f"{duration(self.elapsed)} elapsed{left}"
        )


@dataclass
class Tracker:
    """Follows one run as it plays: told of each finished episode (:meth:`finished`), it reads the rest from the
    store when asked for the :meth:`standing`."""

    store: Store
    run_id: int
    todo: int
    model: bool = True
    done: int = 0
    correct: int = 0
    errored: int = 0
    started: float = field(default_factory=time.monotonic)

    def finished(self, result: EpisodeResult) -> None:
        self.done += 1
        if result.status == "errored":
            self.errored += 1
        elif result.outcome is not None and result.outcome.success:
            self.correct += 1

    def standing(self) -> Standing:
        counts = self.store.play_counts(self.run_id)
        return Standing(
            todo=self.todo,
            done=self.done,
            correct=self.correct,
            errored=self.errored,
            running=counts["running"],
            turns=counts["turns"],
            calls=self.store.call_totals(self.run_id),
            elapsed=time.monotonic() - self.started,
            model=self.model,
        )

    def episode_line(self, result: EpisodeResult, turns: int | None = None) -> str:
        """The line a log gets when an episode finishes: which one, how it ended, then the run's standing."""
        if result.status == "errored":
            how = f"errored: {(result.error or 'no reason stored').splitlines()[0][:200]}"
        elif result.outcome is not None and result.outcome.success:
            how = "correct"
        else:
            how = "not solved"
        played = f", {turns} turns" if turns is not None else ""
        return f"episode {result.index} {how}{played} | {self.standing().summary()}"
