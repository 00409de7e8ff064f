"""Run store durability (a killed run stays readable) and the scripted model's contract."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from spanproof.agent.chat import ScriptedChatModel, ScriptExhausted, UserMessage, make_chat_model
from spanproof.agent.record import RunConfig, RunRecord
from spanproof.agent.runstore import RunStore

from spanproof.core.specs import SpecError
from spanproof.store.schema import HEAD

REPO = Path(__file__).resolve().parents[2]

KILLED_RUN = """
import asyncio, sys, pathlib
sys.path.insert(0, {repo!r})
from spanproof.agent.chat import ScriptedChatModel
from spanproof.agent.run import run_question
from spanproof.agent.runstore import RunStore
from spanproof.graders.judges import make_judge
from spanproof.graders.verify import Verifier
from tests.agent.conftest import build_env
from tests.agent.scripting import call, hit_url

home = pathlib.Path({home!r})

async def stuck(messages):
    (home / "reached").write_text("yes")
    await asyncio.sleep(120)

model = ScriptedChatModel([
    call("web_search", query="Larkspur Bridge opened"),
    lambda m: call("fetch_page", url=hit_url(m, "news.example.org")),
    stuck,
])
asyncio.run(run_question("When did the Larkspur Bridge open?", env=build_env(home), policy="llm",
    model=model, verifier=Verifier([make_judge("rules")]), store=RunStore(home / "runs.sqlite"),
    run_id="run_killed", convergence="off"))
"""


def test_a_killed_run_leaves_a_readable_interrupted_record(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(KILLED_RUN.format(repo=str(REPO), home=str(tmp_path)))
    proc = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "reached").exists():
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.monotonic() < deadline, "the run never reached its third model turn"
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    store = RunStore(tmp_path / "runs.sqlite")
    rec = store.get("run_killed")
    assert rec.status == "interrupted" and rec.finished_at is None
    assert [e.tool for e in rec.trace if e.kind == "tool"] == ["web_search", "fetch_page"]
    assert len(rec.documents) == 1 and rec.egress  # evidence so far is in the record
    summary = store.list()[0]
    assert summary.status == "interrupted" and not summary.still_running


def test_store_migrations_listing_and_lookup(tmp_path):
    store = RunStore(tmp_path / "r.sqlite")
    assert store.store.revision == HEAD
    assert RunStore(tmp_path / "r.sqlite").store.revision == HEAD  # reopening is a no-op
    for i, status in enumerate(["complete", "failed"]):
        rec = RunRecord(run_id=f"run_2026_{i}", question=f"q{i}", config=RunConfig(policy="extractive"),
                        created_at=f"2026-01-0{i + 1}T00:00:00Z", status=status)  # fmt: skip
        store.save(rec)
    assert [s.run_id for s in store.list()] == ["run_2026_1", "run_2026_0"]
    assert store.get("run_2026_0").question == "q0"
    assert store.get("run_2026_1").status == "failed"
    with pytest.raises(KeyError, match="runs list"):
        store.get("run_missing")
    # Records round-trip, including the computed costs field.
    dumped = json.loads(store.get("run_2026_0").model_dump_json())
    assert "costs" in dumped and RunRecord.model_validate(dumped).run_id == "run_2026_0"


async def test_scripted_model_fails_loudly_naming_the_turn(tmp_path):
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"model_id": "demo", "turns": [
        {"content": "1. When?", "tool_calls": [{"name": "web_search", "arguments": {"query": "x"}}]},
        "plain text turn"]}))  # fmt: skip
    model = make_chat_model(f"scripted:{path}")
    first = await model.complete([UserMessage(content="q")], None)
    assert first.tool_calls[0].name == "web_search" and first.tool_calls[0].arguments == {
        "query": "x"
    }
    assert first.model_id == "demo" and first.usage.prompt_tokens > 0
    second = await model.complete([UserMessage(content="q")], None)
    assert second.content == "plain text turn" and second.tool_calls == []
    with pytest.raises(ScriptExhausted, match=r"turn 2 \(0-based\).*2 turn\(s\)"):
        await model.complete([UserMessage(content="q")], None)


async def test_scripted_model_from_a_function_and_bad_specs(tmp_path):
    seen = []

    def fn(messages, tools):
        seen.append(tools)
        return {"content": f"{len(messages)} messages"}

    model = ScriptedChatModel.from_function(fn)
    turn = await model.complete([UserMessage(content="a"), UserMessage(content="b")],
                                [{"type": "function", "function": {"name": "draft_answer"}}])  # fmt: skip
    assert turn.content == "2 messages" and seen == [["draft_answer"]]
    with pytest.raises(SpecError, match="not a chat model"):
        make_chat_model("rules")
    with pytest.raises(SpecError, match="not found"):
        make_chat_model(f"scripted:{tmp_path / 'missing.json'}")
    with pytest.raises(SpecError, match="OPENAI_API_KEY"):
        make_chat_model("openai:gpt-4o-mini")
