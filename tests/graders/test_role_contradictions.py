"""Contradiction by role (graders.specifics.slot_reader): the one code finding besides the quote check
that overrides a judge, so it must be nearly always right.

Two case files written for this detector before it was adapted, in forms the repository did
not hold (paraphrases, pronouns, relative dates, other roles of the same number type, units and
scales, ranges, "up to", lists): ``data/role_cases.jsonl`` (written first) and
``data/role_cases_fresh.jsonl`` (written after the first version ran, before any change it
prompted). A consistent case must never be proven; the contradictions it proves are held as
a floor. Then real WiCE development pairs both ways, and the spans of the failures found in
the audit (a Spartanburg obituary of the offline corpus)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from spanproof.graders.audit import audit
from spanproof.graders.specifics.slot_reader import contradictions as role_contradictions

from spanproof.bench.pairs import load_pairs
from spanproof.core.verdict import SpanRef, Verdict

DATA = Path(__file__).parent / "data"
ROOT = Path(__file__).resolve().parents[2]


def _cases(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines() if line.strip()]


# the contradictions each file's cases are proven for today (a floor: losing one is a regression)
PROVEN = {
    "role_cases.jsonl": {f"r{i:02d}" for i in range(1, 30)} - {"r23"},
    "role_cases_fresh.jsonl": {"h03", "h04", "h05", "h08", "h09", "h14", "h16", "h27"},
}


@pytest.mark.parametrize("name", sorted(PROVEN))
def test_no_consistent_case_is_ever_proven_and_the_contradictions_stay_proven(name):
    cases = _cases(name)
    proven = {c["id"] for c in cases if role_contradictions(c["claim"], c["span"])}
    wrong = sorted(c["id"] for c in cases if c["id"] in proven and not c["contradiction"])
    assert wrong == [], "proofs on consistent cases: " + ", ".join(wrong)
    assert proven >= PROVEN[name], sorted(PROVEN[name] - proven)


def _proof(claim: str, span: str, judge: str = "SUPPORTED") -> Verdict:
    return audit(claim, SpanRef(text=span), Verdict(verdict=judge, quote_used=span))


def _at(text: str, place) -> str:
    return text[place.start : place.end]


def test_rose_to_800_against_rose_to_750_is_proven_with_both_offsets():
    claim = "The total rose to 800 last year."
    span = "Membership of the club grew again: the total rose to 750 last year, its highest."
    v = _proof(claim, span)
    assert v.verdict == "NOT_SUPPORTED" and v.judge_verdict == "SUPPORTED"
    [p] = v.proofs
    assert (p.kind, _at(claim, p.claim_value), _at(span, p.span_value)) == (
        "contradiction",
        "800",
        "750",
    )
    assert _at(span, p.rests_on) == "rose to 750" and p.rests_on.text == "rose to 750"
    # the same sentence, right, and the same value written another way: nothing to prove
    assert _proof("The total rose to 750 last year.", span).proofs == []
    assert _proof("The total rose to about 760.", span).proofs == []
    # another role of the same number type is not this role ("rose by", not "rose to")
    assert _proof("The total rose by 800 last year.", span).proofs == []


def _corpus_paragraph(url_part: str, containing: str) -> str:
    """The text of one paragraph of a shipped corpus page (a WiCE development source page)."""
    from spanproof.web.corpus import iter_responses

    body = next(b for url, _, _, b in iter_responses(ROOT / "goldens/corpus") if url_part in url)
    para = next(p for p in body.decode().split("<p>") if containing in html.unescape(p))
    return html.unescape(re.sub(r"<[^>]+>", "", para)).strip()


def test_800_against_the_real_registry_page_s_750_is_proven_and_750_is_not():
    # the WiCE development page wice-dev03598 cites: "... bring the total number of films in
    # the registry to 750."
    span = _corpus_paragraph("jurassic-park-shining-added", "registry to 750")
    claim = "This year's picks bring the total number of films in the registry to 800."
    v = _proof(claim, span)
    assert v.verdict == "NOT_SUPPORTED" and v.judge_verdict == "SUPPORTED"
    [p] = v.proofs
    assert (p.kind, _at(claim, p.claim_value), _at(span, p.span_value)) == (
        "contradiction",
        "800",
        "750",
    )
    assert _at(span, p.rests_on) == "registry to 750"
    assert _proof(claim.replace("800", "750"), span).proofs == []


def _pair(pair_id: str):
    return next(p for p in load_pairs(ROOT / "goldens/wice_dev_pairs.jsonl") if p.id == pair_id)


@pytest.mark.parametrize(
    ("pair_id", "old", "new", "span_value", "rests_on"),
    [
        # a quantity with its unit ("230 meters"), the claim's "approximately" kept
        ("wice-dev03207", "230 metres", "280 metres", "230 meters", "located approximately 230 meters"),
        # a number word counting continents
        ("wice-dev02254", "five continents", "six continents", "five", "across five"),
    ],
)  # fmt: skip
def test_a_value_changed_in_a_real_wice_claim_is_proven_and_the_original_is_not(
    pair_id, old, new, span_value, rests_on
):
    pair = _pair(pair_id)
    assert pair.label == "SUPPORTED" and old in pair.claim
    assert _proof(pair.claim, pair.span).proofs == []
    planted = pair.claim.replace(old, new)
    v = _proof(planted, pair.span)
    [p] = v.proofs
    assert v.verdict == "NOT_SUPPORTED"
    assert _at(planted, p.claim_value) == new.split()[0] or _at(planted, p.claim_value) == new
    assert _at(pair.span, p.span_value) == span_value and _at(pair.span, p.rests_on) == rests_on


def test_a_fronted_date_is_read_with_the_statement_after_it():
    # the WiCE film-registry claim's form: "In 2018, the film was selected ..."
    span = "In 2018, the film was selected for preservation by the Library of Congress."
    v = _proof("In 2020, the film was selected for preservation by the Library of Congress.", span)
    assert [(p.claim_value.text, _at(span, p.rests_on)) for p in v.proofs] == [
        ("2020", "2018, the film")
    ]
    # another year that the sentence gives to another statement is not a rival
    both = span.rstrip(".") + ", and in 2020 it was restored."
    assert _proof("In 2020, the film was selected for preservation.", both).proofs == []


def test_a_date_outside_a_real_wice_list_of_dates_is_proven():
    pair = _pair("wice-dev03027")  # "scheduled for December 2019 and January 2020"
    assert _proof(pair.claim, pair.span).proofs == []
    v = _proof("The executions have been scheduled for December 2018.", pair.span)
    [p] = v.proofs
    assert (_at(pair.span, p.span_value), v.verdict) == ("December 2019", "NOT_SUPPORTED")
    # a date the list holds is stated
    assert _proof("The executions have been scheduled for January 2020.", pair.span).proofs == []


@pytest.mark.parametrize(
    ("pair_id", "why"),
    [
        ("wice-dev02968", "relative date: the span says 'Wednesday evening', the claim March 1"),
        ("wice-dev03310", "relative date: 'born the next year' against 'December 2013'"),
        ("wice-dev00956", "pronoun: the claim's 'He' is Charlie Russell; the span has no year"),
        ("wice-dev03806", "a name the span gives another way: 'Smith' / 'Marion'"),
        ("wice-dev00328", "paraphrase: 'died ... at the age of 78' / 'dies at 78'"),
        ("wice-dev02780", "relative date and paraphrase: 'his final match' / 'last game'"),
    ],
)
def test_real_wice_claims_a_reader_accepts_are_never_proven_wrong(pair_id, why):
    pair = _pair(pair_id)
    assert pair.label == "SUPPORTED", why
    v = _proof(pair.claim, pair.span)
    assert v.proofs == [] and v.verdict == "SUPPORTED", why


def test_a_value_the_span_gives_relatively_or_through_a_pronoun_proves_nothing():
    # the claim is wrong, but the span states its value only relatively or of "he": code
    # cannot establish that it is the same statement, so it flags and never overrides
    relative = _pair("wice-dev02968")
    v = _proof(relative.claim.replace("March 1, 2017", "March 2, 2017"), relative.span)
    assert v.proofs == [] and "date" in [f.kind for f in v.flags]
    pronoun = _pair("wice-dev00956")
    v = _proof(pronoun.claim.replace("May 7, 2018", "May 8, 2018"), pronoun.span)
    assert v.proofs == [] and v.verdict == "SUPPORTED"


# the cited page of a WiCE development pair (dev00328; goldens/wice_dev_pages.jsonl.gz)
OBITUARY = (
    'Elizabeth "Liz" Johnston Patterson, a three-term congresswoman from Spartanburg and the '
    "daughter of former South Carolina Gov. Olin D. Johnston, died Saturday. She was 78."
)


@pytest.mark.parametrize(
    ("claim", "claim_value", "span_value"),
    [
        ("Liz Patterson died on Sunday.", "Sunday", "Saturday"),
        ("Patterson was a two-term congresswoman.", "two", "three"),
        (
            "Patterson was the daughter of former North Carolina Gov. Olin D. Johnston.",
            "North Carolina Gov",
            "South Carolina Gov",
        ),
    ],
)
def test_the_obituary_contradictions_are_proofs_whatever_the_judge(claim, claim_value, span_value):
    for judge in ("SUPPORTED", "PARTIAL"):
        v = _proof(claim, OBITUARY, judge)
        [p] = v.proofs
        assert v.verdict == "NOT_SUPPORTED"
        assert (_at(claim, p.claim_value), _at(OBITUARY, p.span_value)) == (
            claim_value,
            span_value,
        )


def test_still_alive_against_died_is_at_least_a_flag():
    claim = "Patterson, a three-term congresswoman from Spartanburg, is still alive."
    v = _proof(claim, OBITUARY)
    assert v.proofs == [] and v.verdict == "SUPPORTED"
    assert [(f.kind, f.claim_words) for f in v.flags] == [("opposite", "alive")]


def test_names_differing_other_than_by_a_contrast_word_prove_nothing():
    # a nickname, a larger place, a parent company: maybe the same thing written otherwise
    for claim, span in [
        ("The bill was sponsored by Bill Hanley.", "The bill was sponsored by William Hanley."),
        ("She was born in Manchester.", "She was born in England and studied in Leeds."),
        ("It was released by Columbia Records.", "It was released by Sony Music in 1998."),
    ]:
        assert role_contradictions(claim, span) == [], claim
    assert role_contradictions("He grew up in East Germany.", "He grew up in West Germany.")
