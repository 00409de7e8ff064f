"""`spanproof store migrate --from HOME --to URL` copies a home written by an older spanproof
(runs.sqlite, verdicts.sqlite, usefulness.sqlite) or by this one, idempotently."""

from __future__ import annotations

import json
import sqlite3
import uuid
from contextlib import closing
from datetime import datetime

from click.testing import CliRunner
from spanproof.agent.record import RunConfig, RunRecord
from spanproof.agent.runstore import RunStore

from spanproof.cli import cli
from spanproof.gate.result import GateResult
from spanproof.store.store import Store

# The schema older spanproof versions created, verbatim, so the copy is tested on real files.
OLD_RUNS = """
CREATE TABLE runs (run_id TEXT PRIMARY KEY, question TEXT NOT NULL, status TEXT NOT NULL,
  policy TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  record_version INTEGER NOT NULL, record TEXT NOT NULL, claims_published INTEGER,
  published_groundedness REAL, pre_prune_supported_rate REAL, cost_usd REAL);
CREATE TABLE gate_runs (gate_id TEXT PRIMARY KEY, started_at TEXT NOT NULL, passed INTEGER NOT NULL,
  exit_code INTEGER NOT NULL, config_sha256 TEXT NOT NULL, judge TEXT NOT NULL, policy TEXT NOT NULL,
  model TEXT, judge_ids TEXT NOT NULL, prompt_hashes TEXT NOT NULL, metrics TEXT NOT NULL,
  result TEXT NOT NULL);
PRAGMA user_version = 2;
"""


def _legacy_home(home) -> tuple[list[str], str]:
    home.mkdir()
    run_ids = [f"run_20260101T00000{i}_abcdef" for i in range(3)]
    gate = GateResult(passed=True, exit_code=0, checks=[], wall_s=1.0, gate_id="gate_0123456789abcdef",
                      judge="rules", policy="extractive", run_ids=run_ids[:2])  # fmt: skip
    with closing(sqlite3.connect(home / "runs.sqlite")) as db:
        db.executescript(OLD_RUNS)
        for i, rid in enumerate(run_ids):
            rec = RunRecord(run_id=rid, question=f"old q{i}", status="complete",
                            created_at=f"2026-01-0{i + 1}T00:00:00Z",
                            config=RunConfig(policy="extractive", judges=["rules"]))  # fmt: skip
            db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                       (rid, rec.question, "complete", "extractive", rec.created_at, rec.created_at, 1,
                        rec.model_dump_json(exclude={"kind", "provenance"}), 0, None, None, 0.0))  # fmt: skip
        db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                   ("run_broken", "q", "complete", "extractive", "2026-01-01T00:00:00Z",
                    "2026-01-01T00:00:00Z", 1, "{not json", 0, None, None, 0.0))  # fmt: skip
        db.execute("INSERT INTO gate_runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                   (gate.gate_id, gate.started_at, 1, 0, "c" * 64, "rules", "extractive", None, "[]",
                    "{}", "{}", gate.model_dump_json()))  # fmt: skip
        db.commit()
    with closing(sqlite3.connect(home / "verdicts.sqlite")) as db:
        db.execute("CREATE TABLE verdicts (key TEXT PRIMARY KEY, judge TEXT NOT NULL, verdict TEXT "
                   "NOT NULL, created_at TEXT DEFAULT CURRENT_TIMESTAMP)")  # fmt: skip
        for k in ("k1", "k2"):
            db.execute("INSERT INTO verdicts (key, judge, verdict) VALUES (?, 'rules', ?)",
                       (k, json.dumps({"verdict": "SUPPORTED", "judge": "rules"})))  # fmt: skip
        db.commit()
    with closing(sqlite3.connect(home / "usefulness.sqlite")) as db:
        db.execute("CREATE TABLE usefulness (key TEXT PRIMARY KEY, score TEXT NOT NULL)")
        db.execute("INSERT INTO usefulness VALUES ('u1', ?)", ('{"score": 4}',))
        db.commit()
    return run_ids, gate.gate_id


def _migrate(src, url):
    return CliRunner().invoke(cli, ["store", "migrate", "--from", str(src), "--to", url, "--json"])


def test_migrating_an_old_home_copies_everything_once(db_url, tmp_path):
    run_ids, gate_id = _legacy_home(tmp_path / "old")
    first = _migrate(tmp_path / "old", db_url)
    assert first.exit_code == 0, first.output
    got = json.loads(first.stdout)
    assert (
        got["runs_copied"],
        got["gate_runs_copied"],
        got["verdicts_copied"],
        got["usefulness_copied"],
    ) == (3, 1, 2, 1)
    assert got["runs_unreadable"] == ["run_broken"] and "could not be read" in first.stderr
    again = json.loads(_migrate(tmp_path / "old", db_url).stdout)
    assert (
        again["runs_copied"],
        again["runs_already_there"],
        again["gate_runs_copied"],
        again["verdicts_copied"],
    ) == (0, 3, 0, 0)

    store = Store(db_url)
    runs = RunStore(store)
    kinds = {r.run_id: r.kind for r in store.list_runs(kind=None).items}
    assert kinds == {
        run_ids[0]: "gate",
        run_ids[1]: "gate",
        run_ids[2]: "ask",
    }  # from the gate's run_ids
    rec = runs.get(run_ids[2])
    assert rec.question == "old q2" and rec.provenance["imported_from"] == str(tmp_path / "old")
    assert store.get_verdict("k1") and store.get_usefulness("u1") == '{"score": 4}'
    cutoff_keeps = store.prune(datetime(2030, 1, 1), dry_run=True)
    assert cutoff_keeps.kept_runs_referenced == 2  # the old gate result still protects its runs


def test_a_conflicting_run_is_reported_and_never_overwritten(db_url, tmp_path):
    run_ids, _ = _legacy_home(tmp_path / "old")
    assert _migrate(tmp_path / "old", db_url).exit_code == 0
    store = Store(db_url)
    with closing(sqlite3.connect(tmp_path / "old" / "runs.sqlite")) as db:
        rec = json.loads(
            db.execute("SELECT record FROM runs WHERE run_id = ?", (run_ids[0],)).fetchone()[0]
        )
        rec["question"] = "rewritten elsewhere"
        db.execute("UPDATE runs SET record = ? WHERE run_id = ?", (json.dumps(rec), run_ids[0]))
        db.commit()
    clash = _migrate(tmp_path / "old", db_url)
    assert (
        clash.exit_code == 1 and run_ids[0] in clash.stderr and "left as they are" in clash.stderr
    )
    assert RunStore(store).get(run_ids[0]).question == "old q0"


def test_migrating_a_current_home_into_a_team_database(db_url, tmp_path):
    home = tmp_path / "laptop"
    local = RunStore.default(home, kind="ask")
    rec = RunRecord(run_id=str(uuid.uuid4()), question="mine", status="complete",
                    config=RunConfig(policy="extractive"))  # fmt: skip
    local.save(rec)
    local.store.add_review(rec.run_id, 0, "approve", reviewer="ana")
    got = json.loads(_migrate(home, db_url).stdout)
    assert got["runs_copied"] == 1 and got["reviews_copied"] == 1
    assert json.loads(_migrate(home, db_url).stdout)["runs_copied"] == 0
    assert RunStore(Store(db_url)).get(rec.run_id).question == "mine"
    nothing = CliRunner().invoke(
        cli, ["store", "migrate", "--from", str(tmp_path / "empty"), "--to", db_url]
    )
    assert nothing.exit_code == 2 and "not a directory" in nothing.output
