"""The store's contract, run against SQLite and a real PostgreSQL server alike."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

import pytest
import sqlalchemy as sa
from spanproof.agent.record import RunConfig, RunRecord
from spanproof.agent.runstore import RunStore
from spanproof.graders.cache import UsefulnessCache, VerdictCache

from spanproof.core.verdict import Verdict
from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow
from spanproof.gate.store import GateStore
from spanproof.store import schema
from spanproof.store.errors import RunIdConflict, RunNotFound
from spanproof.store.migrate import alembic_head
from spanproof.store.store import Store


def _record(run_id: str | None = None, *, days_ago: float = 0, question: str = "q") -> RunRecord:
    created = (datetime.now(UTC) - timedelta(days=days_ago)).isoformat().replace("+00:00", "Z")
    return RunRecord(
        run_id=run_id or str(uuid.uuid4()), question=question, created_at=created,
        config=RunConfig(policy="extractive", judges=["rules"]), status="complete",
        prompt_hashes={"agent_system": "a" * 64},
    )  # fmt: skip


def _gate(run_ids: list[str], days_ago: float = 0) -> GateResult:
    started = (datetime.now(UTC) - timedelta(days=days_ago)).isoformat().replace("+00:00", "Z")
    return GateResult(
        passed=True, exit_code=0, wall_s=1.0, started_at=started, gate_id=str(uuid.uuid4()),
        judge="rules", policy="extractive", judge_ids=["rules"], run_ids=run_ids,
        prompt_hashes={"judge.rules": "b" * 64},
        checks=[CheckRow(name="groundedness.published", check="groundedness", value=1.0,
                         status="pass", passed=True)],
    )  # fmt: skip


def test_a_fresh_database_migrates_to_the_schema_the_code_uses(db_url):
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    store = Store(db_url)
    assert store.migrated and store.revision == schema.HEAD == alembic_head()
    assert schema.KNOWN_REVISIONS[-1] == alembic_head()
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), schema.metadata)
    engine.dispose()
    assert diff == []
    assert Store(db_url).migrated is False  # a second open finds nothing to do


def test_a_run_is_inserted_once_and_never_overwritten_by_another_writer(db_url):
    mine, theirs = RunStore(Store(db_url)), RunStore(Store(db_url))
    rec = _record(question="mine")
    mine.save(rec)
    rec.status = "complete"
    mine.save(rec)  # the writer that inserted it may update it
    intruder = _record(rec.run_id, question="someone else's run")
    with pytest.raises(RunIdConflict, match="left untouched"):
        theirs.save(intruder)
    with pytest.raises(RunIdConflict):
        theirs.store.update_run({"run_id": rec.run_id, "question": "hijack"})
    assert mine.get(rec.run_id).question == "mine"


def test_new_runs_get_uuid_ids():
    from spanproof.agent.run import new_run_id

    ids = {new_run_id() for _ in range(100)}
    assert len(ids) == 100 and all(uuid.UUID(i).version == 4 for i in ids)


def test_runs_carry_kind_and_provenance_and_list_by_kind_in_pages(db_url, monkeypatch):
    monkeypatch.setenv("SPANPROOF_CI_JOB_VARS", "MY_PIPELINE")
    monkeypatch.setenv("MY_PIPELINE", "pipe-42")
    monkeypatch.setenv("SPANPROOF_RUNNER", "runner-a")
    store = Store(db_url, home="/tmp/home-a")
    asks, gates = RunStore(store, kind="ask"), RunStore(store, kind="gate")
    for i in range(5):
        asks.save(_record(days_ago=i / 10, question=f"ask {i}"))
    for i in range(3):
        gates.save(_record(days_ago=1 + i, question=f"gate {i}"))
    page = store.list_runs(kind="ask", limit=2)
    assert page.total == 5 and [r.question for r in page.items] == ["ask 0", "ask 1"]
    assert page.next_offset == 2
    last = store.list_runs(kind="ask", limit=2, offset=4)
    assert [r.question for r in last.items] == ["ask 4"] and last.next_offset is None
    assert store.list_runs(kind=None, limit=100).total == 8
    assert {r.kind for r in store.list_runs(kind="gate").items} == {"gate"}
    one = store.list_runs(kind="ask", limit=1).items[0]
    assert one.runner == "runner-a" and one.ci_job == "MY_PIPELINE=pipe-42"
    rec = asks.get(one.run_id)
    assert rec.kind == "ask" and rec.provenance["ci_job"] == "MY_PIPELINE=pipe-42"
    assert rec.provenance["judges"] == ["rules"] and rec.provenance["prompt_hashes"]
    assert rec.provenance["spanproof_version"]
    # The store stamps the version the sanitiser itself runs under (one constant, a leaf module).
    from spanproof.web.sanitise import SANITISER_VERSION

    assert rec.provenance["sanitiser_version"] == SANITISER_VERSION != "unversioned"
    stored = store.get_run(one.run_id)
    assert stored.runner == "runner-a" and stored.prompt_version and stored.home == "/tmp/home-a"


def test_run_id_prefixes_are_literal_and_must_be_unique(db_url):
    runs = RunStore(Store(db_url))
    a = _record("abc_1")
    b = _record("abcx2")
    runs.save(a)
    runs.save(b)
    assert runs.get("abc_").run_id == "abc_1"  # '_' is a character here, not a wildcard
    for wildcard in ("%", "_", "a%", "abc%"):
        with pytest.raises(RunNotFound):
            runs.get(wildcard)
    with pytest.raises(RunNotFound, match="several runs"):
        runs.get("abc")
    with pytest.raises(KeyError):  # RunNotFound is a KeyError for callers that expect one
        runs.get("zzz")


def test_runs_between_selects_the_window_in_sql(db_url):
    store = Store(db_url)
    runs = RunStore(store)
    ids = {}
    for days in (0.5, 3, 10):
        rec = _record(days_ago=days)
        runs.save(rec)
        ids[days] = rec.run_id
    now = datetime.now(UTC)
    got = store.runs_between(now - timedelta(days=7), now)
    assert [r.run_id for r in got] == [ids[3], ids[0.5]]  # oldest first, 10 days ago left out


def test_verdict_cache_writes_are_insert_or_ignore(db_url):
    cache = VerdictCache(Store(db_url))
    first = Verdict(verdict="SUPPORTED", judge="rules", quote_used="x", prompt_sha256="p" * 64)
    cache.put("k1", first)
    cache.put("k1", Verdict(verdict="NOT_SUPPORTED", judge="rules"))  # same key: ignored
    cache.put("k2", Verdict(verdict="PARTIAL", judge="rules", error="judge failed"))  # never stored
    other = VerdictCache(Store(db_url))  # another runner, same database
    assert other.get("k1") == first and other.get("k2") is None and len(other) == 1
    assert other.used_keys == {"k1"}
    row = next(other.store.rows("verdicts"))
    assert row["judge"] == "rules" and row["prompt_sha256"] == "p" * 64
    assert row["host"] and row["spanproof_version"] and row["sanitiser_version"]
    scores = UsefulnessCache(other.store)
    scores.put("u", '{"score": 4}')
    scores.put("u", '{"score": 1}')
    assert scores.get("u") == '{"score": 4}'


def test_gate_runs_keep_what_they_rest_on_when_pruning(db_url):
    store = Store(db_url)
    runs, cache = RunStore(store, kind="gate"), VerdictCache(store)
    old_kept, old_gone, new = _record(days_ago=200), _record(days_ago=200), _record(days_ago=1)
    for rec in (old_kept, old_gone, new):
        runs.save(rec)
    reviewed = _record(days_ago=200)
    runs.save(reviewed)
    store.add_review(reviewed.run_id, 0, "approve", reviewer="ana")
    for key in ("v_used", "v_unused"):
        cache.put(key, Verdict(verdict="SUPPORTED", judge="rules", quote_used="x"))
    with store._write() as conn:  # age the verdicts as if written 200 days ago
        conn.execute(sa.update(schema.verdicts).values(created_at=datetime(2000, 1, 1)))
    gate = _gate([old_kept.run_id, new.run_id], days_ago=200)
    GateStore(store).save(gate, verdict_keys={"v_used"})
    assert GateStore(store).list()[0].gate_id == gate.gate_id
    cutoff = datetime.now(UTC) - timedelta(days=90)
    dry = store.prune(cutoff, dry_run=True)
    assert (dry.runs, dry.verdicts, dry.kept_runs_referenced, dry.kept_verdicts_referenced) == (
        1,
        1,
        2,
        1,
    )
    assert store.count("runs") == 4  # nothing deleted by a dry run
    done = store.prune(cutoff)
    assert done.runs == 1 and done.verdicts == 1
    left = {r.run_id for r in store.list_runs(kind=None).items}
    assert left == {old_kept.run_id, new.run_id, reviewed.run_id}
    assert cache.get("v_used") is not None and cache.get("v_unused") is None
    assert store.prune(cutoff).runs == 0  # idempotent
    with pytest.raises(RunIdConflict):
        GateStore(store).save(gate)  # a gate run is inserted once, too


def test_reviews_are_appended_per_run_and_validated(db_url):
    store = Store(db_url)
    rec = _record()
    RunStore(store).save(rec)
    store.add_review(rec.run_id, 0, "approve", reviewer="ana", note="fine")
    store.add_review(rec.run_id[:8], 1, "edit", reviewer="ben", edited_text="narrower claim",
                     edited_verdict={"verdict": "PARTIAL"})  # fmt: skip
    store.add_review(rec.run_id, 1, "cut", reviewer="ana")
    got = store.list_reviews(rec.run_id)
    assert [(r.claim_index, r.decision, r.reviewer) for r in got] == [
        (0, "approve", "ana"), (1, "edit", "ben"), (1, "cut", "ana")
    ]  # fmt: skip
    assert got[1].edited_verdict == {"verdict": "PARTIAL"} and got[0].note == "fine"
    with pytest.raises(ValueError):
        store.add_review(rec.run_id, 0, "maybe", reviewer="ana")
    with pytest.raises(ValueError, match="edited_text"):
        store.add_review(rec.run_id, 0, "edit", reviewer="ana")
    with pytest.raises(RunNotFound):
        store.add_review("no-such-run", 0, "approve", reviewer="ana")
    # the database refuses a bad decision too
    with pytest.raises(Exception, match="reviews_decision|CHECK|check"), store._write() as conn:
        conn.execute(sa.insert(schema.reviews).values(
                id="x", run_id=rec.run_id, claim_index=0, decision="maybe", note="",
                reviewer="z", decided_at=datetime(2026, 1, 1)))  # fmt: skip


def test_snapshot_holders_say_which_runner_holds_a_blob(db_url, monkeypatch):
    monkeypatch.setenv("SPANPROOF_RUNNER", "runner-b")
    store = Store(db_url, home="/srv/ci/home-b")
    doc = {"doc_id": "doc_0123456789abcdef", "sha256": "c" * 64, "url": "https://x.example/a",
           "retrieved_at": "2026-01-01T00:00:00Z"}  # fmt: skip
    assert store.record_snapshot_holders([doc]) == 1
    assert store.record_snapshot_holders([doc]) == 0  # idempotent
    held = store.snapshot_holders(["doc_0123456789abcdef", "doc_ffffffffffffffff"])
    assert [(h.runner, h.home) for h in held["doc_0123456789abcdef"]] == [
        ("runner-b", "/srv/ci/home-b")
    ]
    assert held["doc_ffffffffffffffff"] == []


def test_info_counts_rows_and_sizes(db_url):
    store = Store(db_url)
    RunStore(store, kind="gate").save(_record())
    info = store.info()
    counts = {t.name: t.rows for t in info.tables}
    assert counts["runs"] == 1 and set(counts) == set(schema.TABLE_NAMES)
    assert info.runs_by_kind["gate"] == 1 and info.revision == schema.HEAD
    assert info.total_bytes and info.total_bytes > 0
    sizes = {t.name: t.bytes for t in info.tables}
    # every table's size, not "-" (SQLite from dbstat, PostgreSQL from its relation sizes)
    assert all(isinstance(b, int) for b in sizes.values()), sizes
    assert sizes["runs"] > 0 and sum(sizes.values()) <= info.total_bytes
    assert "@" not in info.url or ":***@" in info.url or "spanproof@" in info.url


def test_records_round_trip_exactly(db_url):
    runs = RunStore(Store(db_url))
    rec = _record(question="émoji ✓ and quotes \" '")
    runs.save(rec)
    back = runs.get(rec.run_id)
    assert json.loads(back.model_dump_json()) == json.loads(rec.model_dump_json())


def test_a_database_at_an_older_revision_is_upgraded_keeping_its_rows(db_url):
    from alembic import command

    from spanproof.store.engine import make_engine
    from spanproof.store.migrate import alembic_config

    engine = make_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0001")
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO verdicts (key, judge, verdict, created_at, spanproof_version, host, "
            "runner, sanitiser_version) VALUES ('k', 'rules', '{\"verdict\": \"SUPPORTED\"}', "
            "'2026-01-01 00:00:00', '0.1.0', 'h', 'r', 'v1')"
        ))  # fmt: skip
    engine.dispose()
    store = Store(db_url)
    assert store.migrated and store.revision == schema.HEAD
    assert store.get_verdict("k") == '{"verdict": "SUPPORTED"}'
    store.put_verdict("k2", "{}", {"judge": "scripted", "prompt_sha256": "script-" + "f" * 64})
    assert store.count("verdicts") == 2


def test_a_database_from_a_newer_spanproof_is_refused_clearly(db_url):
    from spanproof.store.errors import StoreError

    Store(db_url)
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(StoreError, match="newer spanproof"):
        Store(db_url)
