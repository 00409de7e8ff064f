"""`spanproof gate` cold and warm, before and after, side by side in one run.

    python benchmarks/bench_gate_cold_warm.py --before 4577f1f
    python benchmarks/bench_gate_cold_warm.py --before main --after .   # the default --after

Each version is the command a user types (``spanproof gate --json --home H``), each in its own
fresh home: once cold (empty home: corpus index, snapshots, verdict cache all built), then
warm (the same home again, nothing changed). ``--before`` is a git revision of this
repository, installed (not editable) into a temporary directory; ``--after`` is a checkout
(default: this one, as installed). The runs alternate between the versions, so both see the
same machine load. For each run: wall time, CPU time of the command and its children, and
the gate's own time per phase (read from the gate run it recorded). Then each version's warm
rows (value, threshold, pass, detail; run ids, new on every computed run, masked) are compared
with its cold rows: they must be the same to the last digit; the two versions' rows are
compared by name and reported (they differ where a change between them moved a figure).

Targets (after): cold <= 20 s on two cores; warm <= 5 s; identical figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
COLD_TARGET_S, WARM_TARGET_S = 20.0, 5.0
FIGURE_FIELDS = ("name", "value", "threshold", "passed", "detail", "status")
# Run ids are new uuids on every computed run ("worst run <id>"): an id is not a figure.
RUN_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def install(revision: str, into: Path) -> Path:
    """A non-editable install of ``revision`` of this repository; returns its site dir."""
    src = into / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision],
                             capture_output=True, check=True).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    site = into / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(site), str(src)],
        check=True, cwd=into,
    )  # fmt: skip
    return site


def alternate(
    before: str, rounds: int, prefix: str, measure: Callable[[Path | None, Path], dict]
) -> dict[str, list[dict]]:
    """``measure(site, cwd)`` ``rounds`` times a side, before and after in turn (so both see
    the same load): before is ``before`` installed in a scratch directory, after this checkout
    as installed (site None); the cwd is not the checkout, so nothing reads it by accident."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        sites: dict[str, Path | None] = {"before": install(before, tmp / "before"), "after": None}
        cwd = tmp / "cwd"
        cwd.mkdir()
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        for _ in range(rounds):
            for side in ("before", "after"):
                runs[side].append(measure(sites[side], cwd))
        return runs
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # fmt: skip


# The gate command, saying at exit the CPU time of its own process and of the worker processes
# it started and waited for: which process the work ran in, not only how much there was.
_CPU_MARK = "bench-cpu-split "
_WITH_CPU_SPLIT = f"""
import atexit, json, resource, sys
def _say_cpu():
    own = resource.getrusage(resource.RUSAGE_SELF)
    workers = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr.write("{_CPU_MARK}" + json.dumps([own.ru_utime + own.ru_stime,
                                                 workers.ru_utime + workers.ru_stime]) + "\\n")
atexit.register(_say_cpu)
from spanproof.cli import main
main()
"""


def gate(site: Path | None, home: Path, cwd: Path) -> dict:
    """One `spanproof gate --json` run: wall, CPU, exit code, its rows and phase times."""
    env = dict(os.environ)
    env.pop("OPENAI_API_KEY", None)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    code = _WITH_CPU_SPLIT
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", code, "gate", "--json", "--home", str(home)],
                          capture_output=True, text=True, env=env, cwd=cwd)  # fmt: skip
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"gate exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    split = [line for line in proc.stderr.splitlines() if line.startswith(_CPU_MARK)]
    if not split:
        raise SystemExit(f"the gate did not report its CPU split:\n{proc.stderr[-3000:]}")
    own_cpu, workers_cpu = json.loads(split[-1][len(_CPU_MARK) :])
    public = json.loads(proc.stdout)
    read = ("import json, sys; from spanproof.store import open_store; "
            "print(json.dumps([json.loads(r) for r in open_store(home=sys.argv[1]).gate_results()]))")  # fmt: skip
    stored = json.loads(subprocess.run([sys.executable, "-c", read, str(home)], env=env,
                                       capture_output=True, text=True, check=True).stdout)  # fmt: skip
    mine = next(r for r in stored if r["gate_id"] == public["gate_id"])
    return {
        "wall": wall,
        "cpu": cpu,
        "own_cpu": own_cpu,
        "workers_cpu": workers_cpu,
        "load": (load, os.getloadavg()[0]),
        "exit": proc.returncode,
        "rows": [
            {
                k: RUN_ID.sub("<run id>", c[k]) if isinstance(c[k], str) else c[k]
                for k in FIGURE_FIELDS
            }
            for c in public["checks"]
        ],
        "phases": mine.get("phase_seconds", {}),
        "notes": mine.get("artifacts", {}).get("replayed"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="a git revision (e.g. main, a commit)")
    ap.add_argument("--after", type=Path, default=None,
                    help="a checkout to install; default: the spanproof this Python imports")  # fmt: skip
    args = ap.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="bench-gate-"))
    try:
        sites = {"before": install(args.before, tmp / "before")}
        if args.after is not None:
            sites["after"] = install_tree(args.after.resolve(), tmp / "after")
        else:
            sites["after"] = None
        runs: dict[tuple[str, str], dict] = {}
        cwd = tmp / "cwd"  # not the checkout: nothing may read the repository by accident
        cwd.mkdir()
        for which in ("before", "after"):
            (tmp / f"home-{which}").mkdir()
        for kind in ("cold", "warm"):
            for which in ("before", "after"):
                runs[(which, kind)] = gate(sites[which], tmp / f"home-{which}", cwd)
        report(runs, args.before)
        # A warm rerun must give its cold run's figures to the last digit; two versions give the
        # same figures only when nothing between them changed what is measured, so that is
        # reported, not required.
        same = True
        for which in ("before", "after"):
            cold_rows, warm_rows = runs[(which, "cold")]["rows"], runs[(which, "warm")]["rows"]
            identical = cold_rows == warm_rows
            same = same and identical
            print(f"\n{which}: warm figures identical to cold (value, threshold, pass, detail): "
                  f"{identical}")  # fmt: skip
            if not identical:
                print(f"  differs: {[r for r in warm_rows if r not in cold_rows][:3]}")
        b, a = runs[("before", "cold")]["rows"], runs[("after", "cold")]["rows"]
        names = {r["name"] for r in b} | {r["name"] for r in a}
        moved = sorted(n for n in names
                       if [r for r in b if r["name"] == n] != [r for r in a if r["name"] == n])  # fmt: skip
        print(
            f"before vs after: {len(names) - len(moved)} of {len(names)} rows identical"
            + (f"; differ or exist on one side only: {', '.join(moved)}" if moved else "")
        )
        cold, warm = runs[("after", "cold")]["wall"], runs[("after", "warm")]["wall"]
        print(f"targets (after): cold {cold:.1f} s <= {COLD_TARGET_S:.0f} s "
              f"{'met' if cold <= COLD_TARGET_S else 'MISSED'}; warm {warm:.1f} s <= "
              f"{WARM_TARGET_S:.0f} s {'met' if warm <= WARM_TARGET_S else 'MISSED'}")  # fmt: skip
        return 0 if same and cold <= COLD_TARGET_S and warm <= WARM_TARGET_S else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def install_tree(tree: Path, into: Path) -> Path:
    """A non-editable install of a checkout's working tree (uncommitted edits included)."""
    src = into / "src"
    shutil.copytree(tree, src, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", "out"))  # fmt: skip
    site = into / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(site), str(src)],
        check=True, cwd=into,
    )  # fmt: skip
    return site


def report(runs: dict[tuple[str, str], dict], before: str) -> None:
    print(f"spanproof gate (offline default), {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}; before = {before}, after = this checkout")  # fmt: skip
    rows = []
    for (which, kind), r in runs.items():
        rows.append([which, kind, f"{r['wall']:.1f}", f"{r['cpu']:.1f}",
                     f"{r['own_cpu']:.1f} / {r['workers_cpu']:.1f}",
                     f"{r['cpu'] / r['wall']:.2f}", "{:.1f} / {:.1f}".format(*r["load"]),
                     r["exit"]])  # fmt: skip
    print(tabulate(rows, headers=["version", "home", "wall s", "CPU s",
                                  "CPU s gate / workers", "cores busy", "load before / after",
                                  "exit"]))  # fmt: skip
    print(
        "(CPU s: the command and its children; gate / workers: the gate's own process and the "
        "worker processes it started, read in its exit hooks (the interpreter's teardown after "
        "them is in CPU s only); other work on the machine (the load average) slows the wall "
        "time, much less the CPU time)"
    )
    phases = sorted({p for r in runs.values() for p in r["phases"]},
                    key=lambda p: -runs[("before", "cold")]["phases"].get(p, 0.0))  # fmt: skip
    table = [[p, *(f"{runs[k]['phases'].get(p, 0.0):.2f}" for k in runs)] for p in phases]
    print("\nseconds per phase (the gate's own clock):")
    print(tabulate(table, headers=["phase", *(f"{w} {k}" for w, k in runs)]))
    for (which, kind), r in runs.items():
        if r["notes"]:
            print(f"{which} {kind}: replayed {r['notes']}")


if __name__ == "__main__":
    raise SystemExit(main())
