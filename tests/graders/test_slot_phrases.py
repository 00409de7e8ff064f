"""A verb and its particle read as the one verb WordNet lists ("set up" / "founded", "turned
down" / "rejected"), through the same synonym path as one-word verbs, for the role a name
fills and for opposite events (graders.specifics.concepts.phrase_keys, slot_frames)."""

from __future__ import annotations

from spanproof.graders.specifics.concepts import keys, phrase_keys, phrase_verb
from spanproof.graders.specifics.slot_reader import contradictions


def _anchors(claim: str, span: str) -> list[str]:
    return [c.anchor for c in contradictions(claim, span)]


def test_a_verb_and_its_particle_take_the_phrase_s_concepts():
    assert phrase_keys("set", "up") & keys("founded")
    assert phrase_keys("turns", "down") & keys("rejected")
    assert phrase_keys("taken", "over") == phrase_keys("took", "over") - {"took_over"} | {
        "taken_over"
    }
    assert phrase_verb(phrase_keys("setting", "up"))
    # a preposition takes an object of its own: no verb phrase ("stood for election")
    assert phrase_keys("stood", "for") == frozenset()
    # a word with no particle keeps its own keys only: no verb phrase in them
    assert not phrase_verb(keys("set"))


def test_a_name_in_the_role_of_a_particle_verb_is_aligned():
    claim = "The museum was founded by Ada Kerr."
    assert _anchors(claim, "Jonas Pell set up the museum in 1921.") == ["role"]
    # a passive with "by": aligned by the words before the names as well as by role
    assert _anchors(claim, "In 1921 the museum was set up by Jonas Pell.") in (["role"], ["near"])
    # the same founder, or a name in another role of another verb: no proof
    assert _anchors("The museum was founded by Jonas Pell.", "Jonas Pell set up the museum.") == []
    assert _anchors(claim, "Jonas Pell looked up the museum's records in 1921.") == []
    # the phrase is not its verb: "turned down" is not "turned"
    assert _anchors("The wheel was turned by Ada Kerr.", "Jonas Pell turned down the wheel.") == []


def test_an_opposite_event_said_with_a_particle_verb():
    assert _anchors("The board turned down the merger.", "The board approved the merger.") == [
        "event"
    ]
    assert _anchors("The board approved the merger.", "The board turned the merger down.") == [
        "event"
    ]
    # a phrase that shares one sense of several with an opposite word does not say it:
    # "held up" is delayed far more than supported
    assert _anchors("The senator opposed the bill.", "The senator held up the bill.") == []
    assert _anchors("The plant was opened in 1990.", "The plant was shut down in 1990.") == [
        "event"
    ]
    # the same predicate, written either way: no proof
    assert _anchors("The board rejected the merger.", "The board turned the merger down.") == []
    assert _anchors("The board turned down the merger.", "The board rejected the merger.") == []
