"""Alembic's entry point: run the migrations on the connection that `wason.store.schema` passes in.

The caller holds the connection inside a transaction (and, for SQLite and PostgreSQL, a lock), so Alembic adds
no transaction of its own and commits nothing: the caller commits once every step has succeeded.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy.engine import Connection

from wason.store.db import metadata

connection = context.config.attributes.get("connection")
if not isinstance(connection, Connection) or context.is_offline_mode():
    # Migrating without wason's lock could race another process; offline SQL scripts are not supported.
    raise RuntimeError("the store's migrations run only from wason.store (opening a Store migrates it)")

# target_metadata lets Alembic's compare_metadata (the tests) and autogenerate diff the tables in db.py.
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
