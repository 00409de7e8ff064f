"""Metrics come from the record alone: recomputable, bounded, and able to fail."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from spanproof.agent.ledger import source_type
from spanproof.agent.publish import combine, compute_metrics, route
from spanproof.agent.record import Answer, AnswerClaim, RunConfig, RunRecord

from spanproof.core.verdict import Verdict

LABEL = st.sampled_from(["SUPPORTED", "PARTIAL", "NOT_SUPPORTED", "ERROR"])
MODE = st.sampled_from(["flag", "narrow", "drop"])


def verdict(label: str) -> Verdict:
    if label == "ERROR":
        return Verdict(verdict="NOT_SUPPORTED", error="timeout", judge="j")
    return Verdict(
        verdict=label, judge="j", unsupported_element="the date" if label == "PARTIAL" else None
    )


def record_with(labels: list[str], mode: str) -> RunRecord:
    claims = []
    for i, label in enumerate(labels):
        v = verdict(label)
        status, text, reason = route(f"claim {i}", v, mode)
        claims.append(AnswerClaim(index=i, text=text, draft_text=f"claim {i}", span_ids=["span_" + "0" * 16],
                                  verdict=v, status=status, reason=reason))  # fmt: skip
    return RunRecord(
        run_id="run_m",
        question="q",
        config=RunConfig(policy="extractive"),
        answer=Answer(claims=claims),
    )


@settings(max_examples=150, deadline=None)
@given(st.lists(LABEL, max_size=12), MODE)
def test_metric_arithmetic(labels, mode):
    m = compute_metrics(record_with(labels, mode))
    n = len(labels)
    assert m.claims_drafted == n
    assert m.claims_published + m.claims_flagged + m.claims_narrowed + m.claims_dropped == n
    for rate in (m.pre_prune_supported_rate, m.partial_rate, m.drop_rate, m.published_groundedness):
        assert rate is None or 0 <= rate <= 1
    assert m.pre_prune_supported_rate == (labels.count("SUPPORTED") / n if n else None)
    # Errors are never published and never leave the denominator.
    assert m.claims_dropped >= labels.count("ERROR") + labels.count("NOT_SUPPORTED")
    shown = n - m.claims_dropped
    assert (m.published_groundedness is None) == (shown == 0)
    if mode == "drop" and shown:
        assert m.published_groundedness == 1.0  # only SUPPORTED survives when PARTIAL is dropped


def test_groundedness_fails_on_a_planted_bad_input():
    good = compute_metrics(record_with(["SUPPORTED", "SUPPORTED"], "flag"))
    bad = compute_metrics(record_with(["SUPPORTED", "PARTIAL"], "flag"))
    assert good.published_groundedness == 1.0 and bad.published_groundedness == 0.5
    assert bad.partial_rate == 0.5 and good.partial_rate == 0.0


def test_a_claim_is_supported_if_any_span_supports_it_and_errors_never_pass():
    sup, err, par, no = (
        verdict("SUPPORTED"),
        verdict("ERROR"),
        verdict("PARTIAL"),
        verdict("NOT_SUPPORTED"),
    )
    assert combine([("a", no), ("b", sup)]) == (sup, "b")
    assert combine([("a", par), ("b", err)]) == (err, "b")
    assert combine([("a", no), ("b", par)]) == (par, "b")
    assert route("x", err, "flag")[0] == "dropped"


def test_source_type_rule():
    assert source_type("https://www.sec.gov/filing") == "primary"
    assert source_type("https://data.gov.uk/x") == "primary"
    assert source_type("https://arxiv.org/abs/1") == "primary"
    assert source_type("https://example.com/report.pdf") == "primary"
    assert source_type("https://news.wice.example/story") == "secondary"
    assert source_type("https://en.wikipedia.org/wiki/X") == "secondary"


def _flagged() -> Verdict:
    from spanproof.core.verdict import Flag

    return Verdict(
        verdict="SUPPORTED",
        judge="j",
        flags=[
            Flag(kind="name", reason="name the span does not state: Smith", claim_words="Smith")
        ],
    )


def test_a_flagged_supported_claim_is_routed_as_partial_never_published_never_reworded():
    v = _flagged()
    assert route("Smith won.", v, "flag") == (
        "flagged",
        "Smith won.",
        "partial: needs a look - name the span does not state: Smith",
    )
    status, text, reason = route("Smith won.", v, "narrow")
    assert status == "narrowed"
    assert text == "Smith won. (The cited source does not establish: Smith.)"
    assert reason == "narrowed: needs a look - name the span does not state: Smith"
    assert route("Smith won.", v, "drop")[0] == "dropped"
    # the same verdict without the flag publishes
    assert route("Smith won.", verdict("SUPPORTED"), "flag")[0] == "published"


def test_a_code_or_address_the_span_never_states_is_never_shown_in_any_mode():
    from spanproof.core.verdict import Flag

    code = Flag(kind="code", reason="reference code or address the span does not state: X-9",
                claim_words="X-9")  # fmt: skip
    for label in ("SUPPORTED", "PARTIAL"):
        v = verdict(label).model_copy(update={"flags": [code]})
        for mode in ("flag", "narrow", "drop"):
            status, text, reason = route("Boil water (X-9).", v, mode)
            assert (status, text) == ("dropped", "Boil water (X-9).") and "X-9" in reason


def test_an_unflagged_supporting_span_is_preferred_to_a_flagged_one():
    plain = verdict("SUPPORTED")
    assert combine([("a", _flagged()), ("b", plain)]) == (plain, "b")
    assert combine([("a", _flagged()), ("b", verdict("PARTIAL"))])[1] == "a"


async def test_verify_draft_marks_a_flagged_claim_needs_human_with_the_reason():
    from spanproof.agent.publish import verify_draft
    from spanproof.agent.record import Draft
    from spanproof.graders.judges.blind import BlindJudge
    from spanproof.graders.verify import Verifier

    from spanproof.core.evidence import Span

    text = "The council approved the budget on Monday."
    span = Span(span_id="span_" + "1" * 16, doc_id="doc_" + "2" * 16, url="https://e.org/a",
                text=text, char_start=0, char_end=len(text), retrieved_at="2026-01-01T00:00:00Z")  # fmt: skip
    record = RunRecord(
        run_id="run_f",
        question="When did the council approve the budget?",  # both claims are on it
        config=RunConfig(policy="extractive"),
        spans=[span],
    )
    draft = Draft.model_validate(
        {"claims": [{"text": "Mayor Ruiz's council approved the budget on Monday.", "span_ids": [span.span_id]},
                    {"text": text, "span_ids": [span.span_id]}]},
        context={"run_span_ids": {span.span_id}},
    )  # fmt: skip
    claims = await verify_draft(record, draft, Verifier([BlindJudge()]), partial="flag")
    flagged, clean = claims
    assert flagged.verdict.verdict == "SUPPORTED" and flagged.status == "flagged"
    assert flagged.needs_human and "Ruiz" in (flagged.needs_human_reason or "")
    assert clean.status == "published" and not clean.needs_human
    from spanproof.agent.ledger import build_ledger

    row = build_ledger(record)[0]
    assert row.needs_human and row.flags and row.set_by == "blind"


def test_the_ledger_is_in_review_order_the_likeliest_wrong_first():
    from spanproof.agent.ledger import build_ledger

    from spanproof.core.verdict import Flag

    record = record_with(["SUPPORTED", "PARTIAL", "SUPPORTED", "NOT_SUPPORTED", "ERROR"], "flag")
    flagged = record.answer.claims[2].verdict
    flagged.flags = [Flag(kind="number", reason="number the span does not state: 12")]
    order = [row.claim_index for row in build_ledger(record)]
    # the error, then the flag, then the judge's reading, least supported first
    assert order == [4, 2, 3, 1, 0]
