"""Helpers to write scripted-model turns that cite what earlier tool calls returned."""

from __future__ import annotations

import json
from typing import Any

from spanproof.agent.chat import ToolMessage

BUDGET_MARK = "\n\n[remaining budget]"


def call(name: str, **arguments: Any) -> dict:
    return {"tool_calls": [{"name": name, "arguments": arguments}]}


def calls(*pairs: tuple[str, dict]) -> dict:
    return {"tool_calls": [{"name": n, "arguments": a} for n, a in pairs]}


def tool_messages(messages) -> list[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def payload(message: ToolMessage) -> dict:
    body = message.content.split(BUDGET_MARK)[0]
    return json.loads(body.split("\n", 1)[0])


def last_payload(messages, tool: str) -> dict:
    for m in reversed(tool_messages(messages)):
        if m.name == tool:
            return payload(m)
    raise AssertionError(f"no {tool} result in the conversation")


def hit_url(messages, contains: str) -> str:
    for m in tool_messages(messages):
        if m.name == "web_search":
            for h in payload(m).get("hits", []):
                if contains in h["url"]:
                    return h["url"]
    raise AssertionError(f"no search hit containing {contains!r}")


def doc_id_for(messages, contains: str) -> str:
    for m in tool_messages(messages):
        if m.name != "fetch_page":
            continue
        p = payload(m)
        items = p.get("parallel_fetch", [p])
        for item in items:
            if contains in item.get("url", "") and "doc_id" in item:
                return item["doc_id"]
    raise AssertionError(f"no fetched doc with url containing {contains!r}")


def span_ids(messages) -> list[str]:
    out = []
    for m in tool_messages(messages):
        if m.name == "extract_quote":
            p = payload(m)
            if "span_id" in p:
                out.append(p["span_id"])
    return out


def draft(claims: list[dict], summary: str = "", **extra: Any) -> dict:
    return call("draft_answer", claims=claims, summary=summary, **extra)
