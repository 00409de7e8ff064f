"""The shared store: runs, gate runs, verdicts, usefulness scores, reviews and snapshot
locations in one database (SQLite under the home by default, PostgreSQL for teams).

    from spanproof.store import open_store
    store = open_store(home=home, db=None)          # --db / $SPANPROOF_DB / <home>/spanproof.sqlite
    page = store.list_runs(kind="ask", limit=50, offset=0)
    store.add_review(run_id, 0, "approve", reviewer="ana")

Everything SQL lives in this package (SQLAlchemy Core + Alembic migrations); the rest of
spanproof calls these methods. Errors are ``StoreError``s whose message says how to recover.
"""

from spanproof.core.lazy import lazy_exports

_EXPORTS = {
    "Store": "spanproof.store.store",
    "open_store": "spanproof.store.store",
    "store_for_url": "spanproof.store.store",
    "close_all": "spanproof.store.store",
    "StoreError": "spanproof.store.errors",
    "HomeError": "spanproof.store.errors",
    "StoreUnavailable": "spanproof.store.errors",
    "StoreCorrupt": "spanproof.store.errors",
    "RecordCorrupt": "spanproof.store.errors",
    "RunIdConflict": "spanproof.store.errors",
    "RunNotFound": "spanproof.store.errors",
    "RunSummary": "spanproof.store.models",
    "RunPage": "spanproof.store.models",
    "RunFilter": "spanproof.store.models",
    "Recheck": "spanproof.store.models",
    "Review": "spanproof.store.models",
    "SnapshotHolder": "spanproof.store.models",
    "StoreInfo": "spanproof.store.models",
    "Provenance": "spanproof.store.provenance",
    "resolve_db_url": "spanproof.store.url",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
