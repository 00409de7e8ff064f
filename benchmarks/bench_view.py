"""The viewer's run list with 10,000 runs in the store: server-side render time per page.

Builds a home from one real offline `ask` run, stored 10,000 times under new ids,
questions and dates through the run store's own `save`, then renders run-list pages
in-process (the ASGI app, no network, no browser) and prints each page's median and
worst time beside the 1 s target.

    python benchmarks/bench_view.py [--runs 10000] [--repeat 5] [--keep DIR]

Timing belongs here, not in unit tests: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

TARGET_S = 1.0
WORDS = ["owls", "bridges", "tariffs", "glaciers", "elections", "vaccines", "rivers", "coins"]


def build_home(home: Path, n: int) -> tuple[float, str]:
    """A real offline run, stored n times; returns (seconds spent writing, one run id)."""
    from spanproof.agent.record import Budgets
    from spanproof.agent.run import run_question
    from spanproof.agent.runstore import RunStore
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    from spanproof.web.env import offline_web

    env = offline_web(home)
    store = RunStore.default(home)

    async def one():
        try:
            return await run_question(
                "When did former congresswoman Liz Patterson die, and how old was she?",
                env=env, policy="extractive", verifier=Verifier([make_judge("rules")]),
                budgets=Budgets(), store=store,
            )  # fmt: skip
        finally:
            await env.aclose()

    template = asyncio.run(one())
    t0 = time.perf_counter()
    for i in range(n):
        day = 1 + i % 28
        copy = template.model_copy(
            update={
                "run_id": f"run_bench_{i:06d}",
                "question": f"{template.question} ({WORDS[i % len(WORDS)]} #{i})",
                "status": "failed" if i % 10 == 0 else "complete",
                "created_at": f"2026-{1 + i % 12:02d}-{day:02d}T{i % 24:02d}:{i % 60:02d}:00Z",
            }
        )
        store.save(copy)
    return time.perf_counter() - t0, template.run_id


def time_pages(home: Path, repeat: int, pages: list[tuple[str, str]]) -> list[list[str]]:
    from starlette.testclient import TestClient

    from spanproof.view.app import create_app
    from spanproof.view.settings import ViewSettings

    client = TestClient(
        create_app(ViewSettings(home=home, port=8765)), base_url="http://127.0.0.1:8765"
    )
    rows = []
    for label, path in pages:
        times, shown = [], ""
        for _ in range(repeat):
            t0 = time.perf_counter()
            res = client.get(path)
            times.append(time.perf_counter() - t0)
            assert res.status_code == 200, (path, res.status_code)
            shown = res.text.split('id="run-count">', 1)[1].split("<", 1)[0].strip()
        med, worst = statistics.median(times), max(times)
        rows.append([label, path, shown, f"{med * 1000:.0f}", f"{worst * 1000:.0f}",
                     f"{TARGET_S / worst:.1f}x", "yes" if worst < TARGET_S else "NO"])  # fmt: skip
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--keep", type=Path, default=None, help="build the home here and keep it")
    ap.add_argument("--reuse", action="store_true", help="with --keep: reuse a home built before")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-view-") as tmp:
        home = args.keep or Path(tmp)
        from spanproof.agent.runstore import default_runstore_path

        db = default_runstore_path(home)
        if args.reuse and db.exists():
            print(f"reusing the home at {home}")
        else:
            write_s, _ = build_home(home, args.runs)
            print(f"stored {args.runs} runs (+1 template) in {write_s:.1f} s")
        print(f"{db.name}: {db.stat().st_size / 1e6:.0f} MB")
        last = -(-(args.runs + 1) // 50)
        pages = [
            ("first page", "/runs"),
            ("last page", f"/runs?page={last}"),
            ("search by question", "/runs?q=glaciers"),
            ("status filter", "/runs?status=failed"),
            ("date range", "/runs?since=2026-03-01&until=2026-03-31"),
            ("verdict mix", "/runs?mix=some_drafted_unsupported"),
            ("judge filter", "/runs?judge=rules"),
            ("kind filter", "/runs?kind=ask"),
        ]
        rows = time_pages(home, args.repeat, pages)
        print(tabulate(rows, headers=["page", "path", "shown", "median ms", "worst ms",
                                      "target/worst", f"< {TARGET_S:.0f} s"]))  # fmt: skip


if __name__ == "__main__":
    main()
