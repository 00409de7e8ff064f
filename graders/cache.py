"""A content-addressed cache of judge verdicts, so a rerun with nothing changed calls no model.

The key is the sha256 of (judge id, model id, prompt sha256, claim, span text, span url):
change any of them — a new prompt version, a different model, one character of the span —
and the verdict is recomputed. The span's ``retrieved_at`` is deliberately *not* in the key:
the verdict answers "does this text support this claim", which depends on the text, not on
when it was fetched. A page fetched again later with the same text gets the same verdict
(and a rerun of a suite that refetches its fixtures hits the cache); a page whose text
changed has a different key anyway. The model does see the retrieval time in its envelope,
but it is provenance for the reader, not evidence. The cached value is the judge's raw
verdict *before* the audit; the audit is code and is re-applied on every read, so improving
it never needs a cache flush. Error verdicts are never stored: a judge that failed is asked
again next time.

Storage is one SQLite file (``verdicts.sqlite`` in the spanproof home by default), safe for
several processes thanks to WAL mode.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from spanproof.graders.verdict import SpanRef, Verdict

from spanproof.home import resolve_home

DEFAULT_FILENAME = "verdicts.sqlite"


def cache_key(
    judge_id: str, model_id: str | None, prompt_sha256: str | None, claim: str, span: SpanRef
) -> str:
    payload = json.dumps(
        [
            judge_id,
            model_id or "",
            prompt_sha256 or "",
            claim,
            span.text,
            span.url or "",
        ],  # fmt: skip
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class VerdictCache:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS verdicts (key TEXT PRIMARY KEY, judge TEXT NOT NULL,"
            " verdict TEXT NOT NULL, created_at TEXT DEFAULT CURRENT_TIMESTAMP)"
        )
        self._db.commit()

    @classmethod
    def default(cls, home: str | Path | None = None) -> VerdictCache:
        return cls(resolve_home(home) / DEFAULT_FILENAME)

    def get(self, key: str) -> Verdict | None:
        with self._lock:
            row = self._db.execute("SELECT verdict FROM verdicts WHERE key = ?", (key,)).fetchone()
        return Verdict.model_validate_json(row[0]) if row else None

    def put(self, key: str, verdict: Verdict) -> None:
        if verdict.error is not None:
            return
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO verdicts (key, judge, verdict) VALUES (?, ?, ?)",
                (key, verdict.judge, verdict.model_dump_json()),
            )
            self._db.commit()

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM verdicts").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
