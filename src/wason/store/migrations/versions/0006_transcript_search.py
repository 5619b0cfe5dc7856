"""Search across transcripts in the database: the turns' replies and feedback, the model calls' replies and
messages.

- SQLite: two contentless FTS5 tables, ``search_turns`` and ``search_calls`` (``rowid`` = the turn's or the
  call's id), kept in step with ``turns`` and ``model_calls`` by triggers; a call's messages are indexed by their
  ``content`` (not their JSON text, whose escapes would glue words together). Existing rows are indexed here.
  A SQLite built without FTS5 gets no tables (the search then reads the columns with LIKE, in the database).
- PostgreSQL: GIN indexes on ``to_tsvector('simple', ...)`` of the same text; the search's ``@@`` uses the same
  expressions, so the planner uses them.

The expressions live in :mod:`wason.store.search`, the one place that queries them.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from alembic import op

from wason.store import search

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    bind = op.get_bind()
    for statement in search.create_statements(bind, version=1):  # replies and feedback; 0008 adds the moves
        bind.exec_driver_sql(statement)


def downgrade() -> None:
    bind = op.get_bind()
    for statement in search.drop_statements(bind):
        bind.exec_driver_sql(statement)
