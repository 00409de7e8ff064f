"""`spanproof verify --batch` reading a 300 MB batch output: peak memory, side by side.

A batch's output file is read as it streams (spanproof/wire/batch_results.py), so the memory a
command needs must not grow with the file. Three real `spanproof verify --batch` processes,
each against tests/wire/batch_server.py on 127.0.0.1, on the same pairs; the server pads each
output line with JSON whitespace (what the lines say is unchanged, the file grows):

1. a small output file (about 3 MB), the default cap;
2. the large output file (about 300 MB), the cap raised above it (``--batch-max-output``);
3. the large output file under the default cap (256 MB): it must stop with exit 2 and the fix.

Printed for each: the output file's size, the exit code, the wall time and the process's peak
resident memory (``ru_maxrss`` from ``os.wait4``). Each command is started by a small launcher
process, not by this one: Linux counts the memory of the process that starts a command into
the command's peak, and this one holds the server's 300 MB files. The target:
run 2's peak at most 1.5x run 1's, though its file is 100x larger (the whole file in memory
would need over 300 MB more). Runs 1 and 2 must give the same verdicts.

    python benchmarks/bench_batch_output_memory.py [--pairs 1000] [--mb 300]

``--python PATH`` measures another installation's spanproof (the interpreter of its venv);
runs 2 and 3 then pass ``--batch-max-output`` only if that installation has the option.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.wire.batch_server import BatchServer  # noqa: E402
from tests.wire.conftest import write_pairs  # noqa: E402

TARGET_RATIO = 1.5
# Starts the command and reports its exit code and peak RSS (KB) on stdout.
LAUNCHER = """import os, subprocess, sys
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)"""


def padded(pad_bytes: int):
    """Each output line with ``pad_bytes`` of JSON whitespace before its closing brace."""

    def make(rows: list[dict]) -> bytes:
        return b"".join(json.dumps(r).encode()[:-1] + b" " * pad_bytes + b"}\n" for r in rows)

    return make


def run(python: str, server: BatchServer, pairs: Path, home: Path, out: Path,
        extra: list[str]) -> tuple[int, float, float, str]:  # fmt: skip
    """(exit code, wall s, peak RSS MB, stderr) of one `spanproof verify --batch` process. It
    runs in a scratch directory, so the spanproof it imports is ``python``'s installation."""
    cmd = [python, "-c", "from spanproof.cli import main; main()", "verify", "--pairs",
           str(pairs), "--judge", "openai:bench-judge", "--base-url", server.base_url,
           "--api-key", "local", "--home", str(home), "--out", str(out), "--batch",
           "--batch-poll", "0.2", *extra]  # fmt: skip
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", LAUNCHER, *cmd], cwd=home.parent,
                          capture_output=True, text=True,
                          env={**os.environ, "PYTHONUNBUFFERED": "1"})  # fmt: skip
    wall = time.perf_counter() - t0
    code, peak_kb = (int(x) for x in done.stdout.split())
    return code, wall, peak_kb / 1024, done.stderr


def has_cap_option(python: str) -> bool:
    helped = subprocess.run([python, "-c", "from spanproof.cli import main; main()", "verify",
                             "--help"], capture_output=True, text=True, cwd=tempfile.gettempdir())  # fmt: skip
    return "--batch-max-output" in helped.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--mb", type=float, default=300.0, help="size of the large output file")
    ap.add_argument("--python", default=sys.executable, help="interpreter of the spanproof run")
    args = ap.parse_args(argv)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    capped = has_cap_option(args.python)
    large_pad = int(args.mb * 1e6 / args.pairs)
    small_pad = large_pad // 100
    rows, stderrs, outs = [], {}, {}
    with tempfile.TemporaryDirectory(prefix="bench-batch-memory-") as tmp:
        tmp_path = Path(tmp)
        pairs = write_pairs(tmp_path / "pairs.jsonl", args.pairs)
        runs = [
            ("1. small output, default cap", small_pad, []),
            ("2. large output, cap raised", large_pad,
             ["--batch-max-output", str(int(args.mb * 2))] if capped else []),
            ("3. large output, default cap", large_pad, []),
        ]  # fmt: skip
        for name, pad, extra in runs:
            if name.startswith("3") and not capped:
                continue  # an installation without the cap reads the file whole: run 2 shows it
            with BatchServer(output_file=padded(pad)) as server:
                home = tmp_path / name[:1] / "home"
                home.mkdir(parents=True)
                out = tmp_path / name[:1] / "verdicts.jsonl"
                code, wall, peak, stderr = run(args.python, server, pairs, home, out, extra)
                size = sum(len(server.contents[b["output_file_id"]])
                           for b in server.batches.values() if b.get("output_file_id"))  # fmt: skip
            stderrs[name[:1]] = stderr
            outs[name[:1]] = out.read_text() if out.exists() else ""
            rows.append([name, f"{size / 1e6:.1f}", code, f"{wall:.1f}", f"{peak:.0f}"])
    print(f"spanproof verify --batch on {args.pairs} pairs ({args.python}); peak RSS per process")
    print(tabulate(rows, headers=["run", "output MB", "exit", "wall s", "peak RSS MB"]))
    peaks = {r[0][:1]: float(r[4]) for r in rows}
    ratio = peaks["2"] / peaks["1"]
    print(f"\npeak RSS, large / small output: {ratio:.2f} (target <= {TARGET_RATIO})")
    same = outs["1"] == outs["2"] and outs["1"].count("\n") == args.pairs
    print(f"verdict rows of runs 1 and 2 identical: {same}")
    over = "3" in stderrs and "passed the cap of" in stderrs["3"]
    if "3" in stderrs:
        last = [line for line in stderrs["3"].splitlines() if line.startswith("error")][-1:]
        print(f"run 3 says: {last[0] if last else '(nothing)'}")
    ok = (
        rows[0][2] == 0 and rows[1][2] == 0 and ratio <= TARGET_RATIO and same
        and (not capped or (rows[2][2] == 2 and over))
    )  # fmt: skip
    print("\nall targets met" if ok else "\nsome target MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
