"""`spanproof verify` on a large pair file: wall time, CPU per process, peak memory.

    python benchmarks/make_verify_pairs.py --n 100000 --out /tmp/pairs-100k.jsonl
    python benchmarks/bench_verify_large.py --pairs /tmp/pairs-100k.jsonl

Runs the command a user types (``spanproof verify --pairs FILE --judge rules --json``, a
fresh home, the JSON document to a file) and samples its process tree every 0.2 s from
/proc: the resident memory of each process and of the whole tree (the parent and its
worker processes together, as proportional set sizes, so a page two processes share counts
once; ``/usr/bin/time -v`` reports only the largest single process),
and each process's CPU time, so "both cores busy" is a measured share, not a claim. Each
process's life is split three ways from /proc/PID/schedstat: on a CPU, runnable but waiting
for one (other work on the machine), and asleep (a worker waiting for the parent to hand it
pairs, or the parent waiting for the workers): a worker asleep much of the time means the
parent is the bottleneck, a worker waiting for a CPU means the machine is busy. The load
average is printed before, during (the mean of the samples) and after the run. With
``--check N`` it also judges the file's first N pairs with --workers 1 and compares those
rows with the pool's, byte for byte (``--check all``: every pair, one process, which takes
about as much CPU time again as the measured run).

Targets: at most 300 s on two cores, at most 300 MB for the whole tree.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 300.0
TARGET_MB = 300.0
PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")
HAS_PSS = Path("/proc/self/smaps_rollup").exists()


def _children(pid: int) -> list[int]:
    try:
        tasks = Path(f"/proc/{pid}/task").iterdir()
        out: list[int] = []
        for t in tasks:
            out += [int(c) for c in (t / "children").read_text().split()]
        return out
    except OSError:
        return []


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += _children(p)
    return out


def _pss(pid: int) -> int | None:
    """Proportional set size: the process's pages, each shared page divided among the
    processes sharing it (a freshly forked child shares its parent's pages; summing resident
    sizes counts them twice)."""
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1]) * 1024
    except (OSError, IndexError, ValueError):
        pass
    return None


def _sample(pid: int) -> tuple[int, float, float | None] | None:
    """(resident bytes, CPU seconds, seconds waiting for a CPU or None where the kernel does
    not say) of one process, or None when it is gone."""
    try:
        rss = int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / TICK
    except (OSError, IndexError, ValueError):
        return None
    try:
        wait: float | None = int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        wait = None
    return rss, cpu, wait


class Watch(threading.Thread):
    """Samples a process tree until it ends: peak tree RSS, peak single RSS, CPU per pid."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.peak_tree = 0
        # None where the kernel has no smaps_rollup (before Linux 4.14, not Linux)
        self.peak_tree_pss: int | None = 0 if HAS_PSS else None
        self.peak_one = 0
        self.cpu: dict[int, float] = {}
        self.rss: dict[int, int] = {}  # peak per process
        self.wait: dict[int, float] = {}  # seconds runnable but waiting for a CPU
        self.alive: dict[int, list[float]] = {}  # first and last time seen
        self.loads: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            total, total_pss = 0, 0
            now = time.perf_counter()
            for p in _tree(self.pid):
                s = _sample(p)
                if s is None:
                    continue
                total += s[0]
                pss = _pss(p)
                total_pss += s[0] if pss is None else pss  # gone meanwhile: its resident size
                self.peak_one = max(self.peak_one, s[0])
                self.rss[p] = max(self.rss.get(p, 0), s[0])
                self.cpu[p] = max(self.cpu.get(p, 0.0), s[1])
                if s[2] is not None:
                    self.wait[p] = max(self.wait.get(p, 0.0), s[2])
                self.alive.setdefault(p, [now, now])[1] = now
            self.peak_tree = max(self.peak_tree, total)
            if self.peak_tree_pss is not None:
                self.peak_tree_pss = max(self.peak_tree_pss, total_pss)
            self.loads.append(os.getloadavg()[0])
            self.stop.wait(0.2)


def verify(pairs: Path, home: Path, out: Path, extra: list[str]) -> tuple[float, int, Watch]:
    cmd = [sys.executable, "-c", "from spanproof.cli import main; main()", "verify",
           "--pairs", str(pairs), "--judge", "rules", "--json", "--home", str(home), *extra]  # fmt: skip
    t0 = time.perf_counter()
    with out.open("w") as stdout:
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        watch = Watch(proc.pid)
        watch.start()
        _, err = proc.communicate()
    wall = time.perf_counter() - t0
    watch.stop.set()
    watch.join()
    if proc.returncode not in (0, 1):
        print(err, file=sys.stderr)
    return wall, proc.returncode, watch


_RESULTS = ', "results": ['


def _summary(doc: Path) -> tuple[dict, int]:
    """The summary of a --json document without loading its rows, and where the rows start."""
    with doc.open(encoding="utf-8") as f:
        head = f.read(1 << 20)
    at = head.find(_RESULTS)
    if at < 0:
        return json.loads(head), 0
    return json.loads(head[:at] + "}"), at + len(_RESULTS)


def _rows(doc: Path, start: int) -> Iterator[dict]:
    """The rows of a --json document's results, decoded one at a time from a sliding window
    (a 100,000-row document is never read whole)."""
    decoder = json.JSONDecoder()
    with doc.open(encoding="utf-8") as f:
        f.seek(0)
        text, pos = f.read(start + (1 << 20)), start
        while True:
            while pos < len(text) and text[pos] in ", \n":
                pos += 1
            if pos < len(text) and text[pos] == "]":
                return
            try:
                row, end = decoder.raw_decode(text, pos)
            except json.JSONDecodeError:
                more = f.read(1 << 20)
                if not more:
                    raise
                text, pos = text[pos:] + more, 0
                continue
            yield row
            pos = end


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=Path, required=True)
    ap.add_argument("--workers", type=int, default=None, help="default: the command's own")
    ap.add_argument("--check", default="2000",
                    help="compare the first N rows with a --workers 1 run (0: skip; all: every "
                    "row)")  # fmt: skip
    args = ap.parse_args(argv)
    n = sum(1 for line in args.pairs.open(encoding="utf-8") if line.strip())
    load_before = os.getloadavg()[0]
    extra = ["--workers", str(args.workers)] if args.workers else []
    with tempfile.TemporaryDirectory(prefix="bench-verify-large-") as tmp:
        tmp_path = Path(tmp)
        doc = tmp_path / "out.json"
        wall, code, watch = verify(args.pairs, tmp_path / "home", doc, extra)
        summary, rows_at = _summary(doc) if code in (0, 1) else ({}, 0)
        cpu = sum(watch.cpu.values())
        parent = watch.cpu.get(watch.pid, 0.0)
        workers = sorted((c for p, c in watch.cpu.items() if p != watch.pid), reverse=True)
        during = sum(watch.loads) / len(watch.loads) if watch.loads else float("nan")
        print(f"spanproof verify --judge rules --json on {n} pairs ({args.pairs.name}), "
              f"{os.cpu_count()} CPUs; load average before {load_before:.1f}, during "
              f"{during:.1f}, after {os.getloadavg()[0]:.1f} (other work on the machine "
              "slows the wall time)")  # fmt: skip
        print(f"  exit {code}; wall {wall:.1f} s = {1000 * wall / n:.2f} ms a pair; "
              f"verdicts {summary.get('verdicts')}")  # fmt: skip
        print(f"  CPU {cpu:.1f} s in all: parent {parent:.1f} s, workers "
              f"{', '.join(f'{c:.1f}' for c in workers) or 'none'} s; "
              f"{cpu / wall:.2f} cores busy on average")  # fmt: skip
        for p in sorted(watch.cpu, key=lambda p: (p != watch.pid, -watch.cpu[p])):
            life = watch.alive[p][1] - watch.alive[p][0]
            if life < 1:
                continue  # a helper process (the spawn tracker) or one seen once
            name = "parent" if p == watch.pid else f"process {p}"
            wait = watch.wait.get(p)
            split = (
                f"{watch.cpu[p]:.1f} s on a CPU, {wait:.1f} s waiting for a CPU, "
                f"{max(0.0, life - watch.cpu[p] - wait):.1f} s asleep"
                if wait is not None
                else f"{watch.cpu[p]:.1f} s on a CPU (no schedstat here)"
            )
            print(f"    {name}: alive {life:.1f} s: {split}")
        others = sorted((r for p, r in watch.rss.items() if p != watch.pid), reverse=True)
        pss = watch.peak_tree_pss
        tree_mb = (pss if pss is not None else watch.peak_tree) / 1e6
        print(f"  peak memory of the whole tree: {tree_mb:.0f} MB "
              + ("(proportional set size: shared pages counted once)" if pss is not None
                 else "(resident sizes summed: no smaps_rollup here)")
              + f"; resident sizes summed {watch.peak_tree / 1e6:.0f} MB")  # fmt: skip
        print(f"  peak RSS: parent "
              f"{watch.rss.get(watch.pid, 0) / 1e6:.0f} MB, others "
              f"{', '.join(f'{r / 1e6:.0f}' for r in others) or 'none'} MB")  # fmt: skip
        identical = None
        check = n if args.check == "all" else int(args.check)
        if check and code in (0, 1):
            head = tmp_path / "head.jsonl"
            with args.pairs.open(encoding="utf-8") as src, head.open("w", encoding="utf-8") as dst:
                for i, line in enumerate(src):
                    if i >= check:
                        break
                    dst.write(line)
            serial = tmp_path / "serial.json"
            t0 = time.perf_counter()
            _, serial_code, _ = verify(head, tmp_path / "home-serial", serial,
                                       ["--workers", "1", "--no-cache"])  # fmt: skip
            serial_wall = time.perf_counter() - t0
            compared = 0
            identical = serial_code in (0, 1)
            if identical:
                pool_rows = islice(_rows(doc, rows_at), check)
                serial_rows = _rows(serial, _summary(serial)[1])
                for a, b in zip(pool_rows, serial_rows, strict=False):
                    compared += 1
                    if a != b:
                        identical = False
                        print(f"  row {compared} differs: {a.get('id')} {a.get('verdict')} vs "
                              f"{b.get('verdict')}")  # fmt: skip
                        break
                identical = identical and compared == min(check, n)
            print(f"  first {compared} rows identical to --workers 1 (exit {serial_code}, "
                  f"{serial_wall:.0f} s): {identical}")  # fmt: skip
        if code not in (0, 1):
            print(f"  verify could not run (exit {code}): no figure")
            return 2
        ok_time, ok_mem = wall <= TARGET_S, tree_mb <= TARGET_MB
        print(f"  targets: wall <= {TARGET_S:.0f} s {'met' if ok_time else 'MISSED'}; "
              f"tree memory <= {TARGET_MB:.0f} MB {'met' if ok_mem else 'MISSED'}")  # fmt: skip
    return 0 if ok_time and ok_mem and identical is not False and code in (0, 1) else 1


if __name__ == "__main__":
    raise SystemExit(main())
