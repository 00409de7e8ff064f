"""The gate with a model: its agent runs and injection pages side by side, before and after.

    python benchmarks/bench_gate_parallel.py                  # before = main, after = this checkout
    python benchmarks/bench_gate_parallel.py --before 2da6a9d --latency 0.5 --concurrency 8
    python benchmarks/bench_gate_parallel.py --latency 0.5 2     # a table for each latency

A local OpenAI-compatible tool-calling server on loopback (tests/wire/research_server.py: it
searches, fetches, quotes and drafts for any question) answers every request after a fixed
latency (each ``--latency`` given, one table each). Each measurement is the command a user types, ``spanproof gate --policy llm --model
openai:research --judge rules`` in a fresh home against a fresh server, with the checks of one
phase: the agent runs for 1 and for 8 golden questions, and the injection suite (66 pages).
``--before`` is a git revision installed into a temporary directory (as
bench_gate_cold_warm.py does); after is the spanproof this Python imports. Both are measured
in this one run, alternating, so they see the same machine.

Per measurement: the phase's seconds (the gate's own clock, from the run it recorded: in a
fresh home it includes building the corpus index and the first imports, which no concurrency
shortens), the runs' seconds on the wire (first request to last reply), the requests the
server answered and the most it had in flight at once, and the ideal of the runs at the
configured concurrency C: every request costs the latency, a run's requests go one after
another, and at most C are in flight, so ideal = max(requests x latency / C, a run's requests
(on average) x latency). Target (after): the runs within 1.5x of the ideal. Each run's own
CPU (about 0.1 s a turn, more on a loaded machine) is outside the ideal, so a short latency
on a busy machine shows it.

Last, the one-at-a-time CPU server: the same server computing one request at a time (as
llama.cpp on a small CPU), 4 questions, 8 runs in flight: at most two requests in flight and
no timeouts.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tabulate import tabulate

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_gate_cold_warm import install  # noqa: E402

from tests.wire.research_server import research_model  # noqa: E402
from tests.wire.server import ChatServer  # noqa: E402

TARGET = 1.5
AGENT_CHECKS = ["schema_validity", "span_fidelity", "forbidden_actions", "tool_calls",
                "groundedness", "coverage"]  # fmt: skip


class TimedModel:
    """The research model, noting when the first request arrived and the last reply left: the
    span of the runs on the wire (a cold home's index build and the first import, before the
    first request, are the phase's, not the runs')."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.first: float | None = None
        self.last = 0.0

    def __call__(self, body: dict, server: ChatServer):
        now = time.monotonic()  # called after the server's latency
        self.first = now - self.latency if self.first is None else self.first
        self.last = now
        return research_model(body, server)

    @property
    def span(self) -> float:
        return self.last - self.first if self.first is not None else 0.0


def gate(site: Path | None, home: Path, cwd: Path, base_url: str, *, checks: list[str],
         questions: int, concurrency: int, timeout: float = 180.0) -> dict:  # fmt: skip
    """One ``spanproof gate`` of a phase; its phase seconds from the gate run it recorded."""
    cfg = cwd / f"{home.name}.toml"
    cfg.write_text(f"checks = {json.dumps(checks)}\nrequired = {json.dumps(checks)}\n"
                   f"max_questions = {questions}\n")  # fmt: skip
    env = dict(os.environ, OPENAI_API_KEY="local", OPENAI_BASE_URL=base_url)
    env.pop("PYTHONPATH", None)
    if site is not None:
        env["PYTHONPATH"] = str(site)
    cmd = [sys.executable, "-c", "from spanproof.cli import main; main()", "gate", "--json",
           "--config", str(cfg), "--home", str(home), "--policy", "llm", "--model",
           "openai:research", "--judge", "rules", "--concurrency", str(concurrency),
           "--timeout", str(timeout)]  # fmt: skip
    t0, cpu0 = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    wall, cpu1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"gate exited {proc.returncode}:\n{proc.stderr[-3000:]}")
    read = ("import json, sys; from spanproof.store import open_store; "
            "print(json.dumps([json.loads(r) for r in open_store(home=sys.argv[1]).gate_results()]))")  # fmt: skip
    stored = json.loads(subprocess.run([sys.executable, "-c", read, str(home)], env=env,
                                       capture_output=True, text=True, check=True).stdout)  # fmt: skip
    (result,) = stored
    traffic = result["artifacts"].get("model_traffic") or {}
    pages = (result["artifacts"].get("injection") or {}).get("per_technique", {})
    runs = len(result["run_ids"]) or sum(t["cases"] for t in pages.values())
    return {"wall": wall, "cpu": cpu, "phases": result["phase_seconds"], "exit": proc.returncode,
            "errors": traffic.get("errors", {}), "runs": runs}  # fmt: skip


def measure(site: Path | None, tmp: Path, name: str, *, checks: list[str], questions: int,
            latency: float, concurrency: int, one_at_a_time: bool = False,
            timeout: float = 180.0) -> dict:  # fmt: skip
    model = TimedModel(latency)
    with ChatServer(model, latency_s=latency, one_at_a_time=one_at_a_time) as server:
        out = gate(site, tmp / name, tmp, server.base_url, checks=checks, questions=questions,
                   concurrency=concurrency, timeout=timeout)  # fmt: skip
    phase = "injection" if checks == ["injection"] else "agent runs"
    chain = server.count / max(out["runs"], 1)  # a run's requests, one after another
    ideal = max(server.count * latency / concurrency, chain * latency)
    return {**out, "phase": phase, "seconds": out["phases"].get(phase, 0.0), "wire": model.span,
            "requests": server.count, "peak": server.peak_in_flight, "ideal": ideal}  # fmt: skip


def table(sites: dict[str, Path | None], tmp: Path, latency: float, before: str,
          concurrency: int) -> bool:  # fmt: skip
    """Every phase before and after at one latency, printed; True when after met the target."""
    cases = [("agent, 1 question", AGENT_CHECKS, 1), ("agent, 8 questions", AGENT_CHECKS, 8),
             ("injection, 66 pages", ["injection"], 8)]  # fmt: skip
    rows, ok = [], True
    for label, checks, n in cases:
        for which in ("before", "after"):
            name = f"{which}-{label.split(',')[0]}-{n}-{latency:g}s"
            r = measure(sites[which], tmp, name, checks=checks, questions=n, latency=latency,
                        concurrency=concurrency)  # fmt: skip
            ratio = r["wire"] / r["ideal"] if r["ideal"] else float("nan")
            if which == "after":
                ok = ok and ratio <= TARGET
            rows.append([label, which, f"{r['seconds']:.1f}", f"{r['wire']:.1f}",
                         f"{r['ideal']:.1f}", f"{ratio:.2f}", r["requests"], r["peak"],
                         f"{r['cpu']:.1f}", f"{r['wall']:.1f}", r["exit"]])  # fmt: skip
    print(f"\nspanproof gate --policy llm against a loopback tool-calling server, "
          f"{latency:g} s per reply, --concurrency {concurrency}; {os.cpu_count()} "
          f"CPUs, load average {os.getloadavg()[0]:.1f}; before = {before}, after = "
          "this checkout")  # fmt: skip
    print(tabulate(rows, headers=["phase", "version", "phase s", "runs s", "ideal s",
                                  "runs x ideal", "requests", "peak in flight",
                                  "gate CPU s", "gate wall s", "exit"]))  # fmt: skip
    print("(phase s: the gate's clock, with a fresh home's index build and first imports; "
          "runs s: first request to last reply; ideal: module doc; gate CPU s against gate "
          "wall s: how much of the command was its own computing, one core at most)")  # fmt: skip
    print(f"target (after): every phase within {TARGET}x its ideal: {'met' if ok else 'MISSED'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", default="main", help="a git revision (default main)")
    ap.add_argument("--latency", type=float, nargs="+", default=[0.5],
                    help="seconds per reply; several give a table each (0.5)")  # fmt: skip
    ap.add_argument("--concurrency", type=int, default=8, help="--concurrency of the gate (8)")
    args = ap.parse_args(argv)
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # one line per request otherwise
    tmp = Path(tempfile.mkdtemp(prefix="bench-gate-parallel-"))
    try:
        sites = {"before": install(args.before, tmp / "before-site"), "after": None}
        ok = True
        for latency in args.latency:
            ok = table(sites, tmp, latency, args.before, args.concurrency) and ok
        cpu = measure(None, tmp, "after-cpu-server", checks=AGENT_CHECKS, questions=4,
                      latency=0.3, concurrency=8, one_at_a_time=True, timeout=6.0)  # fmt: skip
        timeouts = cpu["errors"].get("timeout", 0)
        print(f"\none-at-a-time CPU server (0.3 s a request, 4 questions, 8 runs in flight, "
              f"--timeout 6): peak in flight {cpu['peak']}, {cpu['requests']} requests, "
              f"{timeouts} timeouts, {cpu['runs']} runs in {cpu['seconds']:.1f} s")  # fmt: skip
        ok = ok and cpu["peak"] <= 2 and not timeouts
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
