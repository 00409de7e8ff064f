"""The gate's agent runs side by side against a real local tool-calling server: question order
kept whatever order runs finish in, Ctrl-C keeps every finished run, a dead endpoint stops
every run with one cause, and a one-at-a-time CPU server still sees at most two requests."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from spanproof.agent.runstore import parse_record

from spanproof.gate.checks.runs import load_questions
from spanproof.gate.config import AGENT_CHECKS
from spanproof.gate.store import GateStore
from spanproof.store import open_store

from .conftest import run_cli
from .research_server import research_model
from .server import ChatServer

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "goldens" / "corpus"
GOLDEN = load_questions(REPO / "goldens" / "questions.jsonl", 6)


def _config(tmp_path: Path, n: int, **extra: object) -> Path:
    cfg = tmp_path / "gate.toml"
    lines = [f'corpus_dir = "{CORPUS}"', f"max_questions = {n}", 'policy = "llm"',
             'model = "openai:research"', f"checks = {json.dumps(list(AGENT_CHECKS))}",
             f"required = {json.dumps(list(AGENT_CHECKS))}"]  # fmt: skip
    lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    cfg.write_text("\n".join(lines) + "\n")
    return cfg


def _questions_of(home: Path, run_ids: list[str]) -> list[str]:
    store = open_store(home=home)
    return [parse_record(r, store.get_run(r).record).question for r in run_ids]


class SlowFirst:
    """The research model, slow on the first golden question: later questions finish first."""

    def __init__(self, slow_question: str, delay_s: float) -> None:
        self.slow_question, self.delay_s = slow_question, delay_s
        self.drafted: list[str] = []  # questions, in the order their drafts were sent

    def question_of(self, body: dict) -> str:
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        return next((q.question for q in GOLDEN if q.question in user), "")

    def __call__(self, body: dict, server: ChatServer):
        question = self.question_of(body)
        if question == self.slow_question:
            time.sleep(self.delay_s)
        reply = research_model(body, server)
        if b'"draft_answer"' in reply.get_data() and question:
            self.drafted.append(question)
        return reply


def test_runs_finishing_in_any_order_keep_question_order(tmp_path):
    slow = SlowFirst(GOLDEN[0].question, 0.4)
    home = tmp_path / "home"
    with ChatServer(slow) as server:
        result = run_cli("gate", "--config", str(_config(tmp_path, 4)), "--home", str(home),
                         "--base-url", server.base_url, "--api-key", "local")  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    order = [q.question for q in GOLDEN[:4]]
    assert slow.drafted[-1] == order[0] and slow.drafted != order  # finished out of order
    assert server.peak_in_flight > 1  # really side by side
    (stored,) = GateStore.default(home).list()
    assert _questions_of(home, stored.run_ids) == order  # records and views: question order
    progress = [ln for ln in result.stderr.splitlines() if ln.startswith("[gate]   ")
                and "/4 " in ln]  # fmt: skip
    assert [ln.split()[1] for ln in progress] == ["1/4", "2/4", "3/4", "4/4"]
    assert [ln.split()[2].rstrip(":") for ln in progress] == [q.id for q in GOLDEN[:4]]
    ledgers = list(stored.ledgers)
    assert ledgers == stored.run_ids  # every output keyed in the same order


def test_ctrl_c_during_side_by_side_runs_exits_130_with_every_finished_run(tmp_path):
    """The first question never finishes; the others do, and are recorded, behind it."""
    home = tmp_path / "home"
    first = GOLDEN[0].question

    def hang_first(body, server):
        user = next(m["content"] for m in body["messages"] if m["role"] == "user")
        # past its first request (which opens the endpoint's window, alone)
        if first in user and any(m["role"] == "tool" for m in body["messages"]):
            server.release.wait(120)
        return research_model(body, server)

    with ChatServer(hang_first) as server:
        env = dict(os.environ, SPANPROOF_HOME=str(home), OPENAI_API_KEY="local",
                   OPENAI_BASE_URL=server.base_url)  # fmt: skip
        proc = subprocess.Popen(
            [sys.executable, "-c", "from spanproof.cli import main; main()", "gate",
             "--config", str(_config(tmp_path, 4))],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # fmt: skip
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if _finished_runs(home) >= 3:
                break
            time.sleep(0.1)
        else:
            proc.kill()
            pytest.fail(f"three runs never finished:\n{proc.communicate()[1][-3000:]}")
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            pytest.fail(
                f"the gate went on for 120 s after Ctrl-C:\n{proc.communicate()[1][-3000:]}"
            )
    assert proc.returncode == 130, err
    (stored,) = GateStore.default(home).list()
    assert stored.exit_code == 130 and stored.artifacts.stopped.reason == "interrupt"
    # the three that finished behind the one that never did, in question order
    assert _questions_of(home, stored.run_ids) == [q.question for q in GOLDEN[1:4]]


def _finished_runs(home: Path) -> int:
    try:
        page = open_store(home=home).list_runs(kind="gate")
    except Exception:  # the database is being created
        return 0
    return sum(r.status == "complete" for r in page.items)


def test_a_dead_endpoint_stops_every_run_at_once_with_one_cause(tmp_path, fast_backoff):
    def refused(body, server):
        from .server import error

        return error(401, "Incorrect API key provided", kind="invalid_request_error",
                     code="invalid_api_key")  # fmt: skip

    home = tmp_path / "home"
    with ChatServer(refused) as server:
        result = run_cli("gate", "--config", str(_config(tmp_path, 6)), "--home", str(home),
                         "--base-url", server.base_url, "--api-key", "local", "--json")  # fmt: skip
    assert result.exit_code == 2, result.output
    rows = json.loads(result.stdout)["checks"]
    causes = {r["detail"] for r in rows}
    assert len(causes) == 1, causes  # one cause, on every row
    cause = causes.pop()
    assert cause.startswith("could not run: agent runs:") and "API key" in cause, cause
    # every run stopped at once: the one request that proved the key refused, not six runs
    # each failing in turn
    assert server.count == 1


def test_a_one_at_a_time_cpu_server_sees_at_most_two_requests_and_no_timeouts(tmp_path):
    home = tmp_path / "home"
    with ChatServer(research_model, one_at_a_time=True, latency_s=0.3) as server:
        result = run_cli("gate", "--config", str(_config(tmp_path, 4, runs_in_flight=8)),
                         "--home", str(home), "--base-url", server.base_url, "--api-key", "local",
                         "--timeout", "6")  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    assert server.peak_in_flight <= 2
    (stored,) = GateStore.default(home).list()
    traffic = stored.artifacts.model_traffic
    assert traffic is not None and "timeout" not in traffic.errors, traffic
    assert len(stored.run_ids) == 4
