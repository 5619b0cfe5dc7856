"""Expert trajectories for supervised warm starts: games as chat transcripts in exactly the messages a model sees.

:func:`solver_trajectories` plays a family's reference solver through the text environment, each move written as
the message that makes it under the family's protocol (:meth:`~wason.core.family.Family.action_message`) and
read back by the protocol, which must give the solver's own move; :func:`run_trajectories` replays the model
episodes of stored runs through the environment, each reply as the model wrote it, and checks that the replay
reaches the stored verdict. A trajectory is one JSON object: its ``messages`` (OpenAI-style) and where it came
from; stepping its assistant messages through the environment (:func:`replay`) gives its reward again.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from wason.core.family import RunReader
from wason.core.records import EpisodeRow
from wason.core.session import to_json
from wason.env.text import AsyncTextEnv

__all__ = ["MAX_TRAJECTORIES", "replay", "run_trajectories", "solver_trajectories"]

MAX_TRAJECTORIES = 100_000
"""The most solver games one call writes."""


class TrajectoryError(ValueError):
    """A trajectory that cannot be written as asked; one line."""


def _record(env: AsyncTextEnv, source: Mapping[str, Any], info: Mapping[str, Any]) -> dict[str, Any]:
    """A trajectory: where it came from, its verdict and reward, its messages, and what replays it (the
    configuration, and the item for a stored episode)."""
    return {
        "family": env.family.name,
        **source,
        "item_key": info.get("item_key"),
        "success": info.get("success"),
        "reward": float(info.get("episode_reward", 0.0)),
        "messages": env.messages,
        "config": env.config.model_dump(mode="json", exclude={"player", "model"}),
    }


async def solver_trajectories(
    family: str, config: Mapping[str, Any], *, n: int, seed: int = 0
) -> list[dict[str, Any]]:
    """``n`` games of the family's solver, game ``i`` on the item seed ``seed + i`` draws.

    Raises:
        TrajectoryError: a family without a solver, a move with no text form in the protocol, or a message
            the protocol reads as another move than the solver's.
    """
    if not 1 <= n <= MAX_TRAJECTORIES:
        raise TrajectoryError(f"--games: from 1 to {MAX_TRAJECTORIES:,}, not {n}")
    out = []
    for i in range(n):
        env = AsyncTextEnv(family, dict(config))
        await env.reset(seed=seed + i)
        assert env.record is not None
        solver = env.family.solver(env.config, env.record.item)
        if solver is None:
            raise TrajectoryError(f"{env.family.title} has no reference solver")
        info: dict[str, Any] = {}
        while not env.done:
            move = await solver.act(env.observation)
            action = to_json(move.action)
            text = env.family.action_message(action)
            if text is None:
                raise TrajectoryError(
                    f"{env.family.title}: the solver's move {action.get('type')} has no message in the protocol's "
                    "text (Family.action_message)"
                )
            before = len(env.record.turns)
            step = await env.step(text)
            # the turn this message made (the game's own moves may follow it)
            read = env.record.turns[before]["action"] if len(env.record.turns) > before else None
            if read != action:
                raise TrajectoryError(
                    f"{env.family.title}: the protocol reads the solver's message {text!r} as {read}, not {action}"
                )
            info = step.info
        out.append(_record(env, {"player": "solver", "seed": seed + i}, info))
        await env.aclose()
    return out


def _episodes(store: RunReader, runs: Sequence[int]) -> Iterator[tuple[Any, EpisodeRow]]:
    for run_id in runs:
        run = store.get_run(run_id)
        if run.player != "llm":
            raise TrajectoryError(
                f"run {run_id} was played by {run.player}, not a model: its moves have no replies"
            )
        for episode in store.list_episodes(run_id):
            yield run, episode


async def run_trajectories(
    store: RunReader, runs: Sequence[int], *, success_only: bool = False
) -> list[dict[str, Any]]:
    """The completed model episodes of ``runs`` (the won ones with ``success_only``), replayed.

    Raises:
        TrajectoryError: a run not played by a model, a family whose games ask a model oracle (its answers are not
            replayed), or a replay that does not reach the stored verdict.
    """
    out = []
    for run, episode in _episodes(store, runs):
        if episode.status != "completed" or (success_only and not episode.success):
            continue
        config = {k: v for k, v in run.config.items() if k not in ("player", "model", "task")}
        env = AsyncTextEnv(run.task, config)
        if env.family.oracle(env.config) is not None:
            raise TrajectoryError(
                f"run {run.id}: its games ask a model (an LLM judge or game master); not replayed"
            )
        await env.reset(options={"item": (episode.item_key, episode.item)})
        info = {}
        for turn in store.list_turns(episode.id):
            if env.done:
                break
            if turn.get("reply") is None:  # a move the game made by itself: the environment makes it too
                continue
            info = (await env.step(str(turn["reply"]))).info
        if info.get("success") != episode.success:
            raise TrajectoryError(
                f"run {run.id}, episode {episode.index}: the replay ended {info.get('success')}, the store says "
                f"{episode.success} (the game or its protocol changed since)"
            )
        source = {
            "player": "llm",
            "run": run.id,
            "episode": episode.index,
            "item": [episode.item_key, episode.item],
        }
        out.append(_record(env, source, info))
        await env.aclose()
    return out


async def replay(trajectory: Mapping[str, Any]) -> tuple[float, dict[str, Any]]:
    """Step a trajectory's assistant messages through a fresh environment of its configuration, on its item (a
    stored episode's, or the one its seed draws); returns the reward and the last ``info`` (the verdict)."""
    env = AsyncTextEnv(str(trajectory["family"]), dict(trajectory.get("config") or {}))
    item = trajectory.get("item")
    if item is not None:
        await env.reset(options={"item": (str(item[0]), dict(item[1]))})
    else:
        await env.reset(seed=int(trajectory["seed"]))
    info: dict[str, Any] = {}
    for message in trajectory["messages"]:
        if message["role"] != "assistant" or env.done:
            continue
        info = (await env.step(message["content"])).info
    await env.aclose()
    return float(info.get("episode_reward", 0.0)), info
