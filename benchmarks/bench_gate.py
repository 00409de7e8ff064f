"""Gate benchmarks, printed side by side in one run (offline; only loopback traffic).

1. The gate's wall time offline: cold (fresh home, empty verdict cache) and warm
   (same home again: every judge verdict comes from the cache).
2. Verifier throughput against a local OpenAI-compatible server that answers
   after 200 ms, at concurrency 1 and 8 (pairs per second, and the ratio).
3. The share of gate time per check (phases of the cold run).

    python benchmarks/bench_gate.py [--max-questions N] [--pairs N]

Timing belongs here, not in unit tests: the numbers depend on the machine.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from spanproof.core.verdict import JudgeBase  # noqa: E402
from spanproof.gate.config import load_config  # noqa: E402
from spanproof.gate.run import run_gate  # noqa: E402

LATENCY_S = 0.2


def gate_times(max_questions: int) -> tuple[dict, dict]:
    """(cold result, warm result) of the offline gate in one fresh home."""
    with tempfile.TemporaryDirectory(prefix="bench-gate-") as home:
        cfg, source = load_config(overrides={"max_questions": max_questions or None})
        out = []
        for _ in range(2):
            t0 = time.perf_counter()
            res = asyncio.run(run_gate(cfg, home=Path(home), config_source=source, record=False))
            out.append({"wall_s": time.perf_counter() - t0, "result": res})
        return out[0], out[1]


class _SlowChat(BaseHTTPRequestHandler):
    """A Chat Completions peer that takes LATENCY_S per call (like a small hosted model)."""

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        time.sleep(LATENCY_S)
        verdict = {"verdict": "NOT_SUPPORTED", "unsupported_element": "all", "quote_used": None,
                   "contains_instructions": False}  # fmt: skip
        payload = {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", "bench"),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": json.dumps(verdict)}}],
            "usage": {"prompt_tokens": 300, "completion_tokens": 30, "total_tokens": 330},
        }  # fmt: skip
        data = json.dumps(payload).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args) -> None:
        pass


class _WireJudge(JudgeBase):
    """Stand-in used only when graders.openai_judge is missing: one chat call per pair."""

    id = "openai:bench (stand-in)"
    prompt_sha256 = "bench"

    def __init__(self, base_url: str):
        from openai import AsyncOpenAI

        self.client = AsyncOpenAI(base_url=base_url, api_key="local", max_retries=0)

    async def judge(self, claim, span):
        from spanproof.core.verdict import Verdict

        resp = await self.client.chat.completions.create(
            model="bench",
            temperature=0,
            messages=[{"role": "user", "content": f"{claim}\n{span.text}"}],
        )
        return Verdict.model_validate(
            {**json.loads(resp.choices[0].message.content), "judge": self.id}
        )


async def _throughput(base_url: str, pairs: int, concurrency: int) -> tuple[float, str]:
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    from spanproof.core.specs import EndpointSettings
    from spanproof.core.verdict import SpanRef

    try:
        judge = make_judge(
            "openai:bench", endpoint=EndpointSettings(base_url=base_url, api_key="local")
        )
    except ImportError:
        judge = _WireJudge(base_url)
    verifier = Verifier([judge], cache=None, concurrency=concurrency)
    items = [(f"Claim number {i} about the bridge.", SpanRef(text=f"Span {i}: the bridge opened in 19{i:02d}."))
             for i in range(pairs)]  # fmt: skip
    t0 = time.perf_counter()
    verdicts = await verifier.verify_many(items)
    dt = time.perf_counter() - t0
    errors = sum(v.error is not None for v in verdicts)
    if errors:
        raise RuntimeError(f"{errors}/{pairs} verdicts were errors, e.g. {verdicts[0].error}")
    return pairs / dt, judge.id


def verifier_throughput(pairs: int) -> dict:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _SlowChat)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        one, judge_id = asyncio.run(_throughput(base, pairs, 1))
        eight, _ = asyncio.run(_throughput(base, pairs, 8))
    finally:
        server.shutdown()
    return {"c1": one, "c8": eight, "ratio": eight / one, "judge": judge_id}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--max-questions", type=int, default=0, help="golden questions per gate run (0 = all 40)"
    )
    ap.add_argument("--pairs", type=int, default=40, help="pairs per throughput measurement")
    args = ap.parse_args()
    os.environ.pop("OPENAI_API_KEY", None)

    print(
        f"cpus: {os.cpu_count()}; gate on {args.max_questions or 'all'} golden questions",
        file=sys.stderr,
    )
    cold, warm = gate_times(args.max_questions)
    try:
        tp = verifier_throughput(args.pairs)
        tp_rows = [
            ["verifier, 200 ms server, concurrency 1", f"{tp['c1']:.2f} pairs/s"],
            ["verifier, 200 ms server, concurrency 8", f"{tp['c8']:.2f} pairs/s"],
            ["throughput ratio 8 / 1", f"{tp['ratio']:.2f}x  ({tp['judge']})"],
        ]
    except Exception as exc:  # report, never invent a figure
        tp_rows = [["verifier throughput", f"could not run: {type(exc).__name__}: {exc}"]]
    c, w = cold["result"], warm["result"]
    headline = [
        [
            "gate wall time, cold cache",
            f"{cold['wall_s']:.1f} s  ({c.model_calls} judge calls, {c.cache_hits} hits)",
        ],
        [
            "gate wall time, warm cache",
            f"{warm['wall_s']:.1f} s  ({w.model_calls} judge calls, {w.cache_hits} hits)",
        ],
        ["warm / cold", f"{warm['wall_s'] / cold['wall_s']:.2f}"],
        *tp_rows,
    ]
    total = sum(c.phase_seconds.values()) or 1.0
    share = sorted(c.phase_seconds.items(), key=lambda kv: -kv[1])
    warm_phase = w.phase_seconds
    rows = [
        [name, f"{sec:.2f}", f"{100 * sec / total:.1f}%", f"{warm_phase.get(name, 0):.2f}"]
        for name, sec in share
    ]
    left = tabulate(headline, headers=["measurement", "value"], tablefmt="simple").splitlines()
    right = tabulate(
        rows, headers=["gate phase", "cold s", "share", "warm s"], tablefmt="simple"
    ).splitlines()
    width = max(len(line) for line in left) + 4
    for i in range(max(len(left), len(right))):
        a = left[i] if i < len(left) else ""
        b = right[i] if i < len(right) else ""
        print(a.ljust(width) + b)
    print(f"\ngate verdict (cold): exit {c.exit_code}; warm: exit {w.exit_code}")


if __name__ == "__main__":
    main()
