"""The episode loop, run concurrently: each episode is written as it happens through an :class:`EpisodeRecorder`.

A model call that still fails after its retries marks that episode ``errored`` with the reason; the run goes on.
"""

from __future__ import annotations

import asyncio
import dataclasses
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import BaseModel

from wason.core.game import ExternalFailure, Game, Outcome, Player, Settles


class EpisodeRecorder(Protocol):
    """Where episodes are written (implemented by :class:`wason.store.Store`)."""

    def start_episode(self, episode_id: int) -> None: ...

    def add_turn(
        self,
        episode_id: int,
        index: int,
        *,
        action: dict[str, Any],
        observation: dict[str, Any],
        reply: str | None,
        feedback: str | None,
    ) -> None: ...

    def finish_episode(
        self,
        episode_id: int,
        *,
        status: str,
        success: bool | None = None,
        metrics: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None: ...


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


def to_json(value: Any) -> dict[str, Any]:
    """A record of an action or observation: pydantic models and dataclasses, tagged with their type."""
    if isinstance(value, BaseModel):
        return {"type": type(value).__name__, **value.model_dump(mode="json")}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {"type": type(value).__name__, **dataclasses.asdict(value)}
    return {"type": type(value).__name__, "value": repr(value)}


async def play_episode(
    job: EpisodeJob, recorder: EpisodeRecorder, *, max_turns: int = 10_000
) -> EpisodeResult:
    """Play one episode to its end, recording every turn as it happens."""
    recorder.start_episode(job.episode_id)
    try:
        game = job.make_game()
        player = job.make_player()
        observation = game.start()
        turn = 0
        while not game.done:
            if turn >= max_turns:  # a game that never ends is a bug in the game; never hang a run on it
                raise RuntimeError(f"episode did not end within {max_turns} turns")
            move = await player.act(observation)
            if isinstance(game, Settles):
                await game.settle(move.action)
            observation = game.step(move.action)
            recorder.add_turn(
                job.episode_id,
                turn,
                action=to_json(move.action),
                observation=to_json(observation),
                reply=move.reply,
                feedback=job.feedback(observation) if job.feedback else None,
            )
            turn += 1
        outcome = game.outcome()
    except Exception as exc:  # the run goes on; the episode says why it stopped
        if isinstance(exc, ExternalFailure):
            reason = f"{exc.what}: {exc}"
        else:
            reason = f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"
        recorder.finish_episode(job.episode_id, status="errored", error=reason)
        return EpisodeResult(job.episode_id, job.index, "errored", None, reason)
    recorder.finish_episode(
        job.episode_id, status="completed", success=outcome.success, metrics=outcome.metrics
    )
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
