"""Each runtime rule of the loop, driven by the scripted model."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from pydantic import ValidationError
from spanproof.agent.chat import ScriptedChatModel
from spanproof.agent.record import Budgets, Draft
from spanproof.agent.run import run_question
from spanproof.agent.runstore import RunStore
from spanproof.graders.verify import Verifier

from spanproof.core.verdict import JudgeBase, SpanRef, Verdict
from tests.agent.conftest import PAGES, build_env
from tests.agent.scripting import call, calls, doc_id_for, draft, hit_url, span_ids, tool_messages

Q = "When did the Larkspur Bridge open?"
OPENED = "The Larkspur Bridge opened to traffic"


def search(q="Larkspur Bridge opened"):
    return call("web_search", query=q)


def fetch(contains="news.example.org"):
    return lambda m: call("fetch_page", url=hit_url(m, contains))


def extract(locator=OPENED, contains="news.example.org"):
    return lambda m: call("extract_quote", doc_id=doc_id_for(m, contains), locator=locator)


async def ask(env, model, verifier, **kw):
    kw.setdefault("convergence", "off")
    return await run_question(Q, env=env, policy="llm", model=model, verifier=verifier, **kw)


class FixedJudge(JudgeBase):
    """Answers by substring of the claim: a judge whose verdicts the test controls."""

    def __init__(self, rules: dict[str, str], *, fail_on: str | None = None):
        self.id = "fixed"
        self.rules = rules
        self.fail_on = fail_on

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        if self.fail_on and self.fail_on in claim:
            raise RuntimeError("endpoint timed out")
        for needle, label in self.rules.items():
            if needle in claim:
                quote = " ".join(span.text.split()[:8])
                return Verdict(verdict=label, quote_used=quote, judge=self.id,
                               unsupported_element="the exact date" if label == "PARTIAL" else None)  # fmt: skip
        return Verdict(verdict="NOT_SUPPORTED", judge=self.id)


async def test_happy_path_publishes_a_verified_claim(env, rules_verifier, tmp_path):
    model = ScriptedChatModel(
        [
            {"content": "1. When did the Larkspur Bridge open?", **search()},
            fetch(),
            extract(),
            lambda m: draft(
                [
                    {
                        "text": "The Larkspur Bridge opened to traffic on 14 March 2021.",
                        "span_ids": span_ids(m),
                    }
                ],
                summary="It opened on 14 March 2021.",
            ),  # fmt: skip
        ]
    )
    store = RunStore(tmp_path / "runs.sqlite")
    rec = await ask(env, model, rules_verifier, store=store, convergence="rules")
    assert rec.status == "complete" and rec.draft_origin == "model"
    published = [c for c in rec.answer.claims if c.status == "published"]
    assert len(published) == 1 and published[0].verdict.verdict == "SUPPORTED"
    span = rec.span(published[0].supporting_span_id)
    assert env.store.text(span.doc_id)[span.char_start : span.char_end] == span.text
    assert rec.subquestions == ["When did the Larkspur Bridge open?"]
    assert rec.prompt_hashes["agent_system"] and rec.prompt_hashes["convergence"]
    assert store.get(rec.run_id).status == "complete"
    # The remaining budget is appended to every tool result.
    assert all(
        "[remaining budget]" in m.content for m in tool_messages(model.calls[-1]["messages"])
    )
    assert rec.ledger[0].snapshot_sha256 == env.store.get(span.doc_id).sha256


async def test_budget_exhaustion_lands_a_drafted_answer(env, rules_verifier):
    def turn(messages, tools):
        if tools == ["draft_answer"]:
            return draft(
                [
                    {
                        "text": "The Larkspur Bridge opened to traffic on 14 March 2021.",
                        "span_ids": span_ids(messages)[:1],
                    }
                ]
            )
        n = len(tool_messages(messages))
        if n == 0:
            return search()
        if n == 1:
            return fetch()(messages)
        if n == 2:
            return extract()(messages)
        return call(
            "web_search", query=f"larkspur detail {n}"
        )  # a model that never stops searching

    model = ScriptedChatModel.from_function(turn)
    rec = await ask(env, model, rules_verifier, budgets=Budgets(searches=3))
    assert rec.ended_by == "budget:searches"
    assert any(
        e.error and e.error.error == "BUDGET_EXCEEDED" for e in rec.trace if e.kind == "tool"
    )
    assert rec.draft is not None and rec.draft_origin == "model"
    assert rec.metrics.claims_published == 1 and rec.status == "complete"
    # Once a budget was exceeded, draft_answer was the only tool offered.
    assert model.calls[-1]["tools"] == ["draft_answer"]


async def test_a_model_that_never_drafts_still_ends_with_a_drafted_partial_answer(
    env, rules_verifier
):
    def turn(messages, tools):
        n = len(tool_messages(messages))
        if n == 0:
            return search()
        if n == 1:
            return fetch()(messages)
        if n == 2:
            return extract()(messages)
        return call("web_search", query=f"more {n}")  # ignores the draft-only phase

    rec = await ask(
        env, ScriptedChatModel.from_function(turn), rules_verifier, budgets=Budgets(tool_calls=8)
    )
    assert rec.draft_origin == "runtime_fallback"
    assert rec.metrics.tool_calls <= 8
    assert [c.status for c in rec.answer.claims] == ["published"]
    assert rec.answer.claims[0].text.startswith(OPENED)


async def test_token_budget_ends_the_run_with_the_runtime_draft(env, rules_verifier):
    big = {"prompt_tokens": 4000, "completion_tokens": 100}
    model = ScriptedChatModel(
        [{**search(), "usage": big}, lambda m: {**fetch()(m), "usage": big},
         lambda m: {**extract()(m), "usage": big}, lambda m: {**search("more"), "usage": big}]
    )  # fmt: skip
    rec = await ask(env, model, rules_verifier, budgets=Budgets(tokens=12_500))
    assert rec.ended_by == "budget:tokens"
    assert len(model.calls) == 4  # no model call after the budget was spent
    assert [e.tool for e in rec.trace if e.kind == "tool" and e.ok] == [
        "web_search",
        "fetch_page",
        "extract_quote",
    ]
    assert rec.draft_origin == "runtime_fallback" and rec.draft.claims
    assert rec.answer.claims[0].text.startswith(OPENED)


async def test_two_calls_left_offers_only_draft_answer(env, rules_verifier):
    def turn(messages, tools):
        if tools == ["draft_answer"]:
            return draft([])
        return call("web_search", query=f"larkspur {len(tool_messages(messages))}")

    model = ScriptedChatModel.from_function(turn)
    rec = await ask(
        env, model, rules_verifier, budgets=Budgets(tool_calls=5, searches=10), convergence="off"
    )
    offered = [c["tools"] for c in model.calls]
    assert offered[:3] == [["web_search", "fetch_page", "extract_quote", "draft_answer"]] * 3
    assert offered[3] == ["draft_answer"]
    assert rec.draft_origin == "model" and rec.draft.claims == []
    assert rec.metrics.searches == 3


async def test_stall_detector_forces_a_convergence_decision(env, rules_verifier):
    def turn(messages, tools):
        if tools == ["draft_answer"]:
            return draft([])
        n = len(tool_messages(messages))
        steps = [
            search(),
            fetch("news"),
            search("Larkspur toll"),
            fetch("transport"),
            search("Vell estuary"),
        ]
        return steps[n](messages) if callable(steps[n]) else steps[n]

    rec = await ask(env, ScriptedChatModel.from_function(turn), rules_verifier)
    stalls = [e for e in rec.trace if e.kind == "stall"]
    assert len(stalls) == 1
    assert rec.convergence[-1].trigger == "stall"
    assert rec.convergence[-1].decision == "DRAFT_WITH_GAPS"
    assert rec.ended_by == "convergence:DRAFT_WITH_GAPS"
    assert rec.answer.gaps  # the unresolved sub-question is reported


async def test_hallucinated_locator_gets_locator_not_found_and_no_span(env, rules_verifier):
    invented = "The bridge was opened by the Queen in 1999"
    model = ScriptedChatModel(
        [
            search(),
            fetch(),
            extract(locator=invented),
            draft([], summary="I could not source this."),
        ]
    )
    rec = await ask(env, model, rules_verifier)
    errors = [e.error.error for e in rec.trace if e.tool == "extract_quote"]
    assert errors == ["LOCATOR_NOT_FOUND"]
    assert rec.spans == [] and all(invented not in s.text for s in rec.spans)
    told = [
        m.content for m in tool_messages(model.calls[-1]["messages"]) if m.name == "extract_quote"
    ]
    assert "LOCATOR_NOT_FOUND" in told[0] and "memory" in told[0]
    assert rec.metrics.locator_failures == 1 and rec.metrics.first_try_quote_success == 0.0


async def test_a_span_id_from_another_run_is_rejected_by_the_schema(tmp_path, rules_verifier):
    env1 = build_env(tmp_path / "a")
    first = await ask(
        env1, ScriptedChatModel([search(), fetch(), extract(), draft([])]), rules_verifier
    )
    foreign = first.spans[0].span_id

    env2 = build_env(tmp_path / "b")
    model = ScriptedChatModel(
        [
            search(),
            draft(
                [
                    {
                        "text": "The Larkspur Bridge opened to traffic on 14 March 2021.",
                        "span_ids": [foreign],
                    }
                ]
            ),
            draft([], summary="I could not source this."),
        ]
    )
    rec = await ask(env2, model, rules_verifier)
    assert rec.rejected_drafts and "not extracted in this run" in rec.rejected_drafts[0]["error"]
    assert rec.draft is not None and rec.draft.claims == []
    assert foreign not in {sid for c in rec.answer.claims for sid in c.span_ids}
    with pytest.raises(ValidationError, match="not extracted in this run"):
        Draft.model_validate(
            {"claims": [{"text": "x", "span_ids": [foreign]}], "summary": ""},
            context={"run_span_ids": set()},
        )


def test_draft_schema_limits():
    ok = {"claims": [{"text": "x", "span_ids": ["span_0123456789abcdef"]}], "summary": "s"}
    Draft.model_validate(ok, context={"run_span_ids": {"span_0123456789abcdef"}})
    with pytest.raises(ValidationError):
        Draft.model_validate({**ok, "claims": [{"text": "x", "span_ids": []}]})
    with pytest.raises(ValidationError, match="150"):
        Draft.model_validate({**ok, "summary": "word " * 151})
    with pytest.raises(ValidationError):
        Draft.model_validate({**ok, "injection_observed": "x" * 201})
    with pytest.raises(ValidationError, match="reason"):
        Draft.model_validate({**ok, "needs_human": True})


async def test_duplicate_fetch_is_refused(env, rules_verifier):
    model = ScriptedChatModel([search(), fetch(), fetch(), draft([])])
    rec = await ask(env, model, rules_verifier)
    fetches = [e for e in rec.trace if e.tool == "fetch_page"]
    assert [e.ok for e in fetches] == [True, False]
    assert fetches[1].error.error == "DUPLICATE_FETCH"
    assert rec.metrics.duplicate_fetches_refused == 1
    assert len(rec.documents) == 1


async def test_near_identical_consecutive_searches_are_counted(env, rules_verifier):
    model = ScriptedChatModel(
        [search("Larkspur Bridge opened"), search("Larkspur Bridge opened"), draft([])]
    )
    rec = await ask(env, model, rules_verifier)
    assert rec.metrics.near_duplicate_searches == 1


async def test_parallel_fetch_returns_all_previews_in_one_result(tmp_path, rules_verifier):
    urls = [
        "https://news.example.org/larkspur-bridge",
        "https://transport.example.gov/larkspur-facts",
    ]
    arrived: list[str] = []
    both_in = asyncio.Event()

    async def handler(request: httpx.Request) -> httpx.Response:
        arrived.append(str(request.url))
        if len(arrived) >= 2:
            both_in.set()
        # Each response waits for the other request: a serial fetcher would never get here.
        await asyncio.wait_for(both_in.wait(), timeout=10)
        return httpx.Response(
            200, text=PAGES[str(request.url)], headers={"content-type": "text/html"}
        )

    env = build_env(tmp_path)
    from spanproof.web.egress import EgressPolicy, Fetcher

    env.fetcher = Fetcher(EgressPolicy(allow_hosts=["news.example.org", "transport.example.gov"]), env.store,
                          transport=httpx.MockTransport(handler))  # fmt: skip
    model = ScriptedChatModel(
        [
            search("Larkspur Bridge"),
            lambda m: calls(
                ("fetch_page", {"url": hit_url(m, "news")}),
                ("fetch_page", {"url": hit_url(m, "transport")}),
            ),
            draft([]),
        ]
    )
    rec = await ask(env, model, rules_verifier)
    fetches = [e for e in rec.trace if e.tool == "fetch_page"]
    assert [e.ok for e in fetches] == [True, True]
    assert fetches[0].batch is not None and fetches[0].batch == fetches[1].batch
    results = [m for m in tool_messages(model.calls[-1]["messages"]) if m.name == "fetch_page"]
    assert "parallel_fetch" in results[0].content
    for doc in rec.documents:
        assert doc.doc_id in results[0].content
    assert sorted(arrived) == sorted(urls)


async def test_not_supported_claim_is_dropped_and_kept_in_the_ledger(env):
    verifier = Verifier([FixedJudge({"14 March": "SUPPORTED", "1999": "NOT_SUPPORTED"})])
    model = ScriptedChatModel(
        [
            search(),
            fetch(),
            extract(),
            lambda m: draft(
                [
                    {
                        "text": "The Larkspur Bridge opened to traffic on 14 March 2021.",
                        "span_ids": span_ids(m),
                    },
                    {"text": "The Larkspur Bridge opened in 1999.", "span_ids": span_ids(m)},
                ]
            ),
        ]
    )
    rec = await ask(env, model, verifier, targeted_round=False)
    shown = [c.text for c in rec.answer.shown]
    assert shown == ["The Larkspur Bridge opened to traffic on 14 March 2021."]
    assert "1999" not in rec.answer.summary
    dropped = [r for r in rec.ledger if r.status == "dropped"]
    assert len(dropped) == 1 and dropped[0].claim == "The Larkspur Bridge opened in 1999."
    assert dropped[0].verdict == "NOT_SUPPORTED" and dropped[0].published is False
    assert dropped[0].reviewer_decision is None
    assert rec.metrics.drop_rate == 0.5 and rec.metrics.pre_prune_supported_rate == 0.5
    assert rec.metrics.published_groundedness == 1.0


async def test_a_judge_error_publishes_nothing_for_that_claim(env):
    verifier = Verifier([FixedJudge({"opened": "SUPPORTED"}, fail_on="14 March")])
    model = ScriptedChatModel(
        [
            search(),
            fetch(),
            extract(),
            lambda m: draft(
                [
                    {
                        "text": "The Larkspur Bridge opened to traffic on 14 March 2021.",
                        "span_ids": span_ids(m),
                    }
                ]
            ),
        ]
    )
    rec = await ask(env, model, verifier, targeted_round=False)
    assert rec.answer.shown == []
    assert rec.answer.claims[0].status == "dropped" and "judge error" in rec.answer.claims[0].reason
    assert rec.ledger[0].set_by == "judge_error" and rec.ledger[0].verdict == "ERROR"
    assert rec.metrics.judge_errors == 1 and rec.metrics.published_groundedness is None
    assert "14 March" not in rec.answer.summary


@pytest.mark.parametrize(
    ("mode", "status", "shown"),
    [("flag", "flagged", 1), ("narrow", "narrowed", 1), ("drop", "dropped", 0)],
)
async def test_partial_routing_follows_config(env, mode, status, shown):
    verifier = Verifier([FixedJudge({"opened": "PARTIAL"})])
    model = ScriptedChatModel(
        [search(), fetch(), extract(),
         lambda m: draft([{"text": "The Larkspur Bridge opened in March.", "span_ids": span_ids(m)}])]
    )  # fmt: skip
    rec = await ask(env, model, verifier, partial=mode, targeted_round=False)
    claim = rec.answer.claims[0]
    assert claim.status == status and len(rec.answer.shown) == shown
    if mode == "narrow":
        assert claim.text.endswith("(The cited source does not establish: the exact date.)")
        assert claim.draft_text == "The Larkspur Bridge opened in March."
    assert rec.metrics.partial_rate == 1.0
    if shown:  # a shown PARTIAL is not grounded: the metric must say so
        assert rec.metrics.published_groundedness == 0.0


async def test_cancelled_run_is_stored_as_interrupted(env, rules_verifier, tmp_path):
    gate = asyncio.Event()

    async def stuck(messages):
        gate.set()
        await asyncio.sleep(60)

    store = RunStore(tmp_path / "runs.sqlite")
    model = ScriptedChatModel([search(), stuck])
    task = asyncio.create_task(ask(env, model, rules_verifier, store=store, run_id="run_cancelled"))
    await asyncio.wait_for(gate.wait(), timeout=10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    rec = store.get("run_cancelled")
    assert rec.status == "interrupted"
    assert [e.tool for e in rec.trace if e.kind == "tool"] == ["web_search"]


async def test_llm_targeted_round_sources_a_pruned_subquestion(env):
    verifier = Verifier([FixedJudge({"14 March": "SUPPORTED", "1999": "NOT_SUPPORTED"})])
    model = ScriptedChatModel(
        [
            search(),
            fetch(),
            extract(),
            lambda m: draft(
                [{"text": "The Larkspur Bridge opened in 1999.", "span_ids": span_ids(m)}]
            ),
            search("Larkspur Bridge opening date traffic"),
            extract(),
            lambda m: draft(
                [
                    {
                        "text": "The Larkspur Bridge opened to traffic on 14 March 2021.",
                        "span_ids": span_ids(m)[-1:],
                    }
                ]
            ),
        ]
    )
    rec = await ask(env, model, verifier)
    told = [m.content for m in model.calls[4]["messages"] if m.role == "user"][-1]
    assert (
        "Verification dropped the only support" in told
        and "When did the Larkspur Bridge open?" in told
    )
    assert [(c.round, c.status) for c in rec.answer.claims] == [(1, "dropped"), (2, "published")]
    assert rec.draft.claims[0].text.endswith("1999.") and rec.supplementary_draft is not None
    assert rec.answer.gaps == [
        "1 drafted claim(s) failed verification and were left out (see the ledger)."
    ]
    assert rec.metrics.pre_prune_supported_rate == 0.5


async def test_a_span_that_differs_from_its_snapshot_is_never_judged_or_published(
    env, rules_verifier
):
    real_text = env.store.text

    def tampered(doc_id):  # the stored page changed under the span: fidelity must fail
        return real_text(doc_id).replace("14 March 2021", "15 March 2021")

    model = ScriptedChatModel(
        [search(), fetch(), extract(),
         lambda m: draft([{"text": "The Larkspur Bridge opened to traffic on 14 March 2021.", "span_ids": span_ids(m)}])]
    )  # fmt: skip
    env.store.text = tampered
    rec = await ask(env, model, rules_verifier, targeted_round=False)
    assert rec.answer.shown == []
    assert rec.answer.claims[0].verdict.judge == "span_fidelity"
    assert "span fidelity" in rec.answer.claims[0].reason
    assert rules_verifier.model_calls == 0  # the judge never saw it
