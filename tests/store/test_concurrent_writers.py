"""Eight processes (three on SQLite) write runs and verdicts to one fresh database at once: every run lands
under its own id, nothing is lost, shared cache keys are written once, and the schema is
migrated exactly once although all eight open the empty database together."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from spanproof.store.store import Store

RUNS_EACH = 10

WRITER = """
import json, pathlib, sys, time, uuid
from spanproof.agent.record import RunConfig, RunRecord
from spanproof.agent.runstore import RunStore
from spanproof.graders.cache import VerdictCache
from spanproof.core.verdict import Verdict
from spanproof.store.store import Store

url, n, me, sync = sys.argv[1], int(sys.argv[2]), sys.argv[3], pathlib.Path(sys.argv[4])
(sync / f"ready-{me}").touch()
while not (sync / "go").exists():  # start together: every writer meets the empty database
    time.sleep(0.002)
store = Store(url)
runs, cache = RunStore(store, kind="gate"), VerdictCache(store)
ids = []
for i in range(n):
    rec = RunRecord(run_id=str(uuid.uuid4()), question=f"{me}-{i}",
                    config=RunConfig(policy="extractive"))
    runs.save(rec)  # inserted as interrupted ...
    rec.status = "complete"
    runs.save(rec)  # ... then updated by its writer
    ids.append(rec.run_id)
    cache.put(f"shared-{i}", Verdict(verdict="SUPPORTED", judge=f"writer-{me}", quote_used="x"))
    cache.put(f"own-{me}-{i}", Verdict(verdict="PARTIAL", judge=f"writer-{me}"))
print(json.dumps({"ids": ids, "migrated": store.migrated}))
"""


def _write_at_once(url: str, tmp_path: Path, writers: int) -> list[dict]:
    sync = tmp_path / "sync"
    sync.mkdir()
    procs = [
        subprocess.Popen([sys.executable, "-c", WRITER, url, str(RUNS_EACH), str(w), str(sync)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for w in range(writers)
    ]  # fmt: skip
    deadline = time.monotonic() + 120
    while len(list(sync.glob("ready-*"))) < writers:
        assert time.monotonic() < deadline, "writers never became ready"
        assert all(p.poll() is None for p in procs), [p.stderr.read() for p in procs if p.poll()]
        time.sleep(0.01)
    (sync / "go").touch()
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=180)
        assert p.returncode == 0, stderr
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return out


def test_eight_processes_write_runs_and_verdicts_to_one_postgresql_database_without_loss(
    pg_url, tmp_path
):
    _check_concurrent_writes(pg_url, tmp_path, writers=8)


def test_three_processes_write_runs_and_verdicts_to_one_sqlite_file_without_loss(tmp_path):
    # Fewer writers than on PostgreSQL only to keep the suite fast; SQLite serialises
    # writers with BEGIN IMMEDIATE and the busy timeout either way.
    _check_concurrent_writes(f"sqlite:///{tmp_path / 'shared.sqlite'}", tmp_path, writers=3)


def _check_concurrent_writes(db_url: str, tmp_path: Path, writers: int) -> None:
    results = _write_at_once(db_url, tmp_path, writers)
    assert sum(r["migrated"] for r in results) == 1  # one migrated; the others found it done
    ids = [i for r in results for i in r["ids"]]
    assert len(ids) == writers * RUNS_EACH and len(set(ids)) == len(ids)  # no duplicate ids
    store = Store(db_url)
    page = store.list_runs(kind="gate", limit=10_000)
    assert page.total == len(ids) and {r.run_id for r in page.items} == set(ids)  # none lost
    assert {r.status for r in page.items} == {"complete"}  # every writer's update landed
    rows = list(store.rows("verdicts"))
    keys = [r["key"] for r in rows]
    assert len(keys) == len(set(keys)) == RUNS_EACH + writers * RUNS_EACH
    shared = [r for r in rows if r["key"].startswith("shared-")]
    assert len(shared) == RUNS_EACH  # every writer wrote each shared key; one row per key
    assert all(json.loads(r["verdict"])["judge"] == r["judge"] for r in shared)  # row is whole
    assert {r["judge"] for r in shared} <= {f"writer-{w}" for w in range(writers)}
