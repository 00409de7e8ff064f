"""The agent's model and the rubric judge against servers that lack what spanproof asks for:
no tool calling, non-JSON rubric replies, HTTP 500; and Ctrl-C on a gate that calls a model."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from spanproof.agent.chat import CONTENT_TOOLS_HEADER
from spanproof.agent.run import run_question
from werkzeug import Response

from spanproof.core.specs import EndpointSettings

from ..agent.conftest import build_env
from ..agent.test_llm_wire import FakeEndpoint
from .conftest import run_cli
from .server import ChatServer, completion, json_response, no_tools, status_forever

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "goldens" / "corpus"


class _Req:
    def __init__(self, body):
        self._body = body

    def get_json(self):
        return self._body


class NoNativeTools:
    """A server whose model ignores `tools` (answers in prose) but follows tools described in
    text, replying with JSON tool calls: FakeEndpoint's competent research model underneath."""

    def __init__(self):
        self.inner = FakeEndpoint()
        self.native_requests = 0

    def __call__(self, body, server) -> Response:
        if "tools" in body:
            self.native_requests += 1
            return no_tools(body, server)
        system = body["messages"][0]["content"]
        if CONTENT_TOOLS_HEADER not in system:
            return self.inner(_Req(body))  # the convergence check: plain JSON, no tools
        names = [line[2:].split(":", 1)[0] for line in system.split(CONTENT_TOOLS_HEADER, 1)[1].splitlines()
                 if line.startswith("- ")]  # fmt: skip
        messages = []
        for m in body["messages"]:
            if m["role"] == "user" and m["content"].startswith("TOOL RESULT "):
                messages.append({"role": "tool", "content": m["content"].split("\n", 1)[1]})
            else:
                messages.append(m)
        native = dict(body, messages=messages, tools=[{"function": {"name": n}} for n in names])
        reply = self.inner(_Req(native))
        if reply.status_code != 200:
            return reply
        data = json.loads(reply.get_data())
        msg = data["choices"][0]["message"]
        calls = [{"name": c["function"]["name"], "arguments": c["function"]["arguments"]}
                 for c in msg.pop("tool_calls", None) or []]  # fmt: skip
        msg["content"] = json.dumps({"tool_calls": calls}) if calls else msg["content"]
        return json_response(data)


async def test_a_server_without_tool_calling_falls_back_to_json_tool_calls(tmp_path, fast_backoff):
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    behaviour = NoNativeTools()
    with ChatServer(behaviour) as server:
        rec = await run_question(
            "When did the Larkspur Bridge open?", env=build_env(tmp_path), policy="llm",
            model="openai:no-tools", verifier=Verifier([make_judge("rules")]),
            endpoint=EndpointSettings(base_url=server.base_url, api_key="local"),
        )  # fmt: skip
    assert rec.status == "complete" and rec.draft_origin == "model"
    assert [c.text for c in rec.answer.claims if c.status == "published"] == [
        "The Larkspur Bridge opened to traffic on 14 March 2021."
    ]
    assert behaviour.native_requests == 2  # two prose answers to native tools, then JSON in text
    # the malformed JSON arguments were answered INVALID_ARGUMENTS, as for native calls
    assert any(
        e.error and e.error.error == "INVALID_ARGUMENTS" for e in rec.trace if e.kind == "tool"
    )


def test_a_model_that_never_calls_tools_is_a_clear_error_exit_2(tmp_path):
    with ChatServer(no_tools) as server:
        result = run_cli("ask", "When did the Larkspur Bridge open?", "--model", "openai:chatty",
                         "--base-url", server.base_url, "--api-key", "local",
                         "--home", str(tmp_path / "h"))  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "this model/server did not call tools" in result.stderr
    assert "stored as failed" in result.stderr
    assert server.count <= 4  # two native turns, one turn with the tools in text: then stop


def test_ask_against_http_500_exits_2_and_says_why(tmp_path, fast_backoff):
    with ChatServer(status_forever(500, "model crashed")) as server:
        result = run_cli("ask", "When did the Larkspur Bridge open?", "--model", "openai:broken",
                         "--base-url", server.base_url, "--api-key", "local",
                         "--home", str(tmp_path / "h"))  # fmt: skip
    assert result.exit_code == 2
    assert "the agent model failed" in result.stderr and "HTTP 500: model crashed" in result.stderr
    assert "could not source" not in result.stderr


def _usefulness_gate(tmp_path, base_url):
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'corpus_dir = "{CORPUS}"\nmax_questions = 2\nchecks = ["usefulness"]\n'
                   'usefulness_model = "openai:rubric"\n')  # fmt: skip
    result = run_cli("gate", "--config", str(cfg), "--json", "--home", str(tmp_path / "h"),
                     "--base-url", base_url, "--api-key", "local")  # fmt: skip
    return result.exit_code, {c["name"]: c for c in json.loads(result.stdout)["checks"]}


def test_usefulness_non_json_replies_are_re_asked_then_a_per_answer_error(tmp_path):
    def chatty_then_json(body, server):
        if server.count <= 3:  # the first answer: a chat, twice more after each re-ask
            return json_response(completion("I'd rate this answer quite useful overall!"))
        return json_response(completion('{"score": 4, "reason": "answers, flags its gaps"}'))

    with ChatServer(chatty_then_json) as server:
        code, rows = _usefulness_gate(tmp_path, server.base_url)
    assert code == 1  # measured: one answer scored 4, one could not be scored (a fail, not a pass)
    assert rows["usefulness.mean_score"]["value"] == 4.0
    assert rows["usefulness.scoring_errors"]["value"] == 1
    assert "malformed output" in rows["usefulness.scoring_errors"]["detail"]
    assert server.count == 4
    assert server.bodies[1]["messages"][-1]["role"] == "user"  # the re-ask says what was wrong


def test_ctrl_c_stops_the_gate_records_what_ran_and_exits_130(tmp_path):
    cal = tmp_path / "cal.jsonl"
    cal.write_text("".join(json.dumps({"id": f"c{i}", "claim": f"Claim {i} about the budget.",
                                       "span": f"The budget passed on day {i}.", "label": "SUPPORTED"}) + "\n"
                           for i in range(40)))  # fmt: skip
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'checks = ["calibration", "sensitivity"]\ncalibration_set = "{cal}"\n'
                   'judge = "openai:slow"\n')  # fmt: skip
    home = tmp_path / "home"
    with ChatServer(one_at_a_time=True, latency_s=0.2) as server:
        env = dict(os.environ, SPANPROOF_HOME=str(home), OPENAI_API_KEY="local",
                   OPENAI_BASE_URL=server.base_url)  # fmt: skip
        proc = subprocess.Popen(
            [sys.executable, "-c", "from spanproof.cli import main; main()", "gate", "--config", str(cfg),
             "--junit", str(tmp_path / "gate.xml")],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            # as a terminal starts it: a non-interactive shell's background job (a CI script
            # running `... &`) inherits SIGINT ignored, and the gate then rightly ignores it
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while server.count < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.count >= 2, "the gate never reached the judge"
        proc.send_signal(signal.SIGINT)
        try:
            out, err = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
            pytest.fail(f"the gate went on for 120 s after Ctrl-C:\n{err[-3000:]}")
    assert proc.returncode == 130, err
    assert "interrupted" in err and "recorded" in err
    from spanproof.gate.store import GateStore

    (stored,) = GateStore.default(home).list()
    assert stored.exit_code == 130 and stored.artifacts.stopped.reason == "interrupt"
    assert {r.status for r in stored.checks} == {"error"}
    assert any("interrupted" in r.detail for r in stored.checks)
    # the JUnit file is written too, the unfinished rows marked
    junit = (tmp_path / "gate.xml").read_text()
    assert junit.count("<error") == len(stored.checks) and "interrupted (Ctrl-C)" in junit
