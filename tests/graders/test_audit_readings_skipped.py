"""The audit's readers skip scans and readings whose answer they never use, and answer alike.

Each test plants a text on which the skipped work used to run (a text without a share or a
century, a text of no count word, a claim crediting no source or joining nothing, a claim of
names only) and records the calls that must no longer happen; beside it, a text on which the
work is still needed shows it is still done and still read right. The findings themselves
are held equal to the previous revision's on every guard pair by the speed-only guards.
"""

from __future__ import annotations

import pytest
from spanproof.graders.specifics import attribution, coordination, numbers, slot_reader, slots

from spanproof.core import text as text_module
from tests.recording import record_calls, record_pattern_calls

_PLAIN = "The council approved 42 new homes at Brookfield during 2019, near the river."


def _record(monkeypatch: pytest.MonkeyPatch, module, names: tuple[str, ...]) -> list[str]:  # type: ignore[no-untyped-def]
    calls: list[str] = []
    for name in names:
        record_pattern_calls(monkeypatch, module, name, calls=calls, label=name)
    return calls


def test_the_share_and_century_patterns_scan_no_text_without_what_their_matches_hold(
    monkeypatch,
):
    calls = _record(monkeypatch, slots, ("_IN_EVERY", "_CENTURY", "_NUMERIC_DATE"))
    slots.values_of.cache_clear()
    assert [v.text for v in slots.values_of(_PLAIN)] == ["42", "Brookfield", "2019"]
    assert calls == []
    # a text holding a share, a century and a date in figures is scanned, and each is read
    said = "One in five homes dates from the 12th century; the sale closed on 7/1/2018."
    found = {(v.kind, v.text) for v in slots.values_of(said)}
    assert {"_IN_EVERY.finditer", "_CENTURY.finditer", "_NUMERIC_DATE.finditer"} <= set(calls)
    assert {("quantity", "One in five"), ("date", "12th century"), ("date", "7/1/2018")} <= found


def test_a_century_written_as_the_1400s_is_still_read():
    slots.values_of.cache_clear()
    assert [v.date.century for v in slots.values_of("It was built in the 1400s.") if v.date] == [15]


_COUNT_PATTERNS = ("_FRACTION_RE", "_DOZEN_RE", "_ORDINAL_WORD_RE", "_ORDINAL_DIGIT_RE")


def test_a_count_pattern_that_found_nothing_does_not_scan_again_to_blank(monkeypatch):
    # "halfway", "a dozenth", "seconds" hold the words the fraction, dozen and ordinal
    # patterns need (their guards let the text through), yet none of them matches
    text = "Within seconds a dozenth of the 42 residents left, halfway."
    assert all(getattr(slots, n).could_match(text) for n in _COUNT_PATTERNS[:3])
    calls = _record(monkeypatch, slots, _COUNT_PATTERNS)
    got = slots._quantities(text)
    assert not any(c.endswith(".sub") for c in calls)
    assert [q.surface for q, *_ in got] == ["42 residents"]
    # a text with a dozen and a 3rd still has each blanked, so no figure is read twice
    calls.clear()
    got = slots._quantities("A dozen homes were built on the 3rd of 42 plots.")
    assert {"_DOZEN_RE.sub", "_ORDINAL_DIGIT_RE.sub"} <= set(calls)
    assert [(q.kind, q.value) for q, *_ in got] == [
        ("number", 12.0), ("ordinal", 3.0), ("number", 42.0)
    ]  # fmt: skip


def test_the_numbers_of_compare_blank_only_what_their_patterns_found(monkeypatch):
    calls = _record(monkeypatch, numbers, _COUNT_PATTERNS[1:])
    numbers._extract_numbers.cache_clear()
    assert [q.value for q in numbers.extract_numbers(_PLAIN)] == [42.0]
    assert not any(c.endswith(".sub") for c in calls)
    calls.clear()
    numbers._extract_numbers.cache_clear()
    got = numbers.extract_numbers("A dozen homes were built on the 3rd of 42 plots.")
    assert {"_DOZEN_RE.sub", "_ORDINAL_DIGIT_RE.sub"} <= set(calls)
    assert sorted(q.value for q in got) == [3.0, 12.0, 42.0]


@pytest.fixture
def spans_tokenised(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts whose name tokens the attribution check reads, from now on."""
    return record_calls(monkeypatch, attribution, "token_set")


def test_a_claim_crediting_no_source_has_no_span_tokens_read(spans_tokenised):
    assert attribution.credited_elsewhere("The council approved 42 homes.", _PLAIN) == []
    assert spans_tokenised == []
    claim = "According to the World Bank, the council approved 42 homes."
    assert attribution.credited_elsewhere(claim, _PLAIN) == ["the World Bank"]
    assert spans_tokenised == [_PLAIN]


def test_a_claim_joining_nothing_has_no_span_words_read(monkeypatch):
    calls = _record(monkeypatch, coordination, ("_TOKEN",))
    assert coordination.coordination_departures("The council approved 42 homes.", _PLAIN) == []
    assert calls == []
    # a claim joining two things still has them looked for in the span
    claim = "The council approved homes and schools."
    found = coordination.coordination_departures(claim, _PLAIN)
    assert calls == ["_TOKEN.findall"] and [c.kind for c in found] == ["unstated"]


def test_a_claim_of_names_only_has_no_span_frames_read_for_its_normalised_values(monkeypatch):
    read = record_calls(monkeypatch, slot_reader, "_frames", lambda lay: lay.text)
    slot_reader._stated_after_normalising.cache_clear()
    span = "Mayor Dana Reyes opened 42 homes in Brookfield in 2019."
    claim = "Dana Reyes opened the homes in Oakdale."
    assert slot_reader.stated_after_normalising(claim, span) == ["Dana Reyes"]
    assert span not in read
    # a claim figure still has the span's frames read, and its other form found
    claim = "The mayor opened forty-two homes in Brookfield."
    assert "forty-two" in slot_reader.stated_after_normalising(claim, span)
    assert span in read


def test_an_ascii_token_is_folded_without_unicode_normalisation(monkeypatch):
    normalised = record_calls(monkeypatch, text_module.unicodedata, "normalize", lambda form, s: s)
    text_module.fold.cache_clear()
    assert text_module.fold("Brookfield's") == "brookfield's"
    assert normalised == []
    # a token with an accent or a curly apostrophe is still normalised
    assert text_module.fold("Bruzón’s") == "bruzon's"
    assert normalised == ["bruzón's"]


def test_a_claim_that_may_depart_from_no_sentence_has_no_span_sentence_read(monkeypatch):
    from spanproof.graders.specifics import polarity

    asked = record_calls(monkeypatch, polarity, "negates")
    span = "The council approved 42 new homes. Turnout rose to 61.5 percent. It was not spent."
    # no negation, no strong modal, no word of an opposite pair: nothing to depart
    assert polarity.polarity_departures("The council discussed the new homes.", span) == []
    assert not any(s in span for s in asked)  # the claim part alone is asked
    # a negated claim still has its sentence found, and the departure read
    found = polarity.polarity_departures("The council did not approve the new homes.", span)
    assert [d.kind for d in found] == ["negation"]
    assert "The council approved 42 new homes." in asked
    # and a claim using an opposite word still has its sentence's word read against it
    found = polarity.polarity_departures("Turnout fell to 61.5 percent.", span)
    assert [(d.said, d.answered) for d in found] == [("fell", "rose")]
