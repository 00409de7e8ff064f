"""A content-addressed cache of judge verdicts, so a rerun with nothing changed calls no model.

The key is the sha256 of (endpoint base URL, judge id, model id, prompt sha256, judge code
version, claim, span text, span url, and the repeat index from the second sample on): change any of them — another server behind the same
model name, a new prompt version, a different model, one character of the span — and the
verdict is recomputed; one endpoint's verdicts never answer for another's. The model id is
the pinned name: the id the server reports is only known after a call (it is kept on the
cached verdict), and keying on it would make the first lookup of every run miss. The span's ``retrieved_at`` is deliberately *not* in the key:
the verdict answers "does this text support this claim", which depends on the text, not on
when it was fetched. A page fetched again later with the same text gets the same verdict
(and a rerun of a suite that refetches its fixtures hits the cache); a page whose text
changed has a different key anyway. The model does see the retrieval time in its envelope,
but it is provenance for the reader, not evidence. The cached value is the judge's raw
verdict *before* the audit; the audit is code and is re-applied on every read, so improving
it never needs a cache flush. Error verdicts are never stored: a judge that failed is asked
again next time.

Storage is the shared store (spanproof.store): table ``verdicts`` of ``<home>/spanproof.sqlite``
by default, or of the team's PostgreSQL database (``--db`` / ``$SPANPROOF_DB``), so a verdict
paid for on one CI runner is a cache hit on every other. Writes are insert-or-ignore: two
runners writing the same key at once are idempotent (the key fixes the inputs, so either
verdict is the right one). Each stored verdict carries provenance (spanproof version, host,
runner, CI job, sanitiser version, judge, model id, prompt hash).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from spanproof.graders.judges.registry import spec_of

from spanproof.core.verdict import Judge, SpanRef, Verdict

if TYPE_CHECKING:
    from spanproof.store import Store


def cache_key(
    judge_id: str,
    model_id: str | None,
    prompt_sha256: str | None,
    claim: str,
    span: SpanRef,
    *,
    endpoint: str | None = None,
    code_version: str | None = None,
    repeat: int = 0,
) -> str:
    parts: list[object] = [
        endpoint or "", judge_id, model_id or "", prompt_sha256 or "", code_version or "",
        claim, span.text, span.url or "",
    ]  # fmt: skip
    if repeat:
        # Another sample of the same question (``--repeat``): its own entry, so a judge that
        # is not deterministic keeps every answer it gave. Repeat 0 keeps the plain key, so a
        # single run and the first repeat share their verdicts.
        parts.append(int(repeat))
    payload = json.dumps(parts, ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def cache_key_for(judge: Judge, claim: str, span: SpanRef, repeat: int = 0) -> str:
    """The key of ``judge``'s verdict on (claim, span), from what the judge says about itself
    (the members the Judge protocol declares; ``repeat``: which sample, when the same pair is
    judged several times)."""
    # the spec, not the name a user gave the judge: a renamed judge gives the same verdicts
    return cache_key(
        spec_of(judge),
        judge.model_id,
        judge.prompt_sha256,
        claim,
        span,
        endpoint=judge.endpoint,
        code_version=judge.code_version,
        repeat=repeat,
    )


def _store(target: Store | str | os.PathLike[str]) -> Store:
    # The store (SQLAlchemy) is imported when a cache is opened, not with this module: a
    # process that only computes keys or judges (verify's worker processes) never loads it.
    from spanproof.store import Store, store_for_url

    return target if isinstance(target, Store) else store_for_url(str(target))


class VerdictCache:
    """Judge verdicts by cache key. ``target``: a Store, a database URL or a SQLite file path.

    ``used_keys`` collects every key read with a hit or written, so a gate run can record
    which verdicts its result rests on (pruning keeps those); ``track_used=False`` (verify,
    which records no run) keeps none: 100,000 keys are 15 MB.

    ``batch(keys)``: for a set of pairs judged together, one query reads every key's verdict
    and the new verdicts are written in one transaction when the last batch open ends (or
    every ``FLUSH_EVERY``), instead of a round trip and a commit per verdict. A verdict not
    yet written is lost if the process dies: it is judged again next time, as any miss.
    """

    FLUSH_EVERY = 256

    def __init__(
        self, target: Store | str | os.PathLike[str], *, track_used: bool = True, reads: bool = True
    ) -> None:
        self.store = _store(target)
        self.used_keys: set[str] = set()
        self.track_used = track_used
        # False: every lookup misses, so every verdict is judged again and stored (insert-or-
        # ignore keeps the first); what ``spanproof gate --fresh`` asks of a local judge
        self.reads = reads
        self._lock = threading.Lock()
        self._batches = 0
        self._read: dict[str, str] = {}
        self._looked_up: set[str] = set()  # keys a batch read, found or not
        self._unwritten: list[tuple[str, str, dict]] = []

    @contextlib.contextmanager
    def batch(self, keys: Iterable[str]) -> Iterator[None]:
        wanted = [k for k in dict.fromkeys(keys) if k not in self._looked_up]
        self._read.update(self.store.get_verdicts(wanted) if wanted and self.reads else {})
        self._looked_up.update(wanted)
        self._batches += 1
        try:
            yield
        finally:
            self._batches -= 1
            if not self._batches:
                self._read.clear()
                self._looked_up.clear()
                self.flush()

    def flush(self) -> None:
        """Write the verdicts a batch holds back."""
        items, self._unwritten = self._unwritten, []
        if items:
            self.store.put_verdicts(items)

    @classmethod
    def default(
        cls, home: str | Path | None = None, db: str | None = None, *, track_used: bool = True
    ) -> VerdictCache:
        from spanproof.store import open_store

        return cls(open_store(home=home, db=db), track_used=track_used)

    def note_used(self, keys: Iterable[str]) -> None:
        if self.track_used:
            with self._lock:
                self.used_keys.update(keys)

    @property
    def path(self) -> str:
        return self.store.display_url

    def get(self, key: str) -> Verdict | None:
        if not self.reads:
            return None
        if self._batches and key in self._looked_up:
            text = self._read.get(key)
        else:
            text = self.store.get_verdict(key)
        if text is None:
            return None
        self.note_used((key,))
        return Verdict.model_validate_json(text)

    def put(self, key: str, verdict: Verdict) -> None:
        if verdict.error is not None:
            return
        text = verdict.model_dump_json()
        meta = {"judge": verdict.judge, "model_id": verdict.model_id,
                "prompt_sha256": verdict.prompt_sha256}  # fmt: skip
        if self._batches:
            self._read[key] = text  # the same pair again in this batch is a hit
            self._looked_up.add(key)
            self._unwritten.append((key, text, meta))
            if len(self._unwritten) >= self.FLUSH_EVERY:
                self.flush()
        else:
            self.store.put_verdict(key, text, meta)
        self.note_used((key,))

    def __len__(self) -> int:
        return self.store.count("verdicts")

    def close(self) -> None:
        """Connections are pooled per store and closed at exit; nothing to release here."""


class UsefulnessCache:
    """Rubric scores (JSON) by key, in the same store as the verdicts; insert-or-ignore."""

    def __init__(self, target: Store | str | os.PathLike[str]) -> None:
        self.store = _store(target)

    @classmethod
    def default(cls, home: str | Path | None = None, db: str | None = None) -> UsefulnessCache:
        from spanproof.store import open_store

        return cls(open_store(home=home, db=db))

    def get(self, key: str) -> str | None:
        return self.store.get_usefulness(key)

    def put(self, key: str, score_json: str) -> None:
        self.store.put_usefulness(key, score_json)
