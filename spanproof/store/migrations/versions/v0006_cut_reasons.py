"""A reviewer's cut says why: not supported by its span, or not an answer.

Revision ID: 0006
Revises: 0005

- ``reviews.cut_reason``: ``not_supported`` (the span does not support the claim as stated;
  the cut carries the reviewer's PARTIAL or NOT_SUPPORTED and becomes a labelled pair) or
  ``not_an_answer`` (the claim may be true of its span but does not answer the question; it
  carries no support label and stays out of the bench). Cuts stored before this revision have
  none: each carries the label it was given.

A nullable column with no constraint: added in place on both backends; dropped in batch mode
on SQLite, from the table as revision 0004 made it (0005 left it alone) (so its CHECK constraint is kept).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from spanproof.store.migrations.versions import v0004_baselines_and_reviewed_labels as v4

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

CUT_REASON_CHARS = 24


def cut_reason_column() -> sa.Column[Any]:
    return sa.Column("cut_reason", sa.String(CUT_REASON_CHARS))


def reviews_now_columns() -> list[sa.Column[Any] | sa.CheckConstraint]:
    """The reviews table after this revision (the store's schema module builds it from here)."""
    return [*v4.reviews_now_columns(), cut_reason_column()]


def upgrade() -> None:
    from alembic import op

    op.add_column("reviews", cut_reason_column())


def downgrade() -> None:
    from alembic import op

    now = sa.Table("reviews", sa.MetaData(), *reviews_now_columns())
    sa.Index("reviews_run", now.c.run_id, now.c.claim_index)
    with op.batch_alter_table("reviews", copy_from=now) as batch:
        batch.drop_column("cut_reason")
