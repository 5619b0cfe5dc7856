"""Search the moves too: a turn's index holds its action's values beside its reply and feedback.

A solver's, a person's or a scripted player's move has no reply of its own (or one that does not say it: a guess
"medical equipment", a solver's final guess ``lambda x, y, z: ...``), so the search of 0006 could not find what
they did. The turns' index is rebuilt with the action's strings and numbers (its ``type`` tag left out):

- SQLite: ``search_turns`` and its triggers are made again (the triggers now also follow an update of
  ``action``), and every stored turn is indexed again;
- PostgreSQL: ``ix_turns_search`` is made again on ``to_tsvector(reply, feedback) ||
  jsonb_to_tsvector(action - 'type', strings and numbers)``.

The model calls' index is unchanged. The expressions live in :mod:`wason.store.search`.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

from alembic import op

from wason.store import search

revision = "0008"
down_revision = "0007"


def _run(statements: list[str]) -> None:
    bind = op.get_bind()
    for statement in statements:
        bind.exec_driver_sql(statement)


def upgrade() -> None:
    bind = op.get_bind()
    if not search.create_statements(bind, version=2, only_turns=True):
        return  # no search index on this database (a SQLite without FTS5): nothing to rebuild
    _run(search.drop_statements(bind, only_turns=True))
    _run(search.create_statements(bind, version=2, only_turns=True))


def downgrade() -> None:
    bind = op.get_bind()
    if not search.create_statements(bind, version=1, only_turns=True):
        return
    _run(search.drop_statements(bind, only_turns=True))
    _run(search.create_statements(bind, version=1, only_turns=True))
