"""The one dispatcher every policy's tool calls go through, and the stall detector it feeds."""

from __future__ import annotations

import json

import pytest
from spanproof.agent.dispatch import Call
from spanproof.agent.record import Budgets, RunConfig, RunRecord
from spanproof.agent.runtime import Runtime
from spanproof.agent.stall import StallDetector
from spanproof.agent.tools import Toolbox

Q = "When did the Larkspur Bridge open?"
NEWS = "https://news.example.org/larkspur-bridge"


def runtime(env, **budgets) -> Runtime:
    record = RunRecord(run_id="r", question=Q, config=RunConfig(policy="extractive"))
    b = Budgets(**budgets)
    return Runtime(Toolbox(env, Q, max_spans=b.spans), b, record)


def traced(outcome) -> dict:
    """A trace entry without its clock: what two equal refusals must share."""
    return outcome.entry.model_dump(exclude={"started_at", "ms"})


async def test_a_call_beyond_a_budget_is_refused_alike_for_every_policy(env):
    seen = {}
    for origin in ("model", "policy"):
        rt = runtime(env, searches=1)
        assert (await rt.tools.call("web_search", {"query": "Larkspur Bridge"}, origin=origin)).ok
        over = await rt.tools.call("web_search", {"query": "Larkspur tolls"}, origin=origin)
        # The run is now drafting: a read tool is refused as such, whoever asks.
        late = await rt.tools.call("fetch_page", {"url": NEWS}, origin=origin)
        seen[origin] = (over, late, rt)
    (m_over, m_late, m_rt), (p_over, p_late, p_rt) = seen["model"], seen["policy"]
    assert m_over.error.error == "BUDGET_EXCEEDED" and not m_over.ok
    assert m_over.text == p_over.text and traced(m_over) == traced(p_over)
    assert traced(m_over)["flags"] == ["budget_exceeded:searches"]
    assert m_late.text == p_late.text and traced(m_late) == traced(p_late)
    assert traced(m_late)["flags"] == ["refused_in_draft_phase"]
    for rt in (m_rt, p_rt):
        assert rt.meter.exhausted == "budget:searches" and rt.meter.draft_only
        assert rt.meter.used == {"searches": 1, "fetches": 0, "tool_calls": 3}
        assert rt.tb.documents == {}  # the refused fetch never reached the web
        assert [e.ok for e in rt.record.trace] == [True, False, False]


async def test_an_unreadable_or_unknown_call_is_answered_with_the_fix_and_runs_nothing(env):
    rt = runtime(env)
    outcomes = await rt.tools.run(
        [
            Call("fetch_page", {}, "c1", unreadable="Expecting value: line 1 column 1"),
            Call("delete_everything", {"path": "/"}, "c2"),
            Call("extract_quote", {"doc_id": "doc_0123456789abcdef", "locator": "short"}, "c3"),
        ],
        origin="model",
    )
    assert [o.error.error for o in outcomes] == ["INVALID_ARGUMENTS"] * 3
    assert all(o.error.retryable for o in outcomes)
    assert "Expecting value" in outcomes[0].text
    assert "unknown tool 'delete_everything'" in outcomes[1].text
    assert "locator" in outcomes[2].text and "at least 12" in outcomes[2].text
    assert [e.call_id for e in rt.record.trace] == ["c1", "c2", "c3"]
    assert rt.record.trace[1].arguments == {"path": "/"}  # what was asked, as asked
    assert rt.meter.used["tool_calls"] == 3 and rt.meter.used["fetches"] == 0
    assert rt.tb.documents == {} and rt.tb.spans == {}


async def test_calls_after_the_accepted_draft_do_not_run(env):
    rt = runtime(env)
    outcomes = await rt.tools.run(
        [Call("draft_answer", {"claims": [], "summary": "I could not source this."}, "d"),
         Call("web_search", {"query": "Larkspur Bridge"}, "s")],
        origin="model",
    )  # fmt: skip
    assert outcomes[0].ok and rt.record.draft is not None
    assert not outcomes[1].ok and outcomes[1].entry is None
    assert json.loads(outcomes[1].text) == {"ignored": "the draft was already accepted"}
    assert [e.tool for e in rt.record.trace] == ["draft_answer"]
    assert rt.meter.used["searches"] == 0 and rt.hits == []


@pytest.mark.parametrize(("origin", "accepted"), [("model", False), ("policy", True)])
async def test_only_the_models_draft_costs_a_tool_call(env, origin, accepted):
    rt = runtime(env, tool_calls=1)
    await rt.tools.call("web_search", {"query": "Larkspur Bridge"}, origin=origin)
    assert rt.meter.remaining()["tool_calls"] == 0
    out = await rt.tools.call("draft_answer", {"claims": [], "summary": ""}, origin=origin)
    assert out.ok is accepted and (rt.record.draft is not None) is accepted
    if not accepted:
        assert out.error.error == "BUDGET_EXCEEDED"
        assert out.entry.flags == ["budget_exceeded:tool_calls"]
    else:
        assert rt.record.draft_origin == "policy" and rt.meter.used["tool_calls"] == 1


async def test_a_turns_fetches_run_as_one_batch_and_a_refusal_in_it_stands_alone(env):
    rt = runtime(env)
    await rt.tools.call("web_search", {"query": "Larkspur Bridge"}, origin="model")
    outcomes = await rt.tools.run(
        [Call("fetch_page", {"url": NEWS}, "f1"),
         Call("fetch_page", {"url": "https://evil.example/collect"}, "f2")],
        origin="model",
    )  # fmt: skip
    assert [o.ok for o in outcomes] == [True, False]
    assert outcomes[1].error.error == "URL_NOT_FROM_SEARCH"
    batch = [e.batch for e in rt.record.trace if e.tool == "fetch_page"]
    assert batch[0] is not None and batch == [batch[0]] * 2
    combined = json.loads(outcomes[0].text)["parallel_fetch"]
    assert [c["url"] for c in combined] == [NEWS, "https://evil.example/collect"]
    assert json.loads(outcomes[1].text) == {"see": "combined result of call f1"}
    assert "https://evil.example/collect" in rt.refused_urls
    assert rt.meter.used["fetches"] == 2  # each admitted fetch spends, refused or not


def test_stall_counts_from_the_first_fetch_and_a_batch_once():
    stall = StallDetector(window=2)
    stall.call("web_search", False)
    stall.call("web_search", False)
    assert stall.streak == 0  # nothing fetched yet: nothing could have been quoted
    stall.fetch_batch(any_fetched=True)  # opens the count
    assert stall.streak == 0
    stall.fetch_batch(any_fetched=True)  # a whole parallel batch is one move
    stall.call("draft_answer", False)  # drafting is not a research move
    assert stall.streak == 1 and not stall.stalled
    stall.call("extract_quote", False)
    assert stall.stalled
    stall.call("extract_quote", True)
    assert stall.streak == 0
    stall.call("web_search", False)
    stall.call("web_search", False)
    stall.interpreted()
    assert not stall.stalled
