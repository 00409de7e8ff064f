"""A name swapped within its statement (graders.specifics.slot_swaps): the claim's person,
place or organisation the span never states, against the one name of that kind in the span
sentence that states the claim's other specifics."""

from __future__ import annotations

import pytest
from spanproof.graders.specifics.slot_reader import contradictions


def _proven(claim: str, span: str) -> list[tuple[str, str]]:
    return [(c.claim_value[2], c.span_value[2]) for c in contradictions(claim, span)]


@pytest.mark.parametrize(
    ("claim", "span", "swap"),
    [
        (
            # the deed is worded otherwise: "a ceremony in Oslo" / "travelled to Vienna to accept"
            "She accepted the prize at a ceremony in Oslo in May 2019.",
            "In May 2019 she travelled to Vienna to accept the prize. The ceremony was broadcast.",
            ("Oslo", "Vienna"),
        ),
        (
            # the claim's other specific (the AA) is in another sentence than the rival
            "The band were towed back to Montreal by the AA, by their own account.",
            "In the end we were towed all the way back to Vienna. Luckily we had joined the AA "
            "the day before.",
            ("Montreal", "Vienna"),
        ),
    ],
)
def test_a_name_swapped_within_its_statement_is_proven(claim, span, swap):
    assert swap in _proven(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # the span's place is where the poet was born, a deed the claim does not speak of
        (
            "The poet died in Naples in 1961.",
            "The poet, who was born in Palermo, died in 1961 after a short illness.",
        ),
        # the claim's place belongs to a deed the span sentence never says (the war): a
        # SUPPORTED WiCE development pair (wice-dev01660), trimmed
        (
            "In 2019 she became the first person with a disability to brief the United Nations "
            "Security Council on her experiences during the war in Syria.",
            "That's how 20-year-old Nujeen Mustafa described the experience Wednesday of being "
            "the first person with a disability to brief the United Nations Security Council in "
            "New York. Nujeen Mustafa speaks at the United Nations Security Council briefing on "
            "April 24, 2019.",
        ),
        # another name fills the claim name's role: the claim's may be that one named otherwise
        (
            "New Zealand won the 2011 World Cup final by one point.",
            "The All Blacks won the 2011 World Cup final, beating France by a single point.",
        ),
        # a verbless phrase describing another name is not the claim's statement
        (
            "The company was founded in 1886 by John Patterson in Dayton.",
            "The company was founded in 1886 by John Patterson, a coal merchant from Toledo.",
        ),
        # the span's person is who said it, not who was selected: the supporting sentence of
        # a WiCE development pair (wice-dev01451) removed, as a stale page serves it
        (
            "On August 22, 2017, Richard Amardi was selected to play for the national team at "
            "the FIBA AmeriCup 2017.",
            'The team was announced on August 22, 2017. "Following a successful selection '
            "camp, we're pleased to announce the players that will play at the FIBA AmeriCup "
            '2017," said Roy Rana, Head Coach.',
        ),
        # the claim's organisation is its source, the span's the owner of the venues
        (
            "Attendance fell by 8% in 2019, according to the Arts Council.",
            "Attendance fell by 8% in 2019 at venues owned by the Castlemere Group.",
        ),
        # nothing else of the claim ties it to one sentence of the span
        ("She accepted the prize in Oslo.", "She travelled to Vienna to accept the prize."),
        # the claim's place is stated: no swap, whatever other place the span names
        (
            "The treaty was signed in Lisbon in 2007.",
            "The treaty was signed in Lisbon in 2007 after talks in Madrid.",
        ),
    ],
)
def test_an_absence_or_a_paraphrase_is_not_a_swap(claim, span):
    assert _proven(claim, span) == []
