"""The sha256 of installed files, kept between processes and keyed by (path, size, mtime_ns).

``spanproof.core.digest.dependency_digest`` covers every installed file of the distributions
the readers import, some 3,000 files: reading and hashing them was a third of a second each
time the rules judge loaded and most of the gate memo's key. Installed files rarely change,
so each file's sha256 is kept in one JSON file under the cache directory
(``$SPANPROOF_CACHE_DIR``, else the per-user cache directory) with the size and modification
time (in nanoseconds) it was read at; a file whose size or modification time differs is read
again. An edit in place changes the modification time, so it is read again even when the
size stays the same.

The cache only saves time: a cache that cannot be read (missing, damaged, another format) is
an empty one, and one that cannot be written is left as it was; either way every digest is
computed from the files.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

CACHE_ENV = "SPANPROOF_CACHE_DIR"
CACHE_FILE = "file-digests-v1.json"


def cache_dir() -> Path:
    explicit = os.environ.get(CACHE_ENV)
    if explicit:
        return Path(explicit)
    import platformdirs

    return Path(platformdirs.user_cache_dir("spanproof", appauthor=False))


class FileDigests:
    """``digest(path)``: the file's sha256 hex, from the cache when its size and mtime match."""

    def __init__(self, store: Path | None = None) -> None:
        self.store = store if store is not None else cache_dir() / CACHE_FILE
        self.entries: dict[str, list[int | str]] = {}
        self.changed = False
        try:
            loaded = json.loads(self.store.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            loaded = None
        if isinstance(loaded, dict):
            self.entries = {k: v for k, v in loaded.items() if _valid(v)}

    def digest(self, path: Path) -> str | None:
        """The sha256 hex of the file's bytes; None when it cannot be read."""
        try:
            st = path.stat()
            key = str(path)
            known = self.entries.get(key)
            if known is not None and known[0] == st.st_size and known[1] == st.st_mtime_ns:
                return str(known[2])
            body = path.read_bytes()
        except OSError:
            return None
        hexdigest = hashlib.sha256(body).hexdigest()
        self.entries[key] = [st.st_size, st.st_mtime_ns, hexdigest]
        self.changed = True
        return hexdigest

    def save(self) -> None:
        """Write the cache if a digest was added (atomically; a failure leaves it as it was)."""
        if not self.changed:
            return
        from spanproof.core.files import write_atomic

        try:
            write_atomic(self.store, json.dumps(self.entries))
        except OSError:
            return
        self.changed = False


def _valid(entry: object) -> bool:
    return (
        isinstance(entry, list)
        and len(entry) == 3
        and isinstance(entry[0], int)
        and isinstance(entry[1], int)
        and isinstance(entry[2], str)
    )
