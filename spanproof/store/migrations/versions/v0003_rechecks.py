"""Recheck findings: what `spanproof recheck` saw when it re-fetched a run's cited pages.

Revision ID: 0003
Revises: 0002

One row per cited span per recheck (checks 1 and 2 of the verification pass), kept apart
from the run's record, which only its writer may update.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from spanproof.store.migrations.versions.v0001_initial import ID, NAME

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def rechecks_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("run_id", sa.String(ID), nullable=False),
        sa.Column("span_id", sa.String(32), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("checked_at", sa.DateTime, nullable=False),
        sa.Column("resolves", sa.Boolean, nullable=False),
        sa.Column("same_snapshot", sa.Boolean),
        sa.Column("quote_on_page", sa.Boolean),
        sa.Column("snapshot_sha256", sa.String(64), nullable=False),
        sa.Column("fetched_sha256", sa.String(64)),
        sa.Column("flag", sa.Text, nullable=False),
        sa.Column("runner", sa.String(NAME), nullable=False),
    ]


INDEXES = [("rechecks_run", "rechecks", ["run_id", "span_id"])]


def upgrade() -> None:
    from alembic import op

    op.create_table("rechecks", *rechecks_columns())
    for name, table, cols in INDEXES:
        op.create_index(name, table, cols)


def downgrade() -> None:
    from alembic import op

    op.drop_table("rechecks")
