"""The store: SQLite by default (a file), any SQLAlchemy URL (e.g. PostgreSQL) for teams.

Everything is written as it happens, one short transaction per record, so killing the process loses at most the
turn in flight. The store knows nothing of tasks: actions, observations and results are JSON documents.
"""

from __future__ import annotations

import os
import sqlite3
import time
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, IntegrityError, NoSuchModuleError

from wason.core.records import EpisodeRow, RunRow, TurnConflict
from wason.store.schema import SchemaError, ensure_schema

DEFAULT_URL = "sqlite:///wason.db"
# The Alembic revision (src/wason/store/migrations/versions) that the tables below describe; opening a store
# migrates it to this one.
SCHEMA_VERSION = "0003"

metadata = sa.MetaData()

runs = sa.Table(
    "runs",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("task", sa.String(64), nullable=False),
    sa.Column("player", sa.String(64), nullable=False),
    sa.Column("model", sa.String(256)),
    sa.Column("config", sa.JSON, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("finished_at", sa.DateTime(timezone=True)),
)

episodes = sa.Table(
    "episodes",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id"), nullable=False, index=True),
    sa.Column("index", sa.Integer, nullable=False),
    sa.Column("item_key", sa.String(256), nullable=False),
    sa.Column("item", sa.JSON, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("success", sa.Boolean),
    sa.Column("metrics", sa.JSON),
    sa.Column("error", sa.Text),
    sa.Column("started_at", sa.DateTime(timezone=True)),
    sa.Column("finished_at", sa.DateTime(timezone=True)),
    sa.UniqueConstraint("run_id", "index", name="uq_episode_index"),
)

turns = sa.Table(
    "turns",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("episode_id", sa.Integer, sa.ForeignKey("episodes.id"), nullable=False, index=True),
    sa.Column("index", sa.Integer, nullable=False),
    sa.Column("action", sa.JSON, nullable=False),
    sa.Column("observation", sa.JSON, nullable=False),
    sa.Column("reply", sa.Text),
    sa.Column("feedback", sa.Text),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    # the outside work settled for this turn's action (e.g. an LLM labeller's labels), so a game can be restored
    # from its turns without calling a model again
    sa.Column("oracle", sa.JSON),
    # one turn per index: a session stepped from two places at once keeps one of the two steps (0003)
    sa.Index("uq_turns_episode_index", "episode_id", "index", unique=True),
)

model_calls = sa.Table(
    "model_calls",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("run_id", sa.Integer, index=True),
    sa.Column("episode_id", sa.Integer, index=True),
    sa.Column("turn", sa.Integer),
    sa.Column("model", sa.String(256), nullable=False),
    sa.Column("endpoint", sa.String(512), nullable=False),
    sa.Column("messages", sa.JSON, nullable=False),
    sa.Column("params", sa.JSON, nullable=False),
    sa.Column("response", sa.Text),
    sa.Column("finish_reason", sa.String(64)),
    sa.Column("input_tokens", sa.Integer),
    sa.Column("output_tokens", sa.Integer),
    sa.Column("latency_s", sa.Float),
    sa.Column("attempts", sa.Integer, nullable=False),
    sa.Column("errors", sa.JSON),
    sa.Column("error", sa.Text),
    sa.Column("cached", sa.Boolean, nullable=False),
    sa.Column("cache_key", sa.String(64), index=True),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

call_cache = sa.Table(
    "call_cache",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("response", sa.JSON, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)


class StoreError(RuntimeError):
    """The store cannot be opened or a record is missing; the message is one line for the user."""


def resolve_url(url: str | None) -> str:
    """The store URL: the argument, else ``$WASON_DB``, else ``sqlite:///wason.db`` in the working directory.

    A bare path (no ``://``) is taken as a SQLite file.
    """
    chosen = url or os.environ.get("WASON_DB") or DEFAULT_URL
    if "://" not in chosen:
        chosen = f"sqlite:///{chosen}"
    return chosen


def _now() -> datetime:
    return datetime.now(UTC)


class Store:
    """Sync, thread-safe access to the store. Each method is its own short transaction."""

    def __init__(self, url: str | None = None) -> None:
        self.url = resolve_url(url)
        try:
            self.engine: Engine = sa.create_engine(self.url, future=True)
        except (ArgumentError, NoSuchModuleError, ImportError) as exc:
            raise StoreError(f"cannot open store {self.url!r}: {exc}") from exc
        if self.engine.dialect.name == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            ensure_schema(self.engine, SCHEMA_VERSION)
        except SchemaError as exc:
            raise StoreError(str(exc)) from exc

    def close(self) -> None:
        self.engine.dispose()

    # runs -------------------------------------------------------------------------------------------------
    def create_run(self, *, task: str, player: str, model: str | None, config: dict[str, Any]) -> int:
        with self.engine.begin() as c:
            result = c.execute(
                runs.insert().values(
                    task=task, player=player, model=model, config=config, status="running", created_at=_now()
                )
            )
            key = result.inserted_primary_key
            if key is None:  # pragma: no cover - every dialect we support returns the new id
                raise StoreError("the store did not return the new run's id")
            return int(key[0])

    def set_run_status(self, run_id: int, status: str) -> None:
        finished = _now() if status in {"completed", "failed"} else None
        with self.engine.begin() as c:
            c.execute(runs.update().where(runs.c.id == run_id).values(status=status, finished_at=finished))

    def get_run(self, run_id: int) -> RunRow:
        with self.engine.connect() as c:
            row = c.execute(runs.select().where(runs.c.id == run_id)).mappings().first()
        if row is None:
            raise StoreError(f"no run {run_id} in {self.url} (see `wason runs`)")
        return RunRow(**dict(row))

    def list_runs(self) -> list[RunRow]:
        with self.engine.connect() as c:
            rows = c.execute(runs.select().order_by(runs.c.id)).mappings().all()
        return [RunRow(**dict(r)) for r in rows]

    # episodes ---------------------------------------------------------------------------------------------
    def add_episodes(self, run_id: int, items: list[tuple[str, dict[str, Any]]]) -> None:
        """Register the run's episodes up front (status ``pending``), so a resumed run knows what is left."""
        with self.engine.begin() as c:
            c.execute(
                episodes.insert(),
                [
                    {"run_id": run_id, "index": i, "item_key": key, "item": item, "status": "pending"}
                    for i, (key, item) in enumerate(items)
                ],
            )

    def list_episodes(self, run_id: int) -> list[EpisodeRow]:
        with self.engine.connect() as c:
            rows = (
                c.execute(
                    sa.select(
                        episodes.c.id,
                        episodes.c.run_id,
                        episodes.c.index,
                        episodes.c.item_key,
                        episodes.c.item,
                        episodes.c.status,
                        episodes.c.success,
                        episodes.c.metrics,
                        episodes.c.error,
                    )
                    .where(episodes.c.run_id == run_id)
                    .order_by(episodes.c.index)
                )
                .mappings()
                .all()
            )
        return [EpisodeRow(**dict(r)) for r in rows]

    def get_episode(self, episode_id: int) -> EpisodeRow:
        """One episode by its id (a session's id)."""
        cols = [episodes.c[k] for k in EpisodeRow.__dataclass_fields__]
        with self.engine.connect() as c:
            row = c.execute(sa.select(*cols).where(episodes.c.id == episode_id)).mappings().first()
        if row is None:
            raise StoreError(f"no session or episode {episode_id} in {self.url}")
        return EpisodeRow(**dict(row))

    def start_episode(self, episode_id: int) -> None:
        """Mark an episode running, dropping turns left by an interrupted earlier attempt (it replays from the
        cache)."""
        with self.engine.begin() as c:
            c.execute(turns.delete().where(turns.c.episode_id == episode_id))
            c.execute(
                episodes.update()
                .where(episodes.c.id == episode_id)
                .values(status="running", started_at=_now(), error=None, success=None, metrics=None)
            )

    def finish_episode(
        self,
        episode_id: int,
        *,
        status: str,
        success: bool | None = None,
        metrics: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        with self.engine.begin() as c:
            c.execute(
                episodes.update()
                .where(episodes.c.id == episode_id)
                .values(status=status, success=success, metrics=metrics, error=error, finished_at=_now())
            )

    # turns ------------------------------------------------------------------------------------------------
    def add_turn(
        self,
        episode_id: int,
        index: int,
        *,
        action: dict[str, Any],
        observation: dict[str, Any],
        reply: str | None,
        feedback: str | None,
        oracle: dict[str, Any] | None = None,
    ) -> None:
        """Record a turn. ``oracle`` is the outside work settled for its action (e.g. an LLM labeller's labels),
        kept so the game can be restored from its turns without calling a model again.

        Raises:
            TurnConflict: the episode already has a turn ``index`` (it was stepped from elsewhere meanwhile).
        """
        try:
            with self.engine.begin() as c:
                c.execute(
                    turns.insert().values(
                        episode_id=episode_id,
                        index=index,
                        action=action,
                        observation=observation,
                        reply=reply,
                        feedback=feedback,
                        oracle=oracle,
                        created_at=_now(),
                    )
                )
        except IntegrityError as exc:
            raise TurnConflict(f"episode {episode_id} already has a turn {index}") from exc

    def list_turns(self, episode_id: int) -> list[dict[str, Any]]:
        with self.engine.connect() as c:
            rows = (
                c.execute(turns.select().where(turns.c.episode_id == episode_id).order_by(turns.c.index))
                .mappings()
                .all()
            )
        return [dict(r) for r in rows]

    # model calls and the cache -----------------------------------------------------------------------------
    def record_call(self, record: dict[str, Any]) -> None:
        with self.engine.begin() as c:
            c.execute(model_calls.insert().values(created_at=_now(), **record))

    def list_calls(self, *, run_id: int | None = None, episode_id: int | None = None) -> list[dict[str, Any]]:
        query = model_calls.select().order_by(model_calls.c.id)
        if run_id is not None:
            query = query.where(model_calls.c.run_id == run_id)
        if episode_id is not None:
            query = query.where(model_calls.c.episode_id == episode_id)
        with self.engine.connect() as c:
            return [dict(r) for r in c.execute(query).mappings().all()]

    def call_totals(self, run_id: int) -> dict[str, int]:
        """Calls, cached calls, failed calls and tokens of a run."""
        mc = model_calls.c
        query = sa.select(
            sa.func.count(),
            sa.func.coalesce(sa.func.sum(sa.case((mc.cached, 1), else_=0)), 0),
            sa.func.coalesce(sa.func.sum(sa.case((mc.error.is_not(None), 1), else_=0)), 0),
            sa.func.coalesce(sa.func.sum(mc.input_tokens), 0),
            sa.func.coalesce(sa.func.sum(mc.output_tokens), 0),
        ).where(mc.run_id == run_id)
        with self.engine.connect() as c:
            row = c.execute(query).one()
        keys = ("calls", "cached_calls", "failed_calls", "input_tokens", "output_tokens")
        return {k: int(v) for k, v in zip(keys, row, strict=True)}

    def cache_get(self, key: str) -> dict[str, Any] | None:
        with self.engine.connect() as c:
            row = c.execute(sa.select(call_cache.c.response).where(call_cache.c.key == key)).first()
        return None if row is None else dict(row[0])

    def cache_put(self, key: str, response: dict[str, Any]) -> None:
        try:
            with self.engine.begin() as c:
                c.execute(call_cache.insert().values(key=key, response=response, created_at=_now()))
        except IntegrityError:
            pass  # two episodes made the same request at once; the first answer stays


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cursor = dbapi_conn.cursor()
    # WAL lets `wason show` read while a run writes; synchronous=NORMAL is still durable across a process kill.
    _enable_wal(cursor)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


def _enable_wal(cursor: Any) -> None:
    # Switching a new database to WAL takes an exclusive lock. When connections of two processes race for it,
    # SQLite fails one of them at once with "database is locked" instead of waiting (waiting could deadlock: each
    # holds the shared lock the other needs gone), so the loser tries again; by then the mode is usually set.
    # Once a database is in WAL mode this is a no-op that takes no write lock.
    deadline = time.monotonic() + 10
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.005)
