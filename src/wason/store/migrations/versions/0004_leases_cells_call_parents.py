"""Run leases, sweep cells and model calls that store only what is new in their request.

- ``runs.owner`` / ``runs.heartbeat_at``: the process working on a run (``host:pid:nonce``) and when it last said
  so. A second process that tries to run or resume it is refused while the heartbeat is fresh; a lease whose owner
  died is taken over.
- ``runs.sweep`` / ``runs.cell``: the sweep a run belongs to and its cell key; unique together, so a retried cell
  finds its run instead of making a second one.
- ``model_calls.parent_id``: a call whose request extends an earlier call's request (the next turn of the same
  conversation) stores only the new messages in ``messages`` and points at that call; the full conversation is the
  parent's, then these. Rows written before this revision have no parent and keep their whole conversation, so
  they read back unchanged.
- ``model_calls.served_model``: the model name the endpoint reported. A call's record is now also its cache entry
  (the reply is looked up by ``cache_key`` among answered calls), so the reply is no longer written a second time
  into ``call_cache``; entries already there are still read.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"

CELL_INDEX = "uq_runs_sweep_cell"


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("owner", sa.String(256)))
        batch.add_column(sa.Column("heartbeat_at", sa.DateTime(timezone=True)))
        batch.add_column(sa.Column("sweep", sa.String(256)))
        batch.add_column(sa.Column("cell", sa.String(1024)))
    op.create_index(CELL_INDEX, "runs", ["sweep", "cell"], unique=True)
    with op.batch_alter_table("model_calls") as batch:
        batch.add_column(sa.Column("parent_id", sa.Integer))
        batch.add_column(sa.Column("served_model", sa.String(256)))


def downgrade() -> None:
    # the older schema reads ``messages`` as the whole conversation: write it back whole before the pointer goes
    calls = sa.table("model_calls", sa.column("id"), sa.column("parent_id"), sa.column("messages", sa.JSON))
    bind = op.get_bind()
    full: dict[int, list[object]] = {}
    for call_id, parent_id, messages in bind.execute(
        sa.select(calls.c.id, calls.c.parent_id, calls.c.messages).order_by(calls.c.id)
    ):
        # a parent is always an earlier call, so its conversation is already known
        whole = [*full.get(parent_id, []), *messages] if parent_id is not None else list(messages)
        full[call_id] = whole
        if parent_id is not None:
            bind.execute(calls.update().where(calls.c.id == call_id).values(messages=whole))
    # the older code reads replies from call_cache only: copy there what only the call records hold
    cache = sa.table("call_cache", sa.column("key"), sa.column("response", sa.JSON), sa.column("created_at"))
    answered = sa.table(
        "model_calls",
        sa.column("id"),
        sa.column("cache_key"),
        sa.column("response"),
        sa.column("input_tokens"),
        sa.column("output_tokens"),
        sa.column("finish_reason"),
        sa.column("served_model"),
        sa.column("created_at"),
    )
    known = set(bind.execute(sa.select(cache.c.key)).scalars())
    for row in bind.execute(
        sa.select(answered).where(answered.c.response.is_not(None), answered.c.cache_key.is_not(None))
    ).mappings():
        if row["cache_key"] in known:
            continue
        known.add(row["cache_key"])
        reply = {
            "text": row["response"],
            "input_tokens": row["input_tokens"],
            "output_tokens": row["output_tokens"],
            "finish_reason": row["finish_reason"],
            "model": row["served_model"],
        }
        bind.execute(
            cache.insert().values(key=row["cache_key"], response=reply, created_at=row["created_at"])
        )
    with op.batch_alter_table("model_calls") as batch:
        batch.drop_column("served_model")
        batch.drop_column("parent_id")
    op.drop_index(CELL_INDEX, table_name="runs")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("cell")
        batch.drop_column("sweep")
        batch.drop_column("heartbeat_at")
        batch.drop_column("owner")
