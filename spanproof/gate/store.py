"""Where gate runs are kept: table ``gate_runs`` of the shared store (spanproof.store).

A gate run is inserted once, with provenance, and with what it rests on: its agent runs and
the cached verdicts it used, which ``spanproof store prune`` therefore never deletes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from spanproof.gate.artifacts import NotRecorded
from spanproof.gate.result import GateResult
from spanproof.gate.subset import SUBSET_EXIT
from spanproof.store import Store, open_store, store_for_url
from spanproof.store.columns import gate_provenance, gate_values


class GateStore:
    """Gate runs in a store. ``target``: a Store, a database URL, or a SQLite file path."""

    def __init__(self, target: Store | str | os.PathLike[str]):
        self.store = target if isinstance(target, Store) else store_for_url(str(target))

    @classmethod
    def default(
        cls, home: str | os.PathLike[str] | None = None, db: str | None = None
    ) -> GateStore:
        return cls(open_store(home=home, db=db))

    def save(self, result: GateResult, *, verdict_keys: Iterable[str] = ()) -> None:
        data = result.model_dump(mode="json")
        values = gate_values(data, gate_provenance(data, self.store.provenance()))
        values["result"] = result.model_dump_json()
        self.store.insert_gate_run(values, run_ids=result.run_ids, verdict_keys=verdict_keys)

    def list(self) -> list[GateResult]:
        return [GateResult.model_validate_json(text) for text in self.store.gate_results()]


UNRECORDED_DIR = "unrecorded-gates"


def keep_unrecorded(result: GateResult, home: Path, reason: str) -> Path | None:
    """A result the store could not take, kept as JSON under the home so nothing finished is
    lost; the gate then could not run (exit 2), and ``artifacts.not_recorded`` says why and
    where the file is (None when the home cannot be written either)."""
    from spanproof.core.files import write_atomic

    path = Path(home) / UNRECORDED_DIR / f"{result.gate_id}.json"
    kept: Path | None = path
    note = NotRecorded(reason=reason, kept_in=str(path))
    result.artifacts.not_recorded = note
    if result.exit_code in (0, 1, SUBSET_EXIT):  # a gate that finished, unrecorded
        result.exit_code, result.passed = 2, False
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, result.model_dump_json(indent=2))
    except OSError as exc:
        note.kept_in, kept = None, None
        note.reason += f"; the result could not be kept in the home either ({exc})"
    note.message = (
        f"the gate run {result.gate_id} could not be recorded in the store: {note.reason}"
        + (f"; its result is kept in {kept}" if kept else "")
        + ". Fix the store (see `spanproof store info`) and run the gate again."
    )
    return kept


def store_path(home: Path) -> Path:
    """The default SQLite store file under a home (``$SPANPROOF_DB`` overrides it)."""
    from spanproof.store.url import DEFAULT_FILENAME

    return home / DEFAULT_FILENAME
