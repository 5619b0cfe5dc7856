"""One owner per run: a lease with a heartbeat in the store, on SQLite and PostgreSQL."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from wason.store import RunBusy, Store
from wason.store.db import lease_alive, new_owner, runs


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    if request.param == "sqlite":
        return Store(f"sqlite:///{tmp_path / 'leases.db'}")
    make: Callable[[], str] = request.getfixturevalue("new_postgres_database")
    return Store(make())


def _run(store: Store) -> int:
    return store.create_run(task="toy", player="solver", model=None, config={}, items=[("a", {"x": 1})])


def _set_holder(store: Store, run_id: int, owner: str, beat: datetime | None) -> None:
    with store.engine.begin() as c:
        c.execute(runs.update().where(runs.c.id == run_id).values(owner=owner, heartbeat_at=beat))


def test_a_held_lease_refuses_a_second_owner_until_released(store: Store) -> None:
    run_id = _run(store)
    first, second = new_owner(), new_owner()
    store.acquire_lease(run_id, first)
    store.acquire_lease(run_id, first)  # the holder may take it again
    with pytest.raises(RunBusy, match=rf"run {run_id} is being worked on by process \d+ on "):
        store.acquire_lease(run_id, second)
    assert store.get_run(run_id).owner is not None
    store.release_lease(run_id, first)
    assert store.get_run(run_id).owner is None
    store.acquire_lease(run_id, second)
    assert store.heartbeat(run_id, second) and not store.heartbeat(run_id, first)


def test_of_many_racing_owners_exactly_one_wins(store: Store) -> None:
    run_id = _run(store)
    won: list[str] = []
    refused: list[str] = []
    start = threading.Barrier(8)

    def contend() -> None:
        owner = new_owner()
        start.wait()
        try:
            store.acquire_lease(run_id, owner)
            won.append(owner)
        except RunBusy:
            refused.append(owner)

    threads = [threading.Thread(target=contend) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1 and len(refused) == 7


def test_a_stale_heartbeat_frees_the_lease_and_the_old_owner_learns_it_lost(store: Store) -> None:
    run_id = _run(store)
    elsewhere = "another-host:4242:abcd"  # a process on another machine: only its heartbeat tells
    _set_holder(store, run_id, elsewhere, datetime.now(UTC))
    with pytest.raises(RunBusy, match="process 4242 on another-host"):
        store.acquire_lease(run_id, new_owner())
    _set_holder(store, run_id, elsewhere, datetime.now(UTC) - timedelta(seconds=120))
    assert store.get_run(run_id).status == "interrupted"  # running, but nobody is: shown as what it is
    mine = new_owner()
    store.acquire_lease(run_id, mine)
    assert not store.heartbeat(run_id, elsewhere)
    assert store.get_run(run_id).status == "running"


def test_a_dead_process_on_this_machine_frees_the_lease_at_once(store: Store) -> None:
    run_id = _run(store)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    dead_owner = new_owner().split(":")[0] + f":{int(gone.stdout)}:dead"
    _set_holder(store, run_id, dead_owner, datetime.now(UTC))  # a fresh heartbeat, but its process is gone
    assert not lease_alive(dead_owner, datetime.now(UTC), 30.0)
    store.acquire_lease(run_id, new_owner())


def test_a_run_made_for_a_sweep_cell_is_found_again(store: Store) -> None:
    first = store.create_run(task="toy", player="solver", model=None, config={}, sweep="s", cell="c1")
    assert store.find_cell("s", "c1") == first and store.find_cell("s", "c2") is None
    with pytest.raises(Exception, match="already has a run for cell"):
        store.create_run(task="toy", player="solver", model=None, config={}, sweep="s", cell="c1")
    # runs outside sweeps never collide
    store.create_run(task="toy", player="solver", model=None, config={})
    store.create_run(task="toy", player="solver", model=None, config={})
    assert len(store.list_runs()) == 3
