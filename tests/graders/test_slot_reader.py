"""The slot reader (graders.specifics.slot_reader): proofs that rest on an aligned slot and
normalised values, never on absence, and the same reader over a whole page.

``data/slot_cases_first.jsonl`` was written before the reader existed, in forms the repository
did not hold; measured once with the old role check (6 of 36 contradictions proven) and once
with the reader's first version (17 of 36). Its paraphrases and absences must never be proven,
and the contradictions proven today are a floor."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from spanproof.graders.audit import audit
from spanproof.graders.specifics.slot_reader import contradictions, slot_statements

from spanproof.core.verdict import SpanRef, Verdict

CASES = [
    json.loads(line)
    for line in (Path(__file__).parent / "data" / "slot_cases_first.jsonl").read_text().splitlines()
]
PROVEN_TODAY = {
    f"first-c{i:03d}"
    for i in (5, 7, 9, 11, 12, 13, 14, 15, 17, 18, 20, 22, 25, 26, 27, 28, 31, 33, 34)
}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_written_first_cases(case):
    proven = bool(contradictions(case["claim"], case["span"]))
    if case["kind"] != "contradiction":
        assert not proven, case["note"]  # a paraphrase or an absence is never a proof
    elif case["id"] in PROVEN_TODAY:
        assert proven, case["note"]


def _audited(claim: str, span: str) -> Verdict:
    return audit(claim, SpanRef(text=span), Verdict(verdict="SUPPORTED", quote_used=span))


def test_units_are_converted_before_values_are_compared():
    span = "The reserve covers 30 square kilometres of wetland."
    v = _audited("The reserve covers 300 hectares.", span)
    [p] = v.proofs
    assert v.verdict == "NOT_SUPPORTED"
    assert (p.claim_value.text, p.span_value.text) == ("300 hectares", "30")
    # the same area in other units (3,000 hectares): neither a proof nor a number flag
    same = _audited("The reserve covers 3,000 hectares.", span)
    assert same.proofs == [] and [f.kind for f in same.flags if f.kind == "number"] == []


def test_a_proof_keeps_both_values_offsets_and_the_words_it_rests_on():
    claim = "The senate approved the bill on Thursday."
    span = "On Thursday the senate rejected the bill by 52 votes to 47."
    [c] = contradictions(claim, span)
    assert c.kind == "event"
    assert claim[c.claim_value[0] : c.claim_value[1]] == "approved"
    assert span[c.span_value[0] : c.span_value[1]] == "rejected"
    assert span[c.span_words[0] : c.span_words[1]] == span


def test_absence_and_another_slot_prove_nothing():
    # the same figure counts something else; another share belongs to another subject
    assert (
        contradictions(
            "The plant produces 400 tonnes of steel a day.",
            "The plant employs 400 workers and produces steel for the car industry.",
        )
        == []
    )
    assert (
        contradictions(
            "The company's revenue rose 8% in 2020.",
            "The company's revenue rose in 2020, while profit fell 3%.",
        )
        == []
    )


def test_a_page_that_states_two_values_for_one_slot():
    claim = "The bridge opened in 1932."
    page = (
        "The bridge opened in 1932 after four years of work. It carries four lanes of traffic. "
        "The bridge opened in 1934, according to the county records."
    )
    found = [
        (s.value.text, s.agrees, page[s.words[0] : s.words[1]])
        for s in slot_statements(claim, page)
    ]
    assert found == [("1932", True, "opened in 1932"), ("1934", False, "opened in 1934")]
    # a page that states the slot once, and never otherwise, has one statement for it
    assert [s.agrees for s in slot_statements(claim, page.rsplit(" The bridge", 1)[0])] == [True]
