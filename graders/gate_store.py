"""Where gate runs are kept: table ``gate_runs`` in the home's run-store SQLite file."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from spanproof.graders.gate_result import GateResult

# ---------------------------------------------------------------------------
# Gate-run storage: one row per gate run, next to the agent's runs


class GateStore:
    """Gate runs in the home's run-store SQLite file, table ``gate_runs`` (owned by the gate)."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS gate_runs (
        gate_id TEXT PRIMARY KEY,
        started_at TEXT NOT NULL,
        passed INTEGER NOT NULL,
        exit_code INTEGER NOT NULL,
        config_sha256 TEXT NOT NULL,
        judge TEXT NOT NULL,
        policy TEXT NOT NULL,
        model TEXT,
        judge_ids TEXT NOT NULL,
        prompt_hashes TEXT NOT NULL,
        metrics TEXT NOT NULL,
        result TEXT NOT NULL
    );
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as conn:
            conn.executescript(self.SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self.path, timeout=30)
        conn.row_factory = sqlite3.Row
        return conn

    def save(self, result: GateResult) -> None:
        metrics = {r.name: r.value for r in result.checks}
        with self._connect() as conn:
            conn.execute(
                "INSERT OR REPLACE INTO gate_runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    result.gate_id, result.started_at, int(result.passed), result.exit_code,
                    result.config_sha256, result.judge, result.policy, result.model,
                    json.dumps(result.judge_ids), json.dumps(result.prompt_hashes, sort_keys=True),
                    json.dumps(metrics, sort_keys=True), result.model_dump_json(),
                ),
            )  # fmt: skip

    def list(self) -> list[GateResult]:
        with self._connect() as conn:
            rows = conn.execute("SELECT result FROM gate_runs ORDER BY started_at").fetchall()
        return [GateResult.model_validate_json(r["result"]) for r in rows]


def store_path(home: Path) -> Path:
    try:
        from spanproof.agent.runstore import default_runstore_path
    except ImportError:
        return home / "runs.sqlite"
    return default_runstore_path(home)
