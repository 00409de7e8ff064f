"""Names, kinship words and life states aligned by role (graders.specifics.slot_roles,
slot_life, and their use in slot_reader.contradictions). The case file written before this
alignment (``data/slot_cases_third.jsonl``) is read in test_slot_case_files.py."""

from __future__ import annotations

from spanproof.graders.specifics import slot_life
from spanproof.graders.specifics.slot_frames import layout
from spanproof.graders.specifics.slot_reader import contradictions
from spanproof.graders.specifics.slot_roles import aligned, roles


def _roles(text: str, name: str):
    lay = layout(text)
    at = text.index(name)
    return roles(lay, at, at + len(name))


def _proof(claim: str, span: str) -> tuple[str, str, str] | None:
    found = [c for c in contradictions(claim, span) if c.anchor in ("role", "life")]
    if not found:
        return None
    c = found[0]
    return c.claim_value[2], c.span_value[2], c.anchor


def test_the_same_role_is_read_from_a_passive_an_active_verb_and_an_agent_noun():
    by = _roles("The vaccine was developed by Novagen.", "Novagen")
    active = _roles("Corvex developed the vaccine in 2020.", "Corvex")
    noun = _roles("The vaccine's developer was Corvex.", "Corvex")
    assert {r.relation for r in by} == {"agent"}
    assert aligned(by, active) and aligned(by, noun)
    # the object of the deed is another role than its agent
    assert not aligned(by, _roles("Novagen acquired Corvex in 2020.", "Corvex"))
    # a possessor fills no role of its own ("the Forum's council" is the council)
    assert _roles("He chairs the World Economic Forum's council.", "World Economic Forum") == set()
    # "according to" and a saying verb are one role: the source
    assert aligned(
        _roles("Sales fell, according to Reuters.", "Reuters"),
        _roles("Sales fell, the Associated Press reported.", "Associated Press"),
    )


def test_a_name_swapped_in_another_syntax_is_proven():
    assert _proof(
        "The opera's libretto was written by Clara Venn.",
        "Tomas Adler wrote the libretto in the spring.",
    ) == ("Clara Venn", "Tomas Adler", "role")
    assert _proof(
        "The drug is manufactured by Pfizer.", "Merck manufactures the drug at a plant in Ireland."
    ) == ("Pfizer", "Merck", "role")


def test_a_name_the_span_states_anywhere_by_an_alias_is_never_proven():
    claim = "The gallery was founded by Helga Sorensen."
    # a surname, a title and surname, initials, an acronym: the claim's name, stated
    for span in (
        "Sorensen founded the gallery in 1964.",
        "Dr Sorensen founded the gallery in 1964.",
        "H. Sorensen founded the gallery in 1964.",
        "Karl Berg and Helga Sorensen founded the gallery in 1964.",
    ):
        assert _proof(claim, span) is None, span
    # a pronoun or "the club" is not a name: nothing fills the role
    assert _proof("Everton signed the goalkeeper.", "The club signed the goalkeeper.") is None
    assert _proof(claim, "She founded the gallery in 1964.") is None
    # without the alias, the rival is proven: the planted change the checks above guard
    assert _proof(claim, "Karl Berg founded the gallery in 1964.") is not None


def test_a_claim_s_name_named_only_in_another_role_does_not_hide_the_swap():
    claim = "The quartet was directed by Ines Moreau at the festival."
    # the claim's name in another role of the span: the role it claims holds another name
    swap = "At the festival Paul Grieve directed the quartet, with Ines Moreau on viola."
    assert _proof(claim, swap) == ("Ines Moreau", "Paul Grieve", "role")
    # the claim's name in its own role beside the other name, or where its role is unread
    for span in (
        "At the festival Paul Grieve and Ines Moreau directed the quartet.",
        "At the festival Paul Grieve directed the quartet; Ines Moreau's name was on the bill.",
    ):
        assert _proof(claim, span) is None, span


def test_a_lone_given_name_may_be_the_claim_s_person():
    claim = "The rivalry with LaRusso resumes in the second season."
    assert _proof(claim, "The rivalry with Daniel resumes in the second season.") is None
    assert _proof(claim, "The rivalry with Kreese resumes in the second season.") is not None


def test_another_subject_or_another_role_is_another_statement():
    claim = "Smith was born in Lyon."
    assert _proof(claim, "Smith's father was born in Paris.") is None
    assert _proof(claim, "His father was born in Paris.") is None
    # the agent of a passive the claim leaves out is not another subject
    assert _proof("The treaty was signed in Utrecht.", "Delegates signed the treaty at Nijmegen.")
    # a shared verb alone is not a shared statement: many may be killed
    assert (
        _proof(
            "Hetherington was killed while covering the war.",
            "He was hit by a fragment of the same mortar that killed Chris Hondros.",
        )
        is None
    )
    # the developer and the buyer are two roles
    assert (
        _proof("The vaccine was developed by Novagen.", "Corvex bought the vaccine in 2021.")
        is None
    )


def test_kinship_words_in_one_role_are_two_relations_unless_one_says_whose():
    assert _proof(
        "On his death the estate passed to his son.",
        "On his death the estate passed to his granddaughter, Emily.",
    ) == ("son", "granddaughter", "role")
    # "his son's daughter" is a granddaughter: a compound the reader leaves alone
    assert (
        _proof(
            "On his death the estate passed to his granddaughter.",
            "On his death the estate passed to his son's daughter, Emily.",
        )
        is None
    )
    # the span says the claim's relation somewhere: no proof
    assert (
        _proof(
            "On his death the estate passed to his son.",
            "On his death the estate passed to his son and his granddaughter.",
        )
        is None
    )


def test_a_kinship_word_said_of_a_person_by_copula_or_apposition_is_one_pair_s_relation():
    claim = "Anna Berg is the aunt of the mayor."
    # the same person and the same relative, another relation: by apposition either way,
    # by a copula, with the relative as a possessor or after "of", or a pronoun subject
    for span in (
        "Anna Berg, the mayor's niece, opened the exhibition.",
        "The mayor's niece, Anna Berg, opened the exhibition.",
        "Anna Berg is the niece of the mayor.",
    ):
        assert _proof(claim, span) == ("aunt", "niece", "role"), span
    assert _proof("She is the aunt of the new mayor.", "She is the new mayor's niece.")
    # another relative, another person, or the claim's relation stated: no proof
    for span in (
        "Anna Berg, the governor's niece, opened the exhibition.",
        "The mayor's niece, Lisa Holt, opened the exhibition.",
        "Anna Berg, the mayor's aunt, is also her niece's godmother.",
        "Anna Berg opened the mayor's exhibition.",
    ):
        assert _proof(claim, span) is None, span


def test_dead_and_alive_of_one_subject_are_opposite_values():
    assert _proof("The singer is still alive.", "The singer died on Saturday at his home.") == (
        "alive",
        "died",
        "life",
    )
    # negated, the span says what the claim says
    assert (
        slot_life.contradictions(
            "Both pilots were killed in the crash.", "Neither pilot survived the crash."
        )
        == []
    )
    # another subject, another event, or the claim's state said too: no proof
    assert slot_life.contradictions("The singer is alive.", "His brother died on Saturday.") == []
    assert (
        slot_life.contradictions(
            "The general survived the battle.", "The general died of fever in 1820, at sea."
        )
        == []
    )
    assert (
        slot_life.contradictions(
            "The pilot was killed in the crash.",
            "The crash killed three passengers, but the pilot was killed too.",
        )
        == []
    )
    # "survived by his wife" says he died
    assert slot_life.contradictions("The actor died in 2019.", "He is survived by his wife.") == []


def test_two_sources_of_one_report_are_two_attributions():
    claim = "Consumer price inflation fell to 3.9% in November, according to the Bank of England."
    said = "Consumer price inflation fell to 3.9% in November, the Office for National Statistics said."
    assert _proof(claim, said) == ("Bank of England", "Office for National Statistics", "role")
    # the span's source reports something else: it is not the claim's report's source
    other = "Wages rose faster than expected, the Office for National Statistics said."
    assert _proof(claim, other) is None
    # the claim's source named in the span, as an acronym: no proof
    assert (
        _proof(
            "Sales fell 4%, according to the WHO.",
            "Sales fell 4%, the World Health Organization said.",
        )
        is None
    )
