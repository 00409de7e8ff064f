"""Model-server throughput: wall time / ideal of `verify`'s judging against servers of known shape.

Each row judges WiCE development pairs with an ``openai:`` judge (the real client, the real
Chat Completions wire format, the code audit of every verdict) against a local
OpenAI-compatible server (tests/wire/server.py) in its own process, whose every reply waits a
latency of a known shape:

- 200 ms fixed; 200 ms median with a lognormal spread of sigma 0.5 (the shape of a hosted
  API); 1 s median with sigma 0.5;
- one request at a time, 10 s each (llama.cpp on two CPU cores), with default settings
  (concurrency 8, timeout 180 s);
- no latency at all: what the client (its HTTP, the audit of each verdict) and the server
  cost on this machine at the moment, the part of every row's wall time no limiter removes.

Three concurrency limiters run on the same pairs in the same process, one after another:

- ``fixed``: a fixed window of 8 (the behaviour before the adaptive limiter: the verifier's
  semaphore, nothing in the client);
- ``previous``: the adaptive limiter as it was (window from 1, +1 per window of replies,
  halved when one reply took 1.5x the fastest seen), kept here as a reference;
- ``adaptive``: spanproof.wire.limiter.AdaptiveLimiter, what every command uses.

The ideal is what a client with no overhead of its own, keeping 8 in flight, would take for
the latencies the server actually slept (the same seeded sequence for every limiter): the first
request alone (every client here learns the server's response format from it), then each slot
refilled the moment it frees; for the one-at-a-time server, the sum of the latencies. The
column ``wall/(sum/8)`` divides by the plain sum / 8 instead (no first request alone, no last
partial wave: a bound no client reaches on 50 pairs). Process start-up is not timed (it is the
same for every limiter); ``--command`` adds the real `spanproof verify` command's wall time
for the 200 ms fixed shape.

Targets: wall / ideal <= 1.3 on every hosted-API shape with the adaptive limiter; the
one-at-a-time server sees at most 2 requests in flight and no timeouts.

    python benchmarks/bench_throughput.py                 # everything (about 4 minutes)
    python benchmarks/bench_throughput.py --serial-latency 1 --command
    python benchmarks/bench_throughput.py --skip-serial --limiters adaptive

Timing belongs here, not in unit tests: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import heapq
import json
import math
import multiprocessing as mp
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from spanproof.wire.limiter import AdaptiveLimiter  # noqa: E402

CONCURRENCY = 8
TARGET_RATIO = 1.3


# --- reference limiters (earlier behaviour, kept so they run in the same process) ------------


class FixedWindow:
    """Before the adaptive limiter: at most ``maximum`` in flight, nothing else."""

    def __init__(self, maximum: int, **_: object) -> None:
        self.maximum = maximum
        self.in_flight = self.peak_in_flight = 0
        self._sem: asyncio.Semaphore | None = None

    @asynccontextmanager
    async def slot(self):
        if self._sem is None:
            self._sem = asyncio.Semaphore(self.maximum)
        async with self._sem:
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            try:
                yield {}
            finally:
                self.in_flight -= 1

    def describe(self) -> str:
        return f"fixed window {self.maximum}, peak {self.peak_in_flight} in flight"


class PreviousAdaptive:
    """The adaptive limiter before this one: starts at 1, +1 after a window's worth of replies
    at the usual latency, halves when one reply takes 1.5x the fastest seen (or on 429/503 and
    timeouts)."""

    SLOW_FACTOR = 1.5
    NOISE_FLOOR_S = 0.05

    def __init__(self, maximum: int, **_: object) -> None:
        self.maximum = maximum
        self.window = 1
        self.in_flight = self.peak_in_flight = 0
        self.lowest_window = self.highest_window = 1
        self.backoffs = 0
        self._fastest: float | None = None
        self._good_streak = 0
        self._cond: asyncio.Condition | None = None

    @asynccontextmanager
    async def slot(self):
        if self._cond is None:
            self._cond = asyncio.Condition()
        cond = self._cond
        async with cond:
            await cond.wait_for(lambda: self.in_flight < self.window)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        outcome: dict[str, object] = {}
        t0 = time.monotonic()
        try:
            yield outcome
        finally:
            elapsed = time.monotonic() - t0
            async with cond:
                self.in_flight -= 1
                self._observe(elapsed, str(outcome.get("kind", "ok")))
                cond.notify_all()

    def _observe(self, elapsed: float, kind: str) -> None:
        if kind in ("overloaded", "timeout"):
            self._shrink()
            return
        if kind != "ok":
            return
        if self._fastest is None or elapsed < self._fastest:
            self._fastest = elapsed
        if elapsed > self.SLOW_FACTOR * max(self._fastest, self.NOISE_FLOOR_S):
            self._shrink()
            return
        self._good_streak += 1
        if self._good_streak >= self.window and self.window < self.maximum:
            self.window += 1
            self._good_streak = 0
            self.highest_window = max(self.highest_window, self.window)

    def _shrink(self) -> None:
        self._good_streak = 0
        if self.window > 1:
            self.window = max(1, self.window // 2)
            self.backoffs += 1
        self.lowest_window = min(self.lowest_window, self.window)

    def describe(self) -> str:
        return (
            f"window {self.lowest_window}-{self.highest_window}, peak {self.peak_in_flight} "
            f"in flight, {self.backoffs} back-off(s)"
        )


LIMITERS: dict[str, Callable[..., object]] = {
    "fixed": FixedWindow,
    "previous": PreviousAdaptive,
    "adaptive": AdaptiveLimiter,
}


# --- the server, in its own process -------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    name: str
    median_s: float
    sigma: float = 0.0
    one_at_a_time: bool = False
    target: str = "hosted"  # hosted: <= 1.3x ideal; serial: <= 2 in flight; floor: none

    def latencies(self, n: int, seed: int = 22) -> list[float]:
        rng = random.Random(seed)
        if not self.sigma:
            return [self.median_s] * n
        return [rng.lognormvariate(math.log(self.median_s), self.sigma) for _ in range(n)]


def _serve(shape: Shape, conn, keep_alive: bool = False) -> None:
    """Child process: a ChatServer whose i-th request sleeps the i-th latency of the shape.
    Its stats hold the CPU it used from the moment it was ready (``cpu``: every thread's,
    user and system; the server shares the machine with the client it serves)."""
    import logging

    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    # What the honest judge reads each reply with (its quote), imported before the server is
    # ready: imported by the first request instead, it held that reply back by the import of
    # the graders package, a start-up a real endpoint does not make its first client wait for.
    from spanproof.graders.quoting import best_window  # noqa: F401

    from tests.wire.server import ChatServer, honest_judge

    planned = shape.latencies(100_000)
    slept: list[float] = []
    lock = threading.Lock()

    def behave(body, server):
        with lock:
            latency = planned[len(slept)]
            slept.append(latency)
        time.sleep(latency)
        return honest_judge(body, server)

    if shape.one_at_a_time:
        server = ChatServer(one_at_a_time=True, latency_s=shape.median_s, keep_alive=keep_alive)
    else:
        server = ChatServer(behave, keep_alive=keep_alive)
    with server:
        ready = time.process_time()
        conn.send(server.base_url)
        conn.recv()  # "stats"
        if shape.one_at_a_time:
            slept = [shape.median_s] * server.count
        conn.send({"count": server.count, "peak": server.peak_in_flight, "slept": slept,
                   "cpu": time.process_time() - ready})  # fmt: skip


class ServerProcess:
    """The server in a process of its own, or (``in_process``, as the tests run it) in a
    thread of this one, where it competes with the client for the interpreter.
    ``keep_alive``: the server keeps connections open between requests (else it closes each
    after its reply; tests.wire.server.ChatServer)."""

    in_process = False

    def __init__(self, shape: Shape, *, keep_alive: bool = False) -> None:
        self.shape = shape
        self._conn, child = mp.Pipe()
        args = (shape, child, keep_alive)
        if self.in_process:
            self._proc = threading.Thread(target=_serve, args=args, daemon=True)
        else:
            self._proc = mp.get_context("fork").Process(target=_serve, args=args, daemon=True)

    def __enter__(self) -> ServerProcess:
        self._proc.start()
        self.base_url = self._conn.recv()
        return self

    def stats(self) -> dict:
        self._conn.send("stats")
        return self._conn.recv()

    def __exit__(self, *exc: object) -> None:
        if isinstance(self._proc, threading.Thread):
            return  # it stopped after answering stats()
        self._proc.terminate()
        self._proc.join(5)


# --- one run ------------------------------------------------------------------------------


def load_items(pairs_path: Path, n: int):
    from spanproof.core.verdict import SpanRef

    items = []
    for line in pairs_path.read_text(encoding="utf-8").splitlines()[:n]:
        p = json.loads(line)
        items.append((p["claim"], SpanRef(text=p["span"]), p["id"]))
    return items


def schedule_ideal(slept: list[float], slots: int = CONCURRENCY) -> float:
    """The wall time of a client with no overhead of its own: the first request alone (every
    client here learns the server's response format from it), then every slot refilled the
    moment it frees, the server's latencies taken in the order it slept them."""
    if not slept:
        return 0.0
    free = [slept[0]] * slots
    heapq.heapify(free)
    end = slept[0]
    for latency in slept[1:]:
        done = heapq.heappop(free) + latency
        end = max(end, done)
        heapq.heappush(free, done)
    return end


def judge_once(shape: Shape, limiter: str, items) -> dict:
    from spanproof.graders.openai_judge import OpenAIJudge
    from spanproof.graders.verify import Verifier

    from spanproof.core.specs import EndpointSettings
    from spanproof.wire import forget_clients, totals

    forget_clients()
    with ServerProcess(shape) as server:
        endpoint = EndpointSettings(base_url=server.base_url, api_key="local",
                                    concurrency=CONCURRENCY)  # fmt: skip
        judge = OpenAIJudge("bench-judge", endpoint=endpoint)
        judge.client.limiter = LIMITERS[limiter](CONCURRENCY, timeout_s=endpoint.timeout_s)
        verifier = Verifier([judge], cache=None, concurrency=CONCURRENCY)
        t0 = time.perf_counter()
        verdicts = asyncio.run(verifier.verify_many(items))
        wall = time.perf_counter() - t0
        stats = server.stats()
    slept = stats["slept"]
    t = totals()
    return {
        "wall": wall,
        "ideal": sum(slept) if shape.one_at_a_time else schedule_ideal(slept),
        "fluid": sum(slept) / (1 if shape.one_at_a_time else CONCURRENCY),
        "requests": stats["count"],
        "peak": stats["peak"],
        "timeouts": t.errors.get("timeout", 0),
        "errors": sum(1 for v in verdicts if v.error),
        "window": judge.client.limiter.describe(),
    }


def command_wall(shape: Shape, pairs_path: Path, n: int) -> tuple[float, float, int]:
    """(wall, ideal, exit code) of `spanproof verify` itself, start-up included."""
    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp:
        subset = Path(tmp) / "pairs.jsonl"
        lines = pairs_path.read_text(encoding="utf-8").splitlines()[:n]
        subset.write_text("\n".join(lines) + "\n", encoding="utf-8")
        with ServerProcess(shape) as server:
            cmd = [sys.executable, "-c", "from spanproof.cli import main; main()", "verify",
                   "--pairs", str(subset), "--judge", "openai:bench-judge", "--base-url",
                   server.base_url, "--api-key", "local", "--no-cache", "--home", tmp,
                   "--concurrency", str(CONCURRENCY), "--json"]  # fmt: skip
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
            wall = time.perf_counter() - t0
            slept = server.stats()["slept"]
    return wall, schedule_ideal(slept), proc.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs-file", type=Path, default=ROOT / "goldens" / "wice_dev_pairs.jsonl")
    ap.add_argument("--pairs", type=int, default=50, help="pairs per hosted-API row")
    ap.add_argument("--serial-pairs", type=int, default=8, help="pairs for the one-at-a-time row")
    ap.add_argument("--serial-latency", type=float, default=10.0, help="seconds per reply")
    ap.add_argument("--skip-serial", action="store_true")
    ap.add_argument("--repeat", type=int, default=1,
                    help="runs of the whole plan; each row shows the median (peaks: the highest)")  # fmt: skip
    ap.add_argument("--limiters", default="fixed,previous,adaptive",
                    help="comma-separated: fixed, previous, adaptive")  # fmt: skip
    ap.add_argument("--serial-limiters", default="adaptive",
                    help="limiters for the one-at-a-time row (each takes minutes)")  # fmt: skip
    ap.add_argument("--server-in-process", action="store_true",
                    help="run the server in a thread of this process (as the tests do), where "
                    "its replies jitter with the client's work")  # fmt: skip
    ap.add_argument("--command", action="store_true",
                    help="also time the `spanproof verify` command on the 200 ms fixed shape")  # fmt: skip
    args = ap.parse_args(argv)
    ServerProcess.in_process = args.server_in_process

    shapes = [
        Shape("200 ms fixed", 0.2),
        Shape("200 ms median, lognormal sigma 0.5", 0.2, 0.5),
        Shape("1 s median, lognormal sigma 0.5", 1.0, 0.5),
    ]
    serial = Shape(f"one at a time, {args.serial_latency:g} s each", args.serial_latency,
                   one_at_a_time=True, target="serial")  # fmt: skip
    # What the client and the server cost on their own on this machine right now: the part of
    # every row's wall time that no limiter can remove.
    floor = Shape("no latency (client and server time)", 0.0, target="floor")
    plan = [(floor, "fixed", args.pairs)]
    plan += [(s, lim, args.pairs) for s in shapes for lim in args.limiters.split(",")]
    if not args.skip_serial:
        plan += [(serial, lim, args.serial_pairs) for lim in args.serial_limiters.split(",")]

    # A first run loads what every later one uses (the openai client, the audit's lexicons).
    judge_once(Shape("warm-up", 0.0), "fixed", load_items(args.pairs_file, 8))
    # Repeats go round the whole plan, so every limiter meets the machine's load alike; each
    # row shows the median run.
    runs: dict[int, list[dict]] = {i: [] for i in range(len(plan))}
    order = random.Random(0)
    for _ in range(args.repeat):
        # each repeat takes the rows in another order, so no limiter always runs after
        # another one's load (or always first)
        for i in order.sample(range(len(plan)), len(plan)):
            shape, limiter, n = plan[i]
            r = judge_once(shape, limiter, load_items(args.pairs_file, n))
            r["ratio"] = r["wall"] / r["ideal"] if r["ideal"] else 0.0
            runs[i].append(r)
            print(f"  {shape.name} / {limiter}: {r['wall']:.2f} s; {r['window']}", file=sys.stderr)
    rows, ok = [], True
    for i, (shape, limiter, n) in enumerate(plan):
        r = sorted(runs[i], key=lambda x: x["ratio"])[len(runs[i]) // 2]
        r["peak"] = max(x["peak"] for x in runs[i])
        r["timeouts"] = sum(x["timeouts"] for x in runs[i])
        r["errors"] = sum(x["errors"] for x in runs[i])
        ratio = r["ratio"]
        verdict = ""
        if limiter == "adaptive" and shape.target != "floor":
            if shape.target == "hosted":
                good = ratio <= TARGET_RATIO and not r["errors"]
                verdict = f"{'OK' if good else 'MISSED'} (<= {TARGET_RATIO}x)"
            else:
                good = r["peak"] <= 2 and r["timeouts"] == 0 and not r["errors"]
                verdict = f"{'OK' if good else 'MISSED'} (<= 2 in flight, 0 timeouts)"
            ok &= good
        shown = (f"{ratio:.2f}", f"{r['wall'] / r['fluid']:.2f}") if r["ideal"] else ("", "")
        rows.append([shape.name, limiter, n, r["requests"], f"{r['wall']:.2f}",
                     f"{r['ideal']:.2f}", *shown, r["peak"], r["timeouts"], r["errors"],
                     verdict])  # fmt: skip
    print(f"verify, openai: judge at --concurrency {CONCURRENCY}, WiCE development pairs; "
          f"{os.cpu_count()} CPUs visible, load average {os.getloadavg()[0]:.1f}; median of "
          f"{args.repeat} run(s); start-up not timed; server "
          f"{'in a thread of this process' if args.server_in_process else 'in its own process'}")  # fmt: skip
    print(tabulate(rows, headers=["server", "limiter", "pairs", "requests", "wall s", "ideal s",
                                  "wall/ideal", "wall/(sum/8)", "peak in flight", "timeouts",
                                  "errors", "target"]))  # fmt: skip
    print("ideal: the first request alone, then 8 in flight with no client overhead, over the "
          "latencies the server slept; sum/8: the same work spread perfectly (no first request "
          "alone, no last partial wave)")  # fmt: skip
    if args.command:
        wall, ideal, code = command_wall(shapes[0], args.pairs_file, args.pairs)
        print(f"\n`spanproof verify` command, {shapes[0].name}, {args.pairs} pairs: {wall:.2f} s "
              f"wall (start-up included), ideal {ideal:.2f} s, exit {code}")  # fmt: skip
    print("\nall targets met" if ok else "\nsome target MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
