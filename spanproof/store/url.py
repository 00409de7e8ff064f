"""Which database a command uses: ``--db``, else ``$SPANPROOF_DB``, else SQLite under the home.

``sqlite:///path`` (the zero-setup default, ``<home>/spanproof.sqlite``) suits one machine;
``postgresql+psycopg://user:pass@host/db`` lets a team's CI runners share one store.
"""

from __future__ import annotations

import os
from pathlib import Path

ENV_VAR = "SPANPROOF_DB"
DEFAULT_FILENAME = "spanproof.sqlite"
SUPPORTED = ("sqlite", "postgresql")


def sqlite_url(path: str | os.PathLike[str]) -> str:
    return f"sqlite:///{Path(path).absolute()}"


def resolve_db_url(db: str | None = None, home: str | os.PathLike[str] | None = None) -> str:
    """The store URL: explicit ``db``, else ``$SPANPROOF_DB``, else ``<home>/spanproof.sqlite``.

    A bare path (no ``://``) is taken as a SQLite file. ``postgresql://`` is read as
    ``postgresql+psycopg://`` (the driver spanproof ships with).
    """
    from spanproof.store.errors import StoreError

    url = (db or os.environ.get(ENV_VAR) or "").strip()
    if not url:
        from spanproof.store.home import resolve_home

        return sqlite_url(resolve_home(home) / DEFAULT_FILENAME)
    if "://" not in url:
        return sqlite_url(url)
    scheme = url.split("://", 1)[0]
    if scheme in ("postgresql", "postgres"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    if scheme.split("+")[0] not in SUPPORTED:
        raise StoreError(
            f"--db {redact(url)!r}: unsupported database {scheme!r}; use sqlite:///PATH or "
            "postgresql+psycopg://USER:PASSWORD@HOST:PORT/DB"
        )
    return url


def redact(url: str) -> str:
    """The URL with its password replaced by ***, for messages and `store info`."""
    if "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, _, host = rest.rpartition("@")
    if ":" in creds:
        creds = creds.split(":", 1)[0] + ":***"
    return f"{scheme}://{creds}@{host}"


def sqlite_path(url: str) -> Path | None:
    """The file behind a sqlite URL (None for other backends or in-memory databases)."""
    if not url.startswith("sqlite"):
        return None
    path = url.split(":///", 1)[1] if ":///" in url else ""
    return Path(path) if path and path != ":memory:" else None
