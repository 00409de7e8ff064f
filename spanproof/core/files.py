"""Writing output files: atomically, and never over a file the command is reading.

Every command that writes a file goes through ``write_atomic``: the bytes go to a temporary
file in the same directory, are flushed and fsynced, and replace the target with one
``os.replace``. A crash, a full disk or Ctrl-C leaves either the old file or the new one,
never half of each. ``refuse_overwriting_inputs`` stops ``--out`` / ``--markdown`` from
naming a file the same command reads (``verify --pairs p.jsonl --out p.jsonl`` used to
replace the pairs with the verdicts).
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path


class OutputPathError(ValueError):
    """An output path the command refuses to write; the message says which and why."""


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def refuse_overwriting_inputs(
    output: str | Path | None, inputs: Iterable[str | Path | None], *, option: str = "--out"
) -> None:
    """Raise OutputPathError when ``output`` is (a link to) one of ``inputs``."""
    if output is None:
        return
    out = Path(output)
    for item in inputs:
        if item is None:
            continue
        if _same_file(out, Path(item)):
            raise OutputPathError(
                f"{option} {out} is also an input of this command ({item}); writing it would "
                f"destroy the input. Choose another {option} path."
            )


class AtomicWriter:
    """A file written piece by piece that appears whole or not at all: the pieces go to a
    temporary file in the target's directory; ``commit`` flushes, fsyncs and replaces the
    target in one rename; ``abandon`` removes the temporary file, or keeps what was written
    under another name (``keep_as``) for a run that stopped half way."""

    def __init__(self, path: str | Path, *, encoding: str = "utf-8") -> None:
        self.target = Path(path)
        self.target.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(
            prefix=f".{self.target.name}.", suffix=".tmp", dir=self.target.parent
        )
        self.tmp = Path(name)
        self.encoding = encoding
        self._fh = os.fdopen(fd, "wb")

    def write(self, data: str | bytes) -> None:
        self._fh.write(data.encode(self.encoding) if isinstance(data, str) else data)

    def commit(self) -> Path:
        try:
            self._fh.flush()
            os.fsync(self._fh.fileno())
            self._fh.close()
            if self.target.exists():
                # keep the permissions the user gave the file they are replacing
                os.chmod(self.tmp, self.target.stat().st_mode & 0o7777)
            else:
                umask = os.umask(0)
                os.umask(umask)
                os.chmod(self.tmp, 0o666 & ~umask)
            os.replace(self.tmp, self.target)
        except BaseException:
            self.abandon()
            raise
        return self.target

    def abandon(self, keep_as: str | Path | None = None) -> Path | None:
        with contextlib.suppress(OSError):
            self._fh.close()
        if keep_as is not None and self.tmp.exists():
            os.replace(self.tmp, keep_as)
            return Path(keep_as)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.tmp)
        return None


def write_atomic(path: str | Path, data: str | bytes, *, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` via a temporary file and one rename; parents are created."""
    writer = AtomicWriter(path, encoding=encoding)
    try:
        writer.write(data)
    except BaseException:
        writer.abandon()
        raise
    return writer.commit()
