"""Every way a gate ends is recorded: a failing phase, Ctrl-C, SIGTERM, the deadline, a lost
database, a dead model endpoint. Each keeps the rows that finished, marks the others, writes
JUnit, and exits 2 (130 / 143 for the signals); a dead endpoint is not called phase after
phase."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from spanproof.cli.gate import gate
from spanproof.gate.result import GateResult
from spanproof.gate.store import UNRECORDED_DIR, GateStore

from ..wire.server import ChatServer, honest_judge


def _pairs(path: Path, n: int) -> Path:
    path.write_text("".join(json.dumps({"id": f"c{i}", "claim": f"Claim {i} about the budget.",
                                        "span": f"The budget passed on day {i}.",
                                        "label": "SUPPORTED"}) + "\n"
                            for i in range(n)))  # fmt: skip
    return path


def _judge_config(tmp_path: Path, checks: str, n: int = 40) -> Path:
    cal = _pairs(tmp_path / "cal.jsonl", n)
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'checks = {checks}\nrequired = {checks}\ncalibration_set = "{cal}"\n'
                   f'sensitivity_set = "{cal}"\njudge = "openai:slow"\n')  # fmt: skip
    return cfg


def _junit_cases(path: Path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    return {case.get("name"): case for case in root.iter("testcase")}


def _start_gate(args: list[str], env: dict[str, str]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", "from spanproof.cli import main; main()", "gate", *args],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # as a terminal starts it: a background job of a non-interactive shell inherits SIGINT
        # ignored, and the gate then rightly ignores it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def _signal_mid_run(tmp_path: Path, sig: int) -> tuple[subprocess.Popen, str, Path, Path]:
    cfg = _judge_config(tmp_path, '["calibration", "sensitivity"]')
    home, junit = tmp_path / "home", tmp_path / "out" / "gate.xml"
    with ChatServer(one_at_a_time=True, latency_s=0.2) as server:
        env = dict(os.environ, SPANPROOF_HOME=str(home), OPENAI_API_KEY="local",
                   OPENAI_BASE_URL=server.base_url)  # fmt: skip
        proc = _start_gate(["--config", str(cfg), "--junit", str(junit)], env)
        deadline = time.monotonic() + 60
        while server.count < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.count >= 2, "the gate never reached the judge"
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
            pytest.fail(f"the gate went on for 120 s after the signal:\n{err[-3000:]}")
    return proc, err, home, junit


def test_sigterm_records_what_ran_writes_junit_and_exits_143(tmp_path):
    proc, err, home, junit = _signal_mid_run(tmp_path, signal.SIGTERM)
    assert proc.returncode == 143, err
    assert "stopped by SIGTERM" in err and "recorded" in err
    (stored,) = GateStore.default(home).list()
    assert stored.exit_code == 143 and stored.artifacts.stopped.reason == "terminate"
    assert {r.check for r in stored.checks} == {"calibration", "sensitivity"}
    assert all("stopped by SIGTERM before this check finished" in r.detail for r in stored.checks)
    cases = _junit_cases(junit)
    assert set(cases) == {r.name for r in stored.checks}
    assert all(case.find("error") is not None for case in cases.values())


def test_the_deadline_records_the_run_marks_the_unfinished_rows_and_exits_2(tmp_path):
    cfg = _judge_config(tmp_path, '["calibration", "sensitivity"]', n=3)
    home, junit = tmp_path / "home", tmp_path / "gate.xml"
    md = tmp_path / "gate.md"
    with ChatServer(hang_after(0, hang_s=60)) as server:
        result = CliRunner().invoke(gate, [
            "--config", str(cfg), "--home", str(home), "--junit", str(junit), "--markdown", str(md),
            "--base-url", server.base_url, "--api-key", "local", "--deadline", "3",
        ])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "reached its --deadline of 3 s" in result.stderr
    (stored,) = GateStore.default(home).list()
    assert stored.exit_code == 2 and stored.artifacts.stopped.reason == "deadline"
    assert all("deadline was reached before this check finished" in r.detail
               for r in stored.checks)  # fmt: skip
    assert set(_junit_cases(junit)) == {r.name for r in stored.checks}
    assert "deadline was reached" in md.read_text()


async def test_a_stopped_gate_keeps_the_rows_that_finished(tmp_path):
    """Calibration finishes, then the judge hangs in sensitivity and the gate is stopped: the
    calibration rows are kept as measured, the sensitivity row says why it has no value."""
    import asyncio

    from spanproof.core.specs import EndpointSettings
    from spanproof.gate.config import load_config
    from spanproof.gate.run import run_gate

    cfg, _ = load_config(_judge_config(tmp_path, '["calibration", "sensitivity"]', n=3))
    why: list[str] = []
    with ChatServer(hang_after(3, hang_s=60)) as server:
        server.hanging = threading.Event()
        task = asyncio.create_task(run_gate(
            cfg, home=tmp_path / "home", stop=lambda: why[0] if why else None,
            endpoint=EndpointSettings(base_url=server.base_url, api_key="local"),
        ))  # fmt: skip
        assert await asyncio.to_thread(server.hanging.wait, 60), "the judge never hung"
        why.append("deadline")
        task.cancel()
        result = await task  # a stop asked for through `stop` returns the recorded result
    rows = {r.name: r for r in result.checks}
    assert result.exit_code == 2
    assert rows["calibration.agreement"].status in ("pass", "fail", "not_tested")
    assert rows["calibration.agreement"].value is not None  # measured before the deadline
    assert rows["sensitivity.run"].status == "error"
    assert "deadline was reached before this check finished" in rows["sensitivity.run"].detail
    (stored,) = GateStore.default(tmp_path / "home").list()
    assert [r.name for r in stored.checks] == [r.name for r in result.checks]


def hang_after(answered: int, hang_s: float):
    """A judge that answers ``answered`` requests, then hangs (``server.hanging`` is set)."""

    def behave(body, server):
        if server.count > answered:
            if hasattr(server, "hanging"):
                server.hanging.set()
            server.release.wait(hang_s)
        return honest_judge(body, server)

    return behave


def test_the_gate_config_has_a_deadline_by_default():
    from spanproof.gate.config import GateConfig

    assert 0 < GateConfig().deadline_s <= 4 * 3600


def test_a_phase_that_fails_after_the_web_opened_is_recorded_with_plain_json(tmp_path, corpus_dir):
    """A damaged snapshot fails the agent runs after the offline web (a live index) was opened:
    the gate records its rows (no live object in the result) and writes JUnit; exit 2."""
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'corpus_dir = "{corpus_dir}"\nmax_questions = 1\n'
                   'checks = ["span_fidelity", "groundedness"]\n'
                   'required = ["span_fidelity", "groundedness"]\n')  # fmt: skip
    home = tmp_path / "home"
    first = CliRunner().invoke(gate, ["--config", str(cfg), "--home", str(home), "--json"])
    assert first.exit_code in (0, 1), first.output
    warc = home / "snapshots" / "snapshots.warc.gz"
    data = bytearray(warc.read_bytes())
    for i in range(len(data) // 3, len(data) // 3 + 64):
        data[i] ^= 0xFF
    warc.write_bytes(bytes(data))
    junit = tmp_path / "gate.xml"
    second = CliRunner().invoke(gate, ["--config", str(cfg), "--home", str(home),
                                       "--junit", str(junit)])  # fmt: skip
    assert second.exit_code == 2, second.output
    assert "Traceback" not in second.output
    last = GateStore.default(home).list()[-1]
    assert last.exit_code == 2
    assert all(r.status == "error" and "SnapshotDamaged" in r.detail for r in last.checks)
    json.dumps(last.artifacts.model_dump(mode="json"))  # plain JSON
    assert all(c.find("error") is not None for c in _junit_cases(junit).values())


def test_a_live_object_in_the_artifacts_is_refused_when_the_result_is_made():
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        GateResult(passed=False, exit_code=2, checks=[], wall_s=0.0,
                   artifacts={"env": threading.Lock()})  # fmt: skip


def _dead_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again: nothing listens there


def test_a_dead_endpoint_stops_the_gate_at_the_first_phase_that_proves_it(tmp_path):
    cfg = _judge_config(tmp_path, '["calibration", "sensitivity", "injection"]', n=12)
    home, junit = tmp_path / "home", tmp_path / "gate.xml"
    result = CliRunner().invoke(gate, [
        "--config", str(cfg), "--home", str(home), "--junit", str(junit), "--json",
        "--base-url", f"http://127.0.0.1:{_dead_port()}/v1", "--api-key", "local",
    ])  # fmt: skip
    assert result.exit_code == 2, result.output
    stored = GateStore.default(home).list()[-1]
    rows = {r.check: r for r in stored.checks}
    assert "never reached" in rows["calibration"].detail
    for later in ("sensitivity", "injection"):
        assert rows[later].status == "error"
        assert "proved dead in calibration" in rows[later].detail
    # three calls proved it; no phase after it called the endpoint again
    assert stored.artifacts.model_traffic.requests == 3
    assert set(stored.phase_model_calls) <= {"calibration"}
    assert len(_junit_cases(junit)) == len(stored.checks)


def test_a_refused_api_key_opens_the_circuit_at_once(tmp_path):
    import asyncio

    from spanproof.core.specs import EndpointSettings
    from spanproof.wire import CircuitOpen, EndpointConfigError, client_for, forget_clients

    from ..wire.server import status_forever

    forget_clients()
    with ChatServer(status_forever(401, "bad key")) as server:
        client = client_for("m", EndpointSettings(base_url=server.base_url, api_key="x"))

        async def twice():
            with pytest.raises(EndpointConfigError):
                await client.chat(messages=[{"role": "user", "content": "hi"}])
            with pytest.raises(CircuitOpen, match="refused the API key"):
                await client.chat(messages=[{"role": "user", "content": "hi"}])
            await client.aclose()

        asyncio.run(twice())
        assert server.count == 1
    forget_clients()


def test_a_lost_database_keeps_the_result_in_the_home_writes_junit_and_exits_2(tmp_path):
    """PostgreSQL stops while the gate judges: the phase fails, the later ones do not run, the
    result the store cannot take is kept as JSON under the home, JUnit is written, exit 2."""
    from spanproof.store import close_all
    from tests.store.pg import start_server

    try:
        server = start_server()  # its own server: this test stops it
    except FileNotFoundError as exc:
        if os.environ.get("CI"):
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    try:
        url = server.create_database()
        stopped = threading.Event()

        def stop_database_then_judge(body, chat):
            if not stopped.is_set():
                server._run(str(server.bindir / "pg_ctl"), "-D", str(server.root / "data"),
                            "-m", "immediate", "-w", "stop")  # fmt: skip
                stopped.set()
            return honest_judge(body, chat)

        cfg = _judge_config(tmp_path, '["calibration", "sensitivity"]', n=4)
        home, junit = tmp_path / "home", tmp_path / "gate.xml"
        with ChatServer(stop_database_then_judge) as chat:
            result = CliRunner().invoke(gate, [
                "--config", str(cfg), "--home", str(home), "--db", url, "--junit", str(junit),
                "--base-url", chat.base_url, "--api-key", "local",
            ])  # fmt: skip
        assert stopped.is_set()
    finally:
        close_all()
        server.stop()
    assert result.exit_code == 2, result.output
    assert "could not be recorded in the store" in result.stderr
    assert "Traceback" not in result.output
    (kept,) = (home / UNRECORDED_DIR).glob("*.json")
    saved = GateResult.model_validate_json(kept.read_text())
    assert saved.exit_code == 2 and saved.artifacts.not_recorded.kept_in == str(kept)
    rows = {r.check: r for r in saved.checks}
    assert "StoreUnavailable" in rows["calibration"].detail
    assert "the store could not be reached in calibration" in rows["sensitivity"].detail
    assert set(_junit_cases(junit)) == {r.name for r in saved.checks}
