"""The snapshot store: every fetched document, once, durably, addressable by doc_id.

Layout under ``root``:

- ``snapshots.warc.gz`` — append-only gzip WARC (one gzip member per record).
  Each document is three records written in ONE ``write`` + ``fsync``:
  ``response`` (the raw HTTP body and headers as served), ``metadata``
  (the Document fields as JSON, without text) and ``conversion`` (the
  sanitised UTF-8 text every span offset indexes into).
- ``index.sqlite`` — SQLite in WAL mode: doc_id -> byte offset and length of
  that document's records, plus its metadata. A doc_id resolves with one
  primary-key lookup and one seek.

Integrity: every read checks the length of the document's bytes and the WARC block and
payload digests of its three records; a document cut short or altered raises
``SnapshotDamaged`` naming it, never shorter text. An index SQLite cannot read (not a
database, malformed, unwritable) raises ``SnapshotIndexError``: the WARC holds everything the
index says, so its message says to delete the index, which the next open rebuilds from the
WARC (the recovery below, from the first byte). Both are ``SnapshotStoreError``.

Sanitiser version: the metadata records ``SANITISER_VERSION``. Storing a body again whose
document was converted by another version appends a fresh conversion and re-points the
index at it, so a fixed sanitiser is never hidden by text cached before the fix.

Crash safety: the WARC is written and fsynced before the index row commits.
On open, any bytes past the last indexed document are either complete
documents (indexed now: the crash hit between WARC fsync and index commit)
or a torn tail (truncated away). A ``kill -9`` therefore loses at most the
document being written, and never corrupts an earlier one.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import json
import os
import sqlite3
import threading
import zlib
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Literal, overload

from cachetools import LRUCache
from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from spanproof.core.evidence import Document, make_doc_id, utc_now_iso, warc_record_id
from spanproof.web.sanitise import SANITISER_VERSION, document_text

WARC_NAME = "snapshots.warc.gz"
INDEX_NAME = "index.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS documents (
    doc_id TEXT PRIMARY KEY,
    offset INTEGER NOT NULL,
    length INTEGER NOT NULL,
    url TEXT NOT NULL,
    final_url TEXT NOT NULL,
    status INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    retrieved_at TEXT NOT NULL,
    sha256 TEXT NOT NULL,
    title TEXT NOT NULL
);
"""

# Hop-by-hop and encoding headers describe the wire, not the stored body:
# httpx already decoded the body, so replaying them would corrupt it.
_DROP_HTTP_HEADERS = {"content-encoding", "transfer-encoding", "content-length", "connection"}

_REASONS = {200: "OK", 301: "Moved Permanently", 302: "Found", 404: "Not Found"}


def http_headers_for(
    status: int, content_type: str, raw_len: int, headers: list[tuple[str, str]] | None = None
) -> StatusAndHeaders:
    kept = [(k, v) for k, v in (headers or []) if k.lower() not in _DROP_HTTP_HEADERS]
    if not any(k.lower() == "content-type" for k, _ in kept):
        kept.insert(0, ("Content-Type", content_type))
    kept.append(("Content-Length", str(raw_len)))
    return StatusAndHeaders(f"{status} {_REASONS.get(status, 'OK')}", kept, protocol="HTTP/1.1")


class SnapshotStoreError(RuntimeError):
    """The snapshot store cannot serve what it holds; the message says what and the fix."""


class SnapshotIndexError(SnapshotStoreError):
    """SQLite cannot use the store's index (damaged, or not readable or writable here)."""

    def __init__(self, index: Path, warc: Path, exc: sqlite3.DatabaseError):
        if isinstance(exc, sqlite3.OperationalError):  # locked, unopenable, disk I/O, full
            super().__init__(
                f"The snapshot index {index} could not be used ({exc}). Check that "
                f"{index.parent} is readable and writable and the disk is not full; if the "
                f"index is damaged, delete {index.name} and run the command again: it is "
                f"rebuilt from {warc.name}."
            )
        else:
            super().__init__(
                f"The snapshot index {index} is damaged ({exc}). The snapshots themselves are "
                f"in {warc}: delete {index.name} (and {index.name}-wal and -shm beside it, if "
                f"there) and run the command again; the index is rebuilt from {warc.name}."
            )


class SnapshotDamaged(SnapshotStoreError):
    """A stored document whose bytes are missing or altered; the message names it and the fix."""

    def __init__(self, doc_id: str, warc: Path, detail: str):
        # The detail may quote the damaged bytes (a WARC reader shows the first line it could
        # not parse): keep what precedes them, short; it goes to a terminal.
        cut = next((i for i, c in enumerate(detail) if not (c.isascii() and c.isprintable())), None)
        if cut is not None or len(detail) > 160:
            detail = detail[: min(cut if cut is not None else 160, 160)].rstrip() + " …"
        super().__init__(
            f"The stored snapshot of {doc_id} in {warc} is damaged ({detail}); its text is not "
            f"served. Move {warc.parent} aside (or delete it) and fetch the page again."
        )
        self.doc_id = doc_id


def _warc_date(iso: str) -> str:
    return iso if iso.endswith("Z") else iso.replace("+00:00", "Z")


class SnapshotStore:
    """Content-addressed, append-only store of fetched documents."""

    def __init__(self, root: Path | str, *, cache_size: int = 64):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.warc_path = self.root / WARC_NAME
        self.warc_path.touch(exist_ok=True)
        self._lock = threading.RLock()
        # Recently read documents (quoting reads one document many times in a row).
        self._cache: LRUCache[str, Document] = LRUCache(maxsize=cache_size)
        self.recovered = 0  # documents indexed from the WARC tail on open
        self.truncated_bytes = 0  # torn tail removed on open
        with self._index():
            self._db = sqlite3.connect(self.root / INDEX_NAME, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            with self._locked_file():
                self._recover()

    @contextmanager
    def _index(self) -> Iterator[None]:
        """SQLite's errors about the index as ``SnapshotIndexError``, with the fix."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            raise SnapshotIndexError(self.root / INDEX_NAME, self.warc_path, exc) from exc

    # -- durability -------------------------------------------------------

    def _locked_file(self) -> AbstractContextManager[BinaryIO]:
        store = self

        class _Guard:
            def __enter__(self_inner) -> BinaryIO:
                store._lock.acquire()
                self_inner.fh = open(store.warc_path, "rb+")
                fcntl.flock(self_inner.fh, fcntl.LOCK_EX)
                return self_inner.fh

            def __exit__(self_inner, *exc: object) -> None:
                fcntl.flock(self_inner.fh, fcntl.LOCK_UN)
                self_inner.fh.close()
                store._lock.release()

        return _Guard()

    def _indexed_end(self) -> int:
        row = self._db.execute("SELECT MAX(offset + length) FROM documents").fetchone()
        return int(row[0] or 0)

    def _recover(self) -> None:
        start = self._indexed_end()
        size = self.warc_path.stat().st_size
        if size <= start:
            return
        with open(self.warc_path, "rb") as fh:
            fh.seek(start)
            tail = fh.read()
        good_end = start
        pending: list[tuple[int, dict[str, Any]]] = []
        doc_start = start
        try:
            iterator = ArchiveIterator(io.BytesIO(tail))
            for record in iterator:
                rtype = record.rec_type
                if rtype == "response":  # a document always starts with its response record
                    pending = []
                    doc_start = start + iterator.get_record_offset()
                elif not pending:
                    continue
                body = record.content_stream().read()
                pending.append((0, {"type": rtype, "body": body}))
                if rtype == "conversion" and len(pending) == 3:
                    iterator.read_to_end()
                    end = start + iterator.get_record_offset() + iterator.get_record_length()
                    meta = json.loads(pending[1][1]["body"].decode("utf-8"))
                    self._insert(meta, doc_start, end - doc_start)
                    self.recovered += 1
                    good_end = end
                    pending = []
        except Exception:  # a torn gzip member or header: everything after good_end goes
            pass
        self._db.commit()
        if good_end < size:
            self.truncated_bytes = size - good_end
            with open(self.warc_path, "rb+") as fh:
                fh.truncate(good_end)
                fh.flush()
                os.fsync(fh.fileno())

    def _insert(self, meta: dict[str, Any], offset: int, length: int) -> None:
        # REPLACE: a later conversion of the same document (a newer sanitiser) wins.
        self._db.execute(
            "INSERT OR REPLACE INTO documents VALUES (?,?,?,?,?,?,?,?,?,?)",
            (
                meta["doc_id"],
                offset,
                length,
                meta["url"],
                meta["final_url"],
                meta["status"],
                meta["content_type"],
                meta["retrieved_at"],
                meta["sha256"],
                meta.get("title", ""),
            ),
        )

    # -- public API -------------------------------------------------------

    def put(
        self,
        url: str,
        raw: bytes,
        *,
        final_url: str | None = None,
        status: int = 200,
        content_type: str = "text/html",
        retrieved_at: str | None = None,
        http_headers: list[tuple[str, str]] | None = None,
    ) -> Document:
        """Store a fetched body once and return its Document.

        The doc_id comes from (final URL, raw bytes); storing the same content
        again returns the first Document, with its original retrieved_at.
        """
        final_url = final_url or url
        doc_id = make_doc_id(final_url, raw)
        existing = self._lookup(doc_id)
        if existing is not None and existing.sanitiser_version == SANITISER_VERSION:
            return existing
        title, text = document_text(raw, content_type)
        doc = Document(
            doc_id=doc_id,
            url=url,
            final_url=final_url,
            status=status,
            content_type=content_type,
            retrieved_at=retrieved_at or utc_now_iso(),
            sha256=hashlib.sha256(raw).hexdigest(),
            title=title,
            text=text,
            sanitiser_version=SANITISER_VERSION,
        )
        payload = self._serialise(doc, raw, http_headers)
        with self._index(), self._locked_file() as fh:
            # Another process may have stored it meanwhile, or left a torn tail.
            self._recover()
            self._cache.pop(doc_id, None)
            again = self._lookup(doc_id)
            if again is not None and again.sanitiser_version == SANITISER_VERSION:
                return again
            fh.seek(0, os.SEEK_END)
            offset = fh.tell()
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
            self._insert(doc.model_dump(exclude={"text"}), offset, len(payload))
            self._db.commit()
        self._remember(doc)
        return doc

    def get(self, doc_id: str) -> Document:
        doc = self._lookup(doc_id)
        if doc is None:
            raise KeyError(doc_id)
        return doc

    def text(self, doc_id: str) -> str:
        return self.get(doc_id).text

    def raw(self, doc_id: str) -> bytes:
        """The body bytes exactly as served (from the WARC response record)."""
        offset, length = self._location(doc_id)
        for rec_type, body in self._records(doc_id, offset, length):
            if rec_type == "response":
                return body
        raise KeyError(doc_id)

    def __contains__(self, doc_id: object) -> bool:
        return isinstance(doc_id, str) and self._location(doc_id, missing_ok=True) is not None

    def __len__(self) -> int:
        with self._index():
            return int(self._db.execute("SELECT COUNT(*) FROM documents").fetchone()[0])

    def doc_ids(self) -> list[str]:
        with self._index():
            rows = self._db.execute("SELECT doc_id FROM documents ORDER BY offset").fetchall()
        return [r[0] for r in rows]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- internals --------------------------------------------------------

    def _serialise(
        self, doc: Document, raw: bytes, http_headers: list[tuple[str, str]] | None
    ) -> bytes:
        buf = io.BytesIO()
        writer = WARCWriter(buf, gzip=True, warc_version="1.1")
        date = _warc_date(doc.retrieved_at)
        response_id = warc_record_id("response", doc.doc_id)
        response = writer.create_warc_record(
            doc.final_url,
            "response",
            payload=io.BytesIO(raw),
            length=len(raw),
            warc_headers_dict={"WARC-Record-ID": response_id, "WARC-Date": date},
            http_headers=http_headers_for(doc.status, doc.content_type, len(raw), http_headers),
        )
        writer.write_record(response)

        def write_linked(kind: str, payload: bytes, content_type: str, link: str) -> None:
            # the metadata and the extracted text point back at the response they describe
            record = writer.create_warc_record(
                doc.final_url,
                kind,
                payload=io.BytesIO(payload),
                length=len(payload),
                warc_content_type=content_type,
                warc_headers_dict={
                    "WARC-Record-ID": warc_record_id(kind, doc.doc_id),
                    "WARC-Date": date,
                    link: response_id,
                },
            )
            writer.write_record(record)

        meta = json.dumps(doc.model_dump(exclude={"text"}), sort_keys=True).encode("utf-8")
        write_linked("metadata", meta, "application/json", "WARC-Concurrent-To")
        text = doc.text.encode("utf-8")
        write_linked("conversion", text, "text/plain; charset=utf-8", "WARC-Refers-To")
        return buf.getvalue()

    @overload
    def _location(self, doc_id: str, missing_ok: Literal[False] = False) -> tuple[int, int]: ...
    @overload
    def _location(self, doc_id: str, missing_ok: bool) -> tuple[int, int] | None: ...
    def _location(self, doc_id: str, missing_ok: bool = False) -> tuple[int, int] | None:
        with self._lock, self._index():
            row = self._db.execute(
                "SELECT offset, length FROM documents WHERE doc_id = ?", (doc_id,)
            ).fetchone()
        if row is None:
            if missing_ok:
                return None
            raise KeyError(doc_id)
        return int(row[0]), int(row[1])

    def _records(self, doc_id: str, offset: int, length: int) -> list[tuple[str, bytes]]:
        """(record type, body) of one document's records, each checked against its digests."""
        with open(self.warc_path, "rb") as fh:
            fh.seek(offset)
            data = fh.read(length)
        if len(data) != length:
            raise SnapshotDamaged(
                doc_id, self.warc_path, f"{len(data)} of its {length} bytes are in the file"
            )
        out: list[tuple[str, bytes]] = []
        try:
            for record in ArchiveIterator(io.BytesIO(data), check_digests="raise"):
                body = record.content_stream().read()
                record.raw_stream.read()  # the rest of the block, so its digest is checked
                if record.digest_checker.passed is not True:
                    raise SnapshotDamaged(
                        doc_id, self.warc_path, f"{record.rec_type} record unverified"
                    )
                out.append((record.rec_type, body))
        except SnapshotDamaged:
            raise
        except (ArchiveLoadFailed, OSError, EOFError, ValueError, zlib.error) as exc:
            raise SnapshotDamaged(doc_id, self.warc_path, f"{type(exc).__name__}: {exc}") from exc
        kinds = [kind for kind, _ in out]
        if kinds != ["response", "metadata", "conversion"]:
            raise SnapshotDamaged(doc_id, self.warc_path, f"records {kinds}")
        return out

    def _lookup(self, doc_id: str) -> Document | None:
        cached = self._cache.get(doc_id)
        if cached is not None:
            return cached
        loc = self._location(doc_id, missing_ok=True)
        if loc is None:
            return None
        meta: dict[str, Any] | None = None
        text: str | None = None
        for rec_type, body in self._records(doc_id, *loc):
            if rec_type == "metadata":
                meta = json.loads(body.decode("utf-8"))
            elif rec_type == "conversion":
                text = body.decode("utf-8")
        if meta is None or text is None:
            raise SnapshotDamaged(doc_id, self.warc_path, "metadata or text record missing")
        doc = Document(**meta, text=text)
        self._remember(doc)
        return doc

    def _remember(self, doc: Document) -> None:
        with self._lock:
            self._cache[doc.doc_id] = doc
