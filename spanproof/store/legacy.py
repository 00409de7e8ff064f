"""``spanproof store migrate --from HOME --to URL``: copy a home's runs, gate runs, verdicts
and usefulness scores into a store, idempotently.

A home may hold the current store (``spanproof.sqlite``) and/or the files older spanproof
versions wrote (``runs.sqlite`` with runs and gate_runs, ``verdicts.sqlite``,
``usefulness.sqlite``). Everything is copied insert-or-ignore, so running the copy again
adds nothing; a run whose id is already in the target with a *different* record is
reported as a conflict and left as it is in the target (never overwritten).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from spanproof.store import columns
from spanproof.store.engine import make_engine, translated
from spanproof.store.errors import StoreError
from spanproof.store.models import CopyResult
from spanproof.store.records import loads_record
from spanproof.store.store import Store
from spanproof.store.timeutil import now_naive, utc_naive
from spanproof.store.url import DEFAULT_FILENAME, sqlite_url

LEGACY_FILES = ("runs.sqlite", "verdicts.sqlite", "usefulness.sqlite")
# Fields the copy itself sets on a record; ignored when deciding whether two records are one.
_STAMPED = ("kind", "provenance")


def legacy_files(home: Path) -> list[Path]:
    return [home / name for name in LEGACY_FILES if (home / name).is_file()]


def copy_home(home: Path, dest: Store) -> CopyResult:
    home = Path(home)
    if not home.is_dir():
        raise StoreError(f"--from {home}: not a directory; give the spanproof home to copy from")
    result = CopyResult(source=str(home))
    current = home / DEFAULT_FILENAME
    found = False
    if current.is_file() and sqlite_url(current) != dest.url:
        found = True
        _copy_store(Store(sqlite_url(current), home=home), dest, result)
    legacy = legacy_files(home)
    if legacy:
        found = True
        _copy_legacy(home, dest, result)
    if not found:
        raise StoreError(
            f"--from {home}: no spanproof store in it ({DEFAULT_FILENAME} or "
            f"{', '.join(LEGACY_FILES)}); is it the right home?"
        )
    return result


# -- from a current store ------------------------------------------------------------------


def _copy_store(src: Store, dest: Store, result: CopyResult) -> None:
    try:
        batch: list[dict[str, Any]] = []
        for row in src.rows("runs"):
            batch.append(row)
            if len(batch) >= 200:
                _copy_runs(dest, batch, result)
                batch = []
        _copy_runs(dest, batch, result)
        gates = list(src.rows("gate_runs"))
        new = dest.insert_rows_ignore("gate_runs", gates)
        result.gate_runs_copied += new
        result.gate_runs_already_there += len(gates) - new
        dest.insert_rows_ignore("gate_refs", list(src.rows("gate_refs")))
        verdicts = list(src.rows("verdicts"))
        new = dest.insert_rows_ignore("verdicts", verdicts)
        result.verdicts_copied += new
        result.verdicts_already_there += len(verdicts) - new
        result.usefulness_copied += dest.insert_rows_ignore(
            "usefulness", list(src.rows("usefulness"))
        )
        result.reviews_copied += dest.insert_rows_ignore("reviews", list(src.rows("reviews")))
        result.signatures_copied += dest.insert_rows_ignore(
            "signatures", list(src.rows("signatures"))
        )
        dest.insert_rows_ignore("rechecks", list(src.rows("rechecks")))
        result.snapshot_holders_copied += dest.insert_rows_ignore(
            "snapshot_holders", list(src.rows("snapshot_holders"))
        )
    finally:
        src.close()


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    try:
        da: dict[str, Any] = json.loads(a)
        db: dict[str, Any] = json.loads(b)
    except ValueError:
        return False
    for key in _STAMPED:
        da.pop(key, None)
        db.pop(key, None)
    return da == db


def _copy_runs(dest: Store, rows: list[dict[str, Any]], result: CopyResult) -> None:
    if not rows:
        return
    there = dest.run_records([r["run_id"] for r in rows])
    fresh = []
    for row in rows:
        existing = there.get(row["run_id"])
        if existing is None:
            fresh.append(row)
        elif _same(existing, row["record"]):
            result.runs_already_there += 1
        else:
            result.runs_conflicting.append(row["run_id"])
    new = dest.insert_rows_ignore("runs", fresh)
    result.runs_copied += new
    result.runs_already_there += len(fresh) - new  # written by someone else meanwhile


# -- from the files older spanproof versions wrote ------------------------------------------


def _legacy_rows(path: Path, table: str, *cols: str) -> Iterator[sa.Row[*tuple[Any, ...]]]:
    """Rows of an older spanproof's SQLite file (a table it never created yields nothing)."""
    if not path.is_file():
        return
    url = sqlite_url(path)
    engine = make_engine(url)
    try:
        with translated(url), engine.connect() as conn:
            if not sa.inspect(conn).has_table(table):
                return
            query: sa.Select[*tuple[Any, ...]] = sa.select(
                *(sa.column(c) for c in cols)
            ).select_from(sa.table(table))
            yield from conn.execute(query)
    finally:
        engine.dispose()


def _copy_legacy(home: Path, dest: Store, result: CopyResult) -> None:
    imported = dest.provenance(home=str(home), imported_from=str(home))
    runs_db = home / "runs.sqlite"
    gates = [dict(json.loads(r.result)) for r in _legacy_rows(runs_db, "gate_runs", "result")]
    gate_run_ids = {rid for g in gates for rid in g.get("run_ids") or []}

    batch: list[dict[str, Any]] = []
    holders: list[dict[str, Any]] = []
    for row in _legacy_rows(runs_db, "runs", "run_id", "record"):
        try:
            data = loads_record(row.run_id, row.record)
        except StoreError:
            result.runs_unreadable.append(row.run_id)
            continue
        kind = data.get("kind") or ("gate" if row.run_id in gate_run_ids else "ask")
        summary = {k: data.get(k) for k in columns.RUN_SUMMARY_FIELDS}
        prov = columns.run_provenance(summary, imported)
        data["kind"], data["provenance"] = kind, prov.model_dump(mode="json")
        values = columns.run_values(summary, prov, kind)
        values.update(record=json.dumps(data), writer="imported")
        batch.append(values)
        holders += [
            d for d in data.get("documents") or [] if isinstance(d, dict) and d.get("doc_id")
        ]
        if len(batch) >= 200:
            _copy_runs(dest, batch, result)
            batch = []
    _copy_runs(dest, batch, result)
    result.snapshot_holders_copied += dest.record_snapshot_holders(holders, home=str(home))

    gate_rows = []
    refs = []
    for g in gates:
        values = columns.gate_values(g, columns.gate_provenance(g, imported))
        values["result"] = json.dumps(g)
        gate_rows.append(values)
        refs += [
            {"gate_id": g["gate_id"], "ref_kind": "run", "ref": r}
            for r in set(g.get("run_ids") or [])
        ]
    new = dest.insert_rows_ignore("gate_runs", gate_rows)
    result.gate_runs_copied += new
    result.gate_runs_already_there += len(gate_rows) - new
    dest.insert_rows_ignore("gate_refs", refs)

    verdicts = []
    for row in _legacy_rows(home / "verdicts.sqlite", "verdicts", "key", "verdict", "created_at"):
        try:
            parsed = json.loads(row.verdict)
        except ValueError:
            continue
        values = columns.verdict_values(parsed, imported)
        values.update(key=row.key, verdict=row.verdict,
                      created_at=utc_naive(str(row.created_at)) or now_naive())  # fmt: skip
        verdicts.append(values)
    new = dest.insert_rows_ignore("verdicts", verdicts)
    result.verdicts_copied += new
    result.verdicts_already_there += len(verdicts) - new

    scores = [
        {"key": row.key, "score": row.score, "created_at": now_naive(),
         **columns.provenance_values(imported)}
        for row in _legacy_rows(home / "usefulness.sqlite", "usefulness", "key", "score")
    ]  # fmt: skip
    result.usefulness_copied += dest.insert_rows_ignore("usefulness", scores)
