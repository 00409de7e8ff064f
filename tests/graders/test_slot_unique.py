"""The slot a claim's value shares with a span's when the span words the statement otherwise
(graders.specifics.slot_unique): the only value of the measure on each side, the claim's things
in the span's clause, its other values stated there, and nothing that narrows what is measured.

``data/slot_cases_ninth.jsonl`` (64 cases: 28 contradictions worded otherwise than their span,
24 paraphrases with other values of the same kind beside the claim's, 12 absences) was written
before this alignment and measured once on the reader as it stood (``python
scripts/proof_cases.py tests/graders/data/slot_cases_ninth.jsonl``, judge ``blind``): 5 of 28
contradictions proven, 0 of 24 paraphrases, 0 of 12 absences; after it, 6 of 28
(test_slot_case_files.py holds it since). Each guard below is shown holding on a pair it exists
for."""

from __future__ import annotations

from spanproof.graders.specifics.slot_reader import contradictions


def _anchors(claim: str, span: str) -> list[str]:
    return [c.anchor for c in contradictions(claim, span)]


def test_a_place_the_span_adds_is_no_other_statement():
    # "Lisbon" is a word the claim lacks, but it says where the treaty was signed, not which
    # treaty: the word alignment read it as another statement
    claim = "The treaty was signed on 12 March 1951."
    span = "The treaty, signed in Lisbon on March 21, 1951, entered into force two years later."
    [c] = contradictions(claim, span)
    assert c.anchor == "unique"
    assert (c.claim_value[2], c.span_value[2]) == ("12 March 1951", "March 21, 1951")


def test_who_reports_a_measure_is_no_other_statement():
    claim = "The male lion weighed 190 kg."
    span = "Keepers said the male lion tipped the scales at 230 kilograms."
    assert _anchors(claim, span) == ["unique"]


def test_a_word_that_narrows_what_is_measured_makes_another_statement():
    # the span adds "female" right before a noun both hold: another animal's weight
    claim = "The lion weighed 190 kg."
    assert _anchors(claim, "Keepers said the lion tipped the scales at 230 kilograms.")
    assert not contradictions(
        claim, "Keepers said the female lion tipped the scales at 230 kilograms."
    )
    # and the claim narrowing what the span measures, the other way round
    assert not contradictions(
        "The female lion weighed 190 kg.",
        "Keepers said the lion tipped the scales at 230 kilograms.",
    )


def test_a_second_value_of_the_measure_leaves_the_slot_unread():
    claim = "The male lion weighed 190 kg."
    # a value of another measure beside it leaves the slot to the only weight
    other_kind = "Keepers said the male lion tipped the scales at 230 kilograms and measured 3 m."
    assert _anchors(claim, other_kind) == ["unique"]
    # a second weight: which of the two is the claim's, the words do not say
    assert not contradictions(
        claim,
        "Keepers said the male lion tipped the scales at 230 kilograms, up from 210 kilograms.",
    )


def test_another_year_of_the_claim_makes_another_statement():
    span = "Keepers said the male lion tipped the scales at 230 kilograms in 2022."
    assert _anchors("The male lion weighed 190 kg in 2022.", span) == ["unique"]
    assert not contradictions("The male lion weighed 190 kg in 2020.", span)


def test_a_thing_the_span_names_only_outside_the_sentence_is_not_the_sentences():
    claim = "The male lion weighed 190 kg."
    weighed = "Keepers said the male lion tipped the scales at 230 kilograms."
    assert _anchors(claim, "The pride was moved in May. " + weighed) == ["unique"]
    # the lion is named, but in another sentence: this one weighs the cub
    span = "The male lion was moved in May. Keepers said the male cub tipped the scales at 23 kg."
    assert not contradictions(claim, span)


def test_a_name_of_the_claim_the_sentence_lacks_proves_nothing():
    claim = "Simba the lion weighed 190 kg."
    assert _anchors(claim, "Keepers said Simba the lion tipped the scales at 230 kg.")
    # "the lion" is held, the name is not: another lion, or a pronoun for one
    assert not contradictions(claim, "Keepers said the lion tipped the scales at 230 kg.")


def test_a_date_or_sum_of_another_deed_is_not_aligned_by_uniqueness_alone():
    # the only date of each, the claim's subject in both: the span dates another deed
    assert not contradictions(
        "The treaty was signed in 1648.", "The treaty ended a war that had begun in 1618."
    )
    assert not contradictions(
        "The film grossed $90 million worldwide.",
        "The film, made on a budget of $40 million, was a box-office disappointment.",
    )


def test_a_bound_read_as_a_point_is_not_compared():
    # "more than a decade" allows "over 11 years"; read as ten years it would disagree
    span = "Watson brings junior hockey coaching experience to Odessa that spans over 11 years."
    assert not contradictions(
        "Watson has more than a decade of junior hockey coaching experience.", span
    )
