"""A name's role read from its own phrase (graders.specifics.slot_roles.bound_roles): an
apposition on either side ("Eleanor Whitcombe, the prosecuting barrister,"; "the trial
judge, Howard Pemberton,"), the agent of a passive in a relative clause ("the mission, which
was commanded by Major Stefan Holm"), the subject of a clause a preposition opens ("a year
after Helen Osei had founded the firm"), and the head of a subject before a copula ("the
referee of the final was"). Such a name fills its role whoever the sentence around it is
about, so a claim's name is compared with it and not with a name in another role.

``data/slot_cases_twelfth.jsonl`` (46 cases) was written before this reading, in forms the
earlier case files did not hold, and measured once with the reader as it was (``python
scripts/proof_cases.py tests/graders/data/slot_cases_twelfth.jsonl``, judge ``blind``): 10
of 22 contradictions proven, 0 of 16 paraphrases, 0 of 8 absences; 18 of 22 after."""

from __future__ import annotations

from spanproof.graders.specifics.slot_reader import contradictions

from .test_slot_roles import _roles


def _proof(claim: str, span: str) -> tuple[str, str] | None:
    found = [c for c in contradictions(claim, span) if c.anchor == "role"]
    return (found[0].claim_value[2], found[0].span_value[2]) if found else None


def test_an_apposition_after_a_name_says_its_role():
    claim = _roles("The clinic's owner is Petra Lund.", "Petra Lund")
    appositive = _roles("Oren Vale, the clinic's owner, opened it in 1990.", "Oren Vale")
    assert any(r.relation == "agent" for r in appositive)
    assert claim & appositive  # the same role noun, "owner", on both sides
    # a phrase holding a relative clause is no role noun's ("X, the firm that built it")
    assert _roles("Oren Vale, the firm that built it, said so.", "Oren Vale") == _roles(
        "Oren Vale said so.", "Oren Vale"
    )


def test_a_name_in_apposition_fills_its_role_whoever_the_sentence_is_about():
    span = (
        "Edith Marr, the defending barrister, told reporters that the trial judge, Leon Pask, had "
        "left early."
    )
    assert _proof("The trial judge was Edith Marr.", span) == ("Edith Marr", "Leon Pask")
    assert _proof("The trial judge was Leon Pask.", span) is None


def test_the_agent_of_a_passive_in_a_relative_clause_is_its_deeds():
    span = "Oona Kell sailed on the ferry, which was chartered by Bram Tiller in 1961."
    assert _proof("The ferry was chartered by Oona Kell.", span) == ("Oona Kell", "Bram Tiller")
    assert _proof("Bram Tiller chartered the ferry.", span) is None


def test_a_relative_clause_binds_its_name_to_its_deed():
    span = "Orwell Holdings lost out to Tamsin Foods, which bought the mill for £3m."
    assert _proof("The mill was bought by Orwell Holdings.", span) == (
        "Orwell Holdings",
        "Tamsin Foods",
    )
    assert _proof("Tamsin Foods bought the mill.", span) is None


def test_the_subject_of_a_clause_after_opens_does_its_verb():
    span = (
        "Ida Venn, its first cashier, started in 1990, a month after Piet Hals had opened the shop."
    )
    assert {r.relation for r in _roles(span, "Piet Hals")} == {"agent"}
    assert _proof("The shop was opened by Ida Venn.", span) == ("Ida Venn", "Piet Hals")
    assert _proof("Piet Hals opened the shop.", span) is None


def test_the_head_of_a_subject_before_a_copula_is_its_role_noun():
    head = _roles("The winner of the race was Ada Moll.", "Ada Moll")
    noun = _roles("The race's winner, Ada Moll, set a record.", "Ada Moll")
    assert head & noun  # "winner", not "race"
    assert not head & _roles("The race, Ada Moll said, was hard.", "Ada Moll")
