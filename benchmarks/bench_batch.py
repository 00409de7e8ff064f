"""`spanproof verify --batch` on 1,000 pairs against the local server with the Batch API.

Three commands, each a real `spanproof verify` process, against tests/wire/batch_server.py on
127.0.0.1 (its judge quotes the span's first words and says SUPPORTED; what is measured is the
path, not the judge):

1. ``--batch``, interrupted with SIGINT (Ctrl-C) while it waits for the batch;
2. the same command again: it must collect the same batch (no upload, no new batch);
3. the online path (no ``--batch``, a fresh home) on the same pairs.

The pairs: the WiCE development pairs, copied with a marked span until there are 1,000 (each
copy is a different pair to the verdict cache). Printed: batches created, files uploaded,
online requests made by the batch commands, the exit codes, and how many per-pair verdicts
(every field of ``--out``) are identical between the batch and the online path.

    python benchmarks/bench_batch.py [--pairs 1000]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.wire.batch_server import BatchServer  # noqa: E402


def make_pairs(path: Path, n: int) -> None:
    source = [json.loads(x) for x in (ROOT / "goldens" / "wice_dev_pairs.jsonl").read_text(
        encoding="utf-8").splitlines()]  # fmt: skip
    out = []
    for i in range(n):
        p = dict(source[i % len(source)])
        copy = i // len(source)
        if copy:
            p["id"] = f"{p['id']}-copy{copy}"
            p["span"] = f"{p['span']} (copy {copy})"
        out.append(json.dumps(p))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def command(base_url: str, pairs: Path, home: Path, out: Path, batch: bool) -> list[str]:
    cmd = [sys.executable, "-c", "from spanproof.cli import main; main()", "verify", "--pairs",
           str(pairs), "--judge", "openai:bench-judge", "--base-url", base_url, "--api-key",
           "local", "--home", str(home), "--out", str(out)]  # fmt: skip
    return cmd + (["--batch", "--batch-poll", "0.5"] if batch else ["--no-cache"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=1000)
    args = ap.parse_args(argv)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    with tempfile.TemporaryDirectory(prefix="bench-batch-") as tmp:
        tmp_path = Path(tmp)
        pairs = tmp_path / "pairs.jsonl"
        make_pairs(pairs, args.pairs)
        home = tmp_path / "home"
        with BatchServer(hold=True) as server:
            cmd = command(server.base_url, pairs, home, tmp_path / "batch.jsonl", batch=True)
            t0 = time.perf_counter()
            # SIGINT as a terminal delivers it, even when this script runs as a background
            # job (which starts with SIGINT ignored, and its children inherit that)
            first = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True,
                                     preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                                      signal.SIG_DFL))  # fmt: skip
            while server.batches_created == 0 and first.poll() is None:
                time.sleep(0.1)
            time.sleep(1.0)  # waiting on the batch now
            first.send_signal(signal.SIGINT)
            _, first_err = first.communicate(timeout=120)
            first_wall = time.perf_counter() - t0
            kept = sorted((home / "batches").glob("*.json"))
            after_first = (server.uploads, server.batches_created)

            server.release_batches()
            t0 = time.perf_counter()
            second = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
            second_wall = time.perf_counter() - t0
            batch_requests = server.count
            totals = [b["request_counts"]["total"] for b in server.batches.values()]

            online_cmd = command(server.base_url, pairs, tmp_path / "online-home",
                                 tmp_path / "online.jsonl", batch=False)  # fmt: skip
            t0 = time.perf_counter()
            online = subprocess.run(online_cmd, cwd=ROOT, env=env, capture_output=True, text=True)
            online_wall = time.perf_counter() - t0
            online_requests = server.count - batch_requests

        def rows(name: str) -> list[dict]:
            path = tmp_path / name
            if not path.exists():
                return []
            return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]

        got, want = rows("batch.jsonl"), rows("online.jsonl")
        same = sum(1 for g, w in zip(got, want, strict=False) if g == w)
        stage = [
            ["1. --batch, SIGINT while waiting", first.returncode, f"{first_wall:.1f}",
             f"uploads {after_first[0]}, batches {after_first[1]}; record kept: {len(kept)}"],
            ["2. --batch again", second.returncode, f"{second_wall:.1f}",
             f"uploads {server.uploads}, batches {server.batches_created}; "
             f"resumed: {'(resumed)' in second.stderr}"],
            ["3. online, fresh home", online.returncode, f"{online_wall:.1f}",
             f"{online_requests} chat requests"],
        ]  # fmt: skip
    print(f"spanproof verify on {args.pairs} pairs against the local Batch API server")
    print(tabulate(stage, headers=["command", "exit", "wall s", "server saw"]))
    print(f"\nbatch jobs created: {server.batches_created} (requests per batch: {totals}); "
          f"online chat requests by the batch commands: {batch_requests}")  # fmt: skip
    print(f"per-pair verdicts identical to the online path (every --out field): {same}/{len(want)}"
          f" (batch rows: {len(got)})")  # fmt: skip
    last = [line for line in first_err.splitlines() if line.strip()][-1:]
    print(f"interrupted command's last line: {last[0] if last else ''}")
    ok = (
        first.returncode == 130 and len(kept) == 1 and second.returncode == 0
        and server.batches_created == 1 and server.uploads == 1 and batch_requests == 0
        and len(got) == len(want) == args.pairs and same == args.pairs
    )  # fmt: skip
    print("\nall targets met" if ok else "\nsome target MISSED")
    if not ok:
        print(second.stderr[-2000:], file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
