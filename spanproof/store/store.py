"""The data-access layer: every read and write of runs, gate runs, verdicts, usefulness
scores, reviews and snapshot locations goes through ``Store`` (SQLAlchemy Core, no SQL
strings elsewhere).

One ``Store`` per database URL per process (``open_store``); it migrates the database on
first use (see ``migrate``), stamps provenance on what it writes, and turns every driver
error into a ``StoreError`` that says how to recover.

Write rules that matter when many runners share one database:
- a run is INSERTed once, under a fresh id, and afterwards only UPDATEd by the store
  instance that inserted it; saving a new run under an existing id raises
  ``RunIdConflict`` and leaves the other run untouched (never an upsert);
- cache writes (verdicts, usefulness scores, snapshot holders, gate references) are
  insert-or-ignore on both backends, so concurrent writers of one key are idempotent.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import threading
import uuid
from collections.abc import Iterable, Iterator, Sequence
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import exc

from spanproof.store import columns, migrate, provenance
from spanproof.store import schema as t
from spanproof.store.engine import BEGIN_OPTION, make_engine, translated
from spanproof.store.errors import RunIdConflict, RunNotFound, StoreError
from spanproof.store.models import (
    RUN_KINDS,
    GateRunRow,
    GateWhere,
    PruneResult,
    Recheck,
    Review,
    RunFilter,
    RunPage,
    RunSummary,
    Signature,
    SnapshotHolder,
    StoredRun,
    StoreInfo,
    TableInfo,
)
from spanproof.store.run_filter import escape_like, run_conditions
from spanproof.store.sqlite_sizes import sqlite_table_bytes
from spanproof.store.timeutil import iso_z, now_naive, utc_naive
from spanproof.store.url import redact, resolve_db_url, sqlite_path

# Chunk size for IN (...) lists: far below SQLite's and PostgreSQL's parameter limits.
_CHUNK = 500


def _pid_alive(pid: int | None) -> bool:
    if not pid or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, PermissionError, OSError):
        return False
    return True


def _chunks(items: Sequence[Any]) -> Iterator[Sequence[Any]]:
    for i in range(0, len(items), _CHUNK):
        yield items[i : i + _CHUNK]


class Store:
    def __init__(self, url: str, *, home: str | os.PathLike[str] | None = None) -> None:
        self.url = url
        self.display_url = redact(url)
        self.home = str(home) if home is not None else None
        self.writer = str(uuid.uuid4())
        self._engine = make_engine(url)
        self.backend = self._engine.dialect.name
        self._provenance: provenance.Provenance | None = None
        with translated(url):
            self.migrated = migrate.upgrade(self._engine)

    # -- plumbing ------------------------------------------------------------------------

    @contextlib.contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        with translated(self.url), self._engine.connect() as conn:
            yield conn

    @contextlib.contextmanager
    def _one_statement(self) -> Iterator[sa.Connection]:
        """For a single-statement read or write: autocommit, so a lookup or an
        insert-or-ignore is one round trip (no BEGIN/COMMIT around it)."""
        with translated(self.url), self._engine.connect() as conn:
            yield conn.execution_options(isolation_level="AUTOCOMMIT")

    @contextlib.contextmanager
    def _write(self) -> Iterator[sa.Connection]:
        with translated(self.url), self._engine.connect() as conn:
            if self.backend == "sqlite":
                conn = conn.execution_options(**{BEGIN_OPTION: "BEGIN IMMEDIATE"})
            with conn.begin():
                yield conn

    def _insert_ignore(self, table: sa.Table) -> sa.Insert:
        if self.backend == "postgresql":
            from sqlalchemy.dialects import postgresql

            return postgresql.insert(table).on_conflict_do_nothing()
        from sqlalchemy.dialects import sqlite

        return sqlite.insert(table).on_conflict_do_nothing()

    def provenance(self, **extra: Any) -> provenance.Provenance:
        """This process's provenance (computed once), with ``extra`` fields set."""
        if self._provenance is None:
            self._provenance = provenance.current(home=self.home)
        return self._provenance.model_copy(update=extra) if extra else self._provenance

    def close(self) -> None:
        """Close every pooled connection (the store can be used again; it reconnects)."""
        self._engine.dispose()

    @property
    def revision(self) -> str | None:
        with self._read() as conn:
            return migrate.current_revision(conn)

    # -- runs ----------------------------------------------------------------------------

    def insert_run(self, values: dict[str, Any]) -> None:
        """A new run. Its id must be new: an existing id raises RunIdConflict."""
        row = {**values, "writer": self.writer}
        try:
            with self._write() as conn:
                conn.execute(sa.insert(t.runs).values(**row))
        except StoreError as e:
            if isinstance(e.__cause__, exc.IntegrityError):
                raise RunIdConflict(
                    f"run id {values['run_id']!r} is already in {self.display_url}; a new run "
                    "needs a new id (run ids are UUIDs) and the stored run was left untouched"
                ) from e
            raise

    def update_run(self, values: dict[str, Any]) -> None:
        """A later save of a run this store instance inserted."""
        changing = {k: v for k, v in values.items() if k not in ("run_id", "created_at", "kind")}
        params = {f"new_{k}": v for k, v in changing.items()}
        with self._write() as conn:
            done = conn.execute(
                _run_update(tuple(changing)),
                {**params, "key_run_id": values["run_id"], "key_writer": self.writer},
            ).rowcount
        if done != 1:
            raise RunIdConflict(
                f"run {values['run_id']!r} is no longer this process's to update in "
                f"{self.display_url} (deleted or pruned meanwhile); nothing was overwritten"
            )

    def resolve_run_id(self, run_id: str) -> str:
        """The full id for an id or a unique id prefix (LIKE wildcards in it are literal)."""
        with self._read() as conn:
            exact: str | None = conn.execute(
                sa.select(t.runs.c.run_id).where(t.runs.c.run_id == run_id)
            ).scalar()
            if exact is not None:
                return exact
            matches: list[str] = []
            if run_id.strip():
                matches = list(
                    conn.execute(
                        sa.select(t.runs.c.run_id)
                        .where(t.runs.c.run_id.like(escape_like(run_id) + "%", escape="\\"))
                        .order_by(t.runs.c.created_at.desc())
                        .limit(6)
                    ).scalars()
                )
        if len(matches) == 1:
            return matches[0]
        if not matches:
            raise RunNotFound(
                f"no run {run_id!r} in {self.display_url}; `spanproof runs list --kind all` "
                "shows the ids"
            )
        shown = ", ".join(matches[:5]) + (", ..." if len(matches) > 5 else "")
        raise RunNotFound(
            f"run id prefix {run_id!r} matches several runs ({shown}); give more of it"
        )

    def get_run(self, run_id: str) -> StoredRun:
        full = self.resolve_run_id(run_id)
        with self._read() as conn:
            row = conn.execute(sa.select(*self._stored_cols()).where(t.runs.c.run_id == full)).one()
        return StoredRun(**row._mapping)

    @staticmethod
    def _stored_cols() -> list[sa.Column[Any]]:
        c = t.runs.c
        return [c.run_id, c.kind, c.created_at, c.status, c.host, c.runner, c.ci_job,
                c.git_commit, c.spanproof_version, c.sanitiser_version, c.prompt_version,
                c.model, c.judges, c.home, c.record]  # fmt: skip

    def list_runs(
        self, *, kind: str | Iterable[str] | None = "ask", limit: int = 50, offset: int = 0,
        filters: RunFilter | None = None,
    ) -> RunPage:  # fmt: skip
        """A page of runs, newest first, without reading records: fit for 10,000s of runs.

        ``kind``: one kind, several, or None for every kind. ``filters`` narrows further
        (question words, status, policy, model, judge, prompt version, dates, verdict mix).
        """
        c = t.runs.c
        where = []
        if kind is not None:
            kinds = [kind] if isinstance(kind, str) else list(kind)
            where.append(c.kind.in_(kinds))
        if filters is not None:
            where += run_conditions(filters)
        cols = [c.run_id, c.kind, c.question, c.status, c.policy, c.model, c.created_at,
                c.updated_at, c.claims_published, c.published_groundedness,
                c.pre_prune_supported_rate, c.cost_usd, c.host, c.runner, c.ci_job, c.pid]  # fmt: skip
        query = (
            sa.select(*cols)
            .where(*where)
            .order_by(c.created_at.desc(), c.updated_at.desc(), c.run_id)
            .limit(max(int(limit), 0))
            .offset(max(int(offset), 0))
        )
        with self._read() as conn:
            counted = conn.execute(sa.select(sa.func.count()).select_from(t.runs).where(*where))
            total = int(counted.scalar() or 0)
            rows = conn.execute(query).all()
        here = self.provenance().host
        items = []
        for r in rows:
            m = dict(r._mapping)
            pid = m.pop("pid")
            m["created_at"] = iso_z(m["created_at"])
            m["updated_at"] = iso_z(m["updated_at"])
            running = m["status"] == "interrupted" and m["host"] == here and _pid_alive(pid)
            items.append(RunSummary(**m, still_running=running))
        return RunPage(items=items, total=total, offset=max(int(offset), 0), limit=int(limit))

    def runs_between(
        self, start: datetime, end: datetime, *, kind: str | Iterable[str] | None = None
    ) -> list[StoredRun]:
        """Runs created in [start, end] (naive UTC or aware), oldest first, filtered in SQL."""
        c = t.runs.c
        where = [c.created_at >= utc_naive(start), c.created_at <= utc_naive(end)]
        if kind is not None:
            where.append(c.kind.in_([kind] if isinstance(kind, str) else list(kind)))
        query = sa.select(*self._stored_cols()).where(*where).order_by(c.created_at, c.run_id)
        with self._read() as conn:
            return [StoredRun(**r._mapping) for r in conn.execute(query)]

    def all_run_records(self) -> Iterator[tuple[str, str]]:
        """(run_id, record JSON) of every run, newest first, streamed."""
        c = t.runs.c
        query = sa.select(c.run_id, c.record).order_by(c.created_at.desc(), c.run_id)
        with self._read() as conn:
            for row in conn.execute(query):
                yield row.run_id, row.record

    def delete_run(self, run_id: str) -> str:
        """Delete one run, its reviews, signatures and rechecks; the full id is required (no
        prefixes)."""
        with self._write() as conn:
            conn.execute(sa.delete(t.reviews).where(t.reviews.c.run_id == run_id))
            conn.execute(sa.delete(t.signatures).where(t.signatures.c.run_id == run_id))
            conn.execute(sa.delete(t.rechecks).where(t.rechecks.c.run_id == run_id))
            gone = conn.execute(sa.delete(t.runs).where(t.runs.c.run_id == run_id)).rowcount
        if gone != 1:
            raise RunNotFound(
                f"no run with the exact id {run_id!r} in {self.display_url}; deleting needs the "
                "full id (`spanproof runs list --kind all` shows them)"
            )
        return run_id

    # -- gate runs -----------------------------------------------------------------------

    def insert_gate_run(
        self,
        values: dict[str, Any],
        *,
        run_ids: Iterable[str] = (),
        verdict_keys: Iterable[str] = (),
    ) -> None:
        """A gate run and what it rests on (its agent runs, the cached verdicts it used)."""
        refs = [{"gate_id": values["gate_id"], "ref_kind": "run", "ref": r} for r in set(run_ids)]
        refs += [
            {"gate_id": values["gate_id"], "ref_kind": "verdict", "ref": k}
            for k in set(verdict_keys)
        ]
        try:
            with self._write() as conn:
                conn.execute(sa.insert(t.gate_runs).values(**values))
                for chunk in _chunks(refs):
                    conn.execute(self._insert_ignore(t.gate_refs), list(chunk))
        except StoreError as e:
            if isinstance(e.__cause__, exc.IntegrityError):
                raise RunIdConflict(
                    f"gate id {values['gate_id']!r} is already in {self.display_url}; the stored "
                    "gate run was left untouched"
                ) from e
            raise

    @staticmethod
    def _gate_cols() -> list[sa.Column[Any]]:
        c = t.gate_runs.c
        return [c.gate_id, c.started_at, c.passed, c.exit_code, c.judge, c.policy, c.model,
                c.host, c.runner, c.ci_job, c.git_commit, c.git_branch, c.spanproof_version,
                c.sanitiser_version, c.prompt_version, c.result]  # fmt: skip

    def gate_runs_between(self, start: datetime, end: datetime) -> list[GateRunRow]:
        c = t.gate_runs.c
        query = (
            sa.select(*self._gate_cols())
            .where(c.started_at >= utc_naive(start), c.started_at <= utc_naive(end))
            .order_by(c.started_at, c.gate_id)
        )
        with self._read() as conn:
            return [GateRunRow(**r._mapping) for r in conn.execute(query)]

    def latest_gate_runs(self, limit: int = 20) -> list[GateRunRow]:
        """The newest gate runs, newest first."""
        c = t.gate_runs.c
        query = (
            sa.select(*self._gate_cols())
            .order_by(c.started_at.desc(), c.gate_id.desc())
            .limit(limit)
        )
        with self._read() as conn:
            return [GateRunRow(**r._mapping) for r in conn.execute(query)]

    def gate_provenance(self) -> list[GateWhere]:
        """Where every gate run ran (runner, host, CI job, commit), without its result."""
        c = t.gate_runs.c
        query = sa.select(c.gate_id, c.runner, c.host, c.ci_job, c.git_commit)
        with self._read() as conn:
            return [GateWhere(**r._mapping) for r in conn.execute(query)]

    def gate_run(self, gate_id: str) -> GateRunRow:
        """One gate run by its id or a unique prefix of it; RunNotFound names the way to list them."""
        c = t.gate_runs.c
        with self._read() as conn:
            rows = list(conn.execute(sa.select(*self._gate_cols()).where(c.gate_id == gate_id)))
            if not rows and gate_id.strip():
                rows = list(
                    conn.execute(
                        sa.select(*self._gate_cols())
                        .where(c.gate_id.like(escape_like(gate_id) + "%", escape="\\"))
                        .order_by(c.started_at.desc())
                        .limit(6)
                    )
                )
        if len(rows) == 1:
            return GateRunRow(**rows[0]._mapping)
        if not rows:
            raise RunNotFound(
                f"no gate run {gate_id!r} in {self.display_url}; `spanproof runs gates` "
                "or the viewer's gate results page shows the gate ids"
            )
        shown = ", ".join(r.gate_id for r in rows[:5]) + (", ..." if len(rows) > 5 else "")
        raise RunNotFound(f"gate id prefix {gate_id!r} matches several gate runs ({shown})")

    def last_passed_gate(self, branch: str) -> GateRunRow | None:
        """The newest gate run on ``branch`` that passed (exit 0), or None."""
        c = t.gate_runs.c
        query = (
            sa.select(*self._gate_cols())
            .where(c.git_branch == branch, c.passed.is_(True))
            .order_by(c.started_at.desc(), c.gate_id.desc())
            .limit(1)
        )
        with self._read() as conn:
            row = conn.execute(query).first()
        return None if row is None else GateRunRow(**row._mapping)

    def gate_results(self) -> list[str]:
        """Every gate run's GateResult JSON, oldest first."""
        c = t.gate_runs.c
        with self._read() as conn:
            return list(
                conn.execute(sa.select(c.result).order_by(c.started_at, c.gate_id)).scalars()
            )

    # -- verdict cache -------------------------------------------------------------------

    def get_verdict(self, key: str) -> str | None:
        with self._one_statement() as conn:
            return conn.execute(
                sa.select(t.verdicts.c.verdict).where(t.verdicts.c.key == key)
            ).scalar()

    def get_verdicts(self, keys: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        with self._read() as conn:
            for chunk in _chunks(list(keys)):
                rows = conn.execute(
                    sa.select(t.verdicts.c.key, t.verdicts.c.verdict).where(
                        t.verdicts.c.key.in_(chunk)
                    )
                )
                out.update({r.key: r.verdict for r in rows})
        return out

    def put_verdict(self, key: str, verdict_json: str, verdict: dict[str, Any]) -> None:
        """Insert-or-ignore: the first writer of a key wins, later writers change nothing."""
        self.put_verdicts([(key, verdict_json, verdict)])

    def put_verdicts(self, items: Sequence[tuple[str, str, dict[str, Any]]]) -> None:
        prov = self.provenance()
        rows = [
            {"key": k, "verdict": text, **columns.verdict_values(v, prov)} for k, text, v in items
        ]
        if not rows:
            return
        if len(rows) == 1:
            with self._one_statement() as conn:
                conn.execute(self._insert_ignore(t.verdicts).values(**rows[0]))
            return
        with self._write() as conn:
            for chunk in _chunks(rows):
                conn.execute(self._insert_ignore(t.verdicts), list(chunk))

    def count(self, table: str) -> int:
        with self._read() as conn:
            return int(
                conn.execute(
                    sa.select(sa.func.count()).select_from(t.metadata.tables[table])
                ).scalar()
                or 0
            )

    # -- usefulness scores ---------------------------------------------------------------

    def get_usefulness(self, key: str) -> str | None:
        with self._one_statement() as conn:
            return conn.execute(
                sa.select(t.usefulness.c.score).where(t.usefulness.c.key == key)
            ).scalar()

    def put_usefulness(self, key: str, score_json: str) -> None:
        row = {"key": key, "score": score_json, "created_at": now_naive(),
               **columns.provenance_values(self.provenance())}  # fmt: skip
        with self._one_statement() as conn:
            conn.execute(self._insert_ignore(t.usefulness).values(**row))

    # -- reviews (the viewer's human decisions) ------------------------------------------

    def add_review(
        self,
        run_id: str,
        claim_index: int,
        decision: str,
        *,
        reviewer: str,
        edited_text: str | None = None,
        edited_verdict: dict[str, Any] | None = None,
        note: str = "",
        decided_at: datetime | None = None,
        label: str | None = None,
        cut_reason: str | None = None,
    ) -> Review:
        """Record one decision on one claim of a run; decisions are appended, never edited
        (the newest publishing decision per claim is the one in force; ``label`` is the
        reviewer's verdict on the pair, when the decision states one; ``cut_reason`` why a
        claim was cut: a cut as ``not_an_answer`` carries no support label, so it never becomes
        a labelled pair)."""
        full = self.resolve_run_id(run_id)
        review = Review(
            id=str(uuid.uuid4()), run_id=full, claim_index=claim_index, decision=decision,
            edited_text=edited_text, edited_verdict=edited_verdict, note=note or "",
            reviewer=reviewer, decided_at=utc_naive(decided_at) or now_naive(),
            label=label, cut_reason=cut_reason,
        )  # fmt: skip
        if review.cut_reason is not None and review.decision != "cut":
            raise ValueError(f"a cut reason belongs to a cut, not to {review.decision!r}")
        if review.cut_reason == "not_an_answer" and review.label is not None:
            raise ValueError(
                "a cut as not an answer says nothing of the span's support: it takes no label"
            )
        if review.cut_reason == "not_supported" and review.label not in (
            "PARTIAL",
            "NOT_SUPPORTED",
        ):
            raise ValueError("a cut as not supported needs the reviewer's PARTIAL or NOT_SUPPORTED")
        if review.decision == "refused" and not (edited_text and label):
            raise ValueError("a 'refused' decision needs the refused edit's text and a label")
        if review.decision == "edit" and not (edited_text or edited_verdict):
            raise ValueError("an 'edit' decision needs edited_text or edited_verdict")
        with self._write() as conn:
            conn.execute(sa.insert(t.reviews).values(**review.model_dump()))
        return review

    def list_reviews(self, run_id: str) -> list[Review]:
        """Every decision on a run, oldest first."""
        c = t.reviews.c
        query = sa.select(t.reviews).where(c.run_id == run_id).order_by(c.decided_at, c.id)
        with self._read() as conn:
            return [Review(**r._mapping) for r in conn.execute(query)]

    def labelled_reviews(self, since: datetime | None = None) -> list[Review]:
        """Every decision that carries the reviewer's verdict on a pair, oldest first."""
        c = t.reviews.c
        query = sa.select(t.reviews).where(c.label.is_not(None))
        if since is not None:
            query = query.where(c.decided_at >= utc_naive(since))
        with self._read() as conn:
            return [Review(**r._mapping) for r in conn.execute(query.order_by(c.decided_at, c.id))]

    # -- signatures (a reviewer vouching for a run's brief) --------------------------------

    def add_signature(
        self, run_id: str, *, reviewer: str, signed_at: datetime | None = None
    ) -> Signature:
        """Record a reviewer's signature on a run; the caller checks the acceptance rule
        (``spanproof.agent.signoff``) first. Appended, never edited."""
        signature = Signature(
            id=str(uuid.uuid4()), run_id=self.resolve_run_id(run_id), reviewer=reviewer.strip(),
            signed_at=utc_naive(signed_at) or now_naive(),
        )  # fmt: skip
        with self._write() as conn:
            conn.execute(sa.insert(t.signatures).values(**signature.model_dump()))
        return signature

    def signatures(self, run_ids: Sequence[str]) -> dict[str, list[Signature]]:
        """Every signature on each of ``run_ids``, oldest first (runs never signed are absent)."""
        c = t.signatures.c
        out: dict[str, list[Signature]] = {}
        with self._read() as conn:
            for chunk in _chunks(list(run_ids)):
                query = sa.select(t.signatures).where(c.run_id.in_(chunk))
                for row in conn.execute(query.order_by(c.signed_at, c.id)):
                    out.setdefault(row.run_id, []).append(Signature(**row._mapping))
        return out

    # -- rechecks (``spanproof recheck``'s findings) -----------------------------------------

    def add_rechecks(self, run_id: str, rows: Iterable[Recheck]) -> list[Recheck]:
        """Record what one recheck of a run found, span by span (appended, never edited)."""
        full = self.resolve_run_id(run_id)
        runner = self.provenance().runner[:255]
        now = now_naive()
        stored = [
            r.model_copy(update={"checked_at": utc_naive(r.checked_at) or now, "runner": runner})
            for r in rows
        ]
        values = [{"id": str(uuid.uuid4()), "run_id": full, **r.model_dump()} for r in stored]
        if values:
            with self._write() as conn:
                conn.execute(sa.insert(t.rechecks), values)
        return stored

    def list_rechecks(self, run_id: str) -> list[Recheck]:
        """Every recheck finding for a run, oldest first."""
        c = t.rechecks.c
        cols = [c.span_id, c.url, c.checked_at, c.resolves, c.same_snapshot, c.quote_on_page,
                c.snapshot_sha256, c.fetched_sha256, c.flag, c.runner]  # fmt: skip
        query = sa.select(*cols).where(c.run_id == run_id).order_by(c.checked_at, c.id)
        with self._read() as conn:
            return [Recheck(**r._mapping) for r in conn.execute(query)]

    # -- snapshot locations --------------------------------------------------------------

    def record_snapshot_holders(
        self, docs: Iterable[dict[str, Any]], *, home: str | None = None
    ) -> int:
        """Note that this runner's home (default: the store's) holds these documents'
        snapshot blobs; returns how many were new."""
        home = home or self.home
        if not home:
            return 0
        prov = self.provenance()
        rows = [
            {"doc_id": d["doc_id"], "runner": prov.runner[:255], "home": str(home)[:512],
             "host": prov.host[:255], "sha256": d.get("sha256") or "", "url": d.get("url") or "",
             "retrieved_at": d.get("retrieved_at") or "", "recorded_at": now_naive()}
            for d in docs
        ]  # fmt: skip
        return self.insert_rows_ignore("snapshot_holders", rows)

    def snapshot_holders(self, doc_ids: Sequence[str]) -> dict[str, list[SnapshotHolder]]:
        out: dict[str, list[SnapshotHolder]] = {d: [] for d in doc_ids}
        c = t.snapshot_holders.c
        with self._read() as conn:
            for chunk in _chunks(list(doc_ids)):
                rows = conn.execute(
                    sa.select(c.doc_id, c.runner, c.host, c.home, c.sha256, c.url, c.retrieved_at)
                    .where(c.doc_id.in_(chunk))
                    .order_by(c.recorded_at)
                )
                for r in rows:
                    out[r.doc_id].append(SnapshotHolder(**r._mapping))
        return out

    # -- maintenance ---------------------------------------------------------------------

    def info(self) -> StoreInfo:
        tables = []
        with self._read() as conn:
            revision = migrate.current_revision(conn)
            sqlite_sizes = sqlite_table_bytes(conn) if self.backend == "sqlite" else {}
            for name in t.TABLE_NAMES:
                table = t.metadata.tables[name]
                rows = int(
                    conn.execute(sa.select(sa.func.count()).select_from(table)).scalar() or 0
                )
                size = sqlite_sizes.get(name)
                if self.backend == "postgresql":
                    size = conn.execute(
                        sa.select(sa.func.pg_total_relation_size(sa.literal(name)))
                    ).scalar()
                tables.append(TableInfo(name=name, rows=rows, bytes=size))
            by_kind: dict[str, int] = dict(
                conn.execute(
                    sa.select(t.runs.c.kind, sa.func.count()).group_by(t.runs.c.kind)
                ).all()
            )
            oldest, newest = conn.execute(
                sa.select(sa.func.min(t.runs.c.created_at), sa.func.max(t.runs.c.created_at))
            ).one()
            total = None
            if self.backend == "postgresql":
                total = conn.execute(
                    sa.text("SELECT pg_database_size(current_database())")
                ).scalar()
        path = sqlite_path(self.url)
        if path is not None:
            total = sum(
                p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.exists()
            )
        return StoreInfo(
            url=self.display_url, backend=self.backend, revision=revision, tables=tables,
            runs_by_kind={k: int(by_kind.get(k, 0)) for k in RUN_KINDS},
            oldest_run=iso_z(utc_naive(oldest)), newest_run=iso_z(utc_naive(newest)),
            total_bytes=int(total) if total is not None else None,
        )  # fmt: skip

    def prune(self, cutoff: datetime, *, dry_run: bool = False) -> PruneResult:
        """Delete runs, verdicts and usefulness scores created before ``cutoff``, except runs
        and verdicts a gate result references and runs that carry a review or a signature."""
        cutoff = utc_naive(cutoff)
        r, v, g = t.runs.c, t.verdicts.c, t.gate_refs.c
        gate_runs = sa.select(g.ref).where(g.ref_kind == "run")
        gate_verdicts = sa.select(g.ref).where(g.ref_kind == "verdict")
        reviewed = sa.union(sa.select(t.reviews.c.run_id), sa.select(t.signatures.c.run_id))
        old_runs = [r.created_at < cutoff]
        keep_runs = sa.or_(r.run_id.in_(gate_runs), r.run_id.in_(reviewed))
        old_verdicts = [v.created_at < cutoff]
        keep_verdicts = v.key.in_(gate_verdicts)
        old_scores = [t.usefulness.c.created_at < cutoff]

        def n(conn: sa.Connection, table: sa.Table, *where: sa.ColumnElement[bool]) -> int:
            return int(
                conn.execute(sa.select(sa.func.count()).select_from(table).where(*where)).scalar()
                or 0
            )

        with self._write() as conn:
            counts = {
                "runs": n(conn, t.runs, *old_runs, sa.not_(keep_runs)),
                "kept_runs": n(conn, t.runs, *old_runs, keep_runs),
                "verdicts": n(conn, t.verdicts, *old_verdicts, sa.not_(keep_verdicts)),
                "kept_verdicts": n(conn, t.verdicts, *old_verdicts, keep_verdicts),
                "usefulness": n(conn, t.usefulness, *old_scores),
            }
            if not dry_run:
                gone = sa.select(r.run_id).where(*old_runs, sa.not_(keep_runs))
                conn.execute(sa.delete(t.rechecks).where(t.rechecks.c.run_id.in_(gone)))
                conn.execute(sa.delete(t.runs).where(*old_runs, sa.not_(keep_runs)))
                conn.execute(sa.delete(t.verdicts).where(*old_verdicts, sa.not_(keep_verdicts)))
                conn.execute(sa.delete(t.usefulness).where(*old_scores))
        if not dry_run and self.backend == "sqlite":
            with self._read() as conn:
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
        return PruneResult(
            cutoff=iso_z(cutoff) or "", dry_run=dry_run, runs=counts["runs"],
            verdicts=counts["verdicts"], usefulness=counts["usefulness"],
            kept_runs_referenced=counts["kept_runs"], kept_verdicts_referenced=counts["kept_verdicts"],
        )  # fmt: skip

    # -- copying between stores (``spanproof store migrate``) -----------------------------

    def rows(self, table: str) -> Iterator[dict[str, Any]]:
        """Every row of a table as a dict (for copying a store into another)."""
        tbl = t.metadata.tables[table]
        with self._read() as conn:
            for row in conn.execute(sa.select(tbl)):
                yield dict(row._mapping)

    def insert_rows_ignore(self, table: str, rows: Sequence[dict[str, Any]]) -> int:
        """Insert-or-ignore; returns how many rows were new."""
        if not rows:
            return 0
        tbl = t.metadata.tables[table]
        before = self.count(table)
        with self._write() as conn:
            for chunk in _chunks(list(rows)):
                conn.execute(self._insert_ignore(tbl), list(chunk))
        return self.count(table) - before

    def run_records(self, run_ids: Sequence[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        with self._read() as conn:
            for chunk in _chunks(list(run_ids)):
                rows = conn.execute(
                    sa.select(t.runs.c.run_id, t.runs.c.record).where(t.runs.c.run_id.in_(chunk))
                )
                out.update({r.run_id: r.record for r in rows})
        return out


# -- one store per database per process --------------------------------------------------

_OPEN: dict[tuple[str, str | None], Store] = {}
_OPEN_LOCK = threading.Lock()


def open_store(*, home: str | os.PathLike[str] | None = None, db: str | None = None) -> Store:
    """The store for ``db`` (else $SPANPROOF_DB, else SQLite under the home), opened and
    migrated once per process. ``home`` is also where this runner's snapshots live."""
    from spanproof.store.home import resolve_home

    home_dir = resolve_home(home)
    url = resolve_db_url(db, home_dir)
    key = (url, str(home_dir))
    with _OPEN_LOCK:
        store = _OPEN.get(key)
        if store is None:
            store = Store(url, home=home_dir)
            _OPEN[key] = store
        return store


def store_for_url(url: str) -> Store:
    """A store for a bare URL or SQLite path (no home: snapshot holders are not recorded)."""
    resolved = resolve_db_url(str(url))
    key = (resolved, None)
    with _OPEN_LOCK:
        store = _OPEN.get(key)
        if store is None:
            store = Store(resolved)
            _OPEN[key] = store
        return store


def close_all() -> None:
    with _OPEN_LOCK:
        for store in _OPEN.values():
            store.close()
        _OPEN.clear()


atexit.register(close_all)


@functools.lru_cache(maxsize=16)
def _run_update(columns: tuple[str, ...]) -> sa.Update:
    """The UPDATE of a run's ``columns``, built once: a run is saved after every step (a gate's
    runs side by side, a dozen times each), and building the statement anew each time (every
    value coerced, the cache key walked) cost more than the write. Its values and the run's
    key are bound at execution (``new_<column>``, ``key_run_id``, ``key_writer``)."""
    return (
        sa.update(t.runs)
        .where(t.runs.c.run_id == sa.bindparam("key_run_id"),
               t.runs.c.writer == sa.bindparam("key_writer"))
        .values({c: sa.bindparam(f"new_{c}") for c in columns})
    )  # fmt: skip
