"""The store on SQLite (default) and on PostgreSQL (a throwaway server, when this machine has one)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FakeModel
from wason.engine import create_run, execute_run, llm_player_factory
from wason.models.client import ModelClient
from wason.store import Store, StoreError, resolve_url
from wason.tasks.wilt import WiltRunConfig


def test_url_resolution(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WASON_DB", raising=False)
    assert resolve_url(None) == "sqlite:///wason.db"
    assert resolve_url("runs/x.db") == "sqlite:///runs/x.db"
    monkeypatch.setenv("WASON_DB", "postgresql+psycopg://u@h/db")
    assert resolve_url(None) == "postgresql+psycopg://u@h/db"
    assert resolve_url("sqlite:////tmp/a.db") == "sqlite:////tmp/a.db"


def test_bad_urls_are_one_line_errors(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="cannot open store"):
        Store("nosuchdialect://x/y")
    with pytest.raises(StoreError, match="cannot open store"):
        Store(f"sqlite:///{tmp_path}/missing-dir/x.db")


async def _exercise(url: str) -> None:
    store = Store(url)
    cfg = WiltRunConfig(model="fake:scripted", split="lite", ids=[1, 2, 3])
    rid = create_run(store, cfg)
    model = FakeModel()
    client = ModelClient(model=model, store=store)
    await execute_run(store, rid, llm_player_factory(client, cfg, rid), concurrency=3)
    eps = store.list_episodes(rid)
    assert [e.status for e in eps] == ["completed"] * 3
    assert [e.success for e in eps] == [False, True, False]
    assert all(len(store.list_turns(e.id)) == 5 for e in eps)
    totals = store.call_totals(rid)
    assert totals["calls"] == 15 and totals["cached_calls"] == 0 and totals["output_tokens"] > 0
    # a second run of the same configuration is answered from the cache in the store
    rid2 = create_run(store, cfg)
    await execute_run(store, rid2, llm_player_factory(client, cfg, rid2), concurrency=3)
    assert store.call_totals(rid2)["cached_calls"] == 15 and model.calls == 15
    assert [r.id for r in store.list_runs()][-2:] == [rid, rid2]
    assert store.get_run(rid2).status == "completed"
    store.close()


async def test_sqlite_store(tmp_path: Path) -> None:
    await _exercise(f"sqlite:///{tmp_path / 'w.db'}")


async def test_postgres_store(postgres_url: str) -> None:
    # the server comes from tests/store/conftest.py, shared with test_migrations.py
    await _exercise(postgres_url)


def test_an_id_beyond_the_id_columns_names_nothing(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'ids.db'}")
    for huge in (2**31, 2**63, 10**26, -(2**63) - 1):
        for lookup in (store.get_run, store.get_episode, store.delete_run):
            with pytest.raises(StoreError, match=f"no (run|session or episode) {huge} in"):
                lookup(huge)
        with pytest.raises(StoreError, match=f"no run {huge} in"):
            store.acquire_lease(huge, "me")
