"""A name swapped in the claim's role, read from the structure of the span's clause
(graders.specifics.slot_roles, used by slot_reader.contradictions): a role noun the name
opens with, the agent of a deed noun it possesses, the object of a verb after a subject name,
a move's destination, the giver of what "came from" it, and a name displaced by "instead of".

``data/slot_cases_eighth.jsonl`` (53 cases) was written before this reading existed, in forms
the earlier case files did not hold (passive agents, appositions, possessives, role nouns,
"succeeded", "replaced", relocations, "instead of"; aliases, surnames, titles,
back-references and the claim's name in its role beside another name as paraphrases), and
measured once with the reader as it was (``python scripts/proof_cases.py
tests/graders/data/slot_cases_eighth.jsonl``, judge ``blind``): 6 of 26 contradictions
proven, 0 of 18 paraphrases, 0 of 9 absences; test_slot_case_files.py holds it since."""

from __future__ import annotations

from spanproof.graders.specifics.names import extract_entities
from spanproof.graders.specifics.slot_reader import contradictions
from spanproof.graders.specifics.slot_roles import aligned, displaced

from .test_slot_roles import _roles


def _proof(claim: str, span: str) -> tuple[str, str] | None:
    found = [c for c in contradictions(claim, span) if c.anchor == "role"]
    return (found[0].claim_value[2], found[0].span_value[2]) if found else None


def test_a_role_noun_a_name_opens_with_is_its_role():
    claim = _roles("The cantata was composed by Ida Rask.", "Ida Rask")
    titled = _roles("Composer Bruno Sand Lehto wrote the cantata.", "Composer Bruno Sand Lehto")
    assert aligned(claim, titled)
    # a given name opening a name is not a role noun ("Carter Hale Finch" is no carter)
    assert all(
        "carte" not in r.deed for r in _roles("Carter Hale Finch sang.", "Carter Hale Finch")
    )


def test_a_possessor_is_the_agent_of_the_deed_noun_it_owns():
    claim = _roles("The memoir was translated by Petra Lund.", "Petra Lund")
    owner = _roles("Oren Vale's translation of the memoir appeared in 1990.", "Oren Vale")
    assert aligned(claim, owner)
    # a noun that names no deed: the council fills the role, not its owner
    assert _roles("He chairs the Lowland Forum's council.", "Lowland Forum") == set()
    assert _proof(
        "The memoir was translated by Petra Lund.",
        "Oren Vale's translation of the memoir appeared in 1990; Petra Lund wrote its preface.",
    ) == ("Petra Lund", "Oren Vale")


def test_the_object_of_a_bare_verb_after_a_subject_name_is_read():
    span = "In the cup the Wolves beat the Ravens 2-0, and the Hawks went out early."
    assert {r.relation for r in _roles(span, "Ravens")} == {"object"}
    assert _proof("The Wolves beat the Hawks in the cup.", span) == ("Hawks", "Ravens")
    assert _proof("The Wolves beat the Ravens in the cup.", span) is None


def test_a_relative_clause_says_what_its_name_did():
    span = "The council chose Marlow Freight, which bought the depot in May."
    assert aligned(
        _roles("The depot was bought by Arden Haulage.", "Arden Haulage"),
        _roles(span, "Marlow Freight"),
    )
    # a copula after "who" says what the name is, no deed of its
    assert all(
        r.relation != "agent" for r in _roles("They met Orla Finch, who is a judge.", "Orla Finch")
    )


def test_an_irregular_past_after_a_noun_is_the_verb_of_its_object():
    span = "The club left Hexham in 2019 and now plays its home games in Morpeth."
    assert {r.relation for r in _roles(span, "Hexham")} == {"object"}
    assert _proof("The club plays its home games in Hexham.", span) == ("Hexham", "Morpeth")


def test_a_move_from_one_place_to_another_puts_the_thing_in_the_second():
    span = "The agency moved its offices from Graz to Linz in 2011."
    claim = _roles("The agency's offices are in Graz.", "Graz")
    assert aligned(claim, _roles(span, "Linz"))
    assert not aligned(claim, _roles(span, "Graz"))
    assert _proof("The agency's offices are in Graz.", span) == ("Graz", "Linz")
    assert _proof("The agency's offices are in Linz.", span) is None


def test_what_came_from_a_name_is_its_deed():
    span = "Funding for the survey came from the Orland Foundation."
    assert aligned(
        _roles("The survey was funded by the Pell Trust.", "Pell Trust"),
        _roles(span, "Orland Foundation"),
    )
    assert _proof("The survey was funded by the Pell Trust.", span) == (
        "Pell Trust",
        "Orland Foundation",
    )


def test_a_name_displaced_by_instead_of_does_not_state_the_claim_s():
    span = "The lecture was given by Dr Hana Mor instead of Dr Lev Arad, who was unwell."
    assert displaced(_roles(span, "Dr Lev Arad"))
    assert _proof("The lecture was given by Dr Lev Arad.", span) == ("Dr Lev Arad", "Dr Hana Mor")
    assert _proof("The lecture was given by Dr Hana Mor.", span) is None


def test_a_name_a_sentence_opens_with_a_common_word_keeps_it():
    # "New Zealand" read as "Zealand" is a name of no known kind, one the role reader would
    # set against "All Blacks"
    assert extract_entities("New Zealand won the final.") == ["New Zealand"]
    assert extract_entities("New rules apply in Leeds.") == ["Leeds"]
    assert (
        _proof(
            "New Zealand won the Rugby World Cup final.",
            "The All Blacks won the Rugby World Cup final, beating France by a single point.",
        )
        is None
    )
