"""Revision 0005 on both backends: a reviewer's signature on a run is stored, listed, copied
with the run's reviews, kept by prune and removed with the run."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import sqlalchemy as sa
from spanproof.agent.record import RunConfig, RunRecord
from spanproof.agent.runstore import RunStore

from spanproof.store import schema
from spanproof.store.store import Store


def _run(store: Store, created: str = "2026-02-01T09:00:00Z") -> str:
    rec = RunRecord(run_id=str(uuid.uuid4()), question="q", created_at=created,
                    config=RunConfig(policy="extractive"), status="complete")  # fmt: skip
    RunStore(store).save(rec)
    return rec.run_id


def test_signatures_are_appended_listed_oldest_first_and_deleted_with_the_run(db_url):
    store = Store(db_url)
    run_id, other = _run(store), _run(store)
    first = store.add_signature(run_id[:8], reviewer=" ann ")  # a prefix, as the CLI takes
    second = store.add_signature(run_id, reviewer="bob",
                                 signed_at=datetime.now(UTC) + timedelta(minutes=1))  # fmt: skip
    assert first.run_id == run_id and first.reviewer == "ann"
    listed = store.signatures([run_id, other])
    assert [s.reviewer for s in listed[run_id]] == ["ann", "bob"] and other not in listed
    assert listed[run_id][1].id == second.id
    store.delete_run(run_id)
    assert store.signatures([run_id]) == {}
    store.close()


def test_prune_keeps_a_signed_run_and_the_migration_goes_both_ways(db_url):
    from alembic import command

    from spanproof.store.engine import make_engine
    from spanproof.store.migrate import alembic_config

    store = Store(db_url)
    signed, unsigned = _run(store, "2020-01-01T00:00:00Z"), _run(store, "2020-01-01T00:00:00Z")
    store.add_signature(signed, reviewer="ann")
    result = store.prune(datetime(2021, 1, 1, tzinfo=UTC))
    assert result.runs == 1 and result.kept_runs_referenced == 1
    assert [r.run_id for r in store.runs_between(datetime(2019, 1, 1), datetime(2021, 1, 1))] == [
        signed
    ]
    assert unsigned not in store.run_records([signed, unsigned])
    assert store.revision == schema.HEAD  # 0005 and every revision after it
    store.close()
    engine = make_engine(db_url)
    with engine.begin() as conn:
        command.downgrade(alembic_config(conn), "0004")
    with engine.begin() as conn:
        assert "signatures" not in sa.inspect(conn).get_table_names()
    with engine.begin() as conn:
        command.upgrade(alembic_config(conn), "0005")
    with engine.begin() as conn:
        assert "signatures" in sa.inspect(conn).get_table_names()
    engine.dispose()


def test_copying_a_home_into_another_store_copies_its_signatures(tmp_path):
    from spanproof.store import open_store
    from spanproof.store.legacy import copy_home

    home = tmp_path / "home"
    home.mkdir()
    source = open_store(home=home)
    run_id = _run(source)
    source.add_signature(run_id, reviewer="ann")
    dest = Store(f"sqlite:///{tmp_path / 'dest.sqlite'}")
    result = copy_home(home, dest)
    assert result.signatures_copied == 1
    assert [s.reviewer for s in dest.signatures([run_id])[run_id]] == ["ann"]
    assert copy_home(home, dest).signatures_copied == 0  # copying again adds nothing
    dest.close()
