"""A list whose members the span states at the same places but one: that member is another
value (graders.specifics.slot_agreement.odd_member), and nothing else about two lists is."""

from __future__ import annotations

import pytest
from spanproof.graders.specifics.slot_reader import contradictions

SPAN = "The hearings have been set for March 2021 and June 2022, the tribunal said on Friday."


def test_one_member_stated_otherwise_at_its_place_is_proven():
    claim = "The hearings have been set for March 2021 and June 2023."
    found = [(c.claim_value[2], c.span_value[2]) for c in contradictions(claim, SPAN)]
    assert found == [("June 2023", "June 2022")]


@pytest.mark.parametrize(
    "claim",
    [
        "The hearings have been set for March 2021 and June 2022.",  # the same list
        "The hearings have been set for June 2022 and March 2021.",  # reordered, not changed
        "The hearings have been set for June 2022.",  # a member of the list
    ],
)
def test_a_list_the_span_states_is_never_proven(claim):
    assert not contradictions(claim, SPAN)
