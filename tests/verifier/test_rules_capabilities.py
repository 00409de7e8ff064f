"""The rules judge's general capabilities: identity, periods, modality, attribution,
instruction detection in other forms and languages, and claims the span never states."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.audit import audit
from graders.instructions import contains_instructions
from graders.rules import RulesJudge
from graders.verdict import SpanRef

JUDGE = RulesJudge()


def verdict(claim: str, span: str) -> str:
    return audit(claim, SpanRef(text=span), JUDGE.decide(claim, span)).verdict


# ---------------------------------------------------------------- a claim equal to its span

_WORDS = [
    "I", "She", "He", "They", "It", "We", "The", "In", "On", "was", "is", "said", "that",
    "78", "3,400", "12%", "$5 million", "a third", "2019", "Q2", "March", "2 June 2025",
    "since January", "Paris", "Anna Smith", "the Bank of England", "R&B", "U.S.", "c.",
    "not", "never", "must", "may", "expected to", "all", "most", "some", "according to",
    "council", "rose", "fell", "approved", "report", "www.example.com", "Mr.", "Dr", "up to",
    "between", "and", "or", "today", "used to", ",", ";", "(", ")", "'s", "I'm", "U",
]  # fmt: skip


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_WORDS), min_size=1, max_size=14), st.sampled_from([".", "", "!"]))
def test_a_claim_equal_to_its_span_is_supported(tokens, end):
    text = " ".join(tokens) + end
    if contains_instructions(text) or not any(c.isalnum() for c in text):
        return
    got = audit(text, SpanRef(text=text), JUDGE.decide(text, text))
    assert got.verdict == "SUPPORTED", (text, got.unsupported_element, got.checks)


@pytest.mark.parametrize(
    "text",
    [
        "She was 78.",
        "In 2019 I moved to Paris, where I met Anna Smith.",
        "When I arrived, the IRS had already decided.",
        "She is hailed as one of the pioneers of contemporary R&B music.",
        "The panel dates from c. 1491–1510.",
        "According to www.example.com, the bassist will play on the tour.",
    ],
)
def test_known_self_identity_cases(text):
    assert verdict(text, text) == "SUPPORTED"
