"""Where `verify`'s per-pair verdict rows go: --out, or back to the caller, or nowhere.

Each row (one JSON object, the pair's id and every verdict field) is written as it comes: to
--out's temporary file, renamed over --out when the run finishes (``commit``) and kept as
``<out>.partial`` when it stops half way (``stop``); or, when the caller keeps the rows (the
--json document without --out), to an anonymous spool file read back by ``results``. Memory
never holds the rows of a large file.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from spanproof.core.files import AtomicWriter


class Rows:
    def __init__(self, out_path: Path | None, *, keep: bool) -> None:
        self.out_path = out_path
        self.written = 0
        self._out = AtomicWriter(out_path) if out_path else None
        self._spool: TextIO | None = (
            tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")  # noqa: SIM115 (close())
            if keep and not out_path
            else None
        )

    def add(self, row: str) -> None:
        if self._out is not None:
            self._out.write(row + "\n")
        elif self._spool is not None:
            self._spool.write(row + "\n")
        self.written += 1

    def commit(self) -> None:
        if self._out is not None:
            self._out.commit()

    def stop(self) -> Path | None:
        """The run stopped: keep what was written as ``<out>.partial``; None without --out."""
        if self._out is None:
            return None
        if not self.written:
            self._out.abandon()
            return None
        assert self.out_path is not None
        return self._out.abandon(keep_as=self.out_path.with_name(self.out_path.name + ".partial"))

    @property
    def kept(self) -> bool:
        """Are the rows kept for ``results``?"""
        return self._spool is not None

    def results(self) -> Iterator[str]:
        """The kept rows, in order, each a JSON object's text."""
        if self._spool is None:
            return
        self._spool.seek(0)
        for line in self._spool:
            yield line.rstrip("\n")

    def close(self) -> None:
        if self._spool is not None:
            with contextlib.suppress(OSError):
                self._spool.close()
