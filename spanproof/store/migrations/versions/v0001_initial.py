"""The first shared schema: runs, gate runs, verdicts, usefulness scores, reviews, snapshots.

Revision ID: 0001
Revises: (none)

Times are naive UTC (``DateTime`` without zone) on both backends, so date filters compare
the same way in SQLite and PostgreSQL. Records are stored as the JSON pydantic wrote
(``Text``), untouched, beside the columns reports filter and group on. Provenance columns
are the same on runs, gate runs and verdicts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.schema import SchemaItem

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

ID = 64  # run ids are UUIDs (36); older stores used run_<timestamp>_<hex> (27)
NAME = 255


def provenance_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("spanproof_version", sa.String(40), nullable=False),
        sa.Column("git_commit", sa.String(64)),
        sa.Column("host", sa.String(NAME), nullable=False),
        sa.Column("runner", sa.String(NAME), nullable=False),
        sa.Column("ci_job", sa.String(NAME)),
        sa.Column("sanitiser_version", sa.String(40), nullable=False),
    ]


def runs_columns() -> list[SchemaItem]:
    return [
        sa.Column("run_id", sa.String(ID), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("policy", sa.String(32), nullable=False),
        sa.Column("model", sa.String(NAME)),
        sa.Column("judges", sa.String(1024)),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sa.Column("finished_at", sa.DateTime),
        sa.Column("record_version", sa.Integer, nullable=False),
        sa.Column("claims_published", sa.Integer),
        sa.Column("published_groundedness", sa.Float),
        sa.Column("pre_prune_supported_rate", sa.Float),
        sa.Column("cost_usd", sa.Float),
        *provenance_columns(),
        sa.Column("home", sa.String(1024)),
        sa.Column("pid", sa.Integer),
        sa.Column("prompt_version", sa.String(64)),
        sa.Column("provenance", sa.Text, nullable=False),
        # The store instance that inserted the row: only it may update the row afterwards.
        sa.Column("writer", sa.String(36), nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.CheckConstraint("kind IN ('ask', 'gate', 'injection', 'grade')", name="runs_kind"),
    ]


def gate_runs_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("gate_id", sa.String(ID), primary_key=True),
        sa.Column("started_at", sa.DateTime, nullable=False),
        sa.Column("passed", sa.Boolean, nullable=False),
        sa.Column("exit_code", sa.Integer, nullable=False),
        sa.Column("config_sha256", sa.String(64), nullable=False),
        sa.Column("judge", sa.String(NAME), nullable=False),
        sa.Column("policy", sa.String(32), nullable=False),
        sa.Column("model", sa.String(NAME)),
        sa.Column("judge_ids", sa.Text, nullable=False),
        sa.Column("prompt_hashes", sa.Text, nullable=False),
        sa.Column("metrics", sa.Text, nullable=False),
        *provenance_columns(),
        sa.Column("home", sa.String(1024)),
        sa.Column("prompt_version", sa.String(64)),
        sa.Column("provenance", sa.Text, nullable=False),
        sa.Column("result", sa.Text, nullable=False),
    ]


def gate_refs_columns() -> list[SchemaItem]:
    # What a gate result rests on: its agent runs and the cached verdicts it used. Pruning
    # never deletes a row referenced here.
    return [
        sa.Column("gate_id", sa.String(ID), primary_key=True),
        sa.Column("ref_kind", sa.String(8), primary_key=True),
        sa.Column("ref", sa.String(ID), primary_key=True),
        sa.CheckConstraint("ref_kind IN ('run', 'verdict')", name="gate_refs_kind"),
    ]


def verdicts_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("judge", sa.String(NAME), nullable=False),
        sa.Column("model_id", sa.String(NAME)),
        sa.Column("prompt_sha256", sa.String(64)),
        sa.Column("verdict", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        *provenance_columns(),
    ]


def usefulness_columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("score", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        *provenance_columns(),
    ]


def reviews_columns() -> list[SchemaItem]:
    return [
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("run_id", sa.String(ID), nullable=False),
        sa.Column("claim_index", sa.Integer, nullable=False),
        sa.Column("decision", sa.String(8), nullable=False),
        sa.Column("edited_text", sa.Text),
        sa.Column("edited_verdict", sa.JSON),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("reviewer", sa.String(NAME), nullable=False),
        sa.Column("decided_at", sa.DateTime, nullable=False),
        sa.CheckConstraint("decision IN ('approve', 'edit', 'cut')", name="reviews_decision"),
    ]


def snapshot_holders_columns() -> list[sa.Column[Any]]:
    # Snapshots stay content-addressed files in each runner's home; with a shared database
    # this says which runner (and which home on it) holds a document's blob.
    return [
        sa.Column("doc_id", sa.String(32), primary_key=True),
        sa.Column("runner", sa.String(NAME), primary_key=True),
        sa.Column("home", sa.String(512), primary_key=True),
        sa.Column("host", sa.String(NAME), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("retrieved_at", sa.String(40), nullable=False),
        sa.Column("recorded_at", sa.DateTime, nullable=False),
    ]


TABLES: dict[str, Callable[[], Sequence[SchemaItem]]] = {
    "runs": runs_columns,
    "gate_runs": gate_runs_columns,
    "gate_refs": gate_refs_columns,
    "verdicts": verdicts_columns,
    "usefulness": usefulness_columns,
    "reviews": reviews_columns,
    "snapshot_holders": snapshot_holders_columns,
}
INDEXES = [
    ("runs_created", "runs", ["created_at"]),
    ("runs_kind_created", "runs", ["kind", "created_at"]),
    ("gate_runs_started", "gate_runs", ["started_at"]),
    ("gate_refs_ref", "gate_refs", ["ref_kind", "ref"]),
    ("verdicts_created", "verdicts", ["created_at"]),
    ("reviews_run", "reviews", ["run_id", "claim_index"]),
]


def upgrade() -> None:
    from alembic import op

    for name, columns in TABLES.items():
        op.create_table(name, *columns())
    for name, table, cols in INDEXES:
        op.create_index(name, table, cols)


def downgrade() -> None:
    from alembic import op

    for name in reversed(list(TABLES)):
        op.drop_table(name)
