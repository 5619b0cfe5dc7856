"""The store's versioned schema: bring a database to this code's revision with Alembic, safely under concurrency.

Opening a store checks its revision (the ``alembic_version`` table). At this code's revision nothing more
happens: no lock, no DDL. Otherwise one process at a time migrates it: it takes a lock, reads the revision again
(another process may have migrated while it waited) and runs the missing revisions, all in one transaction. An
empty database is built by running every revision; a store of release 0.1.0 (its tables, no version) is first
stamped at the baseline; a store at a revision this code does not know was written by a newer wason, and is left
alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from wason.redaction import redact_url

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")

BASELINE = "0001"
"""The revision that builds release 0.1.0's tables."""

UNVERSIONED_TABLES = frozenset({"runs", "episodes", "turns", "model_calls", "call_cache"})
"""The tables release 0.1.0 created, without a version table."""

VERSION_TABLE = "alembic_version"
"""Alembic's table of the revision a database is at (one row, column ``version_num``)."""

# The key of PostgreSQL's advisory lock: any constant works as long as every wason uses the same one ("wason").
_PG_LOCK_KEY = int.from_bytes(b"wason", "big")


class SchemaError(Exception):
    """The store cannot be opened or brought to this code's revision; the message is one line for the user."""


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration for the store's migrations, built in code: no ``alembic.ini``, nothing read from
    the working directory.

    Args:
        connection: The connection ``env.py`` migrates; required to run migrations, not to read the scripts.
    """
    from alembic.config import Config  # imported here: see _migrate

    config = Config()
    # ConfigParser would read a '%' in the path as interpolation
    config.set_main_option("script_location", str(MIGRATIONS).replace("%", "%%"))
    config.attributes["connection"] = connection
    return config


def current_revisions(connection: Connection) -> tuple[str, ...]:
    """The revisions the database is stamped with: one for a migrated store, none for an unversioned one."""
    # read directly rather than through Alembic, so that opening a store at this revision never imports it
    if not sa.inspect(connection).has_table(VERSION_TABLE):
        return ()
    rows = connection.execute(sa.text(f"SELECT version_num FROM {VERSION_TABLE}")).scalars()
    return tuple(str(r) for r in rows)


def ensure_schema(engine: Engine, target: str) -> None:
    """Bring the database to revision ``target`` (the one this code's tables describe), creating it if empty.

    Safe to call from several processes at once on SQLite and PostgreSQL: exactly one migrates, the others wait
    and find the work done.

    Raises:
        SchemaError: The database cannot be reached, was written by a newer wason, holds some but not all of
            release 0.1.0's tables without a version, or a migration failed (then nothing of it is kept).
    """
    # without its password, nor a password given as a query parameter
    shown = redact_url(engine.url.render_as_string(hide_password=True))
    try:
        with engine.connect() as connection:
            if current_revisions(connection) == (target,):
                return
    except SQLAlchemyError as exc:
        raise SchemaError(f"cannot open store {shown!r}: {_reason(exc)}") from exc
    try:
        with engine.connect() as connection:
            _lock(connection)
            _migrate(connection, target, shown)
            connection.commit()
    except SQLAlchemyError as exc:
        raise _failed(shown, target, exc) from exc


def _lock(connection: Connection) -> None:
    """Make this connection the only one migrating, until its transaction ends.

    SQLite: ``BEGIN IMMEDIATE`` takes the database's write lock now, waiting up to the connection's busy_timeout
    for another writer. It is SQLite's own lock, so it needs no lock file beside the database (none to leave
    behind, none for a ``:memory:`` or read-only store) and also covers processes that are not wason. Taking it
    at the start matters: a transaction that only reads first and then writes cannot wait for the lock in WAL mode
    (its snapshot is stale, SQLite answers "database is locked" at once). DDL is transactional in SQLite, so a
    failed migration rolls back whole.

    PostgreSQL: a transaction-level advisory lock, released by the commit or rollback (or by the server if the
    process dies); DDL is transactional there too.

    Other databases get no lock: two processes opening such a store for the first time at once may race.
    """
    dialect = connection.dialect.name
    if dialect == "sqlite":
        connection.exec_driver_sql("BEGIN IMMEDIATE")
    elif dialect == "postgresql":
        connection.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_LOCK_KEY)))


def _migrate(connection: Connection, target: str, shown: str) -> None:
    # Alembic is imported only here: it takes longer to import (~0.1 s, with Mako) than opening a store at this
    # revision takes, and nearly every opening is one.
    from alembic import command
    from alembic.script import ScriptDirectory
    from alembic.script.revision import RevisionError
    from alembic.util.exc import CommandError

    from wason.store.migrations import MigrationRefused

    config = alembic_config(connection)
    # read again under the lock: another process may have migrated while this one waited
    current = current_revisions(connection)
    if current == (target,):
        return
    try:
        script = ScriptDirectory.from_config(config)
        known = {s.revision for s in script.iterate_revisions(target, "base") if s is not None}
        if newer := [r for r in current if r not in known]:
            raise SchemaError(
                f"store {shown!r} has schema revision {', '.join(newer)}, which this wason does not know (it "
                f"knows up to {target}): this wason is older than the store; upgrade wason to open it"
            )
        if not current:
            tables = set(sa.inspect(connection).get_table_names())
            present = UNVERSIONED_TABLES & tables
            if tables and not present:
                # someone else's database: never add wason's tables to it
                listed = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
                raise SchemaError(
                    f"cannot open store {shown!r}: it is not a wason store (it holds other tables: {listed}); "
                    "give a new file or an empty database"
                )
            # release 0.1.0 created its tables without a version: they are the baseline revision
            if present == UNVERSIONED_TABLES:
                command.stamp(config, BASELINE)
            elif present:
                raise SchemaError(
                    f"cannot open store {shown!r}: it has some of wason's tables ({', '.join(sorted(present))}) "
                    "but not all, and no schema revision"
                )
        command.upgrade(config, target)
    except (CommandError, RevisionError, MigrationRefused) as exc:
        raise _failed(shown, target, exc) from exc


def _failed(shown: str, target: str, exc: Exception) -> SchemaError:
    return SchemaError(f"cannot migrate store {shown!r} to schema revision {target}: {_reason(exc)}")


def _reason(exc: Exception) -> str:
    """The first line of a database error, without SQLAlchemy's statement and link."""
    cause: BaseException = exc.orig if isinstance(exc, DBAPIError) and exc.orig is not None else exc
    lines = str(cause).strip().splitlines()
    return lines[0] if lines else type(cause).__name__
