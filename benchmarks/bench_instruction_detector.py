"""The instruction detector's CPU over the WiCE development sentences, before and after.

    python benchmarks/bench_instruction_detector.py --before main --rounds 3

Every unique sentence of the WiCE development pages (goldens/wice_dev_pages.jsonl.gz, as
``scripts/instruction_false_positives.py`` reads them) goes through ``find_instructions``
once, in a fresh Python process a side, so nothing is answered from a cache. Reported as CPU
time of that process: ``load`` (the word files and the confusables table, once per process)
and ``sentences`` (all of them read). ``--before`` is a git revision of this repository,
installed (not editable) into a temporary directory; the other side is this checkout as
installed. Rounds alternate between the sides so both see the same machine load; medians
over rounds are printed with before / after, and how many sentences each side flags.
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
import ast, gzip, json, sys, time
from spanproof.graders.instructions import find_instructions, lexicons, skeleton
t0 = time.process_time()
lexicons()
skeleton("\u0430")
t1 = time.process_time()
sentences = set()
with gzip.open(sys.argv[1], "rt", encoding="utf-8") as fh:
    for row in map(json.loads, fh):
        got = row["sentences"]
        got = ast.literal_eval(got) if isinstance(got, str) else got
        sentences |= {s for s in got if s.strip()}
sentences = sorted(sentences)
a = time.process_time()
flagged = sum(1 for s in sentences if find_instructions(s))
print(json.dumps({"load": t1 - t0, "read": time.process_time() - a, "n": len(sentences),
                  "flagged": flagged}))
"""


def measure(site: Path | None, pages: Path, cwd: Path) -> dict:
    env = dict(os.environ)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    proc = subprocess.run([sys.executable, "-c", CHILD, str(pages)],
                          capture_output=True, text=True, env=env, cwd=cwd)  # fmt: skip
    if proc.returncode != 0:
        raise SystemExit(f"error: the detector could not run:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="a git revision (e.g. main, a commit)")
    ap.add_argument("--pages", type=Path, default=ROOT / "goldens" / "wice_dev_pages.jsonl.gz")
    ap.add_argument("--rounds", type=int, default=3, help="processes per side (default 3)")
    args = ap.parse_args(argv)
    pages = args.pages.resolve()
    runs = alternate(args.before, args.rounds, "bench-detector-",
                     lambda site, cwd: measure(site, pages, cwd))  # fmt: skip
    if not runs["after"][0]["n"]:
        print(f"error: no sentence read from {args.pages}", file=sys.stderr)
        return 2
    med = {
        side: {k: statistics.median(r[k] for r in rs) * 1000 for k in ("load", "read")}
        for side, rs in runs.items()
    }
    rows = [
        [k + " ms", f"{med['before'][k]:.0f}", f"{med['after'][k]:.0f}",
         f"{med['before'][k] / med['after'][k]:.2f}" if med["after"][k] else "-"]
        for k in ("load", "read")
    ]  # fmt: skip
    print(f"{runs['after'][0]['n']} sentences, median of {args.rounds} process(es) a side, "
          f"load average {os.getloadavg()[0]:.1f}; flagged before "
          f"{runs['before'][0]['flagged']}, after {runs['after'][0]['flagged']}")  # fmt: skip
    print(tabulate(rows, headers=["CPU", f"before ({args.before})", "after", "before / after"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
