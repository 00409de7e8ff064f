"""Where spanproof keeps state: snapshot store, caches, run store.

One directory holds everything, chosen in this order: an explicit ``--home``,
the ``SPANPROOF_HOME`` environment variable, else the per-user data directory.
Never the source tree, so a test run or a demo cannot leave files in a clone.
A home that cannot be used (a regular file, a read-only directory) is a
``HomeError`` whose message says how to recover, never a traceback.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

import platformdirs

ENV_VAR = "SPANPROOF_HOME"


def resolve_home(explicit: str | os.PathLike[str] | None = None) -> Path:
    from spanproof.store.errors import HomeError

    if explicit:
        home, source = Path(explicit), "--home"
    elif os.environ.get(ENV_VAR):
        home, source = Path(os.environ[ENV_VAR]), f"${ENV_VAR}"
    else:
        home, source = Path(platformdirs.user_data_dir("spanproof", appauthor=False)), "default"
    fix = f"point --home or ${ENV_VAR} at a writable directory"
    if home.exists() and not home.is_dir():
        raise HomeError(
            f"spanproof home {home} ({source}) is a regular file, not a directory. Move it "
            f"aside (mv {home} {home}.bak) or {fix}."
        )
    try:
        home.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:  # a parent is a regular file
        raise HomeError(
            f"spanproof home {home} ({source}) cannot be created: a part of its path is a "
            f"regular file ({exc.filename}). Move that file aside or {fix}."
        ) from exc
    except OSError as exc:
        raise HomeError(_unwritable(home, source, exc, fix)) from exc
    return home


def _unwritable(home: Path, source: str | None, exc: OSError, fix: str) -> str:
    why = "is on a read-only file system" if exc.errno == errno.EROFS else "is not writable"
    where = f"{home} ({source})" if source else str(home)
    return f"spanproof home {where} {why} ({exc.strerror}). {fix[0].upper()}{fix[1:]}."


def ensure_writable(home: Path) -> None:
    """Raise HomeError unless files can be created in ``home`` (checked by creating one)."""
    import tempfile

    from spanproof.store.errors import HomeError

    try:
        fd, probe = tempfile.mkstemp(prefix=".write-probe-", dir=home)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise HomeError(
            _unwritable(home, None, exc, f"point --home or ${ENV_VAR} at a writable directory")
        ) from exc
