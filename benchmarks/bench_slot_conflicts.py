"""Publication's slot check over whole pages: CPU per page, before and after, side by side.

    python benchmarks/bench_slot_conflicts.py --before main
    python benchmarks/bench_slot_conflicts.py --before main --limit 0 --rounds 3   # all 349 pages

Before publishing a claim, the runtime reads the claim's slots across the whole page that holds
its span (agent/slot_conflicts.py). Each WiCE development pair (``--pairs``, default
goldens/wice_dev_pairs.jsonl) is read as publication reads it: its claim and span against its
whole page (goldens/wice_dev_pages.jsonl.gz, each sentence one block), as
``scripts/slot_conflict_false_positives.py`` does. ``--limit`` takes the first N pairs (default
60; 0 for all). Each round runs each side in a fresh Python process, so no page is read twice
from a cache, and reports, as CPU time of that process:

- ``load``: the slot reader's tables (pint's units, WordNet, places), once per process;
- ``per page`` (mean, median, 90th percentile, max): the CPU of one pair's slot check.

``--before`` is a git revision of this repository, installed (not editable) into a temporary
directory; the other side is this checkout as installed. Rounds alternate between the sides
so both see the same machine load; medians over rounds are printed with before / after.
What each side found (every conflict of every pair, as ``describe()`` says it) must be the
same: exit 1 when it differs, naming the first pair that does.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from bench_gate_cold_warm import alternate
from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent

# Runs in the measured process; only names every measured revision has.
CHILD = r"""
import gzip, json, sys, time
t0 = time.process_time()
from spanproof.agent.slot_conflicts import FetchedPage, slot_conflicts
from spanproof.graders.specifics.slot_reader import load_tables
load_tables()
t1 = time.process_time()
pairs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
with gzip.open(sys.argv[2], "rt", encoding="utf-8") as fh:
    pages = {row["wice_id"]: row["sentences"] for row in map(json.loads, fh) if row}
limit = int(sys.argv[3])
pairs = [p for p in pairs if p["source"]["wice_id"] in pages]
pairs = pairs[:limit] if limit else pairs
times, found = [], {}
for p in pairs:
    text = "\n\n".join(s for s in pages[p["source"]["wice_id"]] if s.strip())
    a = time.process_time()
    out = slot_conflicts(p["claim"], p["span"], FetchedPage("page", "page", text), [])
    times.append(time.process_time() - a)
    found[p["id"]] = [c.describe() for c in out]
print(json.dumps({"load": t1 - t0, "times": times, "found": found}))
"""


def measure(site: Path | None, pairs: Path, pages: Path, limit: int, cwd: Path) -> dict:
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(pairs), str(pages), str(limit)],
                          capture_output=True, text=True, env=env, cwd=cwd)  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"error: the slot check could not run:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def figures(run: dict) -> dict[str, float]:
    times = sorted(run["times"])
    return {
        "load ms": run["load"] * 1000,
        "per page mean ms": statistics.fmean(times) * 1000,
        "per page median ms": statistics.median(times) * 1000,
        "per page p90 ms": times[int(0.9 * (len(times) - 1))] * 1000,
        "per page max ms": times[-1] * 1000,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="a git revision (e.g. main, a commit)")
    ap.add_argument("--pairs", type=Path, default=ROOT / "goldens" / "wice_dev_pairs.jsonl")
    ap.add_argument("--pages", type=Path, default=ROOT / "goldens" / "wice_dev_pages.jsonl.gz")
    ap.add_argument("--limit", type=int, default=60, help="first N pairs (0: all)")
    ap.add_argument("--rounds", type=int, default=1, help="processes per side (default 1)")
    args = ap.parse_args(argv)
    pairs, pages = args.pairs.resolve(), args.pages.resolve()
    runs = alternate(args.before, args.rounds, "bench-slots-",
                     lambda site, cwd: measure(site, pairs, pages, args.limit, cwd))  # fmt: skip
    if not runs["after"][0]["times"]:
        print(f"error: no pair of {args.pairs} has its page in {args.pages}", file=sys.stderr)
        return 2
    med = {
        side: {k: statistics.median(figures(r)[k] for r in rs) for k in figures(rs[0])}
        for side, rs in runs.items()
    }
    rows = [
        [k, f"{med['before'][k]:.1f}", f"{med['after'][k]:.1f}",
         f"{med['before'][k] / med['after'][k]:.2f}" if med["after"][k] else "-"]
        for k in med["before"]
    ]  # fmt: skip
    n = len(runs["after"][0]["times"])
    held = sum(1 for v in runs["after"][0]["found"].values() if v)
    print(f"{n} pages (pairs of {args.pairs.name}), median of {args.rounds} process(es) a side, "
          f"load average {os.getloadavg()[0]:.1f}; held as conflicting: {held}")  # fmt: skip
    print(tabulate(rows, headers=["CPU", f"before ({args.before})", "after", "before / after"]))
    before_found, after_found = runs["before"][0]["found"], runs["after"][0]["found"]
    for pid in before_found:
        if before_found[pid] != after_found.get(pid):
            print(
                f"FAIL: pair {pid} is read differently: {before_found[pid]} / {after_found.get(pid)}"
            )
            return 1
    print("identical: every pair's conflicts are the same on both sides")
    return 0


if __name__ == "__main__":
    sys.exit(main())
