"""Where gate runs are kept: table ``gate_runs`` of the shared store (spanproof.store).

A gate run is inserted once, with provenance, and with what it rests on: its agent runs and
the cached verdicts it used, which ``spanproof store prune`` therefore never deletes.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from spanproof.graders.gate_result import GateResult

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


def store_path(home: Path) -> Path:
    """The default SQLite store file under a home (``$SPANPROOF_DB`` overrides it)."""
    from spanproof.store.url import DEFAULT_FILENAME

    return home / DEFAULT_FILENAME
