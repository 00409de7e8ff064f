"""`spanproof verify` with a model judge on 1,000 pairs: the whole command against the ideal.

    python benchmarks/bench_verify_model.py --before main
    python benchmarks/bench_verify_model.py --before 2da6a9d --rounds 3 --n 1000 --latency 0.2

A local OpenAI-compatible server (tests/wire/server.py, in its own process, as
bench_throughput.py runs it) answers every request after ``--latency`` seconds (200 ms). The
real command, ``spanproof verify --judge openai:bench-judge --concurrency 64 --no-cache``, judges
``--n`` distinct pairs (benchmarks/make_verify_pairs.py: no two share a span, so nothing is
answered from a cache), start-up and all, in a fresh process; its wall time is compared with
the ideal of a client with no cost of its own, ``n / concurrency * latency`` (3.125 s for 1,000
pairs at 64 in flight and 200 ms). Every verdict is audited by code, so the command's own work
is the HTTP client and the audit of 1,000 verdicts: on one event loop the audit alone is
seconds of CPU, which is why the audit of a model judge's verdicts runs in worker processes.

``--before`` is a git revision installed (not editable) into a temporary directory; the other
side is this checkout as installed. Rounds alternate the two sides, so both see the same
machine load; the medians are printed with the CPU of the command's main process (the event
loop driving the calls) and of its worker processes, and the verdict rows of the two sides'
first rounds are compared (a change here is speed only). Exit 1 when the rows differ, when the after side's median wall time is over ``--target`` (1.5) times
the ideal, or when either side's command fails. The wall time is only as good as the machine
is idle: the load average is printed with it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_gate_cold_warm import install
from bench_throughput import ServerProcess, Shape, schedule_ideal
from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent


def make_pairs(n: int, out: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "benchmarks" / "make_verify_pairs.py"),
                    "--n", str(n), "--out", str(out)], check=True, capture_output=True)  # fmt: skip


# The command, reporting at exit the CPU of its own process and of its worker processes.
COMMAND = (
    "import atexit, json, resource, sys\n"
    "def _cpu():\n"
    "    r = [resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]\n"
    "    print(json.dumps([x.ru_utime + x.ru_stime for x in r]), file=sys.stderr)\n"
    "atexit.register(_cpu)\n"
    "from spanproof.cli import main; main()\n"
)


def run_command(
    site: Path | None, pairs: Path, work: Path, latency: float, concurrency: int
) -> dict:
    """One `spanproof verify` in a fresh process against a fresh server: wall, CPU, exit."""
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    home = Path(tempfile.mkdtemp(dir=work))
    with ServerProcess(Shape("fixed", latency)) as server:
        cmd = [sys.executable, "-c", COMMAND, "verify",
               "--pairs", str(pairs), "--judge", "openai:bench-judge", "--base-url",
               server.base_url, "--api-key", "local", "--no-cache", "--home", str(home),
               "--concurrency", str(concurrency), "--json", "--out", str(home / "v.jsonl")]  # fmt: skip
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=work)
        wall = time.perf_counter() - t0
        slept = server.stats()["slept"]
    if proc.returncode != 0:
        raise SystemExit(f"error: verify exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    summary = json.loads(proc.stdout)
    rows = (home / "v.jsonl").read_text(encoding="utf-8")
    main_cpu, workers_cpu = json.loads(proc.stderr.strip().splitlines()[-1])
    return {"wall": wall, "main_cpu": main_cpu, "workers_cpu": workers_cpu, "requests": len(slept),
            "scheduled_ideal": schedule_ideal(slept, concurrency),
            "errors": summary.get("errors", summary.get("judge_errors")), "rows": rows}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="a git revision (e.g. main, a commit)")
    ap.add_argument("--n", type=int, default=1000, help="pairs (default 1000)")
    ap.add_argument("--latency", type=float, default=0.2, help="seconds a reply (default 0.2)")
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=1, help="commands per side (default 1)")
    ap.add_argument("--target", type=float, default=1.5, help="most wall / ideal (default 1.5)")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-verify-model-"))
    try:
        pairs = work / "pairs.jsonl"
        make_pairs(args.n, pairs)
        sites: dict[str, Path | None] = {"before": install(args.before, work / "before")}
        sites["after"] = None
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for _ in range(args.rounds):
            for side in ("before", "after"):
                runs[side].append(
                    run_command(sites[side], pairs, work, args.latency, args.concurrency)
                )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ideal = args.n / args.concurrency * args.latency
    rows, ratio = [], {}
    for side, label in (("before", f"before ({args.before})"), ("after", "after")):
        r = runs[side]
        wall = statistics.median(x["wall"] for x in r)
        ratio[side] = wall / ideal
        rows.append([label, f"{wall:.2f}", f"{ratio[side]:.2f}",
                     f"{statistics.median(x['main_cpu'] for x in r):.2f}",
                     f"{statistics.median(x['workers_cpu'] for x in r):.2f}",
                     f"{statistics.median(x['scheduled_ideal'] for x in r):.2f}",
                     r[0]["requests"], r[0]["errors"]])  # fmt: skip
    print(f"spanproof verify, {args.n} pairs, openai judge at {args.latency * 1000:.0f} ms a reply, "
          f"--concurrency {args.concurrency}; ideal {ideal:.3f} s; median of {args.rounds} a "
          f"side; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print(tabulate(rows, headers=["version", "wall s", "wall / ideal", "CPU s main process", "CPU s workers",
                                  "ideal of the latencies slept", "requests", "judge errors"]))  # fmt: skip
    before_rows, after_rows = (runs[side][0]["rows"].splitlines() for side in ("before", "after"))
    same = before_rows == after_rows
    print(f"verdict rows of the two sides identical: {'yes' if same else 'NO'}")
    if not same:
        # a change of what the audit proves moves rows too: say how many, to tell it from a
        # speed change that should have moved none
        differ = sum(a != b for a, b in zip(before_rows, after_rows, strict=False))
        differ += abs(len(before_rows) - len(after_rows))
        print(f"FAIL: the two sides wrote different verdicts ({differ} of {len(after_rows)} rows)")
        return 1
    if ratio["after"] > args.target:
        print(f"FAIL: {ratio['after']:.2f} x the ideal, over the {args.target} target")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
