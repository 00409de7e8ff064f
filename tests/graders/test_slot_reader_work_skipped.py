"""The slot reader skips work whose answer it never reads, and gives the same findings.

Each test plants a pair on which the skipped work used to run (a claim with nothing a span
could state otherwise, a claim name read against every span name, a span figure against a
claim of names only) and counts the calls that must no longer happen; beside it, a pair on
which the work is still needed shows the reader still does it and still proves what it
proved. The findings themselves are held equal to the previous revision's on every guard pair
by the speed-only guards, and by the readers' own tests.
"""

from __future__ import annotations

from collections import Counter

import pytest
from spanproof.graders.specifics import readings, slot_reader, slots
from spanproof.graders.specifics.slot_frames import layout as _layout
from spanproof.graders.specifics.slot_roles import kin_words

from spanproof.core.prefilter import Guarded
from tests.recording import record_calls

# a span with figures, dates and names in every sentence
_SPAN = (
    "The council approved 42 new homes in Brookfield in 2019. Turnout rose to 61.5 percent. "
    "Mayor Dana Reyes said the budget of $3.2 million was spent by March."
)


def _fresh() -> None:
    """Forget what earlier tests read (each test counts the reading of its own pair)."""
    for fn in (slot_reader._contradictions, slot_reader._frames_of, slot_reader._roles_in,
               _layout, readings._unit_end):  # fmt: skip
        fn.cache_clear()


@pytest.fixture
def laid_out(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts the slot reader lays out, from now on."""
    _fresh()
    return record_calls(monkeypatch, slot_reader, "_layout", real=_layout)


def test_a_claim_with_nothing_a_span_could_state_otherwise_lays_out_no_span(laid_out):
    claim = "The homes were built quickly."
    c_lay = _layout(claim)
    # no value, no kinship word, no side of an opposite pair: nothing to state otherwise
    assert c_lay.values == () and kin_words(c_lay) == []
    assert not any(slot_reader._said(t) & slot_reader._OPPOSITE_WORDS for t in c_lay.toks)
    assert slot_reader.contradictions(claim, _SPAN) == []
    assert _SPAN not in laid_out
    # a claim with a value still has the span read, and its rival found
    found = slot_reader.contradictions("Turnout rose to 58 percent.", _SPAN)
    assert _SPAN in laid_out
    assert [(c.claim_value[2], c.span_value[2]) for c in found] == [("58 percent", "61.5 percent")]


def test_the_opposite_event_reader_walks_no_sentence_when_no_pair_can_fire(monkeypatch):
    _fresh()
    searched: list[str] = []
    real = slot_reader._NEGATION

    class Recording:
        def search(self, text: str):  # type: ignore[no-untyped-def]
            searched.append(text)
            return real.search(text)

    monkeypatch.setattr(slot_reader, "_NEGATION", Recording())
    claim = "The team won the final."
    span = "The team played the final in May. It drew a large crowd."
    assert slot_reader._event_contradictions(claim, span) == []
    assert searched == [claim]  # the claim's negation only: no span sentence is walked
    # a span saying the other side is still walked, and the opposite predicate proven
    searched.clear()
    found = slot_reader._event_contradictions(claim, "The team lost the final.")
    assert [(c.claim_value[2], c.span_value[2]) for c in found] == [("won", "lost")]
    assert searched == [claim, "The team lost the final."]


def test_the_opposite_event_reader_lays_out_no_span_for_a_claim_without_an_opposite_word(
    laid_out,
):
    claim = "The homes stand near the river."
    assert slot_reader._event_contradictions(claim, _SPAN) == []
    assert laid_out == [claim]


def test_a_span_names_roles_are_read_once_for_every_name_of_the_claim(monkeypatch):
    _fresh()
    calls = record_calls(monkeypatch, slot_reader, "roles", lambda lay, a, b: (lay.text, a, b))
    claim = "Anna Kowal wrote the libretto for Tomas Adler."
    span = "The libretto was written by Clara Venn. Tomas Adler and Clara Venn met in Vienna."
    slot_reader._role_contradictions(claim, span)
    asked = Counter(calls)
    span_names = [v for v in _layout(span).values if v.kind == "name"]
    assert len([v for v in _layout(claim).values if v.kind == "name"]) >= 2
    assert any((span, v.start, v.end) in asked for v in span_names)
    assert max(asked.values()) == 1  # each name's roles once, however many claim names ask


def test_a_quantitys_unit_end_is_read_once_for_its_layout_and_its_frame(monkeypatch):
    _fresh()
    calls = record_calls(monkeypatch, readings, "_unit_after", lambda text, end, _: (text, end))
    text = "The bridge is 5 km long and 30 metres high."
    frames = slot_reader._frames_of(text)
    assert [f.value.text for f in frames] == ["5 km", "30 metres"]
    assert [readings.unit_end(text, f.value) for f in frames] == [f.value.end for f in frames]
    # each figure's unit words: once for where the value ends, once for its reading
    assert sorted(Counter(calls).values()) == [2, 2]


def test_a_claim_of_names_only_frames_none_of_the_span_figures(monkeypatch):
    _fresh()
    framed = record_calls(
        monkeypatch, slot_reader, "_frame", lambda lay, v: v.kind if lay.text == _SPAN else None
    )
    claim = "Mayor Dana Reyes approved the homes in Oakdale."
    assert {v.kind for v in _layout(claim).values} == {"name"}
    slot_reader.contradictions(claim, _SPAN)
    assert framed and set(framed) == {"name"}
    # a claim with a figure still frames the span's figures
    framed.clear()
    slot_reader.contradictions("Turnout rose to 58 percent.", _SPAN)
    assert "quantity" in framed and "name" not in framed


def test_a_span_value_of_another_measure_is_not_tried_for_an_alignment(monkeypatch):
    _fresh()
    tried = record_calls(monkeypatch, slot_reader, "_anchor", lambda cf, sf: sf.value.text)
    found = slot_reader.contradictions("Turnout rose to 58 percent.", _SPAN)
    assert [c.span_value[2] for c in found] == ["61.5 percent"]
    assert "2019" not in tried and "March" not in tried  # dates: another measure
    assert "61.5 percent" in tried


_GUARDED = ("_WEEKDAY", "_DIRECTION", "_AGE", "_SCALED", "_TIME_SPAN", "_DECADE_WORD")


def test_value_patterns_scan_no_text_without_the_words_every_match_needs(monkeypatch):
    scanned: list[str] = []

    class Recording:
        def __init__(self, name: str, rx) -> None:  # type: ignore[no-untyped-def]
            self.name, self.rx = name, rx

        def finditer(self, text: str, *args: int):  # type: ignore[no-untyped-def]
            scanned.append(self.name)
            return self.rx.finditer(text, *args)

    for name in _GUARDED:
        guard = getattr(slots, name)
        assert isinstance(guard, Guarded)
        monkeypatch.setattr(guard, "rx", Recording(name, guard.rx))
    slots.values_of.cache_clear()
    plain = "The council approved 42 new homes in Brookfield."
    assert [v.text for v in slots.values_of(plain)] == ["42", "Brookfield"]
    assert scanned == []
    # a text holding their words is scanned, and its values read
    said = "On Monday, aged 67, he walked north for half a million steps in the sixties."
    kinds = [v.kind for v in slots.values_of(said)]
    assert set(scanned) == set(_GUARDED) - {"_TIME_SPAN"} and "weekday" in kinds
    assert "direction" in kinds and "date" in kinds


def test_between_before_a_group_is_read_only_for_a_bare_and(monkeypatch):
    read: list[str] = []
    real = slots._BETWEEN_BEFORE

    class Recording:
        def search(self, text: str):  # type: ignore[no-untyped-def]
            read.append(text)
            return real.search(text)

    monkeypatch.setattr(slots, "_BETWEEN_BEFORE", Recording())
    slots.values_of.cache_clear()
    listed = slots.values_of("It won in 2003, 2005, 2008 or 2011.")
    assert read == [] and len({v.group for v in listed if v.kind == "date"}) == 1
    ranged = slots.values_of("It cost between 200 and 300 dollars.")
    assert read and all(v.in_range for v in ranged if v.kind == "quantity")


def _prose_starts(text: str) -> list[int]:
    """Where the layout's tokens start, found as the layout found them before it painted what
    each character stands on: every value holding a token searched, the first one deciding."""
    from spanproof.graders.specifics.slot_frames import _ADDRESS, _TOKEN

    values = slots.values_of(text)
    held = [(v, v.start, readings.unit_end(text, v)) for v in values]
    addresses = [m.span() for m in _ADDRESS.finditer(text)]
    out = []
    for m in _TOKEN.finditer(text):
        at = m.start()
        if any(a <= at < b for a, b in addresses):
            continue
        inside = [v for v, a, b in held if a <= at < b]
        if inside and inside[0].kind != "name":
            continue
        out.append(at)
    return out


@pytest.mark.parametrize(
    "text",
    [
        _SPAN,
        "See www.example.org/2019/report-42 for the 42 pages by Dana Reyes.",
        "The trail runs for 3,000 metres along the cliff near Boston, Lincolnshire.",
        "Between 200 and 300 people, a quarter of a million dollars, on Monday 7/1/2018.",
        "It rose 5 km north of https://x.io/a b, aged 67, in the sixties and the 1400s.",
    ],
)
def test_the_layout_reads_the_tokens_the_search_of_every_value_read(text: str) -> None:
    _layout.cache_clear()
    assert [t.start for t in _layout(text).toks] == _prose_starts(text)
