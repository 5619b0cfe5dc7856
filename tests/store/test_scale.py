"""A store that scales: showing runs reads them and their baselines by index, never every run of the store
(issue 39). Checked on SQLite's query plans (no statement scans the runs table) and on the statements run (as many
for a store of 3 runs as for one of 60), so a report's cost does not grow with the runs it does not show."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa

from wason.cli import main
from wason.engine import baselines_of
from wason.store import Store


@pytest.fixture
def statements() -> Iterator[list[tuple[str, Any]]]:
    """Every SQL statement (with its parameters) any engine runs while the test runs."""
    seen: list[tuple[str, Any]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any, many: bool) -> None:
        if not many:
            seen.append((statement, parameters))

    sa.event.listen(sa.engine.Engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        sa.event.remove(sa.engine.Engine, "before_cursor_execute", record)


def _store(path: Path, unrelated: int) -> tuple[str, int, int]:
    """A store with a solver run, a baseline made for it, and ``unrelated`` other runs; its URL and the ids."""
    url = f"sqlite:///{path}"
    assert main(["eval", "wilt", "--split", "lite", "--ids", "1", "--player", "solver", "--db", url]) == 0
    store = Store(url)
    (run,) = store.list_runs()
    baseline = store.create_run(
        task=run.task, player="solver", model=None, config={**run.config, "baseline_for": run.id}
    )
    store.set_run_status(baseline, "completed")
    for _ in range(unrelated):
        store.create_run(
            task=run.task, player="solver", model=None, config={**run.config, "baseline_for": 999}
        )
    store.close()
    return url, run.id, baseline


def _scans_of_runs(path: Path, seen: list[tuple[str, Any]]) -> list[str]:
    """The statements that read the whole runs table (SQLite's plan says ``SCAN runs``)."""
    scans = []
    with sqlite3.connect(path) as db:
        for statement, parameters in seen:
            if not statement.lstrip().upper().startswith("SELECT") or "runs" not in statement:
                continue
            plan = db.execute(f"EXPLAIN QUERY PLAN {statement}", parameters or ()).fetchall()
            if any(
                str(step[-1]).split(" USING")[0].strip() in ("SCAN runs", "SCAN TABLE runs") for step in plan
            ):
                scans.append(statement)
    return scans


def test_a_runs_baselines_are_found_by_index(tmp_path: Path, statements: list[tuple[str, Any]]) -> None:
    url, run_id, baseline = _store(tmp_path / "w.db", unrelated=3)
    store = Store(url)
    statements.clear()
    assert baselines_of(store, run_id) == [baseline]
    assert baselines_of(store, run_id, completed_only=True) == [baseline]
    assert baselines_of(store, baseline) == []
    assert statements, "the listener saw nothing"
    assert _scans_of_runs(tmp_path / "w.db", statements) == []
    store.close()


def _show(
    path: Path, unrelated: int, seen: list[tuple[str, Any]], capsys: pytest.CaptureFixture[str]
) -> list[str]:
    url, run_id, _baseline = _store(path, unrelated)
    seen.clear()
    assert main(["show", str(run_id), "--db", url, "--format", "markdown"]) == 0
    assert "solver" in capsys.readouterr().out
    return [s for s, _ in seen]


def test_show_reads_no_run_it_does_not_show(
    tmp_path: Path, statements: list[tuple[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    few = _show(tmp_path / "few.db", 2, statements, capsys)
    assert _scans_of_runs(tmp_path / "few.db", statements) == []
    many = _show(tmp_path / "many.db", 60, statements, capsys)
    assert _scans_of_runs(tmp_path / "many.db", statements) == []
    assert len(many) == len(few)  # no statement per stored run


def _streamed(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows streamed a few at a time come back whole and in the export's order, across runs and batches."""
    import wason.store.db as db

    monkeypatch.setattr(db, "STREAM_BATCH", 2)
    store = Store(url)
    made = []
    for r in range(3):
        run = store.create_run(
            task="t", player="p", model=None, config={}, items=[(f"k{i}", {}) for i in range(3)]
        )
        for e in store.list_episodes(run):
            for t in range(2):
                store.add_turn(
                    e.id, t, action={"r": r, "e": e.index, "t": t}, observation={}, reply=None, feedback=None
                )
        store.record_call(
            {"run_id": run, "episode_id": None, "turn": None, "model": "m", "endpoint": "e", "messages": [],
             "params": {}, "response": str(r), "attempts": 1, "cached": False}
        )  # fmt: skip
        made.append(run)
    order = [made[2], made[0], made[1], made[0]]  # a repeated run is exported once
    expected = [(r, e, t) for r in (2, 0, 1) for e in range(3) for t in range(2)]
    assert [(t["action"]["r"], t["episode_index"], t["index"]) for t in store.stream_turns(order)] == expected
    assert [(e.run_id, e.index) for e in store.stream_episodes(order)] == [
        (made[r], i) for r in (2, 0, 1) for i in range(3)
    ]
    assert [c["response"] for c in store.stream_calls(order)] == ["2", "0", "1"]
    assert store.export_turns(order) == list(store.stream_turns(order))
    store.close()


def test_tables_stream_a_batch_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _streamed(f"sqlite:///{tmp_path / 's.db'}", monkeypatch)


def test_postgres_tables_stream_a_batch_at_a_time(
    new_postgres_database: Callable[[], str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _streamed(new_postgres_database(), monkeypatch)


def test_the_home_page_reads_only_the_newest_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wason.server.web.browse import Links, home_context

    url, _run_id, _baseline = _store(tmp_path / "home.db", unrelated=12)
    store = Store(url)
    read: list[int] = []
    real = Store.latest_runs

    def latest(self: Store, limit: int) -> list[Any]:
        runs = real(self, limit)
        read.extend(r.id for r in runs)
        return runs

    def refused(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("every run of the store was read")

    monkeypatch.setattr(Store, "latest_runs", latest)
    monkeypatch.setattr(Store, "list_runs", refused)
    home = home_context(store, Links())
    assert home["n_runs"] == 14
    assert next(f["runs"] for f in home["families"] if f["name"] == "wilt") == 14
    assert [r["id"] for r in home["recent"]] == read == list(range(14, 4, -1))
    store.close()
