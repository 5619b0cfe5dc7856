"""Sentence embeddings of texts, cached: ``wason show --novelty`` embeds every message of a run once.

- ``embeddings``: one row per (embedding model, SHA-256 of the text): the vector as little-endian float32 bytes
  and its length. Nothing refers to it, and it holds no text: deleting rows only costs recomputing them.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_table(
        "embeddings",
        sa.Column("model", sa.String(128), primary_key=True),
        sa.Column("text_sha256", sa.String(64), primary_key=True),
        sa.Column("dim", sa.Integer, nullable=False),
        sa.Column("vector", sa.LargeBinary, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("embeddings")
