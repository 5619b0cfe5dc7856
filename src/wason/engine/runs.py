"""Runs: create a run in the store, play its episodes concurrently, resume an interrupted one, add the solver's
baseline. The one place that joins families, players, models and the store, and it names no family: everything
family-specific comes from the family the run's ``task`` names in the registry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from wason.core import registry
from wason.core.family import EpisodeContext, Family, Item, RunSettings
from wason.core.game import Player
from wason.core.records import CallContext
from wason.core.runner import EpisodeJob, EpisodeResult, run_jobs
from wason.models.client import ModelClient, RetryPolicy
from wason.players.llm import LLMPlayer
from wason.store import Store

PlayerFactory = Callable[[dict[str, Any], int, int], Player[Any, Any]]


def family_of(config: RunSettings) -> Family[Any]:
    """The family a run configuration belongs to (its ``task``)."""
    task = getattr(config, "task", None)
    if not isinstance(task, str):
        raise ValueError(f"{type(config).__name__} names no task family (it has no 'task' field)")
    return registry.get(task)


def create_run(store: Store, config: RunSettings, items: list[Item] | None = None) -> int:
    """Register a run and all its episodes (pending) in the store; returns the run id.

    ``items`` defaults to the configuration's items; a baseline passes the items of the run it accompanies.
    """
    family = family_of(config)
    items = family.items(config) if items is None else items
    run_id = store.create_run(
        task=family.name, player=config.player, model=config.model, config=config.model_dump(mode="json")
    )
    store.add_episodes(run_id, items)
    return run_id


def load_config(store: Store, run_id: int) -> RunSettings:
    """The stored configuration of a run, as its family's configuration class."""
    run = store.get_run(run_id)
    config: RunSettings = registry.get(run.task).config_type.model_validate(run.config)
    return config


def llm_player_factory(client: ModelClient, config: RunSettings, run_id: int) -> PlayerFactory:
    """Players driving ``client`` through the family's protocol, one conversation per episode."""
    family = family_of(config)

    def make(item: dict[str, Any], episode_id: int, index: int) -> Player[Any, Any]:
        ctx = CallContext(run_id=run_id, episode_id=episode_id, sample=family.sample_key(config, item))
        protocol = family.protocol(config, item)
        return LLMPlayer(client, protocol, config.params, ctx, system_as_user=config.system_as_user)

    return make


def solver_player_factory(config: RunSettings) -> PlayerFactory:
    """The family's reference solver, one per episode, playing structured actions."""
    family = family_of(config)

    def make(item: dict[str, Any], episode_id: int, index: int) -> Player[Any, Any]:
        player = family.solver(config, item)
        if player is None:
            raise ValueError(f"{family.title} has no solver")
        return player

    return make


def run_baseline(store: Store, run_id: int) -> int | None:
    """Play the solver on exactly the items of run ``run_id``, as its own run marked as that run's baseline;
    None when the family has no solver baseline."""
    config = load_config(store, run_id)
    baseline = family_of(config).baseline(config, run_id)
    if baseline is None:
        return None
    oracle = make_oracle_client(baseline, store)
    items = [(e.item_key, e.item) for e in store.list_episodes(run_id)]
    baseline_id = create_run(store, baseline, items)

    async def play() -> None:
        try:
            await execute_run(
                store, baseline_id, solver_player_factory(baseline), concurrency=1, oracle=oracle
            )
        finally:
            if oracle is not None:
                await oracle.aclose()

    asyncio.run(play())
    return baseline_id


def baselines_of(store: Store, run_id: int) -> list[int]:
    """Solver runs made as baselines of ``run_id`` (the newest last)."""
    return [r.id for r in store.list_runs() if r.config.get("baseline_for") == run_id]


def make_client(config: RunSettings, store: Store, *, api_key: str | None = None) -> ModelClient:
    """The model client of a run: the model from its spec, with the run's retry policy, cache and store."""
    from wason.models.spec import load_model

    if config.model is None:
        raise ValueError("this run has no model")
    model = load_model(
        config.model, base_url=config.base_url, api_key=api_key, max_concurrency=config.concurrency
    )
    policy = RetryPolicy(retries=config.retries, timeout=config.timeout)
    return ModelClient(model=model, store=store, policy=policy, use_cache=config.use_cache)


def make_oracle_client(
    config: RunSettings,
    store: Store,
    *,
    api_key: str | None = None,
    player_client: ModelClient | None = None,
) -> ModelClient | None:
    """The client of the run's oracles (LLM judges, labellers), or None when code decides everything.

    When the oracle is the player's own model and ``player_client`` is given, that client is shared: one
    loaded local model, one connection pool.
    """
    spec = family_of(config).oracle(config)
    if spec is None:
        return None
    if spec.same_as_player and player_client is not None:
        return player_client
    update = {"model": spec.model, "base_url": spec.base_url}
    # The same model and endpoint as the player: share its key; another provider reads its own variable.
    key = api_key if spec.same_as_player else None
    return make_client(config.model_copy(update=update), store, api_key=key)


async def execute_run(
    store: Store,
    run_id: int,
    make_player: PlayerFactory,
    *,
    concurrency: int,
    on_result: Callable[[EpisodeResult], None] | None = None,
    oracle: ModelClient | None = None,
) -> list[EpisodeResult]:
    """Play every episode of the run that has not completed (all of them for a new run).

    Completed episodes are never replayed. An episode that was running when the process died, or that errored,
    is replayed from its start; its model calls are answered from the cache, so no finished call is repeated.
    ``oracle`` is the model the family's LLM judges and labellers ask.
    """
    config = load_config(store, run_id)
    family = family_of(config)
    todo = [e for e in store.list_episodes(run_id) if e.status != "completed"]
    store.set_run_status(run_id, "running")

    def job(item: dict[str, Any], episode_id: int, index: int) -> EpisodeJob:
        context = EpisodeContext(run_id=run_id, episode_id=episode_id, oracle=oracle)
        return EpisodeJob(
            episode_id=episode_id,
            index=index,
            make_game=lambda: family.game(config, item, context),
            make_player=lambda: make_player(item, episode_id, index),
            feedback=family.protocol(config, item).feedback,
        )

    jobs = [job(e.item, e.id, e.index) for e in todo]
    try:
        results = await run_jobs(jobs, store, concurrency=concurrency, on_result=on_result)
    except BaseException:
        store.set_run_status(run_id, "interrupted")
        raise
    statuses = [e.status for e in store.list_episodes(run_id)]
    store.set_run_status(run_id, "completed" if all(s == "completed" for s in statuses) else "incomplete")
    return results
