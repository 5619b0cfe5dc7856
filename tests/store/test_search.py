"""Search across transcripts and the episode table's filters, in the database: SQLite (FTS5 kept in step by
triggers) and PostgreSQL (GIN indexes on to_tsvector), with hostile search text."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from wason.store import Store
from wason.store.search import MAX_QUERY_CHARS, PG_TURN_DOC, check_query, fts5_query

OVER = ("completed", "errored")


def _fill(store: Store) -> dict[str, int]:
    """A run of six episodes: replies with distinctive words, an errored one, a truncated one, one not over."""
    run = store.create_run(
        task="wilt",
        player="llm",
        model="m",
        config={},
        items=[(f"rule-{i}", {"rule": f"r{i}"}) for i in range(6)],
    )
    eps = store.list_episodes(run)
    ids = {f"e{e.index}": e.id for e in eps}
    for e in eps[:5]:
        store.start_episode(e.id)
    # e0: a reply holding "zanzibar", succeeded after 3 turns
    for i in range(3):
        reply = "I test (1, 2, 3) zanzibar" if i == 1 else f"I test ({i}, {i}, {i})"
        store.add_turn(ids["e0"], i, action={"type": "T"}, observation={}, reply=reply, feedback="True")
    store.finish_episode(ids["e0"], status="completed", success=True, metrics={})
    # e1: errored, its call's reply holds "quokka"; the feedback holds "Mumbai"
    store.add_turn(
        ids["e1"], 0, action={"type": "T"}, observation={}, reply="hello", feedback="Mumbai said no"
    )
    store.record_call(
        {
            "run_id": run,
            "episode_id": ids["e1"],
            "turn": 0,
            "model": "m",
            "endpoint": "e",
            "messages": [{"role": "system", "content": "the rule is secret\nline two"}],
            "params": {},
            "response": "a quokka answers",
            "finish_reason": "stop",
            "input_tokens": 10,
            "output_tokens": 5,
            "latency_s": 0.1,
            "attempts": 3,
            "cached": False,
        }
    )
    store.finish_episode(ids["e1"], status="errored", error="endpoint failed after 3 attempts")
    # e2: a reply cut off at the token limit
    store.add_turn(ids["e2"], 0, action={"type": "Malformed"}, observation={}, reply="cut", feedback=None)
    store.record_call(
        {
            "run_id": run,
            "episode_id": ids["e2"],
            "turn": 0,
            "model": "m",
            "endpoint": "e",
            "messages": [],
            "params": {},
            "response": "cut",
            "finish_reason": "length",
            "input_tokens": 7,
            "output_tokens": 100,
            "latency_s": 0.1,
            "attempts": 1,
            "cached": False,
        }
    )
    store.finish_episode(ids["e2"], status="completed", success=False, metrics={})
    store.finish_episode(ids["e3"], status="completed", success=False, metrics={})
    store.finish_episode(ids["e4"], status="completed", success=True, metrics={})
    # e5 is still to play: a call of it holds a secret word (a judge's prompt)
    store.start_episode(ids["e5"])
    store.add_turn(ids["e5"], 0, action={"type": "T"}, observation={}, reply="ongoing move", feedback="ok")
    store.record_call(
        {
            "run_id": run,
            "episode_id": ids["e5"],
            "turn": 0,
            "model": "judge",
            "endpoint": "e",
            "messages": [{"role": "user", "content": "the hidden rule is pangolin"}],
            "params": {},
            "response": "yes",
            "attempts": 1,
            "cached": False,
        }
    )
    return {"run": run, **ids}


def _indexes(rows: list[dict[str, object]]) -> list[object]:
    return [r["index"] for r in rows]


def _exercise(store: Store) -> None:
    ids = _fill(store)
    run = ids["run"]

    def table(**kw: object) -> list[object]:
        return _indexes(store.episode_table(run, reveal=OVER, **kw))  # type: ignore[arg-type]

    all_rows = store.episode_table(run, reveal=OVER)
    assert _indexes(all_rows) == [0, 1, 2, 3, 4, 5]
    by = {r["index"]: r for r in all_rows}
    assert by[0]["turns"] == 3 and by[1]["calls"] == 1 and by[1]["input_tokens"] == 10
    assert by[2]["truncated"] == 1 and by[0]["truncated"] == 0
    # filters
    assert table(errored=True) == [1]
    assert table(errored=False) == [0, 2, 3, 4, 5]
    assert table(success=True) == [0, 4]
    assert table(success=False) == [2, 3]
    assert table(statuses=["errored"]) == [1]
    assert table(statuses=["running", "pending"]) == [5]
    assert table(truncated=True) == [2]
    assert table(min_turns=2) == [0]
    assert table(max_turns=0) == [3, 4]
    assert table(min_turns=1, max_turns=1) == [1, 2, 5]
    assert table(item="RULE-1") == [1]
    assert table(item="rule-5") == []  # a game not over keeps its item key out of the filter
    assert table(item="%") == [] and table(item="_") == []  # LIKE's wildcards are plain text
    # search: a reply, feedback, a call's reply, a call's message content (its newline does not join words)
    assert table(text="zanzibar") == [0]
    assert table(text="ZANZIBAR test") == [0]
    assert table(text="mumbai") == [1]
    assert table(text="quokka") == [1]
    assert table(text="line two") == [1] and table(text="secret") == [1]
    assert table(text="zanzibar quokka") == []  # every word in one turn or one call
    assert table(text="ongoing") == [5]  # the turns of a game under way are shown on its page
    assert table(text="pangolin") == []  # its calls are not, until it is over
    hit = store.episode_table(run, reveal=OVER, text="zanzibar")[0]["hit"]
    assert hit.turn == 1 and not hit.in_call
    # search text that is query syntax elsewhere is searched as words and never fails
    for hostile in [
        '"',
        'zanzibar"',
        "NEAR(a b)",
        "a OR b",
        "*",
        "col:x",
        "^zanzibar",
        "(",
        "AND",
        "-x",
        "'",
        "\\",
    ]:
        assert table(text=check_query(hostile)) in ([], [0]), hostile
    assert table(text="zanzibar*") == [0] or table(text="zanzibar*") == []
    for bad in ("", "a\x00b", "x" * 201):  # what cannot be searched is a ValueError, never a database error
        with pytest.raises(ValueError):
            store.episode_table(run, reveal=OVER, text=bad)
        with pytest.raises(ValueError):
            store.search(bad, reveal=OVER)
    # the whole store, and combined with other filters
    found = store.search("quokka", reveal=OVER)
    assert [(r["run_id"], r["index"]) for r in found] == [(run, 1)]
    assert store.search("pangolin", reveal=OVER) == []
    assert table(text="test", success=True) == [0]
    # the index follows deletes and replays: a restarted episode's turns are gone from it
    store.start_episode(ids["e0"])
    assert table(text="zanzibar") == []
    store.delete_run(run)
    assert store.search("quokka", reveal=OVER) == []


def test_check_query_refuses_what_cannot_be_searched() -> None:
    assert check_query("  word ") == "word"
    for bad, says in [
        ("", "give a word"),
        ("   ", "give a word"),
        ("x" * (MAX_QUERY_CHARS + 1), f"at most {MAX_QUERY_CHARS} characters"),
        ("a\x00b", "control character"),
        (" ".join("w" * 13), "at most 12 words"),
    ]:
        with pytest.raises(ValueError, match=says):
            check_query(bad)
    assert fts5_query('say "hi" NEAR(x)') == '"say" """hi""" "NEAR(x)"'


@pytest.fixture
def sqlite_store(tmp_path: Path) -> Iterator[Store]:
    store = Store(f"sqlite:///{tmp_path / 'search.db'}")
    yield store
    store.close()


def test_search_and_filters_on_sqlite(sqlite_store: Store, tmp_path: Path) -> None:
    _exercise(sqlite_store)
    with sqlite3.connect(tmp_path / "search.db") as c:
        tables = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE sql LIKE '%fts5%'")}
    assert tables == {"search_turns", "search_calls"}


def test_without_fts5_the_search_reads_the_columns_in_the_database(sqlite_store: Store) -> None:
    """A SQLite built without FTS5 gets no index tables (the migration skips them): LIKE, in SQL, finds the same."""
    from wason.store.search import drop_statements

    with sqlite_store.engine.begin() as c:
        for statement in drop_statements(c):
            c.exec_driver_sql(statement)
    _exercise(sqlite_store)


def test_search_uses_the_fts_index_on_sqlite(sqlite_store: Store) -> None:
    with sqlite_store.engine.connect() as c:
        plan = " ".join(
            str(r[-1])
            for r in c.exec_driver_sql(
                "EXPLAIN QUERY PLAN SELECT rowid FROM search_turns WHERE search_turns MATCH '\"x\"'"
            )
        )
    assert "VIRTUAL TABLE INDEX" in plan


def test_an_existing_store_is_indexed_by_the_migration(tmp_path: Path) -> None:
    """A store written before the search existed (revision 0005) finds its old transcripts once migrated."""
    from alembic import command

    from wason.store.schema import alembic_config

    path = tmp_path / "old.db"
    url = f"sqlite:///{path}"
    store = Store(url)
    ids = _fill(store)
    store.close()
    engine = sa.create_engine(url)
    with engine.begin() as c:
        command.downgrade(alembic_config(c), "0005")
    engine.dispose()
    with sqlite3.connect(path) as c:
        assert not c.execute("SELECT name FROM sqlite_master WHERE name = 'search_turns'").fetchall()
    store = Store(url)  # migrates to the newest revision, indexing what is there
    rows = store.episode_table(ids["run"], reveal=OVER, text="zanzibar")
    assert [r["index"] for r in rows] == [0]
    assert [r["index"] for r in store.episode_table(ids["run"], reveal=OVER, text="quokka")] == [1]
    store.close()


def test_search_and_filters_on_postgres(new_postgres_database: Callable[[], str]) -> None:
    store = Store(new_postgres_database())
    try:
        _exercise(store)
        with store.engine.connect() as c:
            c.exec_driver_sql("SET enable_seqscan = off")
            plan = " ".join(
                str(r[0])
                for r in c.exec_driver_sql(
                    f"EXPLAIN SELECT id FROM turns WHERE {PG_TURN_DOC} @@ plainto_tsquery('simple'::regconfig, 'x')"
                )
            )
        assert "ix_turns_search" in plan
    finally:
        store.close()
