"""Costs and budgets do not trust the server's token counts: negative or missing usage is
estimated from the text (never a negative cost, never a budget that cannot trip), and `ask`
has a dollar budget beside the token budget."""

from __future__ import annotations

import json

import pytest
from spanproof.agent.prices import ModelPrice, price_run
from spanproof.agent.record import Budgets
from spanproof.agent.run import run_question
from werkzeug import Response

from spanproof.core.specs import EndpointSettings
from spanproof.wire import forget_clients

from ..wire.server import ChatServer
from .conftest import build_env
from .test_llm_wire import FakeEndpoint


class _Req:
    def __init__(self, body):
        self._body = body

    def get_json(self):
        return self._body


def research_model(usage):
    """FakeEndpoint's competent research model, its replies' usage replaced by ``usage``
    (a dict, or None to leave it out)."""
    inner = FakeEndpoint()
    inner.failed_once = True  # no transient 500 here

    def behave(body, server):
        reply = inner(_Req(body))
        data = json.loads(reply.get_data())
        if usage is None:
            data.pop("usage", None)
        else:
            data["usage"] = usage
        return Response(json.dumps(data), content_type="application/json")

    return behave


async def _ask(tmp_path, behaviour, budgets=None):
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    forget_clients()
    with ChatServer(behaviour) as server:
        rec = await run_question(
            "When did the Larkspur Bridge open?", env=build_env(tmp_path), policy="llm",
            model="openai:gpt-4o", verifier=Verifier([make_judge("rules")]),
            endpoint=EndpointSettings(base_url=server.base_url, api_key="local"),
            budgets=budgets or Budgets(), convergence="off",
        )  # fmt: skip
    return rec, server


async def test_negative_usage_is_estimated_from_the_text_never_a_negative_cost(tmp_path):
    rec, _ = await _ask(
        tmp_path,
        research_model({"prompt_tokens": -90_000_000, "completion_tokens": -5, "total_tokens": 0}),
    )
    turns = [e for e in rec.trace if e.kind == "model"]
    assert turns and all(e.usage.estimated and e.usage.prompt_tokens > 0 for e in turns)
    assert all("usage_estimated" in e.flags for e in turns)
    cost = price_run(rec)
    assert cost.total_usd > 0
    assert "estimated from the text length" in cost.note


async def test_missing_usage_is_estimated_and_the_token_budget_trips_on_it(tmp_path):
    rec, server = await _ask(tmp_path, research_model(None), Budgets(tokens=3000))
    assert rec.ended_by == "budget:tokens"
    turns = [e for e in rec.trace if e.kind == "model"]
    assert sum(e.usage.prompt_tokens + e.usage.completion_tokens for e in turns) >= 3000
    assert all(e.usage.estimated for e in turns)
    assert server.count == len(turns) <= 2  # stopped calling once the estimate spent it


async def test_max_cost_stops_the_agent_model_once_the_dollars_are_spent(tmp_path):
    # gpt-4o at $3 / $15 per million: a 1000-token turn costs about $0.004
    usage = {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}
    full, _ = await _ask(tmp_path / "a", research_model(usage))
    capped, server = await _ask(tmp_path / "b", research_model(usage), Budgets(cost_usd=0.005))
    full_turns = sum(e.kind == "model" for e in full.trace)
    capped_turns = sum(e.kind == "model" for e in capped.trace)
    assert capped.ended_by == "budget:cost"
    assert capped_turns == 2 < full_turns  # $0.00375 after one turn, $0.0075 after two: stop
    assert price_run(capped).research_usd == pytest.approx(2 * 0.00375)
    assert any("budget_exceeded:cost" in e.flags for e in capped.trace)


def test_a_negative_token_count_in_an_old_record_is_no_refund():
    assert ModelPrice(input_per_mtok=3, output_per_mtok=15).usd(-1_000_000, -10) == 0.0


def test_checked_usage_keeps_good_counts_and_replaces_bad_ones():
    from openai.types.chat import ChatCompletion

    from spanproof.wire.client import checked_usage

    def reply(usage):
        body = {"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": "x" * 400}}]}  # fmt: skip
        if usage is not None:
            body["usage"] = usage
        return ChatCompletion.construct(**body)  # as the SDK builds replies: no validation

    request = {"messages": [{"role": "user", "content": "y" * 4000}]}
    good = reply({"prompt_tokens": 900, "completion_tokens": 90, "total_tokens": 990})
    assert checked_usage(good, request) is None and good.usage.prompt_tokens == 900
    for usage, why in (
        (None, "missing"),
        ({"prompt_tokens": -3, "completion_tokens": 5, "total_tokens": 2}, "negative"),
        ({"prompt_tokens": 12.5, "completion_tokens": 5, "total_tokens": 17}, "not an integer"),
        # 4000 characters sent in one token: no tokeniser packs 64 characters into one
        ({"prompt_tokens": 1, "completion_tokens": 90, "total_tokens": 91}, "implausibly small"),
    ):
        bad = reply(usage)
        assert why in checked_usage(bad, request)
        assert bad.usage.prompt_tokens > 1000 and bad.usage.completion_tokens == 100
    # small counts for little text are kept: a short reply may be a token or two
    short = reply({"prompt_tokens": 900, "completion_tokens": 1, "total_tokens": 901})
    assert checked_usage(short, request) is None and short.usage.completion_tokens == 1


def test_a_batch_line_s_usage_is_checked_as_an_online_reply_s():
    from spanproof.wire.client import checked_usage

    body = {"choices": [{"message": {"role": "assistant", "content": "z" * 200_000}}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}}  # fmt: skip
    why = checked_usage(body, {"messages": [{"role": "user", "content": "claim and span"}]})
    assert why == "implausibly small (completion_tokens 1 for 200000 characters)"
    assert body["usage"]["completion_tokens"] == 50_000 and body["usage_estimated"] == why


class _Padded:
    """FakeEndpoint's research model on the shipped corpus, every reply carrying ``pad``
    characters of text and reporting 1 token each way, whatever was sent or received."""

    def __init__(self, pad: int) -> None:
        self.inner = FakeEndpoint(
            hit="jackalopes-hire-todd-watson", locator="The Odessa Jackalopes, proud members",
            claim="The Odessa Jackalopes announced that they have hired Todd Watson to be the "
            "program's sixth head coach.",
            plan="1. Who did the Odessa Jackalopes hire as head coach?",
        )  # fmt: skip
        self.inner.failed_once = True
        self.pad = pad
        self.received = 0  # bytes of requests

    def __call__(self, body, server):
        self.received += len(json.dumps(body))
        data = json.loads(self.inner(_Req(body)).get_data())
        message = data["choices"][0]["message"]
        message["content"] = (message["content"] or "") + " thinking" * (self.pad // 9)
        data["usage"] = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        return Response(json.dumps(data), content_type="application/json")


def test_a_server_reporting_1_token_for_200_kb_replies_trips_max_cost(tmp_path):
    """The counts are implausible for the text (1 token for 200 kB): they are replaced by the
    estimate and flagged, so the dollar budget trips after the first reply."""
    from click.testing import CliRunner

    from spanproof.cli import cli

    padded = _Padded(200_000)
    with ChatServer(padded) as server:
        result = CliRunner().invoke(cli, [
            "ask", "Who did the Odessa Jackalopes hire as head coach in May 2019?", "--model",
            "openai:wire-model", "--base-url", server.base_url, "--api-key", "local",
            "--max-cost", "0.001", "--home", str(tmp_path),
        ])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert server.count == 1 and padded.received < 50_000  # no 200 kB reply was sent back
    assert "The run stopped at its dollar budget" in result.stdout
    assert "of --max-cost 0.001" in result.stdout
    assert "token counts were implausibly small (prompt_tokens 1 for" in result.stderr
    assert "(1 replies estimated)" in result.stderr
