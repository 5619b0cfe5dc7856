"""The search finds what every player did, not only what a model wrote: a solver's, a person's or a scripted
player's move has no reply that says it, so a turn's index holds its action's values (never its ``type`` tag),
in SQLite (FTS5, and LIKE without it) and PostgreSQL alike; a store at revision 0007 is indexed again by 0008;
and the search page shows the piece of each hit around the words, marked."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from fastapi.testclient import TestClient

from wason.store import Store
from wason.store.search import action_values, drop_statements, snippet

OVER = ("completed", "errored")

MOVES = [
    # (player, reply, action): a picnic guess, a WILT solver's final guess, a lab request (nested values)
    ("solver", None, {"type": "Guess", "text": "medical equipment"}),
    ("solver", None, {"type": "FinalGuess", "expression": "lambda x, y, z: x < y < z"}),
    (
        "human:ada",
        None,
        {"type": "Request", "steps": [{"kind": "experiment", "op": "splorficate", "objects": ["zorple-1"]}]},
    ),
    ("scripted", None, {"type": "More", "n": 417}),
]


def _fill(store: Store) -> dict[str, int]:
    ids = {}
    for k, (player, reply, action) in enumerate(MOVES):
        run = store.create_run(task="picnic", player=player, model=None, config={}, items=[(f"r{k}", {})])
        (episode,) = store.list_episodes(run)
        store.start_episode(episode.id)
        store.add_turn(
            episode.id, 0, action={"type": "More", "n": 2}, observation={}, reply=None, feedback="ok"
        )
        store.add_turn(episode.id, 1, action=action, observation={}, reply=reply, feedback="Wrong.")
        store.finish_episode(episode.id, status="completed", success=False, metrics={})
        ids[str(k)] = run
    return ids


def _runs(store: Store, q: str) -> list[int]:
    return sorted(r["run_id"] for r in store.search(q, reveal=OVER))


def _exercise(store: Store) -> None:
    ids = _fill(store)
    guess, final, lab, more = (ids[k] for k in "0123")
    assert _runs(store, "medical equipment") == [guess]
    assert _runs(store, "EQUIPMENT medical") == [guess]
    assert _runs(store, "lambda") == [final]
    assert _runs(store, "splorficate") == [lab] and _runs(store, "zorple-1") == [lab]
    assert _runs(store, "417") == [more]
    # the action's type tag is no word of the move
    assert (
        _runs(store, "Guess") == []
        and _runs(store, "FinalGuess") == []
        and _runs(store, "experiment") == [lab]
    )
    # every word in one turn: the move and its feedback together, not across turns
    assert _runs(store, "medical wrong") == [guess]
    assert _runs(store, "medical ok") == []
    (row,) = store.search("medical", reveal=OVER)
    assert row["hit"].turn == 1 and not row["hit"].in_call
    assert row["found"]["action"] == MOVES[0][2] and row["found"]["feedback"] == "Wrong."
    # a run's page filters its episodes by the same search
    assert [r["index"] for r in store.episode_table(final, reveal=OVER, text="lambda")] == [0]
    # deleting a run takes its moves out of the index
    store.delete_run(guess)
    assert _runs(store, "medical") == []


def test_moves_are_found_on_sqlite(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'moves.db'}")
    try:
        _exercise(store)
    finally:
        store.close()


def test_moves_are_found_without_fts5(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'moves.db'}")
    try:
        with store.engine.begin() as c:
            for statement in drop_statements(c):
                c.exec_driver_sql(statement)
        _exercise(store)
    finally:
        store.close()


def test_moves_are_found_on_postgres(new_postgres_database: Callable[[], str]) -> None:
    store = Store(new_postgres_database())
    try:
        _exercise(store)
    finally:
        store.close()


def test_the_sqlite_index_follows_a_changed_move(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'moves.db'}")
    try:
        ids = _fill(store)
        with store.engine.begin() as c:
            c.exec_driver_sql(
                "UPDATE turns SET action = ? WHERE action LIKE '%medical%'",
                ('{"type": "Guess", "text": "garden tools"}',),
            )
        assert _runs(store, "medical") == [] and _runs(store, "garden tools") == [ids["0"]]
    finally:
        store.close()


def _migrated_from_0007(url: str, path: Path | None = None) -> None:
    from alembic import command

    from wason.store.schema import alembic_config

    store = Store(url)
    ids = _fill(store)
    store.close()
    engine = sa.create_engine(url)
    with engine.begin() as c:
        command.downgrade(alembic_config(c), "0007")
    engine.dispose()
    engine = sa.create_engine(url)  # a Store would migrate it on opening: read it with SQL
    with engine.connect() as c:
        assert c.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one() == "0007"
    engine.dispose()
    if path is not None:  # at 0007 the moves are not in the index
        with sqlite3.connect(path) as c:
            assert not c.execute(
                "SELECT rowid FROM search_turns WHERE search_turns MATCH 'medical'"
            ).fetchall()
            assert c.execute("SELECT rowid FROM search_turns WHERE search_turns MATCH 'wrong'").fetchall()
    store = Store(url)  # migrates to 0008, indexing the moves already stored
    try:
        assert _runs(store, "medical equipment") == [ids["0"]] and _runs(store, "lambda") == [ids["1"]]
    finally:
        store.close()


def test_0008_indexes_the_moves_of_a_stored_sqlite_store(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    _migrated_from_0007(f"sqlite:///{path}", path)


def test_0008_indexes_the_moves_of_a_stored_postgres_store(new_postgres_database: Callable[[], str]) -> None:
    _migrated_from_0007(new_postgres_database())


# -- what a hit shows -------------------------------------------------------------------------------------------
def test_action_values_are_the_moves_words() -> None:
    assert action_values(MOVES[2][2]) == ["experiment", "splorficate", "zorple-1"]
    assert action_values({"type": "More", "n": 4, "flag": True, "none": None}) == ["4"]


def test_a_snippet_marks_the_words_around_the_first_one() -> None:
    parts = snippet(["nothing here", "a guess: Medical equipment, and more"], "medical EQUIPMENT")
    assert parts == [
        ("a guess: ", False),
        ("Medical", True),
        (" ", False),
        ("equipment", True),
        (", and more", False),
    ]
    long = "word " * 100 + "needle " + "word " * 100
    cut = snippet([long], "needle")
    text = "".join(t for t, _ in cut)
    assert cut[0] == ("...", False) and cut[-1] == ("...", False) and ("needle", True) in cut
    assert len(text) < 200
    assert snippet(["needles and pins"], "needle") == []  # whole words, as the index matches them
    assert snippet(["x"], "") == []


def test_the_search_page_shows_what_a_solver_did(tmp_path: Path) -> None:
    from wason.server import create_app

    store = Store(f"sqlite:///{tmp_path / 'moves.db'}")
    try:
        ids = _fill(store)
        with TestClient(create_app(store), base_url="http://127.0.0.1") as client:
            page = client.get("/search", params={"q": "medical equipment"}).text
        assert '<p class="muted" id="hit-count">1 episode.' in page
        assert f'href="/runs/{ids["0"]}/episodes/0#turn-1"' in page
        assert "the move" in page
        assert "<mark>medical</mark> <mark>equipment</mark>" in page
    finally:
        store.close()
