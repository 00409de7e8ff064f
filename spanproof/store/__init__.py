"""The shared store: runs, gate runs, verdicts, usefulness scores, reviews and snapshot
locations in one database (SQLite under the home by default, PostgreSQL for teams).

    from spanproof.store import open_store
    store = open_store(home=home, db=None)          # --db / $SPANPROOF_DB / <home>/spanproof.sqlite
    page = store.list_runs(kind="ask", limit=50, offset=0)
    store.add_review(run_id, 0, "approve", reviewer="ana")

Everything SQL lives in this package (SQLAlchemy Core + Alembic migrations); the rest of
spanproof calls these methods. Errors are ``StoreError``s whose message says how to recover.

The store itself (``Store``, ``open_store``, ...) is imported on first use: importing
SQLAlchemy is a large part of a command's start-up, and a command that reads only this
package's errors or models (``spanproof verify`` without its cache) never opens a store.
"""

from typing import TYPE_CHECKING

from spanproof.core.lazy import lazy_exports
from spanproof.store.errors import (
    HomeError,
    RecordCorrupt,
    RunIdConflict,
    RunNotFound,
    StoreCorrupt,
    StoreError,
    StoreUnavailable,
)
from spanproof.store.models import (
    Recheck,
    Review,
    RunFilter,
    RunPage,
    RunSummary,
    SnapshotHolder,
    StoreInfo,
)
from spanproof.store.provenance import Provenance
from spanproof.store.url import resolve_db_url

if TYPE_CHECKING:
    from spanproof.store.store import Store, close_all, open_store, store_for_url

__getattr__, __dir__ = lazy_exports(
    globals(),
    dict.fromkeys(["Store", "close_all", "open_store", "store_for_url"], "spanproof.store.store"),
)


__all__ = [
    "HomeError",
    "Provenance",
    "Recheck",
    "RecordCorrupt",
    "Review",
    "RunFilter",
    "RunIdConflict",
    "RunNotFound",
    "RunPage",
    "RunSummary",
    "SnapshotHolder",
    "Store",
    "StoreCorrupt",
    "StoreError",
    "StoreInfo",
    "StoreUnavailable",
    "close_all",
    "open_store",
    "resolve_db_url",
    "store_for_url",
]
