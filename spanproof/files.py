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


def write_atomic(path: str | Path, data: str | bytes, *, encoding: str = "utf-8") -> Path:
    """Write ``data`` to ``path`` via a temporary file and one rename; parents are created."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode(encoding) if isinstance(data, str) else data
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        if target.exists():
            # keep the permissions the user gave the file they are replacing
            os.chmod(tmp_name, target.stat().st_mode & 0o7777)
        else:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp_name, 0o666 & ~umask)
        os.replace(tmp_name, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    return target
