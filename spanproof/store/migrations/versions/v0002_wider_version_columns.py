"""Wider version columns: judge prompt "hashes" are versions of any length (the scripted
judge's is "script-" + a sha256), and sanitiser/spanproof versions get room to grow.

Revision ID: 0002
Revises: 0001

SQLite ignores VARCHAR lengths but the table definitions are kept identical on both
backends, so there the tables are rebuilt (Alembic's batch mode).
"""

from __future__ import annotations

import sqlalchemy as sa

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# (table, column) -> (old length, new length)
WIDENED: dict[tuple[str, str], tuple[int, int]] = {
    ("verdicts", "prompt_sha256"): (64, 255),
    **{
        (table, column): (40, 64)
        for table in ("runs", "gate_runs", "verdicts", "usefulness")
        for column in ("spanproof_version", "sanitiser_version")
    },
}


def _alter(to_new: bool) -> None:
    from alembic import op

    tables = sorted({table for table, _ in WIDENED})
    for table in tables:
        with op.batch_alter_table(table) as batch:
            for (tbl, column), (old, new) in WIDENED.items():
                if tbl == table:
                    batch.alter_column(
                        column,
                        type_=sa.String(new if to_new else old),
                        existing_type=sa.String(old if to_new else new),
                    )


def upgrade() -> None:
    _alter(True)


def downgrade() -> None:
    _alter(False)
