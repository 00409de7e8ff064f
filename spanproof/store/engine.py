"""Engines for both backends, configured once: SQLite in WAL mode with explicit transactions,
PostgreSQL through psycopg 3; every driver error translated into a ``StoreError`` that says
what is wrong and how to recover.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, exc

from spanproof.store.errors import StoreCorrupt, StoreError, StoreUnavailable
from spanproof.store.url import redact, sqlite_path

BUSY_TIMEOUT_S = 30
# Transactions that will write on SQLite start with BEGIN IMMEDIATE: a deferred transaction
# that reads first and then writes fails at once with "database is locked" when another
# writer got there first, whatever the busy timeout.
BEGIN_OPTION = "spanproof_begin"


def make_engine(url: str) -> sa.Engine:
    if url.startswith("sqlite"):
        path = sqlite_path(url)
        if path is not None:
            _check_sqlite_parent(path)
        engine = sa.create_engine(
            url, connect_args={"timeout": BUSY_TIMEOUT_S, "check_same_thread": False}
        )

        @event.listens_for(engine, "connect")
        def _on_connect(dbapi_conn: Any, _record: object) -> None:  # DBAPI: untyped
            # Let SQLAlchemy's begin() decide when transactions start (pysqlite would
            # otherwise start them lazily, and never for DDL).
            dbapi_conn.isolation_level = None
            cur = dbapi_conn.cursor()
            cur.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_S * 1000}")
            cur.execute("PRAGMA journal_mode = WAL")
            cur.execute("PRAGMA synchronous = NORMAL")
            cur.close()

        @event.listens_for(engine, "begin")
        def _on_begin(conn: sa.Connection) -> None:
            options = conn.get_execution_options()
            if options.get("isolation_level") == "AUTOCOMMIT":
                return  # each statement is its own transaction
            conn.exec_driver_sql(options.get(BEGIN_OPTION, "BEGIN"))

        return engine
    return sa.create_engine(url, pool_size=4, max_overflow=8, pool_recycle=1800)


def _check_sqlite_parent(path: Path) -> None:
    from spanproof.store.home import ensure_writable

    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise StoreUnavailable(
            f"cannot open {path}: {parent} is a regular file, not a directory; move it aside "
            "or choose another --db / --home"
        )
    try:
        parent.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise StoreUnavailable(
            f"cannot create {parent} for the store ({e.strerror}); choose a writable --home or --db"
        ) from e
    if path.exists() and path.is_dir():
        raise StoreCorrupt(
            f"the store {path} is a directory, not a SQLite file; move it aside "
            f"(mv {path} {path}.bak) and run again"
        )
    if not path.exists():
        ensure_writable(parent)


@contextlib.contextmanager
def translated(url: str) -> Iterator[None]:
    """Driver errors become StoreErrors naming the database and the way out."""
    try:
        yield
    except StoreError:
        raise
    except exc.DBAPIError as e:
        raise translate(url, e) from e
    except sqlite3.Error as e:  # raised outside SQLAlchemy (e.g. a connect-time PRAGMA)
        raise translate(url, e) from e


def translate(url: str, e: Exception) -> StoreError:
    # SQLAlchemy wraps the driver's exception; say the driver's words
    orig = e.orig if isinstance(e, exc.DBAPIError) and e.orig is not None else e
    text = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
    where = redact(url)
    path = sqlite_path(url)
    if path is not None:
        low = text.lower()
        if "file is not a database" in low or "malformed" in low or "disk image" in low:
            return StoreCorrupt(
                f"the store {path} is damaged ({text}). Move it aside (mv {path} {path}.damaged) "
                "and run again: spanproof starts a fresh store (records in the damaged file are "
                "not in it; restore a backup to get them back)."
            )
        if "readonly" in low or "read-only" in low:
            return StoreUnavailable(
                f"the store {path} is read-only ({text}). Make it and its directory writable, "
                "or point --home / --db at a writable place."
            )
        if "unable to open" in low:
            return StoreUnavailable(
                f"cannot open the store {path} ({text}); its directory must exist and be "
                "writable. Point --home / --db at a writable place."
            )
        if "locked" in low or "busy" in low:
            return StoreUnavailable(
                f"the store {path} stayed locked by another process for {BUSY_TIMEOUT_S}s "
                f"({text}); wait for it to finish and run again."
            )
        return StoreError(f"the store {path} failed: {text}")
    if isinstance(e, exc.OperationalError | exc.InterfaceError):
        return StoreUnavailable(
            f"cannot use the database {where}: {text}. Check that the server is running and "
            "reachable and that --db / $SPANPROOF_DB names the right host, port, database, "
            "user and password."
        )
    return StoreError(f"the database {where} failed: {text}")
