"""Revision 0004 on both backends: gate runs keep their git branch, reviews a reviewer's verdict
and a 'refused' decision; a database at 0003 upgrades keeping its reviews, and downgrades."""

from __future__ import annotations

import uuid

import pytest
import sqlalchemy as sa

from spanproof.gate.result import GateResult
from spanproof.gate.store import GateStore
from spanproof.store import schema
from spanproof.store.store import Store


def _gate(branch: str | None, passed: bool, minute: int) -> GateResult:
    return GateResult(passed=passed, exit_code=0 if passed else 1, checks=[], wall_s=0.0,
                      gate_id=str(uuid.uuid4()), started_at=f"2026-02-01T09:{minute:02d}:00Z",
                      git_branch=branch)  # fmt: skip


def test_last_passed_gate_per_branch(db_url):
    store = Store(db_url)
    gates = GateStore(store)
    old = _gate("main", True, 1)
    new = _gate("main", True, 2)
    for g in (old, new, _gate("main", False, 3), _gate("dev", True, 4), _gate(None, True, 5)):
        gates.save(g)
    assert store.last_passed_gate("main").gate_id == new.gate_id
    assert store.last_passed_gate("main").git_branch == "main"
    assert store.last_passed_gate("nowhere") is None
    assert store.gate_run(old.gate_id[:13]).gate_id == old.gate_id


def test_reviews_carry_a_label_and_refused_edits_are_kept(db_url):
    from spanproof.agent.record import RunConfig, RunRecord
    from spanproof.agent.runstore import RunStore

    store = Store(db_url)
    rec = RunRecord(run_id=str(uuid.uuid4()), question="q", created_at="2026-02-01T09:00:00Z",
                    config=RunConfig(policy="extractive", judges=["rules"]), status="complete")  # fmt: skip
    RunStore(store).save(rec)
    store.add_review(rec.run_id, 0, "cut", reviewer="ann", note="overclaims", label="PARTIAL")
    store.add_review(rec.run_id, 1, "refused", reviewer="ann", note="the span says so",
                     edited_text="A narrower claim.", label="SUPPORTED")  # fmt: skip
    store.add_review(rec.run_id, 2, "approve", reviewer="ann")
    with pytest.raises(ValueError, match="refused"):
        store.add_review(rec.run_id, 3, "refused", reviewer="ann", label="SUPPORTED")
    labelled = store.labelled_reviews()
    assert [(r.decision, r.label) for r in labelled] == [
        ("cut", "PARTIAL"),
        ("refused", "SUPPORTED"),
    ]
    assert store.list_reviews(rec.run_id)[2].label is None


def test_a_database_at_0003_upgrades_keeping_its_reviews_and_downgrades(db_url):
    from alembic import command

    from spanproof.store.engine import make_engine
    from spanproof.store.migrate import alembic_config

    engine = make_engine(db_url)
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0003")
    with engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO reviews (id, run_id, claim_index, decision, note, reviewer, decided_at) "
            "VALUES ('r1', 'run', 0, 'cut', 'why', 'ann', '2026-01-01 00:00:00')"
        ))  # fmt: skip
    engine.dispose()
    store = Store(db_url)
    assert store.revision == "0005" == schema.HEAD
    (kept,) = store.list_reviews("run")
    assert kept.decision == "cut" and kept.label is None and kept.note == "why"
    store.close()
    engine = make_engine(db_url)
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0003")
    with engine.begin() as conn:
        cols = {c["name"] for c in sa.inspect(conn).get_columns("reviews")}
        assert "label" not in cols
        assert conn.execute(sa.text("SELECT note FROM reviews")).scalar() == "why"
        assert "git_branch" not in {c["name"] for c in sa.inspect(conn).get_columns("gate_runs")}
        with pytest.raises(sa.exc.IntegrityError), conn.begin_nested():  # old decisions only
            conn.execute(sa.text(
                    "INSERT INTO reviews (id, run_id, claim_index, decision, note, reviewer, "
                    "decided_at) VALUES ('r2', 'run', 1, 'refused', '', 'ann', '2026-01-01')"
                ))  # fmt: skip
    engine.dispose()
