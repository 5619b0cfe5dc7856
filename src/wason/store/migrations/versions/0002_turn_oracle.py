"""Add ``turns.oracle``: the outside work settled for a turn's action (e.g. an LLM labeller's labels).

With it stored, a game can be restored from its turns without calling a model again. Nullable, so turns written
before this revision (and turns that needed no outside work) simply have none.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.add_column("turns", sa.Column("oracle", sa.JSON, nullable=True))


def downgrade() -> None:
    # batch mode, because SQLite before 3.35 cannot drop a column in place
    with op.batch_alter_table("turns") as batch:
        batch.drop_column("oracle")
