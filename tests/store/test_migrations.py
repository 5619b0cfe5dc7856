"""The store's schema migrations: old stores are upgraded in place, fresh ones built by the migrations, newer ones
refused, and concurrent first opens are safe (SQLite, and PostgreSQL when this machine has a server)."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory

from wason.store import Store, StoreError
from wason.store.db import SCHEMA_VERSION, metadata
from wason.store.schema import BASELINE, UNVERSIONED_TABLES, VERSION_TABLE, alembic_config
from wason.store.search import is_search_object

FIXTURE = Path(__file__).parent / "data" / "wason-0.1.0.db"


def _sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


def _revision(url: str) -> list[str]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as c:
            return list(c.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars())
    finally:
        engine.dispose()


def _migrate(url: str, step: Callable[[Any], None]) -> None:
    """Run one Alembic command (e.g. an upgrade to one revision) on ``url`` directly, without a Store."""
    engine = sa.create_engine(url)
    try:
        with engine.begin() as c:
            step(alembic_config(c))
    finally:
        engine.dispose()


def _schema_diff(url: str) -> list[Any]:
    """What differs between the database's schema and the tables in wason.store.db."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as c:
            # the search's index (FTS5 tables, PostgreSQL's GIN indexes on expressions) is built by SQL of its
            # own, outside the tables' metadata: test_search.py checks it
            context = MigrationContext.configure(
                c, opts={"include_name": lambda name, _type, _parent: not is_search_object(str(name))}
            )
            return list(compare_metadata(context, metadata))
    finally:
        engine.dispose()


def _sqlite_schema(path: Path) -> set[tuple[str, str, str | None]]:
    with sqlite3.connect(path) as c:
        rows = c.execute("SELECT type, name, sql FROM sqlite_master").fetchall()
    return {(t, n, sql) for t, n, sql in rows}


def _counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as c:
        return {t: c.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in sorted(UNVERSIONED_TABLES)}


@pytest.fixture
def old_store(tmp_path: Path) -> Path:
    """A copy of a store written by release 0.1.0 (never open the fixture itself: opening migrates it)."""
    path = tmp_path / "wason-0.1.0.db"
    shutil.copyfile(FIXTURE, path)
    return path


def test_schema_version_is_the_newest_revision() -> None:
    assert ScriptDirectory.from_config(alembic_config()).get_current_head() == SCHEMA_VERSION


def test_a_release_0_1_0_store_is_migrated_keeping_its_data(old_store: Path) -> None:
    before = _counts(old_store)
    with sqlite3.connect(old_store) as c:
        assert VERSION_TABLE not in {r[0] for r in c.execute("SELECT name FROM sqlite_master")}
        tasks = {r[0] for r in c.execute("SELECT task FROM runs")}
    assert {"wilt", "lists", "aiw"} <= tasks  # what the fixture is for: runs of three families

    store = Store(_sqlite_url(old_store))
    assert _revision(_sqlite_url(old_store)) == [SCHEMA_VERSION]
    with sqlite3.connect(old_store) as c:
        assert "oracle" in {r[1] for r in c.execute("PRAGMA table_info(turns)")}
    assert _counts(old_store) == before
    assert _schema_diff(_sqlite_url(old_store)) == []

    runs = store.list_runs()
    assert {r.task for r in runs} == tasks and len(runs) == before["runs"]
    episodes = [e for r in runs for e in store.list_episodes(r.id)]
    assert len(episodes) == before["episodes"]
    turns = [t for e in episodes for t in store.list_turns(e.id)]
    assert len(turns) == before["turns"]
    assert all(t["oracle"] is None and t["action"] for t in turns)
    assert sum(store.call_totals(r.id)["calls"] for r in runs) == before["model_calls"]
    store.close()


def test_the_baseline_revision_builds_release_0_1_0s_schema(tmp_path: Path) -> None:
    fresh = tmp_path / "baseline.db"
    _migrate(_sqlite_url(fresh), lambda cfg: command.upgrade(cfg, BASELINE))
    with sqlite3.connect(fresh) as c:
        c.execute(f"DROP TABLE {VERSION_TABLE}")
    assert _sqlite_schema(fresh) == _sqlite_schema(FIXTURE)


def test_a_migrated_old_store_and_a_fresh_store_have_one_schema(old_store: Path, tmp_path: Path) -> None:
    Store(_sqlite_url(old_store)).close()
    Store(_sqlite_url(tmp_path / "fresh.db")).close()
    assert _sqlite_schema(old_store) == _sqlite_schema(tmp_path / "fresh.db")
    assert _schema_diff(_sqlite_url(tmp_path / "fresh.db")) == []


def test_a_turn_keeps_its_oracle(tmp_path: Path) -> None:
    store = Store(_sqlite_url(tmp_path / "w.db"))
    run = store.create_run(task="t", player="p", model=None, config={})
    store.add_episodes(run, [("k", {})])
    (episode,) = store.list_episodes(run)
    labels = {"labeller": "judge", "labels": [True, False]}
    store.add_turn(
        episode.id, 0, action={"a": 1}, observation={"o": 1}, reply=None, feedback=None, oracle=labels
    )
    store.add_turn(episode.id, 1, action={"a": 2}, observation={"o": 2}, reply=None, feedback=None)
    assert [t["oracle"] for t in store.list_turns(episode.id)] == [labels, None]
    store.close()


@pytest.fixture
def statements() -> Iterator[list[str]]:
    """Every SQL statement any engine runs while the test runs."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        seen.append(statement)

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", record)


def test_a_store_at_the_newest_revision_opens_without_ddl(tmp_path: Path, statements: list[str]) -> None:
    url = _sqlite_url(tmp_path / "w.db")
    Store(url).close()
    assert any(s.lstrip().upper().startswith("CREATE TABLE") for s in statements)
    statements.clear()
    Store(url).close()
    assert statements, "the listener saw nothing"
    writes = ("CREATE", "ALTER", "DROP", "INSERT", "UPDATE", "DELETE", "BEGIN")
    assert [s for s in statements if s.lstrip().upper().startswith(writes)] == []


def test_opening_a_store_at_the_newest_revision_does_not_import_alembic(tmp_path: Path) -> None:
    url = _sqlite_url(tmp_path / "w.db")
    Store(url).close()
    code = "import sys; from wason.store import Store; Store(sys.argv[1]).close(); print('alembic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code, url], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_store_from_a_newer_wason_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    Store(_sqlite_url(path)).close()
    with sqlite3.connect(path) as c:
        c.execute(f"UPDATE {VERSION_TABLE} SET version_num = '9999'")
    with pytest.raises(StoreError, match="this wason is older than the store") as err:
        Store(_sqlite_url(path))
    assert "\n" not in str(err.value) and "9999" in str(err.value)
    assert _revision(_sqlite_url(path)) == ["9999"]


def test_a_failed_migration_is_one_line_and_leaves_the_store_as_it_was(old_store: Path) -> None:
    with sqlite3.connect(old_store) as c:  # a column in the way of revision 0002
        c.execute("ALTER TABLE turns ADD COLUMN oracle TEXT")
    before = _sqlite_schema(old_store)
    with pytest.raises(StoreError, match=r"cannot migrate store .* to schema revision") as err:
        Store(_sqlite_url(old_store))
    assert "\n" not in str(err.value) and "oracle" in str(err.value)
    # the stamp at the baseline was rolled back with the failed step: the store is still unversioned
    assert _sqlite_schema(old_store) == before


def test_a_store_with_two_turns_of_one_index_is_not_migrated_past_them(old_store: Path) -> None:
    with sqlite3.connect(old_store) as c:  # revision 0003 makes (episode, index) unique
        c.execute(
            'INSERT INTO turns (episode_id, "index", action, observation, created_at) '
            'SELECT episode_id, "index", action, observation, created_at FROM turns LIMIT 1'
        )
    before = _sqlite_schema(old_store)
    with pytest.raises(StoreError, match="two turns numbered") as err:
        Store(_sqlite_url(old_store))
    assert "\n" not in str(err.value)
    assert _sqlite_schema(old_store) == before  # 0001 and 0002 were rolled back with it


def test_a_database_with_part_of_wasons_tables_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "w.db"
    with sqlite3.connect(path) as c:
        c.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY)")
    with pytest.raises(StoreError, match="some of wason's tables") as err:
        Store(_sqlite_url(path))
    assert "\n" not in str(err.value)


def test_downgrades_undo_the_upgrades(tmp_path: Path) -> None:
    url = _sqlite_url(tmp_path / "w.db")
    Store(url).close()
    _migrate(url, lambda cfg: command.downgrade(cfg, BASELINE))
    assert _revision(url) == [BASELINE]
    Store(url).close()  # and the store upgrades again on open
    assert _schema_diff(url) == []
    _migrate(url, lambda cfg: command.downgrade(cfg, "base"))
    engine = sa.create_engine(url)
    assert set(sa.inspect(engine).get_table_names()) == {VERSION_TABLE}
    engine.dispose()


# Each process imports wason once, then for each round says it is ready and waits for the round's go file, so
# that in every round all of them open that round's store within about a millisecond of each other.
_OPEN_AT_ONCE = """
import pathlib, sys, time
from wason.store import Store
where, me, urls = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
failed = False
for round_, url in enumerate(urls):
    (where / f"ready-{round_}-{me}").touch()
    while not (where / f"go-{round_}").exists():
        time.sleep(0.0005)
    try:
        Store(url).close()
    except Exception as exc:
        failed = True
        print(f"round {round_}: {type(exc).__name__}: {exc}", file=sys.stderr)
sys.exit(1 if failed else 0)
"""


def _open_at_once(urls: list[str], where: Path, processes: int = 3) -> None:
    """Open each store in turn from ``processes`` processes at the same moment; all must succeed."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _OPEN_AT_ONCE, str(where), str(i), *urls],
            cwd=where,  # nothing of the migrations is read from the working directory
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(processes)
    ]
    try:
        for round_ in range(len(urls)):
            deadline = time.monotonic() + 120
            ready = [where / f"ready-{round_}-{i}" for i in range(processes)]
            while not all(r.exists() for r in ready):
                if time.monotonic() > deadline or any(p.poll() is not None for p in procs):
                    break
                time.sleep(0.002)
            (where / f"go-{round_}").touch()
        errors = [p.communicate(timeout=120)[1].strip() for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    assert [p.returncode for p in procs] == [0] * processes, errors


def test_processes_opening_one_fresh_sqlite_store_at_once_all_succeed(tmp_path: Path) -> None:
    urls = [_sqlite_url(tmp_path / f"round-{r}.db") for r in range(5)]
    _open_at_once(urls, tmp_path)
    for url in urls:
        assert _revision(url) == [SCHEMA_VERSION]
        assert _schema_diff(url) == []


def test_processes_opening_one_release_0_1_0_store_at_once_all_succeed(tmp_path: Path) -> None:
    paths = [tmp_path / f"round-{r}.db" for r in range(3)]
    for path in paths:
        shutil.copyfile(FIXTURE, path)
    before = _counts(FIXTURE)
    _open_at_once([_sqlite_url(p) for p in paths], tmp_path)
    for path in paths:
        assert _revision(_sqlite_url(path)) == [SCHEMA_VERSION]
        assert _counts(path) == before


# PostgreSQL ----------------------------------------------------------------------------------------------------
def test_postgres_store_is_built_by_the_migrations(new_postgres_database: Callable[[], str]) -> None:
    url = new_postgres_database()
    store = Store(url)
    assert _revision(url) == [SCHEMA_VERSION]
    assert _schema_diff(url) == []
    run = store.create_run(task="t", player="p", model=None, config={})
    store.add_episodes(run, [("k", {})])
    (episode,) = store.list_episodes(run)
    store.add_turn(episode.id, 0, action={}, observation={}, reply=None, feedback=None, oracle={"x": [1]})
    assert [t["oracle"] for t in store.list_turns(episode.id)] == [{"x": [1]}]
    store.close()


def test_postgres_store_of_release_0_1_0_is_migrated(new_postgres_database: Callable[[], str]) -> None:
    url = new_postgres_database()
    # release 0.1.0's schema: the baseline's tables, without a version table
    _migrate(url, lambda cfg: command.upgrade(cfg, BASELINE))
    engine = sa.create_engine(url)
    with engine.begin() as c:
        c.exec_driver_sql(f"DROP TABLE {VERSION_TABLE}")
        c.exec_driver_sql(
            "INSERT INTO runs (task, player, config, status, created_at) "
            "VALUES ('wilt', 'solver', '{}', 'completed', now())"
        )
    engine.dispose()
    store = Store(url)
    assert _revision(url) == [SCHEMA_VERSION]
    assert _schema_diff(url) == []
    assert [(r.task, r.player) for r in store.list_runs()] == [("wilt", "solver")]
    store.close()


def test_postgres_store_from_a_newer_wason_is_refused(new_postgres_database: Callable[[], str]) -> None:
    url = new_postgres_database()
    Store(url).close()
    engine = sa.create_engine(url)
    with engine.begin() as c:
        c.exec_driver_sql(f"UPDATE {VERSION_TABLE} SET version_num = '9999'")
    engine.dispose()
    with pytest.raises(StoreError, match="this wason is older than the store"):
        Store(url)


def test_processes_opening_one_fresh_postgres_store_at_once_all_succeed(
    new_postgres_database: Callable[[], str], tmp_path: Path
) -> None:
    urls = [new_postgres_database() for _ in range(5)]
    _open_at_once(urls, tmp_path)
    for url in urls:
        assert _revision(url) == [SCHEMA_VERSION]


def test_an_unreachable_postgres_server_is_a_one_line_error() -> None:
    pytest.importorskip("psycopg")
    with pytest.raises(StoreError, match="cannot open store") as err:
        Store("postgresql+psycopg://nobody:secret@127.0.0.1:1/nothing")
    assert "\n" not in str(err.value) and "secret" not in str(err.value)


def _call(store: Store, parent: int | None, messages: list[dict[str, str]], reply: str) -> int:
    return store.record_call(
        {"run_id": 1, "episode_id": 1, "turn": 0, "model": "m", "endpoint": "e", "messages": messages,
         "parent_id": parent, "params": {}, "response": reply, "attempts": 1, "cached": False,
         "cache_key": f"key-{reply}"}
    )  # fmt: skip


def test_downgrading_0004_writes_conversations_back_whole_and_keeps_the_cache(tmp_path: Path) -> None:
    url = _sqlite_url(tmp_path / "calls.db")
    store = Store(url)
    system, user = {"role": "system", "content": "rules"}, {"role": "user", "content": "go"}
    first = _call(store, None, [system], "a")
    _call(store, first, [{"role": "assistant", "content": "a"}, user], "b")
    assert [len(c["messages"]) for c in store.list_calls()] == [1, 3]
    store.close()
    _migrate(url, lambda cfg: command.downgrade(cfg, "0003"))
    engine = sa.create_engine(url)
    with engine.connect() as c:
        stored = [r[0] for r in c.execute(sa.text("SELECT messages FROM model_calls ORDER BY id"))]
        cached = {r[0] for r in c.execute(sa.text("SELECT key FROM call_cache"))}
    engine.dispose()
    assert [len(json.loads(m)) for m in stored] == [1, 3]
    assert cached == {"key-a", "key-b"}  # the older code reads replies only from call_cache


def test_a_reply_cached_by_release_0_1_0_is_still_served(old_store: Path) -> None:
    with sqlite3.connect(old_store) as db:
        key, response = db.execute("SELECT key, response FROM call_cache LIMIT 1").fetchone()
    expected = json.loads(response)
    store = Store(_sqlite_url(old_store))
    hit = store.cache_get(key)  # from the call that made it
    assert hit is not None and (hit["text"], hit["output_tokens"]) == (
        expected["text"],
        expected["output_tokens"],
    )
    with store.engine.begin() as c:
        c.execute(sa.text("DELETE FROM model_calls"))
    assert store.cache_get(key) == expected  # and from the old cache table alone


def _runs_at_0006(url: str) -> None:
    """A store at revision 0006 with a model run (1), its two baselines (2 and 4, the first completed) and an
    unrelated run (3) whose configuration holds a flag, not a run id, as ``baseline_for``."""
    _migrate(url, lambda cfg: command.upgrade(cfg, "0006"))
    engine = sa.create_engine(url)
    runs = sa.table(
        "runs", sa.column("task"), sa.column("player"), sa.column("config", sa.JSON), sa.column("status"),
        sa.column("created_at", sa.DateTime(timezone=True)),
    )  # fmt: skip
    configs = [({}, "completed"), ({"baseline_for": 1}, "completed"), ({"baseline_for": True}, "completed"),
               ({"baseline_for": 1}, "running")]  # fmt: skip
    with engine.begin() as c:
        for config, status in configs:
            c.execute(
                runs.insert().values(
                    task="wilt", player="solver", config=config, status=status, created_at=datetime.now(UTC)
                )
            )
    engine.dispose()


def _check_baselines_column(url: str) -> None:
    store = Store(url)
    assert _revision(url) == [SCHEMA_VERSION]
    assert _schema_diff(url) == []
    assert store.baselines_of(1) == [2, 4]
    assert store.baselines_of(1, completed_only=True) == [2]
    assert store.baselines_of(3) == []
    assert store.get_run(2).config == {"baseline_for": 1}  # the configuration is kept as it was
    made = store.create_run(task="wilt", player="solver", model=None, config={"baseline_for": 3})
    assert store.baselines_of(3) == [made]
    store.close()


def test_0007_fills_the_baseline_column_from_the_stored_configurations(tmp_path: Path) -> None:
    url = _sqlite_url(tmp_path / "baselines.db")
    _runs_at_0006(url)
    _check_baselines_column(url)
    _migrate(url, lambda cfg: command.downgrade(cfg, "0006"))
    engine = sa.create_engine(url)
    with engine.connect() as c:
        assert "baseline_for" not in {col["name"] for col in sa.inspect(c).get_columns("runs")}
    engine.dispose()


def test_postgres_0007_fills_the_baseline_column(new_postgres_database: Callable[[], str]) -> None:
    url = new_postgres_database()
    _runs_at_0006(url)
    _check_baselines_column(url)
