"""What a count or a rank counts is read once (``slot_frames.counted_noun``) for the slot
reader's alignment by uniqueness and for the self-correction check's measures."""

from __future__ import annotations

import pytest
from spanproof.graders.specifics.concepts import keys
from spanproof.graders.specifics.slot_frames import counted_noun, frame_of, layout
from spanproof.graders.specifics.slot_reader import contradictions


def _counted(text: str, value: str) -> frozenset:
    lay = layout(text)
    [v] = [v for v in lay.values if v.text.startswith(value)]
    return counted_noun(text, frame_of(lay, v))


@pytest.mark.parametrize(
    ("text", "value", "noun"),
    [
        ("Some 36,000 people were evacuated.", "36,000", "people"),  # the unit word taken in
        ("Thornbury's eight public libraries lent books.", "eight", "libraries"),  # first plural
        ("The library lent 48,720 e-books in 2025.", "48,720", "e-books"),  # a hyphened noun
        ("The club won its third consecutive title.", "third", "title"),  # no plural: the last
    ],
)
def test_a_count_counts_the_head_of_the_words_after_it(text, value, noun):
    assert _counted(text, value) == keys(noun)


def test_a_count_followed_by_a_verb_counts_nothing():
    assert _counted("Of the runners, 41 finished before noon.", "41") == frozenset()


@pytest.mark.parametrize(
    ("claim", "span", "proven"),
    [
        (
            "Tarnova is the country's second-largest city.",
            "Tarnova, the country's third-largest city, is a major port on the coast.",
            True,
        ),
        (
            "The ship sailed with fifteen men aboard.",
            "Records show the vessel left port with twelve men aboard.",
            True,
        ),
        (  # another counted noun: another slot
            "The ship sailed with fifteen men aboard.",
            "Records show the vessel left port with twelve women aboard.",
            False,
        ),
        (
            "The club won its third consecutive title.",
            "The victory gave the club its fourth consecutive title, the coach said.",
            True,
        ),
    ],
)
def test_counts_and_ranks_worded_otherwise_align_by_what_they_count(claim, span, proven):
    assert bool(contradictions(claim, span)) is proven
