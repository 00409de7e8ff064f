"""Gate runs know their git branch; a reviewer's decision can carry a verdict for the bench.

Revision ID: 0004
Revises: 0003

- ``gate_runs.git_branch`` (and an index with ``passed`` and ``started_at``): so
  ``spanproof gate --baseline last-passed`` finds the newest passing gate run of the branch
  being gated, in one indexed query.
- ``reviews.label``: the reviewer's verdict on the claim against its span, when the decision
  states one (a cut says PARTIAL or NOT_SUPPORTED; an edit the verifier refused and the
  reviewer stands by says SUPPORTED); ``spanproof goldens add-from-reviews`` exports these as
  labelled pairs.
- ``reviews.decision`` may also be ``refused``: an edit the verifier refused, kept because the
  reviewer says the span supports it. It changes nothing that is published.

SQLite cannot alter a CHECK constraint in place, so ``reviews`` is rebuilt there (Alembic's
batch mode, from the table as revision 0001 made it).
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from spanproof.store.migrations.versions.v0001_initial import NAME, reviews_columns

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

DECISIONS_BEFORE = "decision IN ('approve', 'edit', 'cut')"
DECISIONS = "decision IN ('approve', 'edit', 'cut', 'refused')"


def gate_branch_column() -> sa.Column[Any]:
    return sa.Column("git_branch", sa.String(NAME))


def review_label_column() -> sa.Column[Any]:
    return sa.Column("label", sa.String(16))


INDEXES = [("gate_runs_branch", "gate_runs", ["git_branch", "passed", "started_at"])]


def _with_index(table: sa.Table) -> sa.Table:
    # Batch mode rebuilds the table from this definition, so it must carry its index too.
    sa.Index("reviews_run", table.c.run_id, table.c.claim_index)
    return table


def _reviews_as_made() -> sa.Table:
    return _with_index(sa.Table("reviews", sa.MetaData(), *reviews_columns()))


def reviews_now_columns() -> list[sa.Column[Any] | sa.CheckConstraint]:
    """The reviews table after this revision (the store's schema module builds it from here)."""
    kept = [c for c in reviews_columns() if isinstance(c, sa.Column)]
    return [*kept, review_label_column(), sa.CheckConstraint(DECISIONS, name="reviews_decision")]


def upgrade() -> None:
    from alembic import op

    op.add_column("gate_runs", gate_branch_column())
    for name, table, cols in INDEXES:
        op.create_index(name, table, cols)
    with op.batch_alter_table("reviews", copy_from=_reviews_as_made()) as batch:
        batch.add_column(review_label_column())
        batch.drop_constraint("reviews_decision", type_="check")
        batch.create_check_constraint("reviews_decision", DECISIONS)


def downgrade() -> None:
    from alembic import op

    now = _with_index(sa.Table("reviews", sa.MetaData(), *reviews_now_columns()))
    with op.batch_alter_table("reviews", copy_from=now) as batch:
        batch.drop_constraint("reviews_decision", type_="check")
        batch.drop_column("label")
        batch.create_check_constraint("reviews_decision", DECISIONS_BEFORE)
    for name, table, _cols in INDEXES:
        op.drop_index(name, table)
    op.drop_column("gate_runs", "git_branch")
