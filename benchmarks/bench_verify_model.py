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

Two servers, side by side in one run. The headline is werkzeug's as the tests run it, which
closes every connection after its reply, so each of the 1,000 requests is a new TCP
connection on both sides. Beside it, labelled ``keep-alive``, the same server keeping
HTTP/1.1 connections open (tests.wire.server.KeepAliveHandler), as hosted OpenAI-compatible
endpoints do: the client then reuses its connections (spanproof.wire.lean). The target is
checked on the headline only; the keep-alive figure says what connection set-up costs.

Beside each server, the floor: benchmarks/bare_client.py, a client that sends the same
requests over raw sockets and does nothing else (no spanproof import, no parsing of replies, no
audit, no rows), timed the same way, start-up included. The server shares the machine's cores
and does the same work for it (it reads each prompt and quotes the span), so the floor is the
wall time any client would take here at best: the ideal above leaves the server's own cost out,
the floor does not, and the difference between the floor and the headline is verify's own.

``--before`` is a git revision installed (not editable) into a temporary directory; the other
side is this checkout's working tree installed the same way, so pip compiles both sides'
bytecode alike (run from an editable checkout where PYTHONDONTWRITEBYTECODE is set, every
process of every command compiled a hundred modules from source, CPU the installed side never
spent). Rounds alternate the two sides (and the two servers), so
all see the same machine load; the medians are printed with the CPU of the command's main
process (the event loop driving the calls), of its worker processes (the audit's fork server
and workers), and of the server process (every thread of it, from the moment it was ready:
it runs on the same cores), and the verdict rows of every side's and server's first round
are compared (a change here is speed only). Exit 1 when the rows differ, when the after
side's median wall time against the closing server is over ``--target`` (1.5) times the
ideal, or when any command fails. The wall time is only as good as the machine is idle: the
load average is printed with it.
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

from bench_gate_cold_warm import install, install_tree
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


SERVERS = {"closing": False, "keep-alive": True}  # name: does the server keep connections open


def run_command(
    site: Path, pairs: Path, work: Path, latency: float, concurrency: int,
    keep_alive: bool = False,
) -> dict:  # fmt: skip
    """One `spanproof verify` in a fresh process against a fresh server: wall, CPU, exit."""
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    env["PYTHONPATH"] = str(site)
    home = Path(tempfile.mkdtemp(dir=work))
    with ServerProcess(Shape("fixed", latency), keep_alive=keep_alive) as server:
        cmd = [sys.executable, "-c", COMMAND, "verify",
               "--pairs", str(pairs), "--judge", "openai:bench-judge", "--base-url",
               server.base_url, "--api-key", "local", "--no-cache", "--home", str(home),
               "--concurrency", str(concurrency), "--json", "--out", str(home / "v.jsonl")]  # fmt: skip
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=work)
        wall = time.perf_counter() - t0
        stats = server.stats()
        slept = stats["slept"]
    if proc.returncode != 0:
        raise SystemExit(f"error: verify exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    summary = json.loads(proc.stdout)
    rows = (home / "v.jsonl").read_text(encoding="utf-8")
    main_cpu, workers_cpu = json.loads(proc.stderr.strip().splitlines()[-1])
    return {"wall": wall, "main_cpu": main_cpu, "workers_cpu": workers_cpu, "requests": len(slept),
            "server_cpu": stats["cpu"],
            "scheduled_ideal": schedule_ideal(slept, concurrency),
            "errors": summary.get("errors", summary.get("judge_errors")), "rows": rows}  # fmt: skip


def run_bare(
    pairs: Path, n: int, latency: float, concurrency: int, keep_alive: bool = False
) -> dict:
    """The floor: benchmarks/bare_client.py (the requests and nothing else, no spanproof
    import) in a fresh process against a fresh server of the same kind."""
    with ServerProcess(Shape("fixed", latency), keep_alive=keep_alive) as server:
        cmd = [sys.executable, str(ROOT / "benchmarks" / "bare_client.py"), server.base_url,
               str(pairs), "--n", str(n), "--concurrency", str(concurrency)]  # fmt: skip
        t0 = time.perf_counter()
        proc = subprocess.run(cmd + (["--keep-alive"] if keep_alive else []),
                              capture_output=True, text=True)  # fmt: skip
        wall = time.perf_counter() - t0
        stats = server.stats()
    if proc.returncode != 0:
        raise SystemExit(f"error: the bare client exited {proc.returncode}:\n"
                         f"{proc.stdout[-1000:]}{proc.stderr[-2000:]}")  # fmt: skip
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"wall": wall, "main_cpu": out["cpu"], "workers_cpu": 0.0,
            "requests": len(stats["slept"]), "server_cpu": stats["cpu"],
            "scheduled_ideal": schedule_ideal(stats["slept"], concurrency),
            "errors": out["failures"], "rows": None}  # fmt: skip


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
        sites: dict[str, Path] = {"before": install(args.before, work / "before")}
        sites["after"] = install_tree(ROOT, work / "after")
        runs: dict[tuple[str, str], list[dict]] = {
            (side, server): [] for server in SERVERS for side in ("before", "after", "floor")
        }
        for _ in range(args.rounds):
            for side, server in runs:
                if side == "floor":
                    runs[side, server].append(run_bare(
                        pairs, args.n, args.latency, args.concurrency, SERVERS[server]
                    ))  # fmt: skip
                    continue
                runs[side, server].append(run_command(
                    sites[side], pairs, work, args.latency, args.concurrency, SERVERS[server]
                ))  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ideal = args.n / args.concurrency * args.latency
    rows, ratio = [], {}
    for (side, server), r in runs.items():
        wall = statistics.median(x["wall"] for x in r)
        ratio[side, server] = wall / ideal
        label = {"before": f"before ({args.before})", "after": "after",
                 "floor": "floor: a bare client"}[side]  # fmt: skip
        rows.append([label, server, f"{wall:.2f}", f"{ratio[side, server]:.2f}",
                     f"{statistics.median(x['main_cpu'] for x in r):.2f}",
                     f"{statistics.median(x['workers_cpu'] for x in r):.2f}",
                     f"{statistics.median(x['server_cpu'] for x in r):.2f}",
                     f"{statistics.median(x['scheduled_ideal'] for x in r):.2f}",
                     r[0]["requests"], r[0]["errors"]])  # fmt: skip
    print(f"spanproof verify, {args.n} pairs, openai judge at {args.latency * 1000:.0f} ms a reply, "
          f"--concurrency {args.concurrency}; ideal {ideal:.3f} s; median of {args.rounds} a "
          f"side; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    print("server closing: a new connection per request (the headline, checked against the "
          "target); keep-alive: connections reused, as hosted endpoints keep them")  # fmt: skip
    print(tabulate(rows, headers=["version", "server", "wall s", "wall / ideal",
                                  "CPU s main process", "CPU s workers", "CPU s server",
                                  "ideal of the latencies slept", "requests", "judge errors"]))  # fmt: skip
    floor = ratio["floor", "closing"]
    print(f"floor: the requests alone from a client doing nothing else (benchmarks/bare_client.py), "
          f"start-up included: {floor:.2f} x the ideal against the closing server; the target leaves "
          f"verify {max(0.0, args.target - floor) * ideal:.2f} s of its own above it")  # fmt: skip
    if any(r[0]["errors"] for (side, _), r in runs.items() if side == "floor"):
        print("FAIL: the bare client's requests failed")
        return 1
    first = runs["before", "closing"][0]["rows"].splitlines()
    differ = 0
    for key, r in runs.items():
        if key[0] == "floor":
            continue
        other = r[0]["rows"].splitlines()
        # a change of what the audit proves moves rows too: say how many, to tell it from a
        # speed change that should have moved none
        n = sum(a != b for a, b in zip(first, other, strict=False)) + abs(len(first) - len(other))
        if n:
            print(f"FAIL: {' '.join(key)} wrote different verdicts from before closing "
                  f"({n} of {len(other)} rows)")  # fmt: skip
        differ += n
    print(f"verdict rows of every side and server identical: {'yes' if not differ else 'NO'}")
    if differ:
        return 1
    if ratio["after", "closing"] > args.target:
        print(f"FAIL: {ratio['after', 'closing']:.2f} x the ideal, over the {args.target} target")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
