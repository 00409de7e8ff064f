"""`verify` in worker processes and as a stream: the same rows as one process, in order;
the cache shared; a dead worker, Ctrl-C and a bad judge stop it with what finished kept."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from spanproof.graders.cache import VerdictCache
from spanproof.graders.judges import make_judge
from spanproof.graders.verify import Verifier
from spanproof.graders.verify_pool import PoolJudging, WorkerCrashed
from spanproof.graders.verify_stream import StreamPair, stream_in_process

from spanproof.cli import cli

ROOT = Path(__file__).resolve().parents[2]
WICE = ROOT / "goldens" / "wice_dev_pairs.jsonl"


def _wice(n: int) -> list[dict]:
    return [json.loads(line) for line in WICE.read_text().splitlines()[:n]]


def _stream_pairs(rows: list[dict]) -> list[StreamPair]:
    return [StreamPair(r["id"], r["claim"], r["span"]) for r in rows]


async def _collect(agen) -> list:
    return [j async for j in agen]


def test_worker_processes_give_the_rows_of_one_process_in_input_order(tmp_path):
    rows = _wice(48)
    pairs = _stream_pairs(rows)
    one = asyncio.run(
        _collect(stream_in_process(Verifier([make_judge("rules")], cache=None), pairs, window=8))
    )
    pool = PoolJudging(["rules"], [make_judge("rules")], policy="all-must-support",
                       cache=None, workers=2, chunk=5)  # fmt: skip
    many = asyncio.run(_collect(pool.stream(pairs)))
    assert [j.row for j in many] == [j.row for j in one]
    assert [json.loads(j.row)["id"] for j in many] == [r["id"] for r in rows]
    assert pool.counters.model_calls == len(rows) and pool.done == len(rows)


def test_a_panel_in_workers_combines_as_in_one_process():
    pairs = _stream_pairs(_wice(12))
    specs = ["rules", "blind"]
    one = asyncio.run(
        _collect(stream_in_process(Verifier([make_judge(s) for s in specs]), pairs, window=4))
    )
    pool = PoolJudging(specs, [make_judge(s) for s in specs], policy="all-must-support",
                       cache=None, workers=2, chunk=4)  # fmt: skip
    assert [j.row for j in asyncio.run(_collect(pool.stream(pairs)))] == [j.row for j in one]


def test_workers_share_the_verdict_cache_through_the_parent(tmp_path):
    pairs = _stream_pairs(_wice(20))
    cache = VerdictCache(tmp_path / "v.sqlite")
    pool = PoolJudging(["rules"], [make_judge("rules")], policy="all-must-support",
                       cache=cache, workers=2, chunk=6)  # fmt: skip
    first = asyncio.run(_collect(pool.stream(pairs)))
    assert (pool.counters.model_calls, pool.counters.cache_hits) == (20, 0)
    assert len(cache) == 20
    # one process, same cache: every verdict is a hit, and the rows are the same
    verifier = Verifier([make_judge("rules")], cache=cache)
    again = asyncio.run(_collect(stream_in_process(verifier, pairs, window=8)))
    assert (verifier.model_calls, verifier.cache_hits) == (0, 20)
    assert [j.row for j in again] == [j.row for j in first]
    # and workers answer from it too
    pool2 = PoolJudging(["rules"], [make_judge("rules")], policy="all-must-support",
                        cache=cache, workers=1, chunk=6)  # fmt: skip
    asyncio.run(_collect(pool2.stream(pairs)))
    assert (pool2.counters.model_calls, pool2.counters.cache_hits) == (0, 20)


# the pool's manager thread must not die on a chunk cancelled under it (a traceback printed
# after the one clear error): pytest reports a thread's unhandled exception as this warning
@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_worker_that_dies_is_a_clear_error_not_a_hang():
    pairs = _stream_pairs(_wice(60)) * 20  # long enough to be killed half way

    async def run() -> int:
        pool = PoolJudging(["rules"], [make_judge("rules")], policy="all-must-support",
                           cache=None, workers=2, chunk=8)  # fmt: skip
        got = 0
        async for _ in pool.stream(pairs):
            got += 1
            if got == 8:
                victim = multiprocessing.active_children()[0]
                os.kill(victim.pid, signal.SIGKILL)  # as the out-of-memory killer would
        return got

    # How far it got depends on whether the other worker's next chunk came back before the
    # kill was seen: at least the 8 pairs read, never the whole file.
    with pytest.raises(WorkerCrashed, match=r"stopped unexpectedly after \d+ pairs") as crashed:
        asyncio.run(run())
    done = int(re.search(r"after (\d+) pairs", str(crashed.value)).group(1))
    assert 8 <= done < len(pairs) and done % 8 == 0
    time.sleep(0.5)
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]


def test_a_scripted_judge_without_an_entry_stops_the_workers_with_its_reason(tmp_path):
    script = tmp_path / "script.jsonl"
    script.write_text(json.dumps({"id": "wice-nope", "verdict": "SUPPORTED"}) + "\n")
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(r) + "\n" for r in _wice(30)))
    result = CliRunner().invoke(cli, ["verify", "--pairs", str(pairs), "--judge",
                                      f"scripted:{script}", "--workers", "2", "--no-cache",
                                      "--home", str(tmp_path / "home")])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "error:" in result.output and "Traceback" not in result.output


def _verify(args: list[str], home: Path):
    return CliRunner().invoke(cli, ["verify", *args, "--home", str(home)])


def test_cli_workers_and_one_process_write_the_same_file_and_document(tmp_path):
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(r) + "\n" for r in _wice(40)))
    docs, files = [], []
    for n in ("1", "2"):
        out = tmp_path / f"v{n}.jsonl"
        res = _verify(["--pairs", str(pairs), "--workers", n, "--json", "--out", str(out),
                       "--no-cache"], tmp_path / f"home{n}")  # fmt: skip
        assert res.exit_code == 0, res.output
        docs.append(json.loads(res.stdout))
        files.append(out.read_text())
    assert files[0] == files[1]
    for d in docs:
        d.pop("out")
    assert docs[0] == docs[1]
    # without --out the rows follow the summary in the document, written as json.dumps would
    res = _verify(["--pairs", str(pairs), "--workers", "2", "--json", "--no-cache"],
                  tmp_path / "home3")  # fmt: skip
    doc = json.loads(res.stdout)
    assert list(doc)[-1] == "results"
    assert [json.dumps(r, ensure_ascii=False) for r in doc["results"]] == files[0].splitlines()
    assert res.stdout.rstrip("\n") == json.dumps(doc, ensure_ascii=False)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_keeps_what_finished_and_leaves_no_worker_behind(tmp_path, sig, code):
    rows = _wice(120)
    pairs = tmp_path / "pairs.jsonl"
    with pairs.open("w") as f:
        for rep in range(25):
            for r in rows:
                f.write(json.dumps({**r, "id": f"{r['id']}-{rep}"}) + "\n")
    out = tmp_path / "v.jsonl"
    cmd = [sys.executable, "-c", "from spanproof.cli import main; main()", "verify", "--pairs",
           str(pairs), "--workers", "2", "--out", str(out), "--home", str(tmp_path / "home")]  # fmt: skip
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        tmp = list(tmp_path.glob(".v.jsonl.*.tmp"))
        if tmp and tmp[0].stat().st_size > 0:
            break
        time.sleep(0.2)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, sig)  # Ctrl-C (or a CI's SIGTERM) reaches the parent and its workers
    # a busy machine can take a while to end the chunk in flight; a hang still fails here
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == code, err
    assert "interrupted" in err and "rerun to finish" in err
    partial = tmp_path / "v.jsonl.partial"
    assert partial.exists() and not out.exists()
    kept = [json.loads(line) for line in partial.read_text().splitlines()]
    ids = [json.loads(line)["id"] for line in pairs.read_text().splitlines()]
    assert 0 < len(kept) < len(ids)
    assert [r["id"] for r in kept] == ids[: len(kept)]  # a prefix, in input order
    assert not list(tmp_path.glob(".v.jsonl.*.tmp"))
    # no worker outlives the command (multiprocessing's resource tracker exits when the
    # command's end closes its pipe: give it a moment)
    left = ""
    for _ in range(50):
        left = subprocess.run(["pgrep", "-a", "-g", str(proc.pid)], capture_output=True,
                              text=True).stdout.strip()  # fmt: skip
        if not left:
            break
        time.sleep(0.2)
    assert left == ""


def test_the_compact_tally_gives_the_metrics_of_the_verdicts_themselves():
    from spanproof.graders.verify_stream import judged

    from spanproof.bench.verify import Tally, label_metrics
    from spanproof.core.verdict import Verdict

    verdicts = [
        Verdict(verdict="SUPPORTED", judge_verdict="SUPPORTED", confidence=0.8),
        Verdict(verdict="PARTIAL", judge_verdict="SUPPORTED", confidence=0.55),
        Verdict(verdict="NOT_SUPPORTED", judge_verdict=None, confidence=None),
        Verdict(verdict="NOT_SUPPORTED", error="TimeoutError: no reply"),
        Verdict(verdict="NOT_SUPPORTED", judge_verdict="PARTIAL", confidence=0.4),
    ]
    labels = ["SUPPORTED", "PARTIAL", "NOT_SUPPORTED", "SUPPORTED", "NOT_SUPPORTED"]
    tally = Tally(keep_for_metrics=True)
    for i, (v, label) in enumerate(zip(verdicts, labels, strict=True)):
        tally.add(judged(str(i), v), label)
    assert tally.metrics(label_metrics) == label_metrics(labels, verdicts)
    assert (tally.errors, tally.first_error) == (1, "TimeoutError: no reply")


HALF_SENT = """
import os, struct, sys, time
def half_sent(marker):
    # what a worker killed while sending its result leaves: a length and part of the message
    queue = sys._getframe(1).f_locals["result_queue"]
    os.write(queue._writer.fileno(), struct.pack("!i", 1 << 20) + b"x" * 10)
    open(marker, "w").close()
    time.sleep(600)
"""

STOP = """
import multiprocessing, os, sys, time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
sys.path.insert(0, {folder!r})
import half_sent
from spanproof.graders.verify_pool import _stop
if __name__ == "__main__":
    pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
    future = pool.submit(half_sent.half_sent, {marker!r})
    while not os.path.exists({marker!r}):
        time.sleep(0.05)
    _stop(pool, deque([future]))
    print("stopped")
"""


def test_a_worker_killed_mid_result_does_not_hang_the_stopped_command(tmp_path):
    # The pool's manager thread waits for the rest of a half-sent result forever and the
    # interpreter waits for that thread at exit: a stopped verify that never ended.
    (tmp_path / "half_sent.py").write_text(HALF_SENT)
    script = tmp_path / "stop.py"
    script.write_text(STOP.format(folder=str(tmp_path), marker=str(tmp_path / "sent")))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120)  # fmt: skip
    assert done.returncode == 0 and done.stdout.strip() == "stopped", done.stderr[-2000:]
