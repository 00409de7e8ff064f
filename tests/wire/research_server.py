"""A research model for any question, to serve from ``ChatServer``: the gate's golden questions
and the injection pages run against it over the real wire format.

Turn by turn, from what the runtime sent: search the question, fetch the first hit, quote the
opening of the page's preview, draft one claim that is the quoted span itself (so the rules
judge supports it). The convergence check (a call without tools) gets a JSON decision. It is
a peer for timing and ordering, not a good researcher: what it publishes is beside the point.
"""

from __future__ import annotations

import json
import re
from typing import Any

from werkzeug import Response

from .server import ChatServer, json_response

BUDGET_MARK = "\n\n[remaining budget]"


def _reply(content: str | None, calls: list[tuple[str, dict[str, Any]]] = ()) -> Response:
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": name, "arguments": json.dumps(args)}}
            for i, (name, args) in enumerate(calls)
        ]  # fmt: skip
    return json_response({
        "id": "chatcmpl-research", "object": "chat.completion", "created": 0,
        "model": "research-model-1",
        "choices": [{"index": 0, "message": message,
                     "finish_reason": "tool_calls" if calls else "stop"}],
        "usage": {"prompt_tokens": 1500, "completion_tokens": 60, "total_tokens": 1560},
    })  # fmt: skip


def _results(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for m in messages:
        if m["role"] == "tool":
            try:
                out.append(json.loads(m["content"].split(BUDGET_MARK)[0].split("\n", 1)[0]))
            except json.JSONDecodeError:
                out.append({"error": "UNREADABLE"})
    return out


def _question(messages: list[dict[str, Any]]) -> str:
    user = next(m["content"] for m in messages if m["role"] == "user")
    line = next((ln for ln in user.splitlines() if ln.strip().endswith("?")), user)
    return re.sub(r"\s+", " ", line).strip()[:200]


def _locator(preview: str) -> str | None:
    """A sentence start of the preview, long enough to be a locator (12..240 characters)."""
    for sentence in re.split(r"(?<=[.!?])\s+", preview):
        sentence = sentence.strip()
        if len(sentence) >= 40:
            return sentence[:60]
    return None


def research_model(body: dict[str, Any], server: ChatServer) -> Response:
    """The behaviour (module doc)."""
    messages = body["messages"]
    if "tools" not in body:  # the convergence check: draft once anything is quoted
        spans = json.loads(messages[-1]["content"]).get("spans", [])
        decision = {
            "subquestions": [{"subquestion": "the question", "status": "covered" if spans else "empty",
                              "span_ids": [s["span_id"] for s in spans]}],
            "decision": "DRAFT" if spans else "CONTINUE",
            "next_action": None if spans else "quote the page",
            "reason": "covered" if spans else "nothing quoted yet",
        }  # fmt: skip
        return _reply(json.dumps(decision))
    names = [t["function"]["name"] for t in body["tools"]]
    results = _results(messages)
    spans = [r for r in results if "span_id" in r]
    last = results[-1] if results else None
    if names == ["draft_answer"] or spans or (last and "error" in last and last is not None):
        claims = [{"text": s["text"], "span_ids": [s["span_id"]], "inference": False,
                   "confidence": 0.9} for s in spans[:1] if s.get("text")]  # fmt: skip
        return _reply(None, [("draft_answer", {
            "claims": claims, "summary": claims[0]["text"] if claims else "Nothing was found.",
            "injection_observed": None, "needs_human": False})])  # fmt: skip
    if last is None:
        return _reply(None, [("web_search", {"query": _question(messages)})])
    if "hits" in last:
        if not last["hits"]:
            return _reply(None, [("draft_answer", {"claims": [], "summary": "No hits.",
                                                   "injection_observed": None, "needs_human": False})])  # fmt: skip
        return _reply(None, [("fetch_page", {"url": last["hits"][0]["url"]})])
    locator = _locator(last.get("preview", ""))
    if "doc_id" in last and locator:
        return _reply(None, [("extract_quote", {"doc_id": last["doc_id"], "locator": locator,
                                                "max_chars": 600})])  # fmt: skip
    return _reply(None, [("draft_answer", {"claims": [], "summary": "Nothing quotable.",
                                           "injection_observed": None, "needs_human": False})])  # fmt: skip
