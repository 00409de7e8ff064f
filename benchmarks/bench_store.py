"""Store benchmark: 10,000 verdict-cache writes and reads on SQLite and PostgreSQL, side by side,
plus the run-list page a viewer renders over 10,000 runs.

Run from the repository root:
    python benchmarks/bench_store.py                      # starts a throwaway PostgreSQL on loopback
    python benchmarks/bench_store.py --pg-url postgresql+psycopg://user:pass@127.0.0.1:5432/db
    python benchmarks/bench_store.py --n 2000              # a quicker look

The writes and reads go through ``VerdictCache`` one call at a time, exactly as the verifier
makes them (a write is one insert-or-ignore transaction; a read one primary-key lookup), so the
figures are per-call latencies a gate sees. The throwaway server runs with fsync off (like the
test suite's): it measures the store's own cost, not the disk's; point --pg-url at a real
server for production figures.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tabulate import tabulate

REPO = Path(__file__).resolve().parents[1]


def _verdicts(n: int):
    from spanproof.core.verdict import Verdict

    return [
        (f"{i:064x}", Verdict(verdict="SUPPORTED", judge="rules", quote_used=f"quote {i}",
                              prompt_sha256="rules-v1"))
        for i in range(n)
    ]  # fmt: skip


def _timed(calls) -> tuple[float, list[float]]:
    lat = []
    t0 = time.perf_counter()
    for call in calls:
        s = time.perf_counter()
        call()
        lat.append(time.perf_counter() - s)
    return time.perf_counter() - t0, lat


def bench_cache(url: str, n: int) -> dict[str, float]:
    from spanproof.graders.cache import VerdictCache

    from spanproof.store.store import Store

    store = Store(url)
    cache = VerdictCache(store)
    items = _verdicts(n)
    write_s, write_lat = _timed([lambda k=k, v=v: cache.put(k, v) for k, v in items])
    misses = []
    read_s, read_lat = _timed([lambda k=k: misses.append(cache.get(k) is None) for k, _ in items])
    again_s, _ = _timed([lambda k=k, v=v: cache.put(k, v) for k, v in items[: n // 10]])
    assert not any(misses) and len(cache) == n, "every written verdict must read back"
    store.close()
    return {
        "writes_per_s": n / write_s,
        "write_p50_ms": statistics.median(write_lat) * 1000,
        "write_p99_ms": statistics.quantiles(write_lat, n=100)[98] * 1000,
        "reads_per_s": n / read_s,
        "read_p50_ms": statistics.median(read_lat) * 1000,
        "read_p99_ms": statistics.quantiles(read_lat, n=100)[98] * 1000,
        "rewrite_same_key_ms": again_s / max(n // 10, 1) * 1000,
    }


def bench_run_list(url: str, n_runs: int) -> dict[str, float]:
    """Insert ``n_runs`` runs, then time the first and the last page of 50 (newest first)."""
    from datetime import UTC, datetime, timedelta

    from spanproof.store.columns import run_provenance, run_values
    from spanproof.store.store import Store

    store = Store(url)
    base = store.provenance()
    now = datetime.now(UTC)
    rows = []
    for i in range(n_runs):
        summary = {"run_id": str(uuid.uuid4()), "question": f"question {i}", "status": "complete",
                   "created_at": (now - timedelta(minutes=i)).isoformat(),
                   "config": {"policy": "extractive", "judges": ["rules"]}, "metrics": {}}  # fmt: skip
        values = run_values(summary, run_provenance(summary, base), "ask" if i % 5 else "gate")
        rows.append({**values, "record": "{}", "writer": store.writer})
    store.insert_rows_ignore("runs", rows)
    first = min(_timed([lambda: store.list_runs(kind="ask", limit=50)])[0] for _ in range(5))
    last = min(
        _timed([lambda: store.list_runs(kind="ask", limit=50, offset=n_runs * 4 // 5 - 50)])[0]
        for _ in range(5)
    )
    store.close()
    return {"first_page_ms": first * 1000, "last_page_ms": last * 1000}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=10_000, help="verdicts to write and read")
    ap.add_argument("--runs", type=int, default=10_000, help="runs for the run-list page timing")
    ap.add_argument("--pg-url", help="an existing PostgreSQL database (default: start one)")
    args = ap.parse_args()

    server = None
    pg_url = args.pg_url
    if not pg_url:
        sys.path.insert(0, str(REPO))
        from tests.store.pg import start_server

        server = start_server()
        pg_url = server.create_database()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            sqlite_url = f"sqlite:///{Path(tmp) / 'bench.sqlite'}"
            results = {"SQLite (WAL)": bench_cache(sqlite_url, args.n)}
            results["PostgreSQL"] = bench_cache(pg_url, args.n)
            lists = {
                "SQLite (WAL)": bench_run_list(f"sqlite:///{Path(tmp) / 'runs.sqlite'}", args.runs)
            }
            # A fresh database when we started the server; else the given one (the cache
            # rows written above do not affect the run list).
            pg_url2 = server.create_database() if server is not None else pg_url
            lists["PostgreSQL"] = bench_run_list(pg_url2, args.runs)
    finally:
        if server is not None:
            server.stop()

    names = list(results)
    metrics = list(results[names[0]])
    rows = []
    for m in metrics:
        a, b = results[names[0]][m], results[names[1]][m]
        rows.append([m, f"{a:,.2f}", f"{b:,.2f}", f"{b / a:.2f}x"])
    print(
        f"Verdict cache, {args.n:,} writes then {args.n:,} reads through VerdictCache (one call each)"
    )
    print(tabulate(rows, headers=["", *names, "PostgreSQL / SQLite"], disable_numparse=True))
    rows = [[m, f"{lists[names[0]][m]:.2f}", f"{lists[names[1]][m]:.2f}",
             f"{lists[names[1]][m] / lists[names[0]][m]:.2f}x"] for m in lists[names[0]]]  # fmt: skip
    print(
        f"\nRun list, page of 50 of {args.runs * 4 // 5:,} ask runs among {args.runs:,} (best of 5)"
    )
    print(tabulate(rows, headers=["", *names, "PostgreSQL / SQLite"], disable_numparse=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
