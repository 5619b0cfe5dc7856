"""The store: SQLite by default (a file), any SQLAlchemy URL (e.g. PostgreSQL) for teams.

Everything is written as it happens, one short transaction per record, so killing the process loses at most the
turn in flight. A run played by ``wason eval`` or a sweep groups its writes instead (:meth:`Store.group_writes`):
its calls, turns and episode updates are kept in memory and written together, in one short transaction at least
every :data:`GROUP_SECONDS`, so killing the process loses at most that much of its play, which a resumed run plays
again. The store knows nothing of tasks: actions, observations and results are JSON documents.
"""

from __future__ import annotations

import os
import secrets
import socket
import sqlite3
import threading
import time
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import ArgumentError, IntegrityError, NoSuchModuleError

from wason.core.records import TRUNCATED_FINISH_REASONS, EpisodeRow, RunRow, TurnConflict
from wason.redaction import redact, redact_url
from wason.store import search
from wason.store.schema import SchemaError, ensure_schema

DEFAULT_URL = "sqlite:///wason.db"
# The Alembic revision (src/wason/store/migrations/versions) that the tables below describe; opening a store
# migrates it to this one.
SCHEMA_VERSION = "0008"

STREAM_BATCH = 1000
"""Rows read from the database at a time when a table is streamed (an export)."""

GROUP_SECONDS = 0.1
"""The longest a grouped write waits in memory (:meth:`Store.group_writes`) before it is written, when the writer
has other writes to make; the engine also writes them every this many seconds while a run plays."""

GROUP_WRITES = 2000
"""Grouped writes kept in memory at most: one more is written with them at once."""

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
    # the process working on the run and its last sign of life (0004): one owner per run
    sa.Column("owner", sa.String(256)),
    sa.Column("heartbeat_at", sa.DateTime(timezone=True)),
    # the sweep the run is a cell of, and the cell's key: one run per cell (0004)
    sa.Column("sweep", sa.String(256)),
    sa.Column("cell", sa.String(1024)),
    sa.Index("uq_runs_sweep_cell", "sweep", "cell", unique=True),
    # the run a solver baseline was made for, as its config's ``baseline_for`` says (0007): found by index
    sa.Column("baseline_for", sa.Integer),
    sa.Index("ix_runs_baseline_for", "baseline_for"),
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
    # the messages new since the parent call's request (all of them when there is no parent, 0004)
    sa.Column("messages", sa.JSON, nullable=False),
    sa.Column("parent_id", sa.Integer),
    # the model name the endpoint reported answering with (0004)
    sa.Column("served_model", sa.String(256)),
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

embeddings = sa.Table(
    "embeddings",
    metadata,
    sa.Column("model", sa.String(128), primary_key=True),
    sa.Column("text_sha256", sa.String(64), primary_key=True),
    sa.Column("dim", sa.Integer, nullable=False),
    sa.Column("vector", sa.LargeBinary, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)


# Statements run with every model call and turn, built once: building one per call (and its cache key) cost
# more than running it (record_call 276 -> 96 us, cache_get 156 -> 49 us, add_turn 166 -> 74 us).
_INSERT_TURN = turns.insert()
_INSERT_CALL = model_calls.insert()
_CACHED_REPLY = (
    sa.select(
        model_calls.c.response,
        model_calls.c.input_tokens,
        model_calls.c.output_tokens,
        model_calls.c.finish_reason,
        model_calls.c.served_model,
    )
    .where(model_calls.c.cache_key == sa.bindparam("key"), model_calls.c.response.is_not(None))
    .order_by(model_calls.c.id)
    .limit(1)
)
_OLD_CACHED_REPLY = sa.select(call_cache.c.response).where(call_cache.c.key == sa.bindparam("key"))


def _episode_table_query(run_id: int) -> tuple[sa.Select[Any], sa.ColumnElement[Any], sa.ColumnElement[Any]]:
    """The query of :meth:`Store.episode_table` before its filters: each episode of ``run_id`` with its turns
    stored, its model calls, their tokens and its replies cut off; and those two counts, to filter on."""
    e, t, mc = episodes.c, turns.c, model_calls.c
    n_turns = (
        sa.select(t.episode_id, sa.func.count().label("n"))
        .join(episodes, e.id == t.episode_id)
        .where(e.run_id == run_id)
        .group_by(t.episode_id)
        .subquery()
    )
    calls = (
        sa.select(
            mc.episode_id,
            sa.func.count().label("n"),
            sa.func.coalesce(sa.func.sum(mc.input_tokens), 0).label("tin"),
            sa.func.coalesce(sa.func.sum(mc.output_tokens), 0).label("tout"),
            sa.func.sum(sa.case((mc.finish_reason.in_(sorted(TRUNCATED_FINISH_REASONS)), 1), else_=0)).label(
                "cut"
            ),
        )
        .where(mc.run_id == run_id)
        .group_by(mc.episode_id)
        .subquery()
    )
    turn_count = sa.func.coalesce(n_turns.c.n, 0)
    cut = sa.func.coalesce(calls.c.cut, 0)
    query = (
        sa.select(
            e.id,
            e.index,
            e.item_key,
            e.status,
            e.success,
            e.error,
            e.started_at,
            e.finished_at,
            turn_count.label("turns"),
            sa.func.coalesce(calls.c.n, 0).label("calls"),
            sa.func.coalesce(calls.c.tin, 0).label("input_tokens"),
            sa.func.coalesce(calls.c.tout, 0).label("output_tokens"),
            cut.label("truncated"),
        )
        .select_from(
            episodes.outerjoin(n_turns, n_turns.c.episode_id == e.id).outerjoin(
                calls, calls.c.episode_id == e.id
            )
        )
        .where(e.run_id == run_id)
        .order_by(e.index)
    )
    return query, turn_count, cut


class StoreError(RuntimeError):
    """The store cannot be opened or a record is missing; the message is one line for the user."""


class RunBusy(StoreError):
    """Another live process is working on the run."""

    def __init__(self, run_id: int, holder: str) -> None:
        super().__init__(
            f"run {run_id} is being worked on by {holder}; wait for it to finish or stop it, then "
            f"`wason eval --resume {run_id}`"
        )
        self.run_id = run_id
        self.holder = holder


class CellTaken(StoreError):
    """A sweep's cell already has its run."""


MAX_ID = 2**31 - 1
"""The largest id a run, episode (session), turn or model call can have: ids are INTEGER columns, 32 bits on
PostgreSQL (64 on SQLite). A larger number names nothing, and the driver cannot even send it."""

LEASE_TTL = 30.0
"""Seconds without a heartbeat after which a run's lease is free for another process (a holder on this machine
whose process is gone frees it at once). Holders beat every third of it."""


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


def _check_readable(url: str, shown: str) -> None:
    """Refuse a URL SQLAlchemy would misread: it ends a password at the first ``@`` after the user name and
    takes the rest for the host, port and database, which the driver's errors then name (``failed to resolve
    host 'ss'``). So an ``@`` in a password (a second ``@``), or in the query string (read as the end of a user
    name and password), would show part of a password.

    Raises:
        StoreError: one line with the URL as :func:`~wason.redaction.redact_url` shows it.
    """
    rest = url.partition("://")[2]
    if rest.startswith("/"):  # a file path (sqlite:///...): no user name, password or host to misread
        return
    if rest.count("@") > 1 or "@" in rest.partition("?")[2]:
        raise StoreError(
            f"cannot open store {shown!r}: its host cannot be told from its password; write an '@' in the "
            "password or the query string as %40 (and ':' as %3A, '/' as %2F, '?' as %3F)"
        )


class CallRef:
    """The id of a model call whose record waits in memory (:meth:`Store.group_writes`): ``id`` is None until it
    is written. A later call of the same conversation names it as its parent, and the store writes the parent's
    id when it writes the child."""

    __slots__ = ("id",)

    def __init__(self) -> None:
        self.id: int | None = None


_Op = tuple[Literal["call", "turn", "start", "finish"], dict[str, Any], CallRef | None]


@dataclass
class _Group:
    """The writes of one thread waiting to be written together (see :meth:`Store.group_writes`)."""

    thread: int
    users: int = 1
    ops: list[_Op] = field(default_factory=list)
    since: float = 0.0  # when the oldest waiting write was made (time.monotonic)
    replies: dict[str, dict[str, Any]] = field(default_factory=dict)  # cache key -> a waiting call's reply
    conflicts: set[int] = field(default_factory=set)  # episodes whose waiting turn was refused when written
    reader: sa.Connection | None = None  # the cache's lookups, on one connection rather than one each


class Store:
    """Sync, thread-safe access to the store. Each method is its own short transaction, except the writes that a
    thread groups (:meth:`group_writes`)."""

    def __init__(self, url: str | None = None) -> None:
        self.connect_url = resolve_url(url)
        # what is printed: the URL without its password (the connection keeps it)
        self.url = redact_url(self.connect_url)
        _check_readable(self.connect_url, self.url)
        try:
            self.engine: Engine = sa.create_engine(self.connect_url, future=True)
        except (ArgumentError, NoSuchModuleError, ImportError, ValueError) as exc:  # ValueError: a bad port
            raise StoreError(f"cannot open store {self.url!r}: {redact(str(exc))}") from exc
        if self.engine.dialect.name == "sqlite":
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        try:
            ensure_schema(self.engine, SCHEMA_VERSION)
        except SchemaError as exc:
            raise StoreError(str(exc)) from exc
        self._group: _Group | None = None
        self._group_lock = threading.Lock()
        # Replies were also kept in call_cache before revision 0004; nothing writes there since, so a store
        # opened with none there never has any, and a cache lookup asks one table, not two.
        with self.engine.connect() as c:
            self._old_cache = c.execute(sa.select(call_cache.c.key).limit(1)).first() is not None

    def close(self) -> None:
        self.flush_writes()
        self.engine.dispose()

    # grouped writes ----------------------------------------------------------------------------------------
    @contextmanager
    def group_writes(self) -> Iterator[None]:
        """Group this thread's records of play in the block: model calls, turns, and episodes started and
        finished are kept in memory and written together, in one transaction, once the oldest has waited
        :data:`GROUP_SECONDS` (at this thread's next write, or at :meth:`flush_writes`, which the engine calls
        that often), once :data:`GROUP_WRITES` wait, before this thread reads or makes any other write, and when
        the block ends. Other threads and processes see them once written.

        Each record costs a fraction of its own transaction (three for a model call and its turn before), and
        killing the process loses at most the grouped writes not yet written, which a resumed run plays again.
        A turn refused when written (another process stepped the episode meanwhile, which a run's lease rules
        out) makes that episode's next write raise :class:`TurnConflict`. Blocks may nest; only one thread groups
        at a time (another thread's block writes each record at once).
        """
        me = threading.get_ident()
        with self._group_lock:
            group = self._group
            if group is None:
                self._group = group = _Group(thread=me, users=0)
            mine = group.thread == me
            if mine:
                group.users += 1
        if not mine:  # another thread groups: this one writes as it goes
            yield
            return
        try:
            yield
        finally:
            group.users -= 1
            if group.users == 0:
                try:
                    self.flush_writes()
                finally:
                    with self._group_lock:
                        self._group = None
                    if group.reader is not None:
                        group.reader.close()

    def flush_writes(self) -> None:
        """Write this thread's grouped writes now (nothing if it groups none).

        Raises:
            StoreError: the store refused them; they stay in memory and the next flush tries again.
        """
        group = self._mine()
        if group is None or not group.ops:
            return
        ops = group.ops
        try:
            with self.engine.begin() as c:
                self._write_ops(c, ops)
        except IntegrityError:
            self._unresolve(ops)
            # a turn another writer stored first: write them one by one, leaving out the refused turns
            done = 0
            try:
                for op in ops:
                    try:
                        with self.engine.begin() as c:
                            self._write_ops(c, [op])
                    except IntegrityError:
                        if op[0] != "turn":
                            raise
                        group.conflicts.add(int(op[1]["episode_id"]))
                    done += 1
            except BaseException:
                group.ops = ops[done:]  # what was written stays written; the rest waits for the next flush
                self._unresolve(group.ops)
                raise
        except BaseException:
            self._unresolve(ops)
            raise
        group.ops = []
        group.replies.clear()

    def _mine(self) -> _Group | None:
        group = self._group
        return group if group is not None and group.thread == threading.get_ident() else None

    def _grouped(self, op: _Op) -> bool:
        """Keep ``op`` with this thread's grouped writes, if it groups them (writing them when due)."""
        group = self._mine()
        if group is None:
            return False
        episode = op[1].get("episode_id")
        if episode in group.conflicts:
            group.conflicts.discard(episode)
            raise TurnConflict(f"episode {episode} was stepped from elsewhere (a turn of it was refused)")
        if not group.ops:
            group.since = time.monotonic()
        group.ops.append(op)
        if len(group.ops) >= GROUP_WRITES or time.monotonic() - group.since >= GROUP_SECONDS:
            self.flush_writes()
        return True

    def _write_ops(self, c: sa.Connection, ops: list[_Op]) -> None:
        """Write grouped writes: the calls in their order (a parent before its child), then the turns and
        episode updates in theirs (an episode's earlier turns are dropped when it starts again), runs of turns as
        one statement each. Calls and turns do not refer to each other, so their relative order is free."""
        calls = [op for op in ops if op[0] == "call"]
        if calls:
            self._write_calls(c, calls)
        rest = [op for op in ops if op[0] != "call"]
        i = 0
        while i < len(rest):
            j = i + 1
            if rest[i][0] == "turn":
                while j < len(rest) and rest[j][0] == "turn":
                    j += 1
                c.execute(_INSERT_TURN, [row for _, row, _ in rest[i:j]])
            else:
                _write_episode(c, rest[i][0], rest[i][1])
            i = j

    @staticmethod
    def _write_calls(c: sa.Connection, run: list[_Op]) -> None:
        # as many at once as name no parent waiting in the same statement: a child needs its parent's id
        start = 0
        while start < len(run):
            end = start
            pending: set[int] = set()
            while end < len(run):
                parent = run[end][1].get("parent_id")
                if isinstance(parent, CallRef) and id(parent) in pending:
                    break
                ref = run[end][2]
                if ref is not None:
                    pending.add(id(ref))
                end += 1
            rows = []
            for _, record, _ in run[start:end]:
                parent = record.get("parent_id")
                rows.append({**record, "parent_id": parent.id if isinstance(parent, CallRef) else parent})
            ids = c.execute(
                _INSERT_CALL.returning(model_calls.c.id, sort_by_parameter_order=True), rows
            ).scalars()
            for (_, _, ref), new_id in zip(run[start:end], ids, strict=True):
                if ref is not None:
                    ref.id = int(new_id)
            start = end

    @staticmethod
    def _unresolve(ops: list[_Op]) -> None:
        for _, _, ref in ops:  # ids given in a transaction that was rolled back
            if ref is not None:
                ref.id = None

    @contextmanager
    def _begin(self) -> Iterator[sa.Connection]:
        self.flush_writes()
        with self.engine.begin() as c:
            yield c

    @contextmanager
    def _connect(self) -> Iterator[sa.Connection]:
        self.flush_writes()
        with self.engine.connect() as c:
            yield c

    # runs -------------------------------------------------------------------------------------------------
    def create_run(
        self,
        *,
        task: str,
        player: str,
        model: str | None,
        config: dict[str, Any],
        items: list[tuple[str, dict[str, Any]]] | None = None,
        sweep: str | None = None,
        cell: str | None = None,
    ) -> int:
        """Register a run (status ``running``) and, in the same transaction, its episodes (``pending``).

        Args:
            items: the episodes' item keys and items; registered up front so a resumed run knows what is left.
            sweep: the sweep the run is a cell of, with ``cell``, the cell's key.

        Raises:
            CellTaken: the sweep already has a run for this cell (another process made it first).
        """
        try:
            with self._begin() as c:
                result = c.execute(
                    runs.insert().values(
                        task=task,
                        player=player,
                        model=model,
                        config=config,
                        status="running",
                        created_at=_now(),
                        sweep=sweep,
                        cell=cell,
                        baseline_for=_baseline_for(config),
                    )
                )
                key = result.inserted_primary_key
                if key is None:  # pragma: no cover - every dialect we support returns the new id
                    raise StoreError("the store did not return the new run's id")
                run_id = int(key[0])
                if items:
                    c.execute(episodes.insert(), _episode_rows(run_id, items))
                return run_id
        except IntegrityError as exc:
            if sweep is not None and self.find_cell(sweep, cell or "") is not None:
                raise CellTaken(f"sweep {sweep!r} already has a run for cell {cell!r}") from exc
            raise

    def find_cell(self, sweep: str, cell: str) -> int | None:
        """The run of a sweep's cell, if it has one."""
        with self._connect() as c:
            found = c.execute(
                sa.select(runs.c.id).where(runs.c.sweep == sweep, runs.c.cell == cell)
            ).scalar_one_or_none()
        return None if found is None else int(found)

    def set_run_status(self, run_id: int, status: str) -> None:
        finished = _now() if status in {"completed", "failed"} else None
        with self._begin() as c:
            c.execute(runs.update().where(runs.c.id == run_id).values(status=status, finished_at=finished))

    def get_run(self, run_id: int) -> RunRow:
        if not _storable(run_id):
            raise StoreError(f"no run {run_id} in {self.url} (see `wason runs`)")
        with self._connect() as c:
            row = c.execute(runs.select().where(runs.c.id == run_id)).mappings().first()
        if row is None:
            raise StoreError(f"no run {run_id} in {self.url} (see `wason runs`)")
        return _run_row(row)

    def list_runs(self) -> list[RunRow]:
        with self._connect() as c:
            rows = c.execute(runs.select().order_by(runs.c.id)).mappings().all()
        return [_run_row(r) for r in rows]

    def baselines_of(self, run_id: int, *, completed_only: bool = False) -> list[int]:
        """The runs made as baselines of ``run_id`` (their config's ``baseline_for``), oldest first; with
        ``completed_only`` those completed. One indexed query: no other run is read."""
        query = sa.select(runs.c.id).where(runs.c.baseline_for == run_id).order_by(runs.c.id)
        if completed_only:
            query = query.where(runs.c.status == "completed")
        with self._connect() as c:
            return [int(i) for i in c.execute(query).scalars()]

    def run_counts(self) -> dict[str, int]:
        """How many runs the store has of each family, by name (one query; no run read whole)."""
        with self._connect() as c:
            query = sa.select(runs.c.task, sa.func.count()).group_by(runs.c.task)
            return {str(task): int(n) for task, n in c.execute(query)}

    def latest_runs(self, limit: int) -> list[RunRow]:
        """The ``limit`` newest runs, newest first (by index: no other run is read)."""
        with self._connect() as c:
            rows = c.execute(runs.select().order_by(runs.c.id.desc()).limit(limit)).mappings().all()
        return [_run_row(r) for r in rows]

    def run_tasks(self) -> list[str]:
        """The families the store has runs of, by name (one query; no run read whole)."""
        with self._connect() as c:
            return sorted(str(t) for t in c.execute(sa.select(runs.c.task).distinct()).scalars())

    def find_runs(
        self,
        *,
        task: str | None = None,
        text: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[RunRow]:
        """Runs oldest first, filtered in the database: of a ``task``, whose model or player contains ``text``
        (case-insensitive), created at or after ``since`` and before ``until`` (aware datetimes)."""
        query = runs.select().order_by(runs.c.id)
        if task is not None:
            query = query.where(runs.c.task == task)
        if text:
            query = query.where(
                sa.or_(
                    runs.c.model.icontains(text, autoescape=True),
                    runs.c.player.icontains(text, autoescape=True),
                )
            )
        if since is not None:
            query = query.where(runs.c.created_at >= _stored_time(self.engine, since))
        if until is not None:
            query = query.where(runs.c.created_at < _stored_time(self.engine, until))
        with self._connect() as c:
            rows = c.execute(query).mappings().all()
        return [_run_row(r) for r in rows]

    def episode_counts(self, run_ids: Sequence[int]) -> dict[int, dict[str, int]]:
        """Each run's episodes counted in one query: ``total``, ``completed``, ``errored`` and ``succeeded``
        (a run without episodes has zeros)."""
        e = episodes.c
        query = (
            sa.select(
                e.run_id,
                sa.func.count(),
                sa.func.coalesce(sa.func.sum(sa.case((e.status == "completed", 1), else_=0)), 0),
                sa.func.coalesce(sa.func.sum(sa.case((e.status == "errored", 1), else_=0)), 0),
                sa.func.coalesce(sa.func.sum(sa.case((e.success.is_(True), 1), else_=0)), 0),
            )
            .where(e.run_id.in_(list(run_ids)))
            .group_by(e.run_id)
        )
        out = {r: {"total": 0, "completed": 0, "errored": 0, "succeeded": 0} for r in run_ids}
        with self._connect() as c:
            for run_id, total, completed, errored, succeeded in c.execute(query):
                out[int(run_id)] = {
                    "total": int(total),
                    "completed": int(completed),
                    "errored": int(errored),
                    "succeeded": int(succeeded),
                }
        return out

    def play_counts(self, run_id: int) -> dict[str, int]:
        """Where a run being played stands, in two indexed queries (no row is read whole): its episodes by
        status (``pending``, ``running``, ``completed``, ``errored``), those that ``succeeded``, and the
        ``turns`` stored so far; what live progress shows beside :meth:`call_totals`."""
        e, t = episodes.c, turns.c
        out = dict.fromkeys(("pending", "running", "completed", "errored", "succeeded", "turns"), 0)
        by_status = (
            sa.select(e.status, sa.func.count(), sa.func.sum(sa.case((e.success.is_(True), 1), else_=0)))
            .where(e.run_id == run_id)
            .group_by(e.status)
        )
        n_turns = (
            sa.select(sa.func.count())
            .select_from(turns.join(episodes, t.episode_id == e.id))
            .where(e.run_id == run_id)
        )
        with self._connect() as c:
            for status, n, succeeded in c.execute(by_status):
                out[str(status)] = out.get(str(status), 0) + int(n)
                out["succeeded"] += int(succeeded or 0)
            out["turns"] = int(c.execute(n_turns).scalar_one())
        return out

    def call_totals_of(self, run_ids: Sequence[int]) -> dict[int, dict[str, int]]:
        """:meth:`call_totals` of several runs in one query (a run without calls has zeros)."""
        mc = model_calls.c
        fresh = sa.not_(mc.cached)

        def count(cond: Any) -> Any:
            return sa.func.coalesce(sa.func.sum(sa.case((cond, 1), else_=0)), 0)

        def total(column: Any, cond: Any) -> Any:
            return sa.func.coalesce(sa.func.sum(sa.case((cond, column), else_=0)), 0)

        query = (
            sa.select(
                mc.run_id,
                count(fresh),
                count(mc.cached),
                count(sa.and_(fresh, mc.error.is_not(None))),
                total(mc.attempts, fresh),
                total(mc.input_tokens, fresh),
                total(mc.output_tokens, fresh),
                total(mc.input_tokens, mc.cached),
                total(mc.output_tokens, mc.cached),
                count(mc.finish_reason.in_(sorted(TRUNCATED_FINISH_REASONS))),
            )
            .where(mc.run_id.in_(list(run_ids)))
            .group_by(mc.run_id)
        )
        out = {r: dict.fromkeys(CALL_TOTALS, 0) for r in run_ids}
        with self._connect() as c:
            for run_id, *values in c.execute(query):
                out[int(run_id)] = {k: int(v) for k, v in zip(CALL_TOTALS, values, strict=True)}
        return out

    def delete_run(self, run_id: int) -> dict[str, int]:
        """Delete a run with its episodes, their turns and its model calls, in one transaction; returns how many
        of each went (``episodes``, ``turns``, ``calls``).

        A run's model calls are also the cache's entries: their replies are no longer answered from the cache.
        A call of another run that continued a conversation of this one (rare) keeps its whole conversation.

        Raises:
            StoreError: there is no such run.
            RunBusy: a live process holds the run's lease (nothing is deleted).
        """
        if not _storable(run_id):
            raise StoreError(f"no run {run_id} in {self.url} (see `wason runs`)")
        with self._begin() as c:
            row = c.execute(sa.select(runs.c.owner, runs.c.heartbeat_at).where(runs.c.id == run_id)).first()
            if row is None:
                raise StoreError(f"no run {run_id} in {self.url} (see `wason runs`)")
            holder, beat = row.owner, row.heartbeat_at
            if holder is not None and lease_alive(holder, beat, LEASE_TTL):
                raise RunBusy(run_id, describe_owner(holder, beat))
            episode_ids = sa.select(episodes.c.id).where(episodes.c.run_id == run_id).scalar_subquery()
            mc = model_calls.c
            # never NULL (SQL's "unknown"), so that its negation picks the calls that stay
            doomed = sa.or_(
                sa.and_(mc.run_id.is_not(None), mc.run_id == run_id),
                sa.and_(mc.episode_id.is_not(None), mc.episode_id.in_(episode_ids)),
            )
            _keep_conversations(c, doomed)
            calls = c.execute(model_calls.delete().where(doomed)).rowcount
            n_turns = c.execute(turns.delete().where(turns.c.episode_id.in_(episode_ids))).rowcount
            n_episodes = c.execute(episodes.delete().where(episodes.c.run_id == run_id)).rowcount
            # the lease is checked again in the same statement: a process that took the run since our look
            # makes this delete nothing, and the transaction is undone
            gone = c.execute(runs.delete().where(runs.c.id == run_id, _same_holder(holder))).rowcount
            if gone != 1:
                current = c.execute(
                    sa.select(runs.c.owner, runs.c.heartbeat_at).where(runs.c.id == run_id)
                ).first()
                who = describe_owner(current.owner, current.heartbeat_at) if current else "another process"
                raise RunBusy(run_id, who)
        return {"episodes": int(n_episodes), "turns": int(n_turns), "calls": int(calls)}

    def export_episodes(self, run_ids: Sequence[int]) -> list[EpisodeRow]:
        """The episodes of several runs, by run (in the order given) and index."""
        return list(self.stream_episodes(run_ids))

    def export_turns(self, run_ids: Sequence[int]) -> list[dict[str, Any]]:
        """The turns of several runs' episodes, each with its episode's ``run_id`` and ``episode_index``; by run
        (in the order given), episode and turn."""
        return list(self.stream_turns(run_ids))

    def export_calls(self, run_ids: Sequence[int]) -> list[dict[str, Any]]:
        """The model calls of several runs, each as stored (``messages``: those new since the call
        ``parent_id``) with its episode's index as ``episode_index`` (None for a call outside an episode);
        by run (in the order given), then oldest first."""
        return list(self.stream_calls(run_ids))

    def _stream(self, queries: Iterator[Any]) -> Iterator[dict[str, Any]]:
        """The rows of each query in turn, fetched :data:`STREAM_BATCH` at a time (a server-side cursor on
        PostgreSQL), so that no more than a batch is held in memory however large the result."""
        with self._connect() as c:
            streaming = c.execution_options(yield_per=STREAM_BATCH)
            for query in queries:
                for part in streaming.execute(query).mappings().partitions():
                    yield from (dict(r) for r in part)

    def stream_episodes(self, run_ids: Sequence[int]) -> Iterator[EpisodeRow]:
        """The episodes of several runs as :meth:`export_episodes` orders them, read a batch at a time."""
        cols = [episodes.c[k] for k in EpisodeRow.__dataclass_fields__]
        queries = (
            sa.select(*cols).where(episodes.c.run_id == r).order_by(episodes.c.index, episodes.c.id)
            for r in dict.fromkeys(run_ids)
        )
        return (EpisodeRow(**row) for row in self._stream(queries))

    def stream_episode_metrics(self, run_ids: Sequence[int]) -> Iterator[dict[str, Any] | None]:
        """The metrics of several runs' episodes (only them), read a batch at a time."""
        queries = (
            sa.select(episodes.c.metrics).where(episodes.c.run_id == r) for r in dict.fromkeys(run_ids)
        )
        return (row["metrics"] for row in self._stream(queries))

    def stream_turns(self, run_ids: Sequence[int]) -> Iterator[dict[str, Any]]:
        """The turns of several runs as :meth:`export_turns` orders them, read a batch at a time."""
        queries = (
            sa.select(turns, episodes.c.run_id, episodes.c.index.label("episode_index"))
            .join(episodes, episodes.c.id == turns.c.episode_id)
            .where(episodes.c.run_id == r)
            .order_by(episodes.c.index, turns.c.index)
            for r in dict.fromkeys(run_ids)
        )
        return self._stream(queries)

    def stream_calls(self, run_ids: Sequence[int]) -> Iterator[dict[str, Any]]:
        """The model calls of several runs as :meth:`export_calls` orders them, read a batch at a time."""
        queries = (
            sa.select(model_calls, episodes.c.index.label("episode_index"))
            .join(episodes, episodes.c.id == model_calls.c.episode_id, isouter=True)
            .where(model_calls.c.run_id == r)
            .order_by(model_calls.c.id)
            for r in dict.fromkeys(run_ids)
        )
        return self._stream(queries)

    # leases -----------------------------------------------------------------------------------------------
    def acquire_lease(self, run_id: int, owner: str, *, ttl: float = LEASE_TTL) -> None:
        """Make ``owner`` the one process working on the run, or say who already is.

        The lease is free when nobody holds it, when its holder released it, when its heartbeat is older than
        ``ttl`` seconds, or when its holder was a process on this machine that no longer exists (``kill -9``).
        Taking it is a compare-and-set on the holder, so of two processes racing for it exactly one wins.

        Raises:
            RunBusy: a live process holds the lease; the message names it.
        """
        if not _storable(run_id):
            raise StoreError(f"no run {run_id} in {self.url} (see `wason runs`)")
        with self._begin() as c:
            row = c.execute(sa.select(runs.c.owner, runs.c.heartbeat_at).where(runs.c.id == run_id)).first()
            if row is None:
                raise StoreError(f"no run {run_id} in {self.url} (see `wason runs`)")
            holder, beat = row.owner, row.heartbeat_at
            if holder is not None and holder != owner and lease_alive(holder, beat, ttl):
                raise RunBusy(run_id, describe_owner(holder, beat))
            swapped = c.execute(
                runs.update()
                .where(runs.c.id == run_id, _same_holder(holder))
                .values(owner=owner, heartbeat_at=_now())
            )
        if swapped.rowcount != 1:  # another process took it between our read and our write
            current = self._holder(run_id)
            raise RunBusy(run_id, describe_owner(*current) if current[0] else "another process")

    def heartbeat(self, run_id: int, owner: str) -> bool:
        """Refresh ``owner``'s lease; False when it no longer holds it (it was taken over)."""
        with self._begin() as c:
            done = c.execute(
                runs.update().where(runs.c.id == run_id, runs.c.owner == owner).values(heartbeat_at=_now())
            )
        return done.rowcount == 1

    def release_lease(self, run_id: int, owner: str) -> None:
        """Give the lease up (only if ``owner`` still holds it)."""
        with self._begin() as c:
            c.execute(
                runs.update()
                .where(runs.c.id == run_id, runs.c.owner == owner)
                .values(owner=None, heartbeat_at=None)
            )

    def _holder(self, run_id: int) -> tuple[str | None, datetime | None]:
        with self._connect() as c:
            row = c.execute(sa.select(runs.c.owner, runs.c.heartbeat_at).where(runs.c.id == run_id)).one()
        return row.owner, row.heartbeat_at

    # episodes ---------------------------------------------------------------------------------------------
    def add_episodes(self, run_id: int, items: list[tuple[str, dict[str, Any]]]) -> None:
        """Register the run's episodes up front (status ``pending``), so a resumed run knows what is left."""
        with self._begin() as c:
            c.execute(episodes.insert(), _episode_rows(run_id, items))

    def list_episodes(self, run_id: int) -> list[EpisodeRow]:
        with self._connect() as c:
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
                        episodes.c.started_at,
                        episodes.c.finished_at,
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
        if not _storable(episode_id):
            raise StoreError(f"no session or episode {episode_id} in {self.url}")
        with self._connect() as c:
            row = c.execute(sa.select(*cols).where(episodes.c.id == episode_id)).mappings().first()
        if row is None:
            raise StoreError(f"no session or episode {episode_id} in {self.url}")
        return EpisodeRow(**dict(row))

    def start_episode(self, episode_id: int) -> None:
        """Mark an episode running, dropping turns left by an interrupted earlier attempt (it replays from the
        cache)."""
        row = {"episode_id": episode_id, "started_at": _now()}
        if not self._grouped(("start", row, None)):
            with self._begin() as c:
                _write_episode(c, "start", row)

    def finish_episode(
        self,
        episode_id: int,
        *,
        status: str,
        success: bool | None = None,
        metrics: dict[str, Any] | None = None,
        error: str | None = None,
    ) -> None:
        row = {
            "episode_id": episode_id,
            "status": status,
            "success": success,
            "metrics": metrics,
            "error": error,
            "finished_at": _now(),
        }
        if not self._grouped(("finish", row, None)):
            with self._begin() as c:
                _write_episode(c, "finish", row)

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
        row = {
            "episode_id": episode_id,
            "index": index,
            "action": action,
            "observation": observation,
            "reply": reply,
            "feedback": feedback,
            "oracle": oracle,
            "created_at": _now(),
        }
        if self._grouped(("turn", row, None)):
            return
        try:
            with self._begin() as c:
                c.execute(_INSERT_TURN, row)
        except IntegrityError as exc:
            raise TurnConflict(f"episode {episode_id} already has a turn {index}") from exc

    def list_turns(self, episode_id: int) -> list[dict[str, Any]]:
        with self._connect() as c:
            rows = (
                c.execute(turns.select().where(turns.c.episode_id == episode_id).order_by(turns.c.index))
                .mappings()
                .all()
            )
        return [dict(r) for r in rows]

    def episode_table(
        self,
        run_id: int,
        *,
        statuses: Collection[str] | None = None,
        success: bool | None = None,
        errored: bool | None = None,
        truncated: bool | None = None,
        min_turns: int | None = None,
        max_turns: int | None = None,
        item: str | None = None,
        text: str | None = None,
        reveal: Collection[str] = (),
    ) -> list[dict[str, Any]]:
        """A run's episodes as its page lists them, filtered in the database; by index.

        Each row: ``id``, ``index``, ``item_key``, ``status``, ``success``, ``error``, ``started_at``,
        ``finished_at``, ``turns`` (stored so far), ``calls``, ``input_tokens``, ``output_tokens``, ``truncated``
        (replies cut off at the token limit) and ``hit`` (with ``text``: where the words were found,
        :class:`wason.store.search.Hit`).

        Args:
            statuses: keep episodes with one of these statuses.
            success: keep those that succeeded (True) or have a verdict other than success (False).
            errored: keep those with an error (True) or without (False).
            truncated: keep those with a reply cut off at the token limit (True) or without (False).
            min_turns, max_turns: keep those with that many turns stored, bounds included.
            item: keep those whose item key holds this text (any case) - among the episodes whose status is in
                ``reveal`` only (a game not over keeps its item key hidden).
            text: keep those whose transcript holds every word (:func:`wason.store.search.find`, which matches
                model calls only of episodes with a status in ``reveal``).

        Raises:
            ValueError: ``text`` cannot be searched (empty, too long, a control character:
                :func:`wason.store.search.check_query`).
        """
        e = episodes.c
        query, turn_count, cut = _episode_table_query(run_id)
        if statuses is not None:
            query = query.where(e.status.in_(sorted(statuses)))
        if success is True:
            query = query.where(e.success.is_(True))
        elif success is False:
            query = query.where(e.success.is_(False))
        if errored is not None:
            query = query.where(e.error.is_not(None) if errored else e.error.is_(None))
        if truncated is not None:
            query = query.where(cut > 0 if truncated else cut == 0)
        if min_turns is not None:
            query = query.where(turn_count >= min_turns)
        if max_turns is not None:
            query = query.where(turn_count <= max_turns)
        if item:
            query = query.where(e.status.in_(sorted(reveal)), e.item_key.icontains(item, autoescape=True))
        with self._connect() as c:
            hits: dict[int, search.Hit] | None = None
            if text is not None:
                found = search.find(c, text, run_ids=[run_id], reveal=reveal)
                hits = {h.episode_id: h for h in found}
            rows = [dict(r) for r in c.execute(query).mappings()]
        if hits is not None:
            rows = [r for r in rows if r["id"] in hits]
        for r in rows:
            r["hit"] = hits.get(r["id"]) if hits is not None else None
        return rows

    def search(
        self, text: str, *, reveal: Collection[str], limit: int = 100, run_ids: Sequence[int] | None = None
    ) -> list[dict[str, Any]]:
        """The episodes (of ``run_ids``, else every run) whose transcript holds every word of ``text``, newest
        first, at most ``limit``: each with ``run_id``, ``index``, ``status``, ``success``, ``item_key``,
        ``hit`` (:func:`wason.store.search.find`; model calls are searched only for statuses in ``reveal``) and
        ``found``, what the hit's place holds, for a snippet: the turn's ``reply``, ``feedback`` and ``action``,
        or the call's ``response`` and ``messages``."""
        e, t, mc = episodes.c, turns.c, model_calls.c
        with self._connect() as c:
            found = search.find(c, text, run_ids=run_ids, reveal=reveal)
            found = sorted(found, key=lambda h: h.episode_id, reverse=True)[:limit]
            by_id = {h.episode_id: h for h in found}
            rows = c.execute(
                sa.select(e.id, e.run_id, e.index, e.status, e.success, e.item_key).where(
                    e.id.in_(list(by_id))
                )
            ).mappings()
            out = [{**dict(r), "hit": by_id[r["id"]]} for r in rows]
            turn_hits = [h for h in found if not h.in_call and h.turn is not None]
            call_ids = [h.call_id for h in found if h.in_call and h.call_id is not None]
            places: dict[tuple[int, int], dict[str, Any]] = {}
            if turn_hits:
                wanted = sa.tuple_(t.episode_id, t.index).in_([(h.episode_id, h.turn) for h in turn_hits])
                query = sa.select(t.episode_id, t.index, t.reply, t.feedback, t.action).where(wanted)
                for r in c.execute(query).mappings():
                    places[(r["episode_id"], r["index"])] = {
                        "reply": r["reply"],
                        "feedback": r["feedback"],
                        "action": r["action"],
                    }
            calls: dict[int, dict[str, Any]] = {}
            if call_ids:
                query = sa.select(mc.id, mc.response, mc.messages).where(mc.id.in_(call_ids))
                calls = {
                    r["id"]: {"response": r["response"], "messages": r["messages"]}
                    for r in c.execute(query).mappings()
                }
        for row in out:
            hit = row["hit"]
            if hit.in_call:
                row["found"] = calls.get(hit.call_id, {}) if hit.call_id is not None else {}
            else:
                row["found"] = places.get((hit.episode_id, hit.turn), {}) if hit.turn is not None else {}
        return sorted(out, key=lambda r: r["id"], reverse=True)

    def unreadable_counts(self, run_id: int) -> dict[str, int]:
        """A run's replies that could not be read as any action, apart by cause: ``unreadable`` (a format error
        of the player's) and ``truncated`` (cut off at the token limit before it could be read)."""
        query = (
            sa.select(turns.c.action)
            .join(episodes, episodes.c.id == turns.c.episode_id)
            .where(episodes.c.run_id == run_id)
        )
        out = {"unreadable": 0, "truncated": 0}
        with self._connect() as c:
            for (action,) in c.execute(query):
                if isinstance(action, dict) and action.get("type") == "Malformed":
                    out["truncated" if action.get("truncated") else "unreadable"] += 1
        return out

    # model calls and the cache -----------------------------------------------------------------------------
    def record_call(self, record: dict[str, Any]) -> int | CallRef:
        """Record one model call; returns its id (a later call of the same conversation names it as parent), or
        a :class:`CallRef` to it when this thread groups its writes (:meth:`group_writes`).

        ``record["messages"]`` holds the messages new since the request of ``record["parent_id"]`` (all of them
        when it has no parent): a conversation's text is stored once, not again with every turn.
        """
        row = {"created_at": _now(), **record}
        parent = row.get("parent_id")
        if isinstance(parent, CallRef) and parent.id is not None:
            row["parent_id"] = parent.id
        ref = CallRef()
        if self._grouped(("call", row, ref)):
            group = self._group
            key = row.get("cache_key")
            if group is not None and row.get("response") is not None and key and key not in group.replies:
                group.replies[key] = _reply_of(row)
            return ref
        if isinstance(
            row.get("parent_id"), CallRef
        ):  # a parent grouped by a thread that has not written it yet
            row["parent_id"] = None
        with self._begin() as c:
            result = c.execute(_INSERT_CALL, row)
            key = result.inserted_primary_key
        if key is None:  # pragma: no cover - every dialect we support returns the new id
            raise StoreError("the store did not return the new call's id")
        return int(key[0])

    def list_calls(self, *, run_id: int | None = None, episode_id: int | None = None) -> list[dict[str, Any]]:
        """Model calls, oldest first, each with its whole conversation in ``messages`` (and the part it stored
        itself in ``new_messages``)."""
        query = model_calls.select().order_by(model_calls.c.id)
        if run_id is not None:
            query = query.where(model_calls.c.run_id == run_id)
        if episode_id is not None:
            query = query.where(model_calls.c.episode_id == episode_id)
        with self._connect() as c:
            rows = [dict(r) for r in c.execute(query).mappings().all()]
            stored = {r["id"]: r["messages"] for r in rows}
            parents = {r["id"]: r["parent_id"] for r in rows}
            # parents outside the selection (another run's conversation continued, rare): fetch them too
            missing = {p for p in parents.values() if p is not None and p not in stored}
            while missing:
                found = c.execute(
                    sa.select(model_calls.c.id, model_calls.c.parent_id, model_calls.c.messages).where(
                        model_calls.c.id.in_(missing)
                    )
                ).all()
                if not found:
                    break
                for call_id, parent_id, messages in found:
                    stored[call_id], parents[call_id] = messages, parent_id
                missing = {p for p in parents.values() if p is not None and p not in stored}
        whole: dict[int, list[Any]] = {}

        def conversation(call_id: int) -> list[Any]:
            chain = []
            at: int | None = call_id
            while at is not None and at not in whole and at in stored:
                chain.append(at)
                at = parents[at]
            prefix = whole.get(at, []) if at is not None else []
            for link in reversed(chain):
                prefix = [*prefix, *stored[link]]
                whole[link] = prefix
            return whole.get(call_id, prefix)

        for r in rows:
            r["new_messages"] = r["messages"]
            r["messages"] = conversation(r["id"])
        return rows

    def cached_embeddings(self, model: str, digests: Sequence[str]) -> dict[str, bytes]:
        """The stored vectors (float32 bytes) of the texts with these SHA-256 digests under ``model``; the ones
        never stored are left out."""
        found: dict[str, bytes] = {}
        wanted = list(dict.fromkeys(digests))
        with self._connect() as c:
            for start in range(0, len(wanted), 500):  # bounded IN lists
                chunk = wanted[start : start + 500]
                rows = c.execute(
                    sa.select(embeddings.c.text_sha256, embeddings.c.vector).where(
                        embeddings.c.model == model, embeddings.c.text_sha256.in_(chunk)
                    )
                )
                found.update({digest: bytes(vector) for digest, vector in rows})
        return found

    def store_embeddings(self, model: str, vectors: Mapping[str, bytes], dim: int) -> None:
        """Keep ``vectors`` (SHA-256 digest of a text -> float32 bytes of ``dim`` values) under ``model``; a
        digest already stored (another process computed it meanwhile) is left as it is."""
        known = set(self.cached_embeddings(model, list(vectors)))
        rows = [
            {"model": model, "text_sha256": d, "dim": dim, "vector": v, "created_at": _now()}
            for d, v in vectors.items()
            if d not in known
        ]
        if not rows:
            return
        try:
            with self._begin() as c:
                c.execute(embeddings.insert(), rows)
        except sa.exc.IntegrityError:  # a concurrent writer stored some of them first: keep theirs
            for row in rows:
                try:
                    with self._begin() as c:
                        c.execute(embeddings.insert(), [row])
                except sa.exc.IntegrityError:
                    continue

    def call_totals(self, run_id: int) -> dict[str, int]:
        """A run's model calls: those the endpoint answered or failed (and their attempts), those replayed from
        the cache, tokens spent apart from tokens replayed (which cost nothing again), and replies cut off at the
        token limit (:data:`CALL_TOTALS`)."""
        return self.call_totals_of([run_id])[run_id]

    def finish_reasons(self, run_id: int) -> dict[str, int]:
        """How a run's replies ended, counted by finish reason (``stop``, ``length``, ...); calls that failed
        or whose endpoint gave no reason count under ``none``."""
        mc = model_calls.c
        query = (
            sa.select(mc.finish_reason, sa.func.count())
            .where(mc.run_id == run_id)
            .group_by(mc.finish_reason)
            .order_by(mc.finish_reason)
        )
        with self._connect() as c:
            rows = c.execute(query).all()
        return {str(reason or "none"): int(n) for reason, n in rows}

    def cache_get(self, key: str) -> dict[str, Any] | None:
        """The reply recorded for a request with this cache key, if one was answered.

        A call's record is its cache entry: the oldest answered call with the key gives the reply. Stores written
        before revision 0004 also kept replies in ``call_cache``, which is read when no call has one.
        """
        # grouped writes not yet written are younger than every written call: looked up after them, and without
        # writing them first (the lookup comes before every model call)
        group = self._mine()
        if group is None:
            with self.engine.connect() as c:
                row, old = self._cached(c, key)
        else:
            if group.reader is None:
                group.reader = self.engine.connect()
            try:
                row, old = self._cached(group.reader, key)
            finally:
                group.reader.rollback()  # ends the read: the next lookup sees what was written since
        if row is not None:
            return _reply_of(dict(row._mapping))
        if old is not None:
            return dict(old[0])
        return group.replies.get(key) if group is not None else None

    def _cached(self, c: sa.Connection, key: str) -> tuple[Any, Any]:
        row = c.execute(_CACHED_REPLY, {"key": key}).first()
        old = c.execute(_OLD_CACHED_REPLY, {"key": key}).first() if row is None and self._old_cache else None
        return row, old


def _reply_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """A recorded call's reply as the cache gives it."""
    return {
        "text": row["response"],
        "input_tokens": row["input_tokens"],
        "output_tokens": row["output_tokens"],
        "finish_reason": row["finish_reason"],
        "model": row["served_model"],
    }


def _write_episode(c: sa.Connection, kind: str, row: Mapping[str, Any]) -> None:
    """An episode started (its turns from an earlier attempt dropped) or finished."""
    episode = episodes.c.id == row["episode_id"]
    if kind == "start":
        c.execute(turns.delete().where(turns.c.episode_id == row["episode_id"]))
        c.execute(
            episodes.update()
            .where(episode)
            .values(status="running", started_at=row["started_at"], error=None, success=None, metrics=None)
        )
    else:
        values = {k: row[k] for k in ("status", "success", "metrics", "error", "finished_at")}
        c.execute(episodes.update().where(episode).values(**values))


CALL_TOTALS = (
    "calls",
    "cached_calls",
    "failed_calls",
    "attempts",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cached_output_tokens",
    "truncated",
)
"""The keys of :meth:`Store.call_totals`: calls made (answered, or failed after any retries; not from the cache),
calls replayed from the cache, calls failed after their retries, attempts made (retries included), tokens spent,
tokens replayed from the cache, replies (made or replayed) cut off at the token limit."""


def _episode_rows(run_id: int, items: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    return [
        {"run_id": run_id, "index": i, "item_key": key, "item": item, "status": "pending"}
        for i, (key, item) in enumerate(items)
    ]


def _baseline_for(config: Mapping[str, Any]) -> int | None:
    """The run a configuration is a baseline of (its ``baseline_for``), or None; a flag is never a run id."""
    made_for = config.get("baseline_for")
    return made_for if isinstance(made_for, int) and not isinstance(made_for, bool) else None


def _run_row(row: Any) -> RunRow:
    data = dict(row)
    data.pop("baseline_for", None)  # the config holds it too, as the run was created
    owner, beat = data.pop("owner"), data.pop("heartbeat_at")
    live = owner is not None and lease_alive(owner, beat, LEASE_TTL)
    if data["status"] == "running" and owner is not None and not live:
        # its process died without saying so (kill -9, a lost machine): it is not running
        data["status"] = "interrupted"
    return RunRow(**data, owner=describe_owner(owner, beat) if live else None)


def _stored_time(engine: Engine, when: datetime) -> datetime:
    """A moment as the store compares it: SQLite keeps naive UTC datetimes, PostgreSQL aware ones."""
    moment = when if when.tzinfo is not None else when.replace(tzinfo=UTC)
    if engine.dialect.name == "sqlite":
        return moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def _keep_conversations(c: Any, doomed: Any) -> None:
    """Before calls are deleted: a call that stays but names a doomed call as its parent gets its whole
    conversation stored in itself, so it still reads whole."""
    mc = model_calls.c
    orphans = c.execute(
        sa.select(mc.id, mc.parent_id, mc.messages).where(
            mc.parent_id.in_(sa.select(mc.id).where(doomed).scalar_subquery()), sa.not_(doomed)
        )
    ).all()
    for call_id, parent_id, messages in orphans:
        prefix: list[Any] = []
        at = parent_id
        while at is not None:
            found = c.execute(sa.select(mc.parent_id, mc.messages).where(mc.id == at)).first()
            if found is None:
                break
            prefix = [*found.messages, *prefix]
            at = found.parent_id
        c.execute(
            model_calls.update().where(mc.id == call_id).values(messages=[*prefix, *messages], parent_id=None)
        )


def _storable(record_id: int) -> bool:
    # a number beyond the id columns' range names no record (SQLite's driver raises OverflowError on it)
    return -MAX_ID - 1 <= record_id <= MAX_ID


def _same_holder(holder: str | None) -> Any:
    return runs.c.owner.is_(None) if holder is None else runs.c.owner == holder


def new_owner() -> str:
    """A lease holder's name: this machine, this process and a nonce (two runs of one process differ)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def lease_alive(owner: str, heartbeat: datetime | None, ttl: float) -> bool:
    """Whether a lease's holder may still be working: a fresh heartbeat, and on this machine a live process."""
    if heartbeat is None:
        return False
    if heartbeat.tzinfo is None:  # SQLite gives back naive datetimes; we write them in UTC
        heartbeat = heartbeat.replace(tzinfo=UTC)
    if (_now() - heartbeat).total_seconds() > ttl:
        return False
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host == socket.gethostname() and pid.isdigit():
        return _process_exists(int(pid))
    return True


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it exists
        return True
    return True


def describe_owner(owner: str | None, heartbeat: datetime | None) -> str:
    """``process 123 on host h (last heartbeat 4 s ago)``."""
    if owner is None:
        return "nobody"
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    when = ""
    if heartbeat is not None:
        beat = heartbeat if heartbeat.tzinfo else heartbeat.replace(tzinfo=UTC)
        when = f" (last heartbeat {max(0.0, (_now() - beat).total_seconds()):.0f} s ago)"
    return f"process {pid} on {host}{when}"


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
