"""The audit of a model judge's verdicts in worker processes: the same findings and the same
rows as auditing on the event loop; a worker that dies stops the run, never a verdict
without its audit."""

from __future__ import annotations

import asyncio
import json
import os
import signal
from pathlib import Path

import pytest
from click.testing import CliRunner
from spanproof.graders.audit_pool import AuditPool
from spanproof.graders.findings import pair_findings
from spanproof.graders.verify_pool import WorkerCrashed

from spanproof.cli import cli
from tests.wire.server import ChatServer, honest_judge

ROOT = Path(__file__).resolve().parents[2]
WICE = ROOT / "goldens" / "wice_dev_pairs.jsonl"


def _wice(n: int) -> list[dict]:
    return [json.loads(line) for line in WICE.read_text().splitlines()[:n]]


def test_workers_find_what_this_process_finds():
    rows = _wice(40)
    pool = AuditPool(2)

    async def all_findings():
        return await asyncio.gather(*(pool.findings(r["claim"], r["span"]) for r in rows))

    try:
        found = asyncio.run(all_findings())
    finally:
        pool.close()
    here = [pair_findings(r["claim"], r["span"]) for r in rows]
    assert found == here
    assert any(f.flags for f in here)  # the comparison covers real findings
    assert pool.done == len(rows)


def test_pairs_asked_together_travel_in_chunks_and_a_lone_pair_does_not_wait():
    # one work item a pair was half a millisecond of the parent's CPU (pickling, queueing,
    # handing back to the loop) on the process whose loop sends the model calls
    from spanproof.graders.audit_pool import CHUNK

    rows = _wice(2 * CHUNK + 3)
    pool = AuditPool(2)
    sent: list[int] = []
    submit = pool._pool.submit

    def counting(fn, *args, **kwargs):
        if args and isinstance(args[0], list):
            sent.append(len(args[0]))
        return submit(fn, *args, **kwargs)

    pool._pool.submit = counting
    # the workers' start-up first: pairs waiting on it wake one by one (each on its own
    # wrapped future), and on a busy machine in different turns of the loop
    pool._ready.result(timeout=300)

    async def together_then_alone():
        found = await asyncio.gather(*(pool.findings(r["claim"], r["span"]) for r in rows))
        alone = [await pool.findings(r["claim"], r["span"]) for r in rows[:2]]
        return found, alone

    try:
        found, alone = asyncio.run(together_then_alone())
    finally:
        pool.close()
    assert sent == [CHUNK, CHUNK, 3, 1, 1]
    assert found == [pair_findings(r["claim"], r["span"]) for r in rows]
    assert alone == found[:2]


def test_a_model_judges_rows_are_the_same_audited_in_workers(tmp_path):
    rows = _wice(60)
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    outputs = []
    with ChatServer(honest_judge) as server:  # SUPPORTED with a real quote, every pair
        for workers in ("1", "2"):
            out = tmp_path / f"v{workers}.jsonl"
            res = CliRunner().invoke(cli, [
                "verify", "--pairs", str(pairs), "--judge", "openai:bench-judge", "--base-url",
                server.base_url, "--api-key", "local", "--no-cache", "--workers", workers,
                "--home", str(tmp_path / f"home{workers}"), "--out", str(out), "--json",
            ])  # fmt: skip
            assert res.exit_code == 0, res.output
            outputs.append(out.read_text())
    assert outputs[0] == outputs[1]
    verdicts = [json.loads(line) for line in outputs[0].splitlines()]
    assert len(verdicts) == len(rows)
    # the audit ran: code lowered some of the judge's SUPPORTED verdicts and flagged others
    assert any(v["proofs"] and v["verdict"] != "SUPPORTED" for v in verdicts)
    assert any(v["flags"] for v in verdicts)


def test_a_dead_audit_worker_is_an_error_not_a_verdict():
    pool = AuditPool(1)
    row = _wice(1)[0]

    async def kill_then_ask():
        await pool.findings(row["claim"], row["span"])  # the worker is up
        for process in list(pool._pool._processes.values()):
            os.kill(process.pid, signal.SIGKILL)
        await asyncio.sleep(0.5)
        return await pool.findings(row["claim"], row["span"])

    try:
        with pytest.raises(WorkerCrashed, match="audit worker process stopped"):
            asyncio.run(kill_then_ask())
    finally:
        pool.close(finished=False)


def test_workers_run_at_a_lower_priority_than_the_loop_that_sends_the_model_calls():
    # on two cores, workers at the loop's own priority took the CPU the loop needed to read
    # replies (and a local model server needed to answer): the first reply of a verify run
    # came after 2 s instead of 0.2 s
    from spanproof.graders.audit_fork_server import WORKER_NICENESS

    pool = AuditPool(1)
    try:
        assert asyncio.run(pool.findings("It rose 5%.", "It rose 5%.")) is not None
        niceness = pool._pool.submit(os.nice, 0).result(timeout=60)
    finally:
        pool.close()
    assert niceness == min(19, os.nice(0) + WORKER_NICENESS) > os.nice(0)


def test_the_fork_server_loads_the_audit_at_the_workers_priority_and_they_keep_theirs():
    # the fork server loads the audit's modules and tables (a second of CPU) while the first
    # model call is out; at the loop's priority it took the CPU that reply needed, the
    # limiter read a late first reply as a slow server and opened the window at 2
    from multiprocessing import forkserver

    from spanproof.graders.audit_fork_server import WORKER_NICENESS

    pool = AuditPool(1)
    try:
        assert asyncio.run(pool.findings("It rose 5%.", "It rose 5%.")) is not None
        server = forkserver._forkserver._forkserver_pid
        assert server is not None
        server_niceness = os.getpriority(os.PRIO_PROCESS, server)
        worker_niceness = pool._pool.submit(os.nice, 0).result(timeout=60)
    finally:
        pool.close()
    expected = min(19, os.nice(0) + WORKER_NICENESS)
    assert server_niceness == expected > os.nice(0)
    assert worker_niceness == expected  # not lowered twice (the server's and its own)


def _audit_loaded_before_the_worker_started() -> bool:
    """In a worker: whether the process it was forked from had already imported the audit's
    preload (a spawned worker imports it, if ever, only in its own initializer)."""
    import sys

    return "spanproof.graders.audit_preload" in sys.modules


def test_workers_are_forked_from_a_server_that_loaded_the_audit_once():
    # each spawned worker imported the audit and loaded its tables again (about a second of
    # CPU each); forked from the fork server, they start with them
    pool = AuditPool(2)
    try:
        assert asyncio.run(pool.findings("It rose 5%.", "It rose 5%.")) is not None
        assert pool._pool.submit(_audit_loaded_before_the_worker_started).result(timeout=60)
    finally:
        pool.close()
    # the fork server ended with the pool: nothing outlives the command, and its CPU counts
    from multiprocessing import forkserver

    assert forkserver._forkserver._forkserver_pid is None


def test_workers_that_cannot_be_started_are_an_error_for_every_pair(monkeypatch):
    # the workers start from a thread of their own; what stops them must still reach every
    # findings() call, never leave a pair waiting or give it a verdict without its audit
    from spanproof.graders import audit_pool

    class NoWorkers(audit_pool.ProcessPoolExecutor):
        def submit(self, fn, /, *args, **kwargs):
            raise OSError("no process can be started (planted)")

    monkeypatch.setattr(audit_pool, "ProcessPoolExecutor", NoWorkers)
    pool = AuditPool(2)

    async def two_pairs():
        return await asyncio.gather(
            pool.findings("It rose 5%.", "It rose 5%."),
            pool.findings("It fell.", "It fell."),
            return_exceptions=True,
        )

    try:
        found = asyncio.run(two_pairs())
    finally:
        pool.close(finished=False)
    assert [type(f) for f in found] == [OSError, OSError]
    assert all("planted" in str(f) for f in found)


def test_a_preload_that_fails_leaves_the_loading_to_each_worker(monkeypatch):
    # the fork server would die of an error raised while it preloads: the preload swallows it
    # and each worker's own start-up loads the tables (and fails the run if it cannot)
    import importlib

    from spanproof.graders import audit_pool

    # the preload ignores Ctrl-C for the fork server it runs in; not for this test process
    monkeypatch.setattr(signal, "signal", lambda *_: None)
    from spanproof.graders import audit_preload

    def broken() -> None:
        raise FileNotFoundError("a table is missing (planted)")

    monkeypatch.setattr(audit_pool, "load_everything", broken)
    importlib.reload(audit_preload)  # does not raise
    monkeypatch.undo()
    monkeypatch.setattr(signal, "signal", lambda *_: None)
    importlib.reload(audit_preload)


def _parent(pid: int) -> int | None:
    try:  # the field after the (parenthesised) command name and the state
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):  # ended meanwhile
        return None


@pytest.mark.parametrize("victim", ["worker", "fork server"])
def test_a_worker_killed_mid_run_ends_verify_with_one_clear_error(tmp_path, victim):
    # the run's other pairs' audits fail with the same broken pool: each is read, so the user
    # sees the one error that says what happened, not a traceback for every pair in flight.
    # The fork server the workers start from, killed, failed the next start with EOFError,
    # which ended verify with click's bare "Aborted!" and exit 1.
    import subprocess
    import sys
    import time

    rows = _wice(120) * 10
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text(
        "".join(json.dumps({**r, "id": f"{r['id']}-{i}"}) + "\n" for i, r in enumerate(rows))
    )
    with ChatServer(honest_judge, latency_s=0.05) as server:
        cmd = [sys.executable, "-c", "from spanproof.cli import main; main()", "verify",
               "--pairs", str(pairs), "--judge", "openai:bench-judge", "--base-url",
               server.base_url, "--api-key", "local", "--no-cache", "--workers", "2",
               "--concurrency", "16", "--home", str(tmp_path / "home")]  # fmt: skip
        proc = subprocess.Popen(
            cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        killed = False
        deadline = time.monotonic() + 120
        while not killed and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.5)
            # the workers are forked by a fork server, so they are the command's session's
            kids = subprocess.run(["pgrep", "-s", str(proc.pid)], capture_output=True,
                                  text=True).stdout.split()  # fmt: skip
            for pid in kids:
                # a process at a lower priority than the command: the fork server the workers
                # are forked from (the command is its parent), or an audit worker (it is not)
                parent = _parent(int(pid))
                ours = parent == proc.pid if victim == "fork server" else parent not in (
                    proc.pid, None)  # fmt: skip
                if ours and os.getpriority(os.PRIO_PROCESS, int(pid)) > os.getpriority(
                    os.PRIO_PROCESS, proc.pid
                ):
                    os.kill(int(pid), signal.SIGKILL)
                    killed = True
        _, err = proc.communicate(timeout=180)
    assert killed, err
    if victim == "fork server" and proc.returncode == 0:
        return  # both workers had started before it was killed: the run needs it no more
    assert proc.returncode == 2, err
    assert "audit worker process stopped unexpectedly" in err
    assert "Task exception was never retrieved" not in err and "Traceback" not in err
    assert "Aborted!" not in err
