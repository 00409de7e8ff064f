"""The store's tables as SQLAlchemy Core objects: what the code reads and writes.

Built from the migrations' own column definitions, so the tables the code uses are the
tables the migrations create. A later migration that changes a table changes it here too;
a test compares this metadata with a freshly migrated database on both backends.
"""

from __future__ import annotations

import sqlalchemy as sa

from spanproof.store.migrations.versions import v0001_initial as v1
from spanproof.store.migrations.versions import v0002_wider_version_columns as v2
from spanproof.store.migrations.versions import v0003_rechecks as v3
from spanproof.store.migrations.versions import v0004_baselines_and_reviewed_labels as v4
from spanproof.store.migrations.versions import v0005_signatures as v5
from spanproof.store.migrations.versions import v0006_cut_reasons as v6

KNOWN_REVISIONS = (
    "0001",
    "0002",
    "0003",
    "0004",
    "0005",
    "0006",
)  # every revision, oldest first; a test checks them against Alembic
HEAD = KNOWN_REVISIONS[-1]

metadata = sa.MetaData()
runs = sa.Table("runs", metadata, *v1.runs_columns())
gate_runs = sa.Table("gate_runs", metadata, *v1.gate_runs_columns(), v4.gate_branch_column())
gate_refs = sa.Table("gate_refs", metadata, *v1.gate_refs_columns())
verdicts = sa.Table("verdicts", metadata, *v1.verdicts_columns())
usefulness = sa.Table("usefulness", metadata, *v1.usefulness_columns())
reviews = sa.Table("reviews", metadata, *v6.reviews_now_columns())
snapshot_holders = sa.Table("snapshot_holders", metadata, *v1.snapshot_holders_columns())
rechecks = sa.Table("rechecks", metadata, *v3.rechecks_columns())
signatures = sa.Table("signatures", metadata, *v5.signatures_columns())
for _name, _table, _cols in [*v1.INDEXES, *v3.INDEXES, *v4.INDEXES, *v5.INDEXES]:
    sa.Index(_name, *(metadata.tables[_table].c[c] for c in _cols))
for (_table, _column), (_old, _new) in v2.WIDENED.items():
    metadata.tables[_table].c[_column].type = sa.String(_new)

TABLE_NAMES = tuple(metadata.tables)
