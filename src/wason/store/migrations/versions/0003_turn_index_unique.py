"""One turn per (episode, index): a session stepped from two places at once stores one of the two steps.

Sessions are advanced one request or one process at a time; two that restore the same game and step it at once
would each store a turn with the same index, and the game would no longer replay. The unique index makes the
second insert fail, and the session layer reports it as "the session moved on". Turns written before this
revision never repeat an index (an episode's turns are deleted before it is replayed); if a store does hold
such duplicates, the migration stops with a message naming one, and the store is left as it was.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from wason.store.migrations import MigrationRefused

revision = "0003"
down_revision = "0002"

INDEX = "uq_turns_episode_index"


def upgrade() -> None:
    turns = sa.table("turns", sa.column("episode_id"), sa.column("index"))
    duplicate = (
        op.get_bind()
        .execute(
            sa.select(turns.c.episode_id, turns.c.index)
            .group_by(turns.c.episode_id, turns.c.index)
            .having(sa.func.count() > 1)
            .limit(1)
        )
        .first()
    )
    if duplicate is not None:
        raise MigrationRefused(
            f"episode {duplicate[0]} has two turns numbered {duplicate[1]}; remove one before upgrading"
        )
    op.create_index(INDEX, "turns", ["episode_id", "index"], unique=True)


def downgrade() -> None:
    op.drop_index(INDEX, table_name="turns")
