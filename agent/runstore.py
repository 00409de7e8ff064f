"""Durable run storage, written as the run goes, through the shared store (spanproof.store).

A run is saved after every step with status `interrupted`; only the final save
marks it `complete` (or `failed`). So a process killed mid-run leaves a
readable record that already says it was interrupted, with no clean-up hook.

The first save of a run INSERTs it (a run id already taken is an error, never an
overwrite); later saves by the same process UPDATE it. Every save stamps the record's
kind and provenance (host, runner, CI job, versions, judge/model/prompt hashes) and
notes which runner holds the run's snapshot blobs.
"""

from __future__ import annotations

import builtins
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError
from spanproof.agent.record import RunKind, RunRecord

from spanproof.store.columns import RUN_SUMMARY_FIELDS, run_provenance, run_values
from spanproof.store.errors import RecordCorrupt
from spanproof.store.models import RunPage, RunSummary
from spanproof.store.records import corrupt_message

if TYPE_CHECKING:
    # the store (SQLAlchemy) is imported when a RunStore is made, not with this module
    from spanproof.store import Store

__all__ = ["RunStore", "RunSummary", "default_runstore_path"]


def default_runstore_path(home: Path) -> Path:
    """The default SQLite store file under a home (``$SPANPROOF_DB`` overrides it)."""
    from spanproof.store.url import DEFAULT_FILENAME

    return home / DEFAULT_FILENAME


class RunStore:
    """Runs in a store. ``target``: a Store, a database URL, or a SQLite file path.

    ``kind`` (ask, gate, injection, grade) is stamped on every record this store saves;
    None keeps the record's own kind.
    """

    def __init__(self, target: Store | str | os.PathLike[str], *, kind: RunKind | None = None):
        from spanproof.store import Store, store_for_url

        self.store = target if isinstance(target, Store) else store_for_url(str(target))
        self.kind = kind
        self._inserted: set[str] = set()

    @classmethod
    def default(
        cls, home: str | os.PathLike[str] | None = None, db: str | None = None,
        kind: RunKind | None = None,
    ) -> RunStore:  # fmt: skip
        from spanproof.store import open_store

        return cls(open_store(home=home, db=db), kind=kind)

    @property
    def path(self) -> str:
        return self.store.display_url

    def save(self, record: RunRecord) -> None:
        if self.kind is not None:
            record.kind = self.kind
        summary = record.model_dump(mode="json", include=RUN_SUMMARY_FIELDS)
        prov = run_provenance(summary, self.store.provenance())
        record.provenance = prov.model_dump(mode="json")
        values = run_values(summary, prov, record.kind)
        values["record"] = record.model_dump_json()
        if record.run_id in self._inserted:
            self.store.update_run(values)
        else:
            self.store.insert_run(values)
            self._inserted.add(record.run_id)
        if record.status != "interrupted" and record.documents:
            self.store.record_snapshot_holders(d.model_dump() for d in record.documents)

    def get(self, run_id: str) -> RunRecord:
        """The record for an id or a unique id prefix; RunNotFound (a KeyError) when none."""
        stored = self.store.get_run(run_id)
        return parse_record(stored.run_id, stored.record)

    def list(self, limit: int | None = None, *, kind: str | Iterable[str] | None = None,
             offset: int = 0) -> list[RunSummary]:  # fmt: skip
        """Runs newest first (every kind unless ``kind`` is given)."""
        return self.page(kind=kind, limit=limit or 1_000_000, offset=offset).items

    def page(self, *, kind: str | Iterable[str] | None = "ask", limit: int = 50,
             offset: int = 0) -> RunPage:  # fmt: skip
        return self.store.list_runs(kind=kind, limit=limit, offset=offset)

    def records(self) -> builtins.list[RunRecord]:  # (list: the method above)
        """Every stored record, newest first."""
        return [parse_record(rid, text) for rid, text in self.store.all_run_records()]


def parse_record(run_id: str, text: str) -> RunRecord:
    """A stored record, or RecordCorrupt naming the run and how to remove it."""
    try:
        return RunRecord.model_validate_json(text)
    except (ValidationError, ValueError, RecursionError) as e:
        first = str(e).strip().splitlines()
        why = first[0] if first else type(e).__name__
        if isinstance(e, ValidationError) and e.errors():
            err = e.errors()[0]
            why = f"{'.'.join(str(p) for p in err['loc']) or 'record'}: {err['msg']}"
        raise RecordCorrupt(corrupt_message(run_id, why)) from e
