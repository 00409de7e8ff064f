"""The code audit's CPU per pair, before and after, side by side in one run.

    python benchmarks/bench_audit_cpu.py --before main
    python benchmarks/bench_audit_cpu.py --before 4577f1f --pairs goldens/wice_dev_pairs.jsonl --rounds 5

Every pair of ``--pairs`` (default: the 349 WiCE development pairs) is audited as a judge's
SUPPORTED verdict whose ``quote_used`` is the span's best 25-word window (what the ``rules``
judge quotes), in a fresh Python process per round, so nothing is cached from an earlier
round: each pair is read for the first time. Each round reports, as CPU time of that process:

- ``load``: what the audit loads once per process before the first pair, as an audit worker
  does (``graders.audit_pool.load_everything``): pint's units, the WordNet table, the place
  lists, the instruction detector's word files, and since the readers were moved out of
  ``graders.audit`` (graders/findings.py) their imports too, which revisions before that
  count in the import of ``audit`` instead (not in these columns); the revisions that load
  tables lazily pay inside the pairs;
- ``per pair``: the CPU of auditing every pair, divided by their number;
- ``cold per pair``: load and pairs together, divided by the number of pairs.

``--before`` is a git revision of this repository, installed (not editable) into a temporary
directory (``bench_gate_cold_warm.install``); the other side is this checkout as installed.
Rounds alternate between the two, so both see the same machine load; the medians are printed
with the ratio before / after. Exit 1 when the after side's median per pair is over
``--target-ms`` (default 5).
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
import json, sys, time
t0 = time.process_time()
from spanproof.graders.audit import audit
from spanproof.graders.quoting import best_window
from spanproof.core.verdict import SpanRef, Verdict
t1 = time.process_time()
try:  # a revision that loads its tables up front, as its verifier does when it is made
    from spanproof.graders.specifics.slot_reader import load_tables
except ImportError:
    load_tables = lambda: None  # noqa: E731 - loaded lazily, inside the first pairs
try:  # the instruction detector's word files, which the audit workers load before any pair
    from spanproof.graders.instructions import load_detector
except ImportError:
    load_detector = lambda: None  # noqa: E731 - loaded lazily, inside the first pairs
try:  # the readers a pair's findings need, which the audit workers import before any pair
    import spanproof.graders.findings  # noqa: F401 - revisions before it imported them with audit
except ImportError:
    pass
load_tables()
load_detector()
t2 = time.process_time()
pairs = [json.loads(line) for line in open(sys.argv[1], encoding="utf-8") if line.strip()]
quotes = [best_window(p["claim"], p["span"]) for p in pairs]
t3 = time.process_time()
for p, q in zip(pairs, quotes):
    audit(p["claim"], SpanRef(text=p["span"]), Verdict(verdict="SUPPORTED", quote_used=q))
t4 = time.process_time()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "pairs": t4 - t3, "n": len(pairs)}))
"""


def measure(site: Path | None, pairs: Path, cwd: Path) -> dict:
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(pairs)], capture_output=True,
                          text=True, env=env, cwd=cwd)  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"error: the audit could not run:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def summary(runs: list[dict]) -> dict[str, float]:
    n = runs[0]["n"]
    return {
        "load ms": statistics.median(r["load"] for r in runs) * 1000,
        "per pair ms": statistics.median(r["pairs"] for r in runs) * 1000 / n,
        "cold per pair ms": statistics.median(r["load"] + r["pairs"] for r in runs) * 1000 / n,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="a git revision (e.g. main, a commit)")
    ap.add_argument("--pairs", type=Path, default=ROOT / "goldens" / "wice_dev_pairs.jsonl")
    ap.add_argument("--rounds", type=int, default=3, help="processes per side (default 3)")
    ap.add_argument("--target-ms", type=float, default=5.0)
    args = ap.parse_args(argv)
    pairs = args.pairs.resolve()
    runs = alternate(args.before, args.rounds, "bench-audit-",
                     lambda site, cwd: measure(site, pairs, cwd))  # fmt: skip
    before, after = summary(runs["before"]), summary(runs["after"])
    rows = [
        [k, f"{before[k]:.2f}", f"{after[k]:.2f}", f"{before[k] / after[k]:.2f}"] for k in before
    ]
    n = runs["after"][0]["n"]
    print(f"{n} pairs of {args.pairs}, median of {args.rounds} processes a side, "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(tabulate(rows, headers=["CPU", f"before ({args.before})", "after", "before / after"]))
    if after["per pair ms"] > args.target_ms:
        print(f"FAIL: {after['per pair ms']:.2f} ms a pair, over the {args.target_ms} ms target")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
