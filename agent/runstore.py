"""Durable run storage: SQLite with numbered migrations, written as the run goes.

A run is saved after every step with status `interrupted`; only the final save
marks it `complete` (or `failed`). So a process killed mid-run leaves a
readable record that already says it was interrupted, with no clean-up hook.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from pydantic import BaseModel
from spanproof.agent.record import RunRecord

# Append only: each entry runs once, in order, and bumps PRAGMA user_version.
MIGRATIONS: list[str] = [
    # 1: one row per run, the record as JSON plus the columns `runs list` needs
    """
    CREATE TABLE runs (
        run_id TEXT PRIMARY KEY,
        question TEXT NOT NULL,
        status TEXT NOT NULL,
        policy TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        record_version INTEGER NOT NULL,
        record TEXT NOT NULL
    );
    CREATE INDEX runs_created ON runs(created_at);
    """,
    # 2: headline numbers as columns so reports can filter without parsing JSON
    """
    ALTER TABLE runs ADD COLUMN claims_published INTEGER;
    ALTER TABLE runs ADD COLUMN published_groundedness REAL;
    ALTER TABLE runs ADD COLUMN pre_prune_supported_rate REAL;
    ALTER TABLE runs ADD COLUMN cost_usd REAL;
    """,
]


class RunSummary(BaseModel):
    run_id: str
    question: str
    status: str
    policy: str
    created_at: str
    updated_at: str
    claims_published: int | None = None
    published_groundedness: float | None = None
    cost_usd: float | None = None
    still_running: bool = False  # status interrupted but its process is alive


def default_runstore_path(home: Path) -> Path:
    return home / "runs.sqlite"


def _pid_alive(pid: int | None) -> bool:
    if not pid or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError, OSError):
        return False
    return True


class RunStore:
    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            self._migrate(conn)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.row_factory = sqlite3.Row
        return conn

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        for number, sql in enumerate(MIGRATIONS[version:], start=version + 1):
            conn.executescript("BEGIN;" + sql + f"PRAGMA user_version = {number};COMMIT;")

    @property
    def schema_version(self) -> int:
        with self._connect() as conn:
            return conn.execute("PRAGMA user_version").fetchone()[0]

    def save(self, record: RunRecord) -> None:
        from spanproof.agent.evidence import utc_now_iso

        m = record.metrics
        row = (
            record.run_id,
            record.question,
            record.status,
            record.config.policy,
            record.created_at,
            utc_now_iso(),
            record.record_version,
            record.model_dump_json(),
            m.claims_published + m.claims_flagged + m.claims_narrowed,
            m.published_groundedness,
            m.pre_prune_supported_rate,
            m.cost.total_usd,
        )
        with self._connect() as conn:
            conn.execute(
                """INSERT INTO runs (run_id, question, status, policy, created_at, updated_at,
                       record_version, record, claims_published, published_groundedness,
                       pre_prune_supported_rate, cost_usd)
                   VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
                   ON CONFLICT(run_id) DO UPDATE SET status=excluded.status,
                       updated_at=excluded.updated_at, record=excluded.record,
                       claims_published=excluded.claims_published,
                       published_groundedness=excluded.published_groundedness,
                       pre_prune_supported_rate=excluded.pre_prune_supported_rate,
                       cost_usd=excluded.cost_usd""",
                row,
            )

    def get(self, run_id: str) -> RunRecord:
        with self._connect() as conn:
            row = conn.execute("SELECT record FROM runs WHERE run_id = ?", (run_id,)).fetchone()
            if row is None:
                row = conn.execute(
                    "SELECT record FROM runs WHERE run_id LIKE ? ORDER BY created_at DESC",
                    (run_id + "%",),
                ).fetchone()
        if row is None:
            raise KeyError(f"no run {run_id!r} in {self.path}; `spanproof runs list` shows the ids")
        return RunRecord.model_validate(json.loads(row["record"]))

    def list(self, limit: int | None = None) -> list[RunSummary]:
        sql = "SELECT * FROM runs ORDER BY created_at DESC, updated_at DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        with self._connect() as conn:
            rows = conn.execute(sql).fetchall()
        out = []
        for row in rows:
            pid = json.loads(row["record"]).get("pid") if row["status"] == "interrupted" else None
            out.append(
                RunSummary(
                    run_id=row["run_id"],
                    question=row["question"],
                    status=row["status"],
                    policy=row["policy"],
                    created_at=row["created_at"],
                    updated_at=row["updated_at"],
                    claims_published=row["claims_published"],
                    published_groundedness=row["published_groundedness"],
                    cost_usd=row["cost_usd"],
                    still_running=_pid_alive(pid),
                )
            )
        return out

    def records(self) -> list[RunRecord]:
        """Every stored record, newest first (for reports and the gate)."""
        with self._connect() as conn:
            rows = conn.execute("SELECT record FROM runs ORDER BY created_at DESC").fetchall()
        return [RunRecord.model_validate(json.loads(r["record"])) for r in rows]
