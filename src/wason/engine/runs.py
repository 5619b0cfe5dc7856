"""Runs: create a run in the store, play its episodes concurrently, resume an interrupted one, add the solver's
baseline. The one place that joins families, players, models and the store, and it names no family: everything
family-specific comes from the family the run's ``task`` names in the registry.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from wason.core import registry
from wason.core.family import EpisodeContext, Family, Item, RunSettings
from wason.core.game import Player
from wason.core.records import CallContext, RunRow
from wason.core.runner import EpisodeJob, EpisodeResult, run_jobs
from wason.models.base import CONSTRAINT_BODY_FIELDS, ModelConfigError
from wason.models.client import ModelClient, RetryPolicy
from wason.models.spec import check_settings, constraint_of, load_model
from wason.players.llm import LLMPlayer, check_constrainable
from wason.redaction import redact_url
from wason.store import Store
from wason.store.db import GROUP_SECONDS, LEASE_TTL, CellTaken, RunBusy, StoreError, new_owner

_R = TypeVar("_R")

PlayerFactory = Callable[[dict[str, Any], int, int], Player[Any, Any]]


def family_of(config: RunSettings) -> Family[Any]:
    """The family a run configuration belongs to (its ``task``)."""
    task = getattr(config, "task", None)
    if not isinstance(task, str):
        raise ValueError(f"{type(config).__name__} names no task family (it has no 'task' field)")
    return registry.get(task)


def limit_items(items: Iterable[Item], limit: int | None) -> list[Item]:
    """The first ``limit`` items of a run (all of them for None), each with all its trials, as Inspect's
    ``--limit`` takes the first samples and then plays each for every epoch.

    A family lists an item's trials together, numbered from 1 in the item's ``trial`` (the key the Inspect log
    export reads too): an item whose ``trial`` is 2 or more belongs to the item before it, any other item (no
    ``trial``, or trial 1) starts the next one. So ``--limit 2 --trials 5`` plays 2 rules 5 times each.
    """
    if limit is None:
        return list(items)
    out: list[Item] = []
    started = 0
    for key, item in items:
        trial = item.get("trial")
        follows = isinstance(trial, int) and not isinstance(trial, bool) and trial > 1 and bool(out)
        if not follows:
            if started == limit:
                break
            started += 1
        out.append((key, item))
    return out


def run_items(config: RunSettings) -> list[Item]:
    """The items a run of ``config`` plays: its family's items, the first ``config.limit`` of them when it has a
    limit. A family that can draw its items one at a time (:meth:`~wason.core.family.Family.item_count`) draws
    only those (and the one after, which shows where the last one's trials end), so ``--limit 2`` of a large
    generated split costs a few items, not the split."""
    family = family_of(config)
    count = family.item_count(config) if config.limit is not None else None
    if count is None:
        return limit_items(family.items(config), config.limit)
    return limit_items((family.item_at(config, index) for index in range(count)), config.limit)


def create_run(
    store: Store,
    config: RunSettings,
    items: list[Item] | None = None,
    *,
    sweep: str | None = None,
    cell: str | None = None,
    baseline: bool = True,
) -> int:
    """Register a run and all its episodes (pending) in the store, in one transaction; returns the run id.

    ``items`` defaults to the configuration's items (:func:`run_items`); a baseline passes the items of the run
    it accompanies. Given items are cut to the configuration's ``limit`` too (:func:`limit_items`: cutting
    items already cut changes nothing), so every way a run is made honours it.
    With ``sweep`` and ``cell`` it is idempotent: the cell's existing run is returned instead of a second one
    (a retried or repeated sweep finds its cells' runs). ``baseline=False`` records with a model run that it
    was started without its solver baseline (``--no-baseline``), so that resuming it plays none
    (:func:`wants_baseline`).
    """
    if sweep is not None and (found := store.find_cell(sweep, cell or "")) is not None:
        return found
    family = family_of(config)
    items = run_items(config) if items is None else limit_items(items, config.limit)
    stored = stored_config(config)
    if not baseline and config.player == "llm":
        # beside the family's fields, which ignore it when the configuration is read back
        stored[NO_BASELINE] = True
    try:
        return store.create_run(
            task=family.name,
            player=config.player,
            model=config.model,
            config=stored,
            items=items,
            sweep=sweep,
            cell=cell,
        )
    except CellTaken:  # another process made the cell's run between our look and our insert
        found = store.find_cell(sweep or "", cell or "")
        if found is None:  # pragma: no cover - the constraint said it exists
            raise
        return found


def stored_config(config: RunSettings) -> dict[str, Any]:
    """A run's configuration as stored: JSON, with any password in its endpoint URL redacted (an API key is
    never part of it)."""
    data: dict[str, Any] = config.model_dump(mode="json")
    if isinstance(data.get("base_url"), str):
        data["base_url"] = redact_url(data["base_url"])
    return data


NO_BASELINE = "no_baseline"
"""The key of a model run's stored configuration that says it was started without its solver baseline."""


def wants_baseline(run: RunRow) -> bool:
    """Whether a model run was started to have its solver baseline (not with ``--no-baseline``)."""
    return not run.config.get(NO_BASELINE, False)


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
        params = family.generation_params(config, item)
        return LLMPlayer(
            client, protocol, params, ctx, system_as_user=config.system_as_user, constrain=config.constrain
        )

    return make


def check_constrain(config: RunSettings, item: Mapping[str, Any]) -> None:
    """Refuse ``--constrain`` before a run when its protocol declares no reply format, or the model's backend
    cannot hold a reply to it (checked on ``item``'s protocol at its first turn).

    Raises:
        ModelConfigError: one line saying why.
    """
    if not config.constrain or config.player != "llm" or config.model is None:
        return
    given = sorted(set(config.params.extra_body or {}) & set(CONSTRAINT_BODY_FIELDS))
    if given:
        raise ModelConfigError(
            f"--constrain sends the protocol's reply format; --extra-body sets {', '.join(given)} too: leave one out"
        )
    check_constrainable(family_of(config).protocol(config, item), None, constraint_of(config.model))


def solver_player_factory(config: RunSettings) -> PlayerFactory:
    """The family's reference solver, one per episode, playing structured actions."""
    family = family_of(config)

    def make(item: dict[str, Any], episode_id: int, index: int) -> Player[Any, Any]:
        player = family.solver(config, item)
        if player is None:
            raise ValueError(f"{family.title} has no solver")
        return player

    return make


def baselines_of(store: Store, run_id: int, *, completed_only: bool = False) -> list[int]:
    """Solver runs made as baselines of ``run_id`` (the newest last); ``completed_only`` keeps those that
    finished every episode, the only ones shown as results.

    One indexed query on the store (:meth:`wason.store.Store.baselines_of`); a reader without that method (a
    report's own :class:`wason.core.family.RunReader`) is searched through its runs."""
    finder = getattr(store, "baselines_of", None)
    if finder is not None:
        return list(finder(run_id, completed_only=completed_only))
    return [
        r.id
        for r in store.list_runs()
        if r.config.get("baseline_for") == run_id and (not completed_only or r.status == "completed")
    ]


def make_client(config: RunSettings, store: Store, *, api_key: str | None = None) -> ModelClient:
    """The model client of a run: the model from its spec, with the run's retry policy, cache and store."""
    if config.model is None:
        raise ValueError("this run has no model")
    # settings the backend cannot send are one line before the run (a sweep cell, a run started on the web),
    # not an error in every episode
    check_settings(config.model, config.params)
    model = load_model(
        config.model, base_url=config.base_url, api_key=api_key, max_concurrency=config.concurrency
    )
    policy = RetryPolicy(retries=config.retries, timeout=config.timeout, base_delay=config.retry_delay)
    return ModelClient(model=model, store=store, policy=policy, use_cache=config.use_cache)


KeyFor = Callable[[str, str | None], str | None]
"""The key to send to a model spec at a base URL (a server's allow-list decides; see ``wason.server.allowed``)."""


def make_oracle_client(
    config: RunSettings,
    store: Store,
    *,
    api_key: str | None = None,
    player_client: ModelClient | None = None,
    key_for: KeyFor | None = None,
) -> ModelClient | None:
    """The client of the run's oracles (LLM judges, labellers), or None when code decides everything.

    When the oracle is the player's own model and ``player_client`` is given, that client is shared: one
    loaded local model, one connection pool. Its key: ``key_for(spec, base_url)`` when given (a server sends
    each key only to the endpoint it was configured with), else the player's when it is the player's model,
    else the provider's environment variable.
    """
    spec = family_of(config).oracle(config)
    if spec is None:
        return None
    if spec.same_as_player and player_client is not None:
        return player_client
    update = {"model": spec.model, "base_url": spec.base_url}
    # without key_for: the same model and endpoint as the player share its key; another provider reads its own
    # variable
    shared = api_key if spec.same_as_player else None
    key = key_for(spec.model, spec.base_url) if key_for is not None else shared
    return make_client(config.model_copy(update=update), store, api_key=key)


class LeaseLost(StoreError):
    """Another process took a run over while this one was playing it."""


@dataclass
class Lease:
    """A run leased to this process by :func:`hold_run` (its heartbeat beats while the lease is held)."""

    run_id: int
    owner: str
    keeper: _LeaseKeeper

    @property
    def lost(self) -> bool:
        """Whether another process took the run over (the heartbeat found the lease gone)."""
        return self.keeper.lost


@contextlib.asynccontextmanager
async def hold_run(store: Store, run_id: int, *, lease_wait: float = 0.0) -> AsyncIterator[Lease]:
    """Lease run ``run_id`` to this process for the block, beating its heartbeat, then give it up.

    Taking the lease first is what lets a caller refuse a run another process holds *before* it does anything
    that costs (a model endpoint's pre-flight check): pass the lease to :func:`execute_run`. ``lease_wait`` is
    as for :func:`execute_run`.

    Raises:
        RunBusy: another live process holds the run (after ``lease_wait`` seconds).
        LeaseLost: the lease was taken over during the block (the block's task is cancelled when it is).
    """
    owner = new_owner()
    await _acquire(store, run_id, owner, lease_wait)
    keeper = _LeaseKeeper(store, run_id, owner)
    keeper.start()
    try:
        yield Lease(run_id, owner, keeper)
    except asyncio.CancelledError:
        if keeper.lost:
            raise LeaseLost(
                f"run {run_id} was taken over by another process while this one was playing it"
            ) from None
        raise
    finally:
        keeper.stop()
        store.release_lease(run_id, owner)


async def execute_run(
    store: Store,
    run_id: int,
    make_player: PlayerFactory,
    *,
    concurrency: int,
    on_result: Callable[[EpisodeResult], None] | None = None,
    oracle: ModelClient | None = None,
    lease_wait: float = 0.0,
    lease: Lease | None = None,
    group_writes: bool = False,
) -> list[EpisodeResult]:
    """Play every episode of the run that has not completed (all of them for a new run).

    Completed episodes are never replayed. An episode that was running when the process died, or that errored,
    is replayed from its start; its model calls are answered from the cache, so no finished call is repeated.
    ``oracle`` is the model the family's LLM judges and labellers ask.

    The run is leased to this process while it plays (a heartbeat in the store), so two processes never play
    the same run: the second is refused with :class:`RunBusy`. A lease whose holder died is taken over; with
    ``lease_wait`` seconds this waits that long for a busy lease to be freed (a retried sweep task whose first
    attempt died on another machine) before giving up. ``lease`` is the run's lease when the caller already
    holds it (:func:`hold_run`); it stays the caller's to give up. With ``group_writes`` the run's records are
    written in groups (:meth:`Store.group_writes`), every :data:`~wason.store.db.GROUP_SECONDS` at least.

    Raises:
        RunBusy: another live process holds the run.
        LeaseLost: the lease was taken over while this process was playing it (it had stopped beating); the
            episodes it was playing are left for the new holder.
    """
    if lease is None:
        async with hold_run(store, run_id, lease_wait=lease_wait) as held:
            return await execute_run(
                store,
                run_id,
                make_player,
                concurrency=concurrency,
                on_result=on_result,
                oracle=oracle,
                lease=held,
                group_writes=group_writes,
            )
    if lease.run_id != run_id:
        raise ValueError(f"the lease given is run {lease.run_id}'s, not run {run_id}'s")
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
        if group_writes:
            results = await _grouped(
                store, run_jobs(jobs, store, concurrency=concurrency, on_result=on_result)
            )
        else:
            results = await run_jobs(jobs, store, concurrency=concurrency, on_result=on_result)
    except asyncio.CancelledError:
        if not lease.lost:  # taken over: the run is the new holder's now, its status too
            store.set_run_status(run_id, "interrupted")
        raise
    except BaseException:
        store.set_run_status(run_id, "interrupted")
        raise
    statuses = [e.status for e in store.list_episodes(run_id)]
    store.set_run_status(run_id, "completed" if all(s == "completed" for s in statuses) else "incomplete")
    return results


async def _grouped(store: Store, play: Awaitable[_R]) -> _R:
    """Await ``play`` with the store's writes grouped, written every :data:`GROUP_SECONDS` meanwhile."""

    async def flush_now_and_then() -> None:
        while True:
            await asyncio.sleep(GROUP_SECONDS)
            store.flush_writes()

    with store.group_writes():
        # What exists now (modules, items, hypothesis spaces) lives for the run: the collector need not scan it
        # again and again (its pauses took up to 150 ms at 256 episodes in flight); given back after the run.
        gc.freeze()
        flusher = asyncio.ensure_future(flush_now_and_then())
        try:
            return await play
        finally:
            gc.unfreeze()
            flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await flusher


async def _acquire(store: Store, run_id: int, owner: str, wait: float) -> None:
    deadline = time.monotonic() + wait
    while True:
        try:
            await asyncio.to_thread(store.acquire_lease, run_id, owner)
            return
        except RunBusy:
            if time.monotonic() >= deadline:
                raise
        await asyncio.sleep(min(1.0, max(0.05, deadline - time.monotonic())))


class _LeaseKeeper:
    """Beats a run's lease from its own thread (so a busy event loop cannot let it lapse); when the lease turns
    out to be taken over, cancels the task that plays the run."""

    def __init__(self, store: Store, run_id: int, owner: str, period: float = LEASE_TTL / 3) -> None:
        self.store, self.run_id, self.owner, self.period = store, run_id, owner, period
        self.lost = False
        self._stop = threading.Event()
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._thread = threading.Thread(target=self._beat, name=f"wason-lease-{run_id}", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)

    def _beat(self) -> None:
        while not self._stop.wait(self.period):
            try:
                held = self.store.heartbeat(self.run_id, self.owner)
            except Exception:  # the store is briefly unreachable: the next beat tries again
                continue
            if not held:
                self.lost = True
                if self._task is not None:
                    self._loop.call_soon_threadsafe(self._task.cancel)
                return
