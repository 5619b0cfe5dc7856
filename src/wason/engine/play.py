"""Playing a run: the one orchestration behind ``wason eval``, :func:`wason.evaluate`, sweeps and the web's watch
page. :func:`play_run` checks the model before it spends anything, owns the model clients (the player's and its
oracles') for the run's lifetime, resumes a stored run under its lease, plays the solver's baseline after a model
run, and plays the items free then constrained when asked; callers follow it through a :class:`RunObserver` and
stop it by cancelling its task (the run is left interrupted, resumable).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from wason.core.family import Item, RunSettings
from wason.core.game import Player
from wason.core.runner import EpisodeResult
from wason.engine.runs import (
    KeyFor,
    PlayerFactory,
    baselines_of,
    create_run,
    execute_run,
    family_of,
    hold_run,
    llm_player_factory,
    load_config,
    make_client,
    make_oracle_client,
    solver_player_factory,
)
from wason.models.client import ModelClient
from wason.store import Store

log = logging.getLogger("wason.engine.play")

__all__ = [
    "Clients",
    "PlayerWrap",
    "RunObserver",
    "play_baseline",
    "play_run",
    "preflight",
    "run_baseline",
]


class RunObserver:
    """What a caller is told while a run plays (every hook does nothing here; override the ones needed).

    The CLI draws its live progress from these, a sweep its episodes bar. The solver baseline played after a
    model run is told to the observer :meth:`baseline` gives, if any.
    """

    def baseline(self) -> RunObserver | None:
        """The observer of the solver baseline played after the run (None: it plays unreported)."""
        return None

    def started(self, run_id: int, n_todo: int, *, resumed: bool) -> None:
        """The run exists (it was made now unless ``resumed``) and ``n_todo`` episodes are about to play."""

    def result(self, result: EpisodeResult) -> None:
        """An episode finished (completed or errored)."""

    def ended(self, run_id: int) -> None:
        """The run stopped playing, however it stopped (after :meth:`started`)."""


PlayerWrap = Callable[[Player[Any, Any], dict[str, Any]], Player[Any, Any]]
"""Wraps each episode's player, given the episode's item (the web paces and narrates the moves)."""


@dataclass
class Clients:
    """The model clients of a run: the player's (None for the solver) and its oracles' (None when code decides
    everything; the player's own client when the oracle is the player's model)."""

    player: ModelClient | None
    oracle: ModelClient | None

    @classmethod
    def open(
        cls,
        config: RunSettings,
        store: Store,
        *,
        api_key: str | None = None,
        key_for: KeyFor | None = None,
    ) -> Clients:
        """The clients of a run of ``config``; keys as for :func:`wason.engine.make_oracle_client`.

        Raises:
            ModelConfigError: a model spec or setting its backend cannot take.
            ValueError: a model run without a model.
        """
        player = None
        if config.player == "llm":
            key = key_for(config.model, config.base_url) if key_for is not None and config.model else api_key
            player = make_client(config, store, api_key=key)
        oracle = make_oracle_client(config, store, api_key=api_key, player_client=player, key_for=key_for)
        return cls(player, oracle)

    def distinct(self) -> list[ModelClient]:
        return list({id(c): c for c in (self.player, self.oracle) if c is not None}.values())

    async def check(self) -> None:
        """Each model's pre-flight check: a wrong URL, key or model name is one error now, not every episode
        errored."""
        for client in self.distinct():
            await preflight(client)

    async def aclose(self) -> None:
        for client in self.distinct():
            try:
                await client.aclose()
            except (
                Exception
            ):  # closing a client that failed to open; nothing to keep, the run's error matters
                log.debug("closing a model client failed", exc_info=True)


async def preflight(client: ModelClient) -> None:
    """The model's own check of its endpoint, key and name, where its backend has one."""
    check = getattr(client.model, "check", None)
    if check is not None:
        await check()


async def play_run(
    store: Store,
    config: RunSettings,
    *,
    run_id: int | None = None,
    items: list[Item] | None = None,
    baseline: bool = False,
    baseline_if_completed: bool = False,
    both: bool = False,
    api_key: str | None = None,
    key_for: KeyFor | None = None,
    clients: Clients | None = None,
    lease_wait: float = 0.0,
    wrap: PlayerWrap | None = None,
    observer: RunObserver | None = None,
    group_writes: bool = False,
) -> list[int]:
    """Play a run of ``config`` to its end: a new one, or what stored run ``run_id`` has not finished.

    A stored run is leased first, so a run another process plays is refused before any request; then each model
    the run asks is checked (unless nothing is left to play); a new run is made only then, so a wrong endpoint
    leaves nothing behind. Cancelling the task that awaits this (Ctrl-C, the web's Stop) leaves the run
    interrupted and resumable.

    Args:
        store: the store the run is in (or goes into).
        config: the run's configuration (a stored run's, with how it runs - endpoint, timeouts - as now).
        run_id: the stored run to finish; None makes a new run of ``items``.
        items: a new run's items when the caller already drew them (else drawn from ``config``).
        baseline: after a model run, play the solver on its items as its baseline (a new run records that it
            has one).
        baseline_if_completed: play that baseline only when the run completed (a sweep's rule).
        both: play the items twice, free then constrained (``--constrain both``), two new runs with one
            baseline (the solver asks no model: it serves both).
        api_key: the player's key (default: its provider's variable); never stored.
        key_for: the key for each model spec and base URL (a server's allow-list), instead of ``api_key``.
        clients: the model clients when the caller already opened them; they are closed here all the same.
        lease_wait: seconds to wait for the lease of a run (or baseline) whose holder may have died.
        wrap: wraps each episode's player.
        observer: told when the run starts, of each episode, and when it stops.
        group_writes: group the runs' writes (:meth:`wason.store.Store.group_writes`, as ``wason eval`` and
            sweeps do): a fraction of the store's cost per model call, and a kill loses up to
            :data:`~wason.store.db.GROUP_SECONDS` of play. Not for a server, whose other requests expect each
            write to be in the store when the request that made it returns.

    Returns:
        The runs played (two with ``both``), without the baseline (:func:`wason.engine.baselines_of`).

    Raises:
        RunBusy: another live process holds the run.
        ModelConfigError: the model cannot be reached or refuses the settings (before any episode).
        ValueError: ``both`` with a stored run or clients given (it makes two new runs, each with its own).
    """
    observer = observer or RunObserver()
    if both:
        if run_id is not None or clients is not None:
            raise ValueError("free then constrained plays two new runs, each with its own clients")
        configs = [config.model_copy(update={"constrain": c}) for c in (False, True)]
    else:
        configs = [config]
    played = []
    for run_config in configs:
        played.append(
            await _play_one(
                store,
                run_config,
                run_id,
                items,
                clients,
                api_key=api_key,
                key_for=key_for,
                record_baseline=baseline,
                lease_wait=lease_wait,
                wrap=wrap,
                observer=observer,
                group_writes=group_writes,
            )
        )
    # the solver asks no model: with ``both``, one baseline serves both runs, which play the same items
    first = played[0]
    finished = not baseline_if_completed or store.get_run(first).status == "completed"
    if baseline and config.player == "llm" and finished:
        await play_baseline(
            store, first, lease_wait=lease_wait, observer=observer.baseline(), group_writes=group_writes
        )
    return played


async def _play_one(
    store: Store,
    config: RunSettings,
    run_id: int | None,
    items: list[Item] | None,
    given: Clients | None,
    *,
    api_key: str | None,
    key_for: KeyFor | None,
    record_baseline: bool,
    lease_wait: float,
    wrap: PlayerWrap | None,
    observer: RunObserver,
    group_writes: bool,
) -> int:
    resumed = run_id is not None
    if run_id is not None and store.get_run(run_id).status == "completed":  # nothing to play, nothing to ask
        if given is not None:
            await given.aclose()
        observer.started(run_id, 0, resumed=True)
        observer.ended(run_id)
        return run_id
    clients = given or Clients.open(config, store, api_key=api_key, key_for=key_for)
    try:
        async with contextlib.AsyncExitStack() as held:
            lease = None
            if run_id is not None:
                # the lease before anything else: a run another process is playing is refused before a single
                # request is sent (the pre-flight check is one), and no other process can start it meanwhile
                lease = await held.enter_async_context(hold_run(store, run_id, lease_wait=lease_wait))
            if run_id is None or any(e.status != "completed" for e in store.list_episodes(run_id)):
                await clients.check()
            if run_id is None:
                run_id = create_run(store, config, items, baseline=record_baseline)
            n_todo = sum(e.status != "completed" for e in store.list_episodes(run_id))
            _started(store, observer, run_id, n_todo, resumed=resumed)
            try:
                await execute_run(
                    store,
                    run_id,
                    _players(config, run_id, clients, wrap),
                    concurrency=_concurrency(config, clients),
                    on_result=observer.result,
                    oracle=clients.oracle,
                    lease=lease,
                    group_writes=group_writes,
                )
            finally:
                observer.ended(run_id)
            return run_id
    finally:
        await clients.aclose()


def _started(store: Store, observer: RunObserver, run_id: int, n_todo: int, *, resumed: bool) -> None:
    """Tell the observer a run starts; when that fails (its output is gone, an interrupt), the run, made and
    not played, is marked interrupted, so ``wason eval --resume`` finishes it, before the failure goes on."""
    try:
        observer.started(run_id, n_todo, resumed=resumed)
    except BaseException:
        store.set_run_status(run_id, "interrupted")
        raise


def _players(config: RunSettings, run_id: int, clients: Clients, wrap: PlayerWrap | None) -> PlayerFactory:
    made = (
        llm_player_factory(clients.player, config, run_id)
        if clients.player is not None
        else solver_player_factory(config)
    )
    if wrap is None:
        return made

    def wrapped(item: dict[str, Any], episode_id: int, index: int) -> Player[Any, Any]:
        return wrap(made(item, episode_id, index), item)

    return wrapped


def _concurrency(config: RunSettings, clients: Clients) -> int:
    if clients.player is None:
        return 1  # the solver is code, on this CPU
    return config.concurrency or clients.player.model.max_concurrency


async def play_baseline(
    store: Store,
    run_id: int,
    *,
    lease_wait: float = 0.0,
    observer: RunObserver | None = None,
    group_writes: bool = False,
) -> int | None:
    """Play the solver on exactly the items of run ``run_id``, as its own run marked as that run's baseline;
    None when the family has no solver baseline.

    A baseline belongs to its run: when the run already has one it is reused if complete and finished if not
    (it was interrupted with its run), never made again. ``lease_wait`` is as for :func:`execute_run`;
    ``observer`` is told of the baseline as of any run; ``group_writes`` is as for :func:`play_run`.
    """
    observer = observer or RunObserver()
    config = load_config(store, run_id)
    existing = baselines_of(store, run_id)
    if existing:
        baseline_id = existing[-1]
        baseline = load_config(store, baseline_id)
        if store.get_run(baseline_id).status == "completed":
            return baseline_id
    else:
        made = family_of(config).baseline(config, run_id)
        if made is None:
            return None
        baseline = made
        items = [(e.item_key, e.item) for e in store.list_episodes(run_id)]
        baseline_id = create_run(store, baseline, items)
    clients = Clients(None, make_oracle_client(baseline, store))
    _started(
        store,
        observer,
        baseline_id,
        sum(e.status != "completed" for e in store.list_episodes(baseline_id)),
        resumed=bool(existing),
    )
    try:
        await execute_run(
            store,
            baseline_id,
            solver_player_factory(baseline),
            concurrency=1,
            on_result=observer.result,
            oracle=clients.oracle,
            lease_wait=lease_wait,
            group_writes=group_writes,
        )
    finally:
        observer.ended(baseline_id)
        await clients.aclose()
    return baseline_id


def run_baseline(store: Store, run_id: int, *, lease_wait: float = 0.0) -> int | None:
    """:func:`play_baseline` from code that runs no event loop."""
    return asyncio.run(play_baseline(store, run_id, lease_wait=lease_wait))
