"""Counts of a noun against ranks of the same noun ("a two-term mayor" / "won a third term"),
and the span words the reader takes for a predicate or a prefix when it checks that two
values are said of one thing (graders.specifics.slot_reader, slot_frames)."""

from __future__ import annotations

from spanproof.graders.specifics.slot_frames import layout
from spanproof.graders.specifics.slot_reader import contradictions


def _proven(claim: str, span: str) -> list[tuple[str, str]]:
    return [(c.claim_value[2], c.span_value[2]) for c in contradictions(claim, span)]


def test_a_rank_beyond_a_count_of_the_same_noun_is_another_count():
    claim = "Moreno is a three-term governor."
    assert _proven(claim, "Moreno began a fifth term as governor in 2021.") == [("three", "fifth")]
    # a rank within the count (the second of three terms), or of another noun: no proof
    assert _proven(claim, "Moreno began a second term as governor in 2013.") == []
    assert _proven(claim, "Moreno began a fifth season as coach in 2021.") == []
    # the other way round: the claim ranks, the span counts
    assert _proven(
        "Moreno began a fifth term as governor.", "Moreno served three terms as governor."
    )


def test_a_re_election_won_is_the_span_s_predicate_not_another_subject():
    claim = "The mayor was elected to a second term in 2018."
    assert _proven(claim, "In 2018 the mayor won re-election to his fourth term.") == [
        ("second", "fourth")
    ]
    assert _proven(claim, "In 2018 the mayor won re-election to his second term.") == []


def test_a_two_letter_word_hyphened_to_another_is_its_prefix():
    toks = {t.word: t.keys for t in layout("Her co-founder won re-election.").toks}
    assert toks["co"] == frozenset() and toks["re"] == frozenset()
    assert toks["founder"] and toks["election"]
