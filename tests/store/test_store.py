"""The store on SQLite (default) and on PostgreSQL (a throwaway server, when this machine has one)."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import FakeModel
from wason.evaluation import WiltRunConfig, create_run, execute_run, llm_player_factory
from wason.models.client import ModelClient
from wason.store import Store, StoreError, resolve_url


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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    pytest.importorskip("psycopg")
    initdb, pg_ctl = shutil.which("initdb"), shutil.which("pg_ctl")
    if not (initdb and pg_ctl):
        pytest.skip("no PostgreSQL server binaries on this machine")
    as_postgres: list[str] = []
    if os.geteuid() == 0:  # PostgreSQL refuses to run as root
        runuser = shutil.which("runuser")
        if runuser is None or subprocess.run(["id", "postgres"], capture_output=True).returncode != 0:
            pytest.skip("running as root without a postgres user")
        as_postgres = [runuser, "-u", "postgres", "--"]
    root = Path(tempfile.mkdtemp(prefix="wason-pg-"))
    root.chmod(0o777)
    data, port = root / "data", _free_port()
    run = lambda *cmd: subprocess.run([*as_postgres, *cmd], check=True, capture_output=True, timeout=120)  # noqa: E731
    run(initdb, "-D", str(data), "-A", "trust", "-U", "postgres")
    run(
        pg_ctl,
        "-D",
        str(data),
        "-o",
        f"-p {port} -k {root} -h 127.0.0.1",
        "-l",
        str(root / "log"),
        "-w",
        "start",
    )
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(
            [*as_postgres, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True
        )
        time.sleep(0.2)
        shutil.rmtree(root, ignore_errors=True)


async def test_postgres_store(postgres_url: str) -> None:
    await _exercise(postgres_url)
