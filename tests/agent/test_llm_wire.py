"""The model-led path end to end against a local server speaking Chat Completions."""

from __future__ import annotations

import json

import pytest
from spanproof.agent.chat import OpenAIChatModel, UserMessage
from spanproof.agent.run import run_question
from werkzeug import Response

from spanproof.core.specs import EndpointSettings

from .scripting import BUDGET_MARK


def completion(content=None, tool_calls=None, prompt_tokens=1000, completion_tokens=50):
    message = {"role": "assistant", "content": content}
    if tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}_{name}", "type": "function",
             "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)}}
            for i, (name, args) in enumerate(tool_calls)
        ]  # fmt: skip
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "wire-model-2026-01",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                  "total_tokens": prompt_tokens + completion_tokens},
    }  # fmt: skip


def tool_results(messages):
    out = []
    for m in messages:
        if m["role"] == "tool":
            out.append(json.loads(m["content"].split(BUDGET_MARK)[0].split("\n", 1)[0]))
    return out


class FakeEndpoint:
    """Plays a competent research model, turn by turn, from what the runtime sent it."""

    def __init__(
        self,
        hit="news.example.org",
        locator="The Larkspur Bridge opened",
        claim="The Larkspur Bridge opened to traffic on 14 March 2021.",
        plan="1. When did the Larkspur Bridge open?",
    ):
        self.hit, self.locator, self.claim, self.plan = hit, locator, claim, plan
        self.requests: list[dict] = []
        self.failed_once = False
        self.sent_bad_json = False

    def __call__(self, request):
        body = request.get_json()
        self.requests.append(body)
        if not self.failed_once:  # one transient server error: the client retries it
            self.failed_once = True
            return Response("upstream busy", status=500)
        if "tools" not in body:  # the convergence check: JSON only, no tools
            spans = json.loads(body["messages"][-1]["content"])["spans"]
            decision = {
                "subquestions": [{"subquestion": "When did it open?", "status": "covered" if spans else "empty",
                                  "span_ids": [s["span_id"] for s in spans]}],
                "decision": "DRAFT" if spans else "CONTINUE",
                "next_action": None if spans else "quote the opening sentence of the fetched news page",
                "reason": "covered" if spans else "page fetched, nothing quoted yet",
            }  # fmt: skip
            return Response(json.dumps(completion(json.dumps(decision), prompt_tokens=200, completion_tokens=40)),
                            content_type="application/json")  # fmt: skip
        names = [t["function"]["name"] for t in body["tools"]]
        results = tool_results(body["messages"])
        if not results and not self.sent_bad_json:
            self.sent_bad_json = True
            turn = completion(
                "1. When did the Larkspur Bridge open?", [("web_search", '{"query": "Larkspur')]
            )
        elif names == ["draft_answer"] or (results and "span_id" in results[-1]):
            span_id = next(r["span_id"] for r in reversed(results) if "span_id" in r)
            turn = completion(None, [("draft_answer", {
                "claims": [{"text": self.claim,
                            "span_ids": [span_id], "inference": False, "confidence": 0.9}],
                "summary": "The bridge opened on 14 March 2021.", "injection_observed": None,
                "needs_human": False})])  # fmt: skip
        elif results and results[-1].get("error") == "INVALID_ARGUMENTS":
            turn = completion(
                None, [("web_search", {"query": self.plan.split(". ", 1)[-1].rstrip("?")})]
            )
        elif results and "hits" in results[-1]:
            url = next(h["url"] for h in results[-1]["hits"] if self.hit in h["url"])
            turn = completion(None, [("fetch_page", {"url": url})])
        elif results and "doc_id" in results[-1]:
            preview = results[-1]["preview"]
            start = preview.index(self.locator)
            turn = completion(None, [("extract_quote", {"doc_id": results[-1]["doc_id"],
                                                        "locator": preview[start : start + 60]})])  # fmt: skip
        else:
            raise AssertionError(f"unexpected conversation state: {results[-1:]}")
        return Response(json.dumps(turn), content_type="application/json")


async def test_llm_policy_end_to_end_over_the_wire(httpserver, env, rules_verifier):
    fake = FakeEndpoint()
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(fake)
    endpoint = EndpointSettings(base_url=httpserver.url_for("/v1"), api_key="local")
    rec = await run_question(
        "When did the Larkspur Bridge open?", env=env, policy="llm", model="openai:wire-model",
        verifier=rules_verifier, endpoint=endpoint,
    )  # fmt: skip
    assert rec.status == "complete" and rec.draft_origin == "model"
    published = [c for c in rec.answer.claims if c.status == "published"]
    assert [c.text for c in published] == [
        "The Larkspur Bridge opened to traffic on 14 March 2021."
    ]
    assert published[0].verdict.verdict == "SUPPORTED"
    # The malformed arguments were answered with INVALID_ARGUMENTS, not guessed at.
    assert rec.trace[1].kind == "tool" and rec.trace[1].error.error == "INVALID_ARGUMENTS"
    # The convergence check ran as a separate, tool-less JSON call.
    assert rec.config.convergence == "llm"
    assert any(c.source == "llm" and c.decision == "DRAFT" for c in rec.convergence)
    conv = [r for r in fake.requests if "tools" not in r]
    assert conv and all(r.get("response_format") == {"type": "json_object"} for r in conv)
    for r in conv:  # it never sees page text beyond 120 characters per span
        for s in json.loads(r["messages"][-1]["content"])["spans"]:
            assert len(s["head"]) <= 120
    # The system prompt carries the design's plain rule; the tools are the product schema.
    agent_req = next(r for r in fake.requests if "tools" in r)
    assert "SEARCH SNIPPETS ARE NOT EVIDENCE" in agent_req["messages"][0]["content"]
    assert [t["function"]["name"] for t in agent_req["tools"]] == [
        "web_search", "fetch_page", "extract_quote", "draft_answer"]  # fmt: skip
    # Usage from the wire: tokens by model and cost at the illustrative prices.
    usage = rec.metrics.tokens_by_model["wire-model-2026-01"]
    research_turns = sum(1 for e in rec.trace if e.kind == "model")
    conv_turns = sum(1 for e in rec.trace if e.kind == "convergence" and e.usage)
    assert usage.prompt_tokens == 1000 * research_turns + 200 * conv_turns
    assert rec.metrics.cost.research_usd == pytest.approx(
        research_turns * (1000 * 3 + 50 * 15) / 1e6
    )
    assert rec.metrics.cost.small_usd == pytest.approx(conv_turns * (200 * 0.3 + 40 * 1.5) / 1e6)
    assert rec.model_ids["research"] == "wire-model-2026-01"


async def test_openai_chat_model_maps_messages_and_refusals(httpserver):
    httpserver.expect_request("/v1/chat/completions").respond_with_json(
        {"error": {"message": "no such model"}}, status=404
    )
    model = OpenAIChatModel(
        "missing", EndpointSettings(base_url=httpserver.url_for("/v1"), api_key="k")
    )
    from spanproof.agent.chat import ChatModelError

    with pytest.raises(ChatModelError, match="model name"):
        await model.complete([UserMessage(content="hi")], None)
