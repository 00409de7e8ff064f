"""A reviewer's signature on a run: who vouched for its brief, and when.

Revision ID: 0005
Revises: 0004

One row per signature, appended, never edited (like reviews). Whether a signature is still
in force (no decision recorded after it) is read beside the run's reviews, not stored.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from spanproof.store.migrations.versions.v0001_initial import ID, NAME

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def signatures_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("run_id", sa.String(ID), nullable=False),
        sa.Column("reviewer", sa.String(NAME), nullable=False),
        sa.Column("signed_at", sa.DateTime, nullable=False),
    ]


INDEXES = [("signatures_run", "signatures", ["run_id", "signed_at"])]


def upgrade() -> None:
    from alembic import op

    op.create_table("signatures", *signatures_columns())
    for name, table, cols in INDEXES:
        op.create_index(name, table, cols)


def downgrade() -> None:
    from alembic import op

    op.drop_table("signatures")
