"""The viewer's pages and rules over stores built by the product's own code (no browser)."""

from __future__ import annotations

import asyncio
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from spanproof.agent.record import RunConfig, RunRecord
from spanproof.agent.runstore import RunStore
from starlette.testclient import TestClient

from spanproof.core.evidence import Span, make_span_id
from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow
from spanproof.store import open_store
from spanproof.store.models import Recheck
from spanproof.view.app import create_app
from spanproof.view.data import RunQuery, ViewData
from spanproof.view.decide import DecisionRefused, decide
from spanproof.view.gates import compare_checks
from spanproof.view.settings import ViewSettings
from spanproof.view.spans import locate_quote, span_context
from tests.view import homes


def _client(home) -> tuple[TestClient, object]:
    app = create_app(ViewSettings(home=home, port=8765, per_page=10))
    return TestClient(app, base_url="http://127.0.0.1:8765"), app


def _runs(home, n: int) -> None:
    store = RunStore.default(home)
    for i in range(n):
        record = RunRecord(
            run_id=f"run_{i:05d}",
            question=f"question {i} about {'owls' if i % 3 == 0 else 'bats'}",
            status="complete" if i % 4 else "failed",
            created_at=f"2026-01-{1 + i % 28:02d}T10:00:{i % 60:02d}Z",
            config=RunConfig(
                policy="extractive", judges=["rules", "blind"] if i % 2 else ["blind"]
            ),
            kind="gate" if i % 9 == 0 else "ask",
        )
        record.metrics.claims_published = i % 3
        record.metrics.claims_dropped = 1 if i % 5 == 0 else 0
        record.metrics.published_groundedness = 1.0 if i % 3 else None
        record.metrics.pre_prune_supported_rate = 0.5 if i % 5 == 0 else 1.0
        store.save(record)


# --- runs list --------------------------------------------------------------------------------


def test_the_run_list_pages_filters_and_searches(tmp_path):
    _runs(tmp_path, 45)
    data = ViewData(tmp_path)
    assert data.list_runs(RunQuery(), 1, 10).total == 45
    last = data.list_runs(RunQuery(), 5, 10)
    assert len(last.items) == 5 and last.next_offset is None
    owls = data.list_runs(RunQuery(q="owls"), 1, 100)
    assert owls.total == 15 and all("owls" in r.question for r in owls.items)
    assert data.list_runs(RunQuery(status="failed"), 1, 100).total == 12
    assert data.list_runs(RunQuery(judge="blind"), 1, 100).total == 45  # one of several judges
    assert data.list_runs(RunQuery(judge="rules"), 1, 100).total == 22
    assert data.list_runs(RunQuery(judge="rul"), 1, 100).total == 0  # a whole spec, not a part
    assert data.list_runs(RunQuery(mix="some_drafted_unsupported"), 1, 100).total == 9
    assert data.list_runs(RunQuery(kind="gate"), 1, 100).total == 5
    day = data.list_runs(RunQuery(since="2026-01-02", until="2026-01-02"), 1, 100)
    assert {r.created_at[:10] for r in day.items} == {"2026-01-02"} and day.total == 2
    # A LIKE wildcard typed in the search box is a literal character, not "everything".
    assert data.list_runs(RunQuery(q="%"), 1, 100).total == 0

    client, _ = _client(tmp_path)
    page = client.get("/runs?q=owls&page=2")
    assert page.status_code == 200 and "15 runs match; page 2 of 2" in page.text
    assert 'rel="prev"' in page.text and "q=owls" in page.text
    bad = client.get("/runs?since=yesterday")
    assert bad.status_code == 200 and "Ignored the filters" in bad.text


# --- span in context ---------------------------------------------------------------------------


@given(
    st.text(min_size=1, max_size=300),
    st.integers(min_value=0, max_value=300),
    st.integers(min_value=0, max_value=300),
    st.integers(min_value=0, max_value=50),
)
def test_the_highlight_is_the_stored_text_at_the_span_offsets(text, a, b, context):
    start, end = sorted((min(a, len(text)), min(b, len(text))))
    span = Span(span_id=make_span_id("doc_" + "0" * 16, start, end), doc_id="doc_" + "0" * 16,
                url="u", text=text[start:end], char_start=start, char_end=end, retrieved_at="t")  # fmt: skip
    quote = text[start:end][1:-1] or None
    ctx = span_context(text, span, quote, context)
    assert ctx.highlighted == text[start:end]
    assert ctx.before + ctx.highlighted + ctx.after == text[ctx.window_start : ctx.window_end]
    assert ctx.matches_record
    if quote and quote.strip():
        assert quote in ctx.highlighted and ctx.quote_found


def test_a_span_that_differs_from_its_snapshot_is_reported():
    text = "Alpha beta gamma delta."
    span = Span(span_id=make_span_id("doc_" + "1" * 16, 6, 10), doc_id="doc_" + "1" * 16, url="u",
                text="BETA", char_start=6, char_end=10, retrieved_at="t")  # fmt: skip
    ctx = span_context(text, span, None)
    assert ctx.highlighted == "beta" and not ctx.matches_record
    with pytest.raises(ValueError, match="outside its document"):
        span_context("short", span.model_copy(update={"char_end": 99}), None)


def test_quote_used_is_found_across_whitespace_and_quotation_styles():
    span = "He said “we will win”\nand left."
    start, end = locate_quote(span, 'said "we will win" and')
    assert span[start:end] == "said “we will win”\nand"
    assert locate_quote(span, "not in the span") is None


# --- decisions ----------------------------------------------------------------------------------


def _hostile(tmp_path) -> tuple[ViewData, RunRecord]:
    run_id = homes.hostile_run(tmp_path)
    data = ViewData(tmp_path)
    return data, data.run(run_id)


def _decide(data, record, decision, **kw):
    from spanproof.view.app import ViewContext

    ctx = ViewContext(ViewSettings(home=data.home), data)
    return asyncio.run(decide(record, 0, decision, reviewer=kw.pop("reviewer", "ann"),
                              verifier_for=ctx.verifier_for, snapshots=data, **kw))  # fmt: skip


def test_an_edit_is_verified_against_the_span_and_a_bad_one_is_refused(tmp_path):
    data, record = _hostile(tmp_path)
    with pytest.raises(DecisionRefused, match="did not support") as refused:
        _decide(data, record, "edit", edited_text="The museum opened in 1850.")
    assert refused.value.verdict is not None and not refused.value.verdict.supported
    with pytest.raises(DecisionRefused, match="empty"):
        _decide(data, record, "edit", edited_text="   ")
    good = _decide(data, record, "edit", edited_text=record.spans[0].text)
    assert good.decision == "edit" and good.edited_verdict["verdict"] == "SUPPORTED"


def test_a_dropped_claim_cannot_be_approved_or_cut(tmp_path):
    data, record = _hostile(tmp_path)
    record.answer.claims[0].status = "dropped"
    with pytest.raises(DecisionRefused, match="verifier refused"):
        _decide(data, record, "approve")
    with pytest.raises(DecisionRefused, match="already dropped"):
        _decide(data, record, "cut")
    with pytest.raises(DecisionRefused, match="reviewer name"):
        _decide(data, record, "approve", reviewer=" ")


def test_a_held_claim_waits_for_a_person_who_may_approve_or_cut_it(tmp_path):
    # held: its sources state two values for one slot; the reviewer reads both and decides
    data, record = _hostile(tmp_path)
    record.answer.claims[0].status = "held"
    assert _decide(data, record, "approve").decision == "approve"
    cut = _decide(data, record, "cut", cut_reason="NOT_SUPPORTED", note="the erratum is right")
    assert cut.decision == "cut" and cut.label == "NOT_SUPPORTED"


def test_an_edit_on_a_span_that_no_longer_matches_its_snapshot_is_refused(tmp_path):
    data, record = _hostile(tmp_path)
    span = record.spans[0]
    record.spans[0] = span.model_copy(update={"text": "A visitor wrote nothing."})
    with pytest.raises(DecisionRefused, match="span fidelity"):
        _decide(data, record, "edit", edited_text="A visitor wrote nothing.")


def test_decisions_persist_and_reach_the_ledger_exports(tmp_path):
    data, record = _hostile(tmp_path)
    store = open_store(home=tmp_path)
    store.add_review(record.run_id, 0, "approve", reviewer="ann")
    store.add_review(record.run_id, 0, "cut", reviewer="bo", note="off topic")
    client, _ = _client(tmp_path)
    rows = client.get(f"/runs/{record.run_id}/ledger.json").json()
    assert rows[0]["reviewer_decision"] == "cut" and rows[0]["reviewer"] == "bo"
    assert rows[0]["review_note"] == "off topic" and rows[0]["claim_index"] == 0
    markdown = client.get(f"/runs/{record.run_id}/ledger.md").text
    assert re.search(r"cut by bo \d{4}-\d\d-\d\dT[\d:]{8}Z? \(off topic\)", markdown), markdown
    run_page = client.get(f"/runs/{record.run_id}").text
    assert run_page.count('class="cut"') >= 1 and "ann" in run_page  # the log keeps both


def test_the_run_pages_ledger_is_in_review_order(tmp_path):
    from spanproof.agent.record import Answer, AnswerClaim

    from spanproof.core.verdict import Proof, Verdict

    def claim(i: int, verdict: Verdict) -> AnswerClaim:
        return AnswerClaim(index=i, text=f"claim number {i}", draft_text=f"claim number {i}",
                           span_ids=[], verdict=verdict, status="published")  # fmt: skip

    proof = Proof(kind="contradiction", reason="the span says 750")
    record = RunRecord(
        run_id="run_queue",
        question="q",
        config=RunConfig(policy="extractive"),
        answer=Answer(
            claims=[
                claim(0, Verdict(verdict="SUPPORTED", judge_verdict="SUPPORTED")),
                claim(
                    1, Verdict(verdict="NOT_SUPPORTED", judge_verdict="SUPPORTED", proofs=[proof])
                ),
                claim(2, Verdict(verdict="PARTIAL", judge_verdict="PARTIAL")),
            ]
        ),
    )
    RunStore.default(tmp_path).save(record)
    client, _ = _client(tmp_path)
    page = client.get(f"/runs/{record.run_id}").text
    assert re.findall(r'id="claim-row-(\d+)"', page) == ["1", "2", "0"]


def test_a_recheck_result_is_shown_with_its_span(tmp_path):
    data, record = _hostile(tmp_path)
    span = record.spans[0]
    open_store(home=tmp_path).add_rechecks(record.run_id, [
        Recheck(span_id=span.span_id, url=span.url, resolves=True, same_snapshot=False,
                quote_on_page=False, flag="quote no longer on the page"),
    ])  # fmt: skip
    client, _ = _client(tmp_path)
    page = client.get(f"/runs/{record.run_id}/claims/0").text
    assert "quote no longer on the page" in page
    never = client.get("/runs/nope/claims/0")
    assert never.status_code == 404


# --- gate results ---------------------------------------------------------------------------------


def _gate(gate_id: str, values: dict[str, tuple[float, str]]) -> GateResult:
    rows = [
        CheckRow(name=n, check=n.split(".")[0], value=v, status=s) for n, (v, s) in values.items()
    ]
    return GateResult(passed=False, exit_code=1, checks=rows, wall_s=1.0, gate_id=gate_id)


def test_compare_names_what_moved_and_by_how_much():
    a = _gate("a", {"x.one": (0.9, "pass"), "x.two": (0.5, "fail"), "x.gone": (1.0, "pass")})
    b = _gate("b", {"x.one": (0.7, "fail"), "x.two": (0.5, "fail"), "x.new": (3, "pass")})
    moves = {m.name: m for m in compare_checks(a, b)}
    assert moves["x.one"].moved and moves["x.one"].delta == pytest.approx(-0.2)
    assert moves["x.one"].status_changed
    assert not moves["x.two"].moved and moves["x.two"].delta == 0
    assert moves["x.gone"].moved and moves["x.gone"].b is None
    assert moves["x.new"].moved and moves["x.new"].a is None


def test_judges_side_by_side_filters_to_disagreements(tmp_path):
    client, app = _client(tmp_path)
    judged = client.post("/judges/run", data={"judge": ["rules", "blind"], "show": "all",
                                              "csrf_token": app.state.ctx.csrf_token})  # fmt: skip
    assert judged.status_code == 200  # redirected to the page showing the verdicts
    everything = client.get("/judges?judge=rules&judge=blind&show=all")
    assert everything.status_code == 200
    total = int(re.search(r'id="shown-count">(\d+)<', everything.text).group(1))
    differ = client.get("/judges?judge=rules&judge=blind&show=judges_differ")
    shown = int(re.search(r'id="shown-count">(\d+)<', differ.text).group(1))
    near = client.get("/judges?judge=rules&judge=blind&show=near_miss")
    near_n = int(re.search(r'id="shown-count">(\d+)<', near.text).group(1))
    assert 0 < shown < total and 0 < near_n < total
    # A judge or set the command line did not offer is never run from a URL.
    assert client.get("/judges?judge=scripted:/etc/passwd").status_code == 400
    assert client.get("/judges?set=../../secrets").status_code == 400


def test_judges_page_shows_the_same_paired_comparison_as_calibrate(tmp_path):
    import html as htmllib

    from spanproof.graders.judges import make_judge

    from spanproof.bench.calibration import calibrate, load_pairs
    from spanproof.bench.judge_compare import describe
    from spanproof.view.judges import shipped_calibration_set

    client, app = _client(tmp_path)
    page = client.post("/judges/run", data={"judge": ["rules", "blind"], "show": "all",
                                            "csrf_token": app.state.ctx.csrf_token})  # fmt: skip
    assert page.status_code == 200 and "blind against rules, pair by pair" in page.text
    pairs = load_pairs(shipped_calibration_set())
    result = asyncio.run(calibrate({"judge_calibration": pairs},
                                   [make_judge("rules"), make_judge("blind")], n_boot=0))  # fmt: skip
    (c,) = result.comparisons
    row = re.search(r'<tr id="paired-agreement">(.*?)</tr>', page.text, re.S).group(1)
    assert htmllib.escape(describe(c.agreement)) in row
    assert f">{c.only_a_right}<" in row and f">{c.only_b_right}<" in row
    near = re.search(r'<tr id="paired-near-miss">(.*?)</tr>', page.text, re.S).group(1)
    assert htmllib.escape(describe(c.near_miss)) in near
