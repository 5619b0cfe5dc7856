"""Baseline: the five tables of release 0.1.0 (runs, episodes, turns, model calls, the call cache).

Release 0.1.0 created these tables with ``metadata.create_all`` and no version; such a store is stamped at this
revision without running it. The definitions are copied here, not imported from `wason.store.db`, because a
revision must keep building the schema it was released with while the tables in db.py move on.

Revision ID: 0001
Revises: (none)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("task", sa.String(64), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("model", sa.String(256)),
        sa.Column("config", sa.JSON, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True)),
    )
    op.create_table(
        "episodes",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.Integer, sa.ForeignKey("runs.id"), nullable=False),
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
    op.create_index("ix_episodes_run_id", "episodes", ["run_id"])
    op.create_table(
        "turns",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("episode_id", sa.Integer, sa.ForeignKey("episodes.id"), nullable=False),
        sa.Column("index", sa.Integer, nullable=False),
        sa.Column("action", sa.JSON, nullable=False),
        sa.Column("observation", sa.JSON, nullable=False),
        sa.Column("reply", sa.Text),
        sa.Column("feedback", sa.Text),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_turns_episode_id", "turns", ["episode_id"])
    op.create_table(
        "model_calls",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.Integer),
        sa.Column("episode_id", sa.Integer),
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
        sa.Column("cache_key", sa.String(64)),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_model_calls_run_id", "model_calls", ["run_id"])
    op.create_index("ix_model_calls_episode_id", "model_calls", ["episode_id"])
    op.create_index("ix_model_calls_cache_key", "model_calls", ["cache_key"])
    op.create_table(
        "call_cache",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("response", sa.JSON, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    for table in ("call_cache", "model_calls", "turns", "episodes", "runs"):
        op.drop_table(table)
