"""Forms the slot reader normalises before it compares, and readings that keep it from
comparing what is not one slot: each was once a proof against a true paraphrase or an absence
(tests/graders/data/slot_cases_fourteenth.jsonl); these cases are written otherwise."""

from __future__ import annotations

from spanproof.graders.specifics.slot_reader import contradictions


def test_a_multiple_of_a_dozen_is_the_count_it_states():
    span = "The choir's 36 members rehearse weekly in the old corn exchange."
    assert contradictions("The choir has three dozen members.", span) == []
    assert contradictions("The choir has half a dozen soloists.", "The choir has 6 soloists.") == []
    assert contradictions("The choir has three dozen members.", "The choir has 30 members.")


def test_an_age_in_words_is_an_age_and_a_bare_figure_of_it_is_stated():
    assert contradictions("He retired aged sixty-two.", "He retired at the age of 62.") == []
    assert contradictions("He retired aged sixty-two.", "He retired at the age of 65.")
    # "at 19" is a bare figure the span states as an age: the sister's age is no rival
    span = "She was crowned champion as a nineteen-year-old. Her sister won the title at 22."
    assert contradictions("She first won the title at 19.", span) == []


def test_a_measure_written_in_two_units_is_one_value():
    span = "The summit party took 5 hours 50 minutes, about 40 minutes longer than planned."
    assert contradictions("The climb to the summit took just under six hours.", span) == []
    assert contradictions("The climb to the summit took four hours.", span)
    assert (
        contradictions("The keep is 12 feet 6 inches thick.", "The keep is 12 feet 6 inches thick.")
        == []
    )


def test_a_rank_in_the_claim_s_subject_says_which_thing_not_a_value():
    span = "The chain's second store opened in York in 2004, and a third followed in Hull."
    assert contradictions("The chain's fifth store opened in Leeds.", span) == []
    # a rank the claim states of its subject is still compared
    assert contradictions("It was the chain's fifth store.", "It was the chain's second store.")


def test_a_second_verb_of_the_subject_or_a_clause_of_time_is_another_statement():
    # the only length of time in the sentence is said of the first verb, not the second
    span = (
        "Lund sat on the county council for eleven years and was also chair of its planning"
        " board, a post she held until her death."
    )
    assert contradictions("Lund chaired the planning board for six years.", span) == []
    span = (
        "The museum will close for 18 months from May for roof repairs, after which the gallery"
        " refit will continue in stages."
    )
    assert contradictions("The gallery refit will take two years.", span) == []
    # a length of time said of what the claim names is still compared
    assert contradictions(
        "Lund sat on the county council for six years.",
        "Lund sat on the county council for eleven years.",
    )


def test_a_name_in_another_clause_about_another_thing_fills_no_role_of_the_claim_s():
    span = (
        "Flooding forced organisers to switch the cup final to the Minster city, and the junior"
        " races that had been set for York went to Exeter instead."
    )
    assert contradictions("The cup final was moved to York.", span) == []
    # the same clause moving the claim's own thing to another place is still a proof
    assert contradictions(
        "The cup final was moved to York.", "Organisers moved the cup final to Exeter."
    )


def test_a_fraction_placed_in_a_sequence_is_a_segment_not_a_share():
    # tests/graders/data/slot_cases_fifteenth.jsonl, fifteenth-a004 held the first of these
    span = "Profits at the brewer climbed steeply over the second half of the season."
    assert contradictions("Profits at the brewer climbed 35 percent.", span) == []
    span = "Exports of barley fell in the latter half of 2021, the ministry said."
    assert contradictions("Exports of barley fell by 12% in 2021.", span) == []
    # a fraction no word places in a sequence is still a share, and compared
    assert contradictions("Exports of barley fell by half.", "Exports of barley fell by a third.")
    assert contradictions(
        "Half of the staff voted to strike.", "A third of the staff voted to strike."
    )


def test_a_place_written_with_its_accents_is_the_town_the_lists_key_without_them():
    # GeoNames keys its towns in ASCII: "Győr" is the town "Gyor", 300 km from Debrecen
    assert contradictions("The plant is in Debrecen.", "The plant is in Győr.")
    assert contradictions("The festival is held in Bergen.", "The festival is held in Tromsø.")
    # the same town, written with and without its accents, is no rival
    assert contradictions("The bank is based in Zurich.", "The bank is based in Zürich.") == []
    assert contradictions("The match was played in Malmo.", "The match was played in Malmö.") == []


def test_a_span_sentence_ranking_the_claim_s_thing_otherwise_speaks_of_another_thing():
    # fourteenth-a017 ("the firm's third overseas plant" / "its first ... in Léopoldville")
    # became a wrong proof once the accented town was known; written otherwise here
    span = "The chain's second hotel opened in Zürich in 1961; a third followed in Oslo."
    assert contradictions("The chain's fourth hotel was opened in Vienna.", span) == []
    # the rank the claim selects, stated with another place, is still a proof
    assert contradictions("The chain's second hotel was opened in Vienna.", span)


def test_a_date_s_start_or_end_is_one_role_whichever_word_says_it():
    span = "The exhibition has been extended to 14 July, the gallery said."
    assert contradictions("The exhibition has been extended until 30 June.", span)
    span = "The road will be closed from 9 May for resurfacing."
    assert contradictions("The road has been closed since 4 May.", span)
    # the same end, said with the other word, agrees; an opening is no end
    same = "The exhibition has been extended to 30 June, the gallery said."
    assert contradictions("The exhibition has been extended until 30 June.", same) == []
    span = "The exhibition runs until 14 July, the gallery said."
    assert contradictions("The exhibition opened on 30 June.", span) == []


def test_a_date_a_part_of_which_is_named_keeps_the_role_of_its_preposition():
    span = "The pier reopened to visitors on 2 June 1994 after the storm repairs."
    assert contradictions("The pier reopened to visitors in the summer of 1996.", span)
    span = "The brewery shut its gates in 2011, ending 140 years of brewing."
    assert contradictions("The brewery shut its gates at the end of 2013.", span)
    # the part named agrees with the date inside it
    same = "The brewery shut its gates in December 2011."
    assert contradictions("The brewery shut its gates at the end of 2011.", same) == []


def test_a_name_written_as_its_initials_is_stated():
    # sixteenth-p018 ("The WHO's latest report" against "the World Health Organization"),
    # written otherwise: the span's other organisation is no rival of a name it abbreviates
    span = "Compiled in March, the WHO's dataset draws on records from UNICEF and the World Bank."
    claim = "The dataset was compiled by the World Health Organization in March."
    assert contradictions(claim, span) == []
    span = (
        "The WHO's figures, released on Friday, draw on records from Save the Children and the "
        "World Bank across 90 countries."
    )
    claim = "The World Health Organization released the figures on Friday."
    assert contradictions(claim, span) == []


def test_a_figure_multiplied_by_another_fills_no_slot_alone():
    # sixteenth-p002 ("sixteen detector elements" against "a 4 × 4 grid"), written otherwise
    span = "The display uses a 3 × 5 array of lamps behind a glass panel."
    assert contradictions("The display uses fifteen lamps.", span) == []
    span = "Each tile is a 2 x 3 m slab of slate, laid in 14 rows."
    assert contradictions("Each tile is a 3 m slab of slate, laid in 14 rows.", span) == []
    # a figure on its own is still compared
    span = "The display uses fifteen lamps behind a glass panel."
    assert contradictions("The display uses twelve lamps.", span)


def test_a_measure_hyphened_before_its_noun_takes_no_role_from_that_noun_s_preposition():
    # seventeenth-c016 ("lasted nine days" against "after a 12-day strike"), written otherwise:
    # "after" governs the walkout, not its length
    span = "The cleaners went back on Monday after a seven-week walkout over pay, the union said."
    assert contradictions("The walkout by cleaners lasted five weeks.", span)
    assert contradictions("The walkout by cleaners lasted seven weeks.", span) == []


def test_a_value_in_another_role_is_no_rival_for_the_slot():
    # seventeenth-c009 ("fell to 4.1 per cent" against "dropped to 4.7 per cent ... from 5.0
    # per cent"), written otherwise: the value it rose from does not compete for the value
    # it rose to, so the sentence still has one value for the claim's slot
    span = "The guild's roll of members rose to 388 members last year, up from 301 members in 2019."
    assert contradictions("Membership of the guild grew to 412 members last year.", span)
    # the value the span states in the other role is still the claim's value stated
    assert contradictions("Membership of the guild grew to 301 members last year.", span) == []


def test_a_word_before_a_verb_does_not_narrow_it():
    # "The city vacancy rate climbed": "rate" stands before the verb both hold, which names
    # no narrower thing than the claim's vacancies
    span = "The city vacancy rate climbed to 6.1 per cent in April."
    assert contradictions("In April, vacancies in the city climbed to 5.2 per cent.", span)
    assert contradictions("In April, vacancies in the city climbed to 6.1 per cent.", span) == []
