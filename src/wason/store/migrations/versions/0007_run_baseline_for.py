"""A run's baseline link as an indexed column: ``runs.baseline_for``.

A solver baseline names the run it was made for in its configuration (``baseline_for``). Finding a run's
baselines read every run of the store and parsed its configuration; the column (filled here from the
configurations already stored, and by :meth:`wason.store.Store.create_run` from then on) makes it one indexed
query, on SQLite and PostgreSQL alike. The configuration keeps its ``baseline_for``: exports and reports read it.

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"

INDEX = "ix_runs_baseline_for"


def baseline_of(config: Any) -> int | None:
    """The run a stored configuration names as the one it is a baseline of, or None."""
    if isinstance(config, str):  # a driver that hands JSON back as text
        try:
            config = json.loads(config)
        except ValueError:
            return None
    made_for = config.get("baseline_for") if isinstance(config, dict) else None
    # a flag is an int in Python: never a run id
    return made_for if isinstance(made_for, int) and not isinstance(made_for, bool) else None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("baseline_for", sa.Integer))
    op.create_index(INDEX, "runs", ["baseline_for"])
    runs = sa.table(
        "runs", sa.column("id", sa.Integer), sa.column("config", sa.JSON), sa.column("baseline_for")
    )
    bind = op.get_bind()
    # read in batches by id, so that a large store is not held in memory at once
    last = 0
    while True:
        rows = bind.execute(
            sa.select(runs.c.id, runs.c.config).where(runs.c.id > last).order_by(runs.c.id).limit(1000)
        ).all()
        if not rows:
            break
        last = int(rows[-1][0])
        for run_id, config in rows:
            made_for = baseline_of(config)
            if made_for is not None:
                bind.execute(runs.update().where(runs.c.id == run_id).values(baseline_for=made_for))


def downgrade() -> None:
    op.drop_index(INDEX, table_name="runs")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("baseline_for")
