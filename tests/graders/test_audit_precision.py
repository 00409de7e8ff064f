"""Check 4 at the precision a claim states: what the audit no longer misreads, and what it
still catches (each pair of tests shows both sides of one rule)."""

from __future__ import annotations

import pytest
from spanproof.graders.specifics import compare


def kinds(claim: str, span: str) -> list[str]:
    return [m.kind for m in compare(claim, span)]


@pytest.mark.parametrize(
    "claim,span",
    [
        # since a year the span dates
        (
            "Watson has been head coach since 2019.",
            "May 20, 2019 The club hired Watson as head coach.",
        ),
        # a person's first name used alone
        (
            "The offer was extended to Criss Oliva.",
            "Criss was also offered the job and turned it down.",
        ),
        (
            "She is the sister of Lady Marina Windsor.",
            "She has two siblings, Lady Marina, 25, and Edward.",
        ),
        # a long surname spelled with one letter more
        ("Paterson died at the age of 78.", "Former Congresswoman Liz Patterson dies at 78."),
        # hedged figures and roundings
        ("The trail is about 250 miles long.", "The trail runs 248 miles from end to end."),
        ("The library holds more than 260,000 volumes.", "The library holds 260,415 volumes."),
        ("Nearly 30 people attended.", "28 people attended the meeting."),
        ("The deal was worth $2.5 billion.", "The deal was worth $2.47 billion."),
        # a count shown by listing
        ("They played on three dates.", "The bands played on 4 May, 9 June and 2 July."),
        (
            "She was one of three applicants.",
            "The governor will choose between Hardwick, Lipman and Powell.",
        ),
        # a year range met by a year inside it
        ("The panel dates from c. 1491–1510.", "The panel was probably painted around 1500."),
        # the claim's subject, which the span names by pronoun
        (
            "Mustaine honoured his commitment to the tour.",
            "I will be winding down our tour, so I will be unable to attend.",
        ),
        # a capitalised common noun referring back
        ("The Park remains open all year.", "It is always open, but some roads close in winter."),
        # a name written inside a web address
        (
            'Annie Zaleski of "The A.V. Club" praised it.',
            "By Annie Zaleski, https://music.avclub.com/ryan-adams: a fever dream.",
        ),
        # song titles in quotation marks are not other people the pronoun could mean
        (
            "Swift did three songs with Max Martin.",
            "On 'Red' I did three songs with Max Martin - 'We Are Never Ever Getting Back Together' and '22'.",
        ),
        # a title quoted whole, written shorter
        (
            'They covered it for the album "Maiden Heaven: A Tribute to Iron Maiden".',
            'The collection "Maiden Heaven" features bands covering Iron Maiden.',
        ),
    ],
)
def test_established_at_the_precision_the_claim_states(claim, span):
    assert compare(claim, span) == [], compare(claim, span)


@pytest.mark.parametrize(
    "claim,span,kind",
    [
        ("Watson has been head coach since 2018.", "May 20, 2019 The club hired Watson.", "date"),
        ("The offer was extended to John Smith.", "John Brown was also offered the job.", "entity"),
        (
            "He spoke at the Sun Valley Investor Conference.",
            "Sun Valley is an annual gathering.",
            "entity",
        ),
        (
            "It is popular in Iraq, Libya and Nepal.",
            "It is popular in Iraq, Libya and Sri Lanka.",
            "entity",
        ),
        ("Hanson won the race.", "Hansen won the race.", "entity"),
        (
            "The trail is about 350 miles long.",
            "The trail runs 248 miles from end to end.",
            "number",
        ),
        (
            "The trail is about 270 miles long.",
            "The trail runs 248 miles from end to end.",
            "number",
        ),
        (
            "The library holds more than 270,000 volumes.",
            "The library holds 260,415 volumes.",
            "number",
        ),
        ("A third of voters agreed.", "34% of voters agreed.", "number"),  # "a third" is not 34%
        ("The trail is 3,000 miles long.", "The trail is 3,400 miles long.", "number"),
        ("They played on four dates.", "The bands played on 4 May, 9 June and 2 July.", "number"),
        (
            "It took three years to write it.",
            "My last film (3 Idiots) released five years back.",
            "number",
        ),
        ("The panel dates from 1510–1520.", "The panel was probably painted around 1500.", "date"),
        ("Smith died in 1957.", "John Walls died in 1957; he was 66.", "entity"),
    ],
)
def test_what_it_still_catches(claim, span, kind):
    assert kind in kinds(claim, span), compare(claim, span)
