"""The episode loop, run concurrently: each episode is a :class:`~wason.core.session.Session`, written as it happens.

A model call that still fails after its retries marks that episode ``errored`` with the reason; the run goes on.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wason.core.game import ExternalFailure, Game, Outcome, Player
from wason.core.session import EpisodeRecorder, Session, to_json

__all__ = ["EpisodeJob", "EpisodeRecorder", "EpisodeResult", "play_episode", "run_jobs", "to_json"]


@dataclass
class EpisodeJob:
    """One episode to play: how to make its game and player, and how to render feedback for the transcript."""

    episode_id: int
    index: int
    make_game: Callable[[], Game[Any, Any]]
    make_player: Callable[[], Player[Any, Any]]
    feedback: Callable[[Any], str] | None = None


@dataclass(frozen=True)
class EpisodeResult:
    episode_id: int
    index: int
    status: str  # "completed" or "errored"
    outcome: Outcome | None
    error: str | None


async def play_episode(
    job: EpisodeJob, recorder: EpisodeRecorder, *, max_turns: int = 10_000
) -> EpisodeResult:
    """Play one episode to its end through a :class:`~wason.core.session.Session`: every turn is stored as it
    happens."""
    try:
        session = Session.begin(job.make_game(), recorder, job.episode_id, feedback=job.feedback)
        player = job.make_player()
        while not session.done:
            if (
                session.turn >= max_turns
            ):  # a game that never ends is a bug in the game; never hang a run on it
                raise RuntimeError(f"episode did not end within {max_turns} turns")
            await session.play_turn(player)
        outcome = session.outcome()
        if outcome is None:  # the loop above ends only once the game is over
            raise RuntimeError("the game ended without an outcome")
    except Exception as exc:  # the run goes on; the episode says why it stopped
        if isinstance(exc, ExternalFailure):
            reason = f"{exc.what}: {exc}"
        else:
            reason = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
        recorder.finish_episode(job.episode_id, status="errored", error=reason)
        return EpisodeResult(job.episode_id, job.index, "errored", None, reason)
    return EpisodeResult(job.episode_id, job.index, "completed", outcome, None)


async def run_jobs(
    jobs: Sequence[EpisodeJob],
    recorder: EpisodeRecorder,
    *,
    concurrency: int,
    on_result: Callable[[EpisodeResult], Awaitable[None] | None] | None = None,
) -> list[EpisodeResult]:
    """Play episodes with at most ``concurrency`` in flight; results in job order."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    gate = asyncio.Semaphore(concurrency)

    async def one(job: EpisodeJob) -> EpisodeResult:
        async with gate:
            result = await play_episode(job, recorder)
        if on_result is not None:
            maybe = on_result(result)
            if maybe is not None:
                await maybe
        return result

    tasks = [asyncio.ensure_future(one(j)) for j in jobs]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        # Interrupted (Ctrl-C, cancellation): stop the episodes still queued or in flight; they stay unfinished
        # in the store and a resumed run replays them.
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
