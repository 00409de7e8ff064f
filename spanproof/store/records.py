"""Reading a stored run record: its JSON, or an error naming the run and the way out."""

from __future__ import annotations

import json
from typing import Any


def loads_record(run_id: str, text: str) -> dict[str, Any]:
    """A stored record's JSON, or RecordCorrupt naming the run and the way out."""
    from spanproof.store.errors import RecordCorrupt

    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise RecordCorrupt(corrupt_message(run_id, f"not valid JSON: {e}")) from e
    if not isinstance(data, dict):
        raise RecordCorrupt(corrupt_message(run_id, "not a JSON object"))
    return data


def corrupt_message(run_id: str, why: str) -> str:
    return (
        f"run {run_id}'s stored record cannot be read ({why}). The other runs are fine; "
        f"remove this one with `spanproof runs delete {run_id}` (or restore the store from a backup)."
    )
