"""The slot reader (graders.specifics.slot_reader): proofs that rest on an aligned slot and
normalised values, never on absence, and the same reader over a whole page. The written case
files are read in test_slot_case_files.py."""

from __future__ import annotations

from spanproof.graders.audit import audit
from spanproof.graders.specifics.slot_reader import contradictions, slot_statements

from spanproof.core.verdict import SpanRef, Verdict


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


def test_two_values_share_a_slot_by_measure_only_when_each_is_its_clause_s_only_one():
    claim = "The harbour festival became popular in the 1970s."
    [c] = contradictions(claim, "The harbour festival first drew large crowds in the 1980s.")
    assert (c.anchor, c.span_value[2]) == ("measure", "1980s")
    # two dates in the span's clause: which one is the claim's is not shown by measure alone
    founded = "The harbour festival, founded in the 1950s, first drew large crowds in the 1980s."
    assert contradictions(claim, founded) == []
    # a dateline dates the page, not the event the claim's value is attached to
    assert (
        contradictions(
            "He was en route to the conference, starting on 20 July.",
            "July 18, 2014 He was en route to the conference when the plane was shot down.",
        )
        == []
    )


def test_a_date_range_by_measure_is_not_the_date_of_an_event_at_a_point():
    # a period of another deed ("served from 1990 to 1998") is not the date of a death
    claim = "The former mayor died in 2015."
    assert contradictions(claim, "The former mayor served from 1990 to 1998.") == []
    # the same point against a point, by measure, is still a slot
    [c] = contradictions(claim, "The former mayor died in 2012.")
    assert c.span_value[2] == "2012"


def test_towns_far_apart_are_two_places_and_a_town_may_lie_in_another():
    assert contradictions(
        "The conference will take place in Porto.", "The conference will take place in Valencia."
    )
    assert contradictions("He was born in Brooklyn.", "He was born in New York.") == []
    assert contradictions("He was born in Lisbon.", "He was born in Portugal.") == []


def test_by_after_the_same_word_makes_two_names_one_kind():
    [c] = contradictions(
        "The vaccine was developed by Novagen.",
        "The vaccine, developed by Corvex Biologics, received approval in 2021.",
    )
    assert c.span_value[2] == "Corvex Biologics"
    # "illustrations by" is another deed than "published by"
    assert (
        contradictions(
            "The book was published by Faber in 1962.",
            "The book appeared in 1962 with illustrations by Edward Ardizzone.",
        )
        == []
    )


def test_a_short_form_in_capitals_is_never_the_rival_of_a_name_its_letters_run_through():
    span = "The vaccine, developed by GlaxoSmithKline and licensed in 2021, is given in two doses."
    assert contradictions("GSK developed the vaccine.", span) == []  # its short form
    # the same role filled by names that cannot be one another is still a proof
    assert contradictions("Pfizer developed the vaccine.", span)
    assert contradictions("GSK developed the vaccine.", span.replace("GlaxoSmithKline", "Moderna"))
    # letters out of the long name's order, or a word not in capitals, are not a short form
    assert contradictions("KGS developed the vaccine.", span)


def test_a_qualified_part_may_be_smaller_than_the_whole_and_a_range_shares_its_unit():
    whole = "The team won the title in 1998, the first of its five championships."
    assert contradictions("The team won four consecutive titles.", whole) == []
    assert contradictions("The team won six consecutive titles.", whole)
    assert (
        contradictions("The project will take 3 years.", "The project will take two to four years.")
        == []
    )


def test_a_compass_direction_is_a_value_read_the_way_round_it_is_stated():
    claim = "The village lies west of the river."
    [c] = contradictions(claim, "The village lies 3 km east of the river.")
    assert (c.kind, c.span_value[2]) == ("direction", "east")
    # the same relation stated from the other side is the same direction
    assert contradictions(claim, "The river lies 3 km east of the village.") == []
    # a wind from the west is a westerly; moving west is another sense, never compared
    assert contradictions("The wind blew from the west.", "A westerly wind blew.") == []
    assert contradictions("The wind blew from the west.", "A strong easterly wind blew.")
    assert contradictions("The wind blew from the east.", "The wind moved west.") == []
    # a coarser reading of one direction is not another one
    assert contradictions(claim, "The village lies north-west of the river.") == []


def test_the_verifier_loads_the_reader_s_tables_when_it_is_made_not_in_a_pair():
    from spanproof.graders.judges import make_judge
    from spanproof.graders.specifics import names, places, readings
    from spanproof.graders.verify import Verifier

    readings._units.cache_clear()
    places._regions.cache_clear()
    names._organisation_nouns.cache_clear()
    Verifier([make_judge("blind")])
    assert readings._units.cache_info().currsize == 1
    assert places._regions.cache_info().currsize == 1
    assert names._organisation_nouns.cache_info().currsize == 1


def test_a_range_is_found_by_its_values_when_a_layout_is_recomputed_beside_cached_frames():
    # layouts, values and frames are cached apart: after a layout and its values are evicted
    # and read again, the frames still cached hold equal copies, and a range is still one
    from spanproof.graders.specifics import slot_reader, slots

    text = "The species lives between 200 and 800 metres."
    frames = slot_reader._frames(slot_reader._layout(text))
    slot_reader._layout.cache_clear()
    slots.values_of.cache_clear()
    again = slot_reader._layout(text)
    assert [f.value.text for f in slot_reader._group_of(frames, again, frames[0])] == [
        "200",
        "800 metres",
    ]


def test_a_hedge_before_a_figure_in_words_states_a_range():
    # "more than a decade" is met by twelve years, as "more than 10 years" is
    span = "The lighthouse keeper stayed on the island for twelve years before the light was automated."
    assert contradictions("The keeper lived on the island for more than a decade.", span) == []
    assert contradictions("The keeper lived on the island for over a decade.", span) == []
    # the same figure with no hedge, or a hedge that excludes twelve, is another value
    assert contradictions("The keeper lived on the island for less than a decade.", span)
    assert contradictions("The keeper lived on the island for two decades.", span)


def test_an_opposite_predicate_proves_nothing_when_the_span_states_the_claim_s_in_other_words():
    span = "Ticket sales climbed in 2023, while merchandise income fell."
    # "went up" is said by "climbed": the "fell" of another subject is no rival
    assert contradictions("Ticket sales went up in 2023.", span) == []
    # the span stating only the opposite is still a proof
    [c] = contradictions("Ticket sales went up in 2023.", "Ticket sales fell in 2023.")
    assert c.kind == "event"


def test_two_bounds_the_same_way_never_disagree():
    span = "Over 40 volunteers helped restore the mill."
    assert contradictions("More than 30 volunteers helped restore the mill.", span) == []
    assert contradictions("More than 50 volunteers helped restore the mill.", span) == []
    # a bound the span's plain figure does not meet is still a rival
    assert contradictions(
        "More than 50 volunteers helped restore the mill.", "40 volunteers helped restore the mill."
    )
