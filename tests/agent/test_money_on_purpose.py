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
    ):
        bad = reply(usage)
        assert why in checked_usage(bad, request)
        assert bad.usage.prompt_tokens > 1000 and bad.usage.completion_tokens == 100
