"""Reads of the audit made cheaper without changing an answer.

The quote window reads each word of a span without the text memos (which only the whole
texts readers share belong in); the layout keeps each token's start as it makes the token;
the word readers test all their endings at once before trying them one by one. Each is held
here to the plain reading it replaces; the findings themselves are held equal to the previous
revision's on every guard pair by the speed-only guards.
"""

from __future__ import annotations

import pytest
from spanproof.graders.quoting import best_window
from spanproof.graders.specifics import concepts
from spanproof.graders.specifics.names import strip_possessive
from spanproof.graders.specifics.slot_frames import Tok, layout

from spanproof.core import text as text_module
from tests.recording import record_pattern_calls

_SPAN = (
    "The council of Brookfield approved the plan on Tuesday after a long debate about the "
    "river crossing, which residents had opposed for years; the mayor's office said the "
    "building work would start in 2019 and cost 42 million pounds, paid by the regional fund."
)


def test_the_quote_window_reads_a_spans_words_outside_the_text_memos():
    claim = "Brookfield's council approved the river crossing in 2019."
    text_module.content_stems(claim)  # the claim is a text readers share: it is read there
    before = (text_module.words.cache_info(), text_module.content_stems.cache_info())
    quote = best_window(claim, _SPAN)
    after = (text_module.words.cache_info(), text_module.content_stems.cache_info())
    assert [a.misses - b.misses for a, b in zip(after, before, strict=True)] == [0, 0]
    assert quote.startswith("The council of Brookfield approved the plan")
    assert len(quote.split()) == 25


@pytest.mark.parametrize("piece", ["Brookfield's", "U.S.", "running,", "the", "1990s", "e-mail"])
def test_a_piece_reads_as_the_memoised_reading(piece):
    assert text_module.piece_stems(piece) == text_module.content_stems(piece)


def test_a_layouts_token_starts_are_its_tokens_starts():
    # a particle joined to its verb replaces the verb's token: the starts stay in step
    text = "The board turned the application down at its meeting; it set up a fund."
    lay = layout(text)
    assert lay.starts == tuple(t.start for t in lay.toks)
    # each token made from its fields' tuple is the named tuple itself, fields in order
    assert all(type(t) is Tok and t == Tok(*t) for t in lay.toks)
    assert lay.toks[0] == Tok(0, 3, "The", frozenset(), -1)
    assert any(t.word == "turned" for t in lay.toks)


def _stripped_one_by_one(tok: str) -> str:
    tok = tok.rstrip(',;:!?"”)')
    for suffix in ("'s", "’s", "'", "’"):
        if tok.endswith(suffix):
            return tok[: -len(suffix)]
    return tok


_WORDS = [
    "Reyes's", "Reyes’s", "players'", "players’", "it's", "'", "’", "s", "Dana,", "Dana's,",
    "stopped", "planning", "studies", "boxes", "cats", "ran", "sing", "bed", "set", "running",
    "agreed", "hopped", "a", "", "ies", "taxed", "missing", "cities", "kissed",
]  # fmt: skip


@pytest.mark.parametrize("word", _WORDS)
def test_a_possessive_is_stripped_as_before(word):
    assert strip_possessive(word) == _stripped_one_by_one(word)


def _entry_one_by_one(low: str):  # type: ignore[no-untyped-def]
    row = concepts._row(low)
    if row is not None:
        return row, ""
    for ending, repl in concepts._ENDINGS:
        if low.endswith(ending) and len(low) - len(ending) >= 3:
            row = concepts._row(low[: -len(ending)] + repl)
            if row is not None:
                return row, ending
    for ending in ("ed", "ing"):
        if low.endswith(ending) and len(low) > len(ending) + 3:
            base = low[: -len(ending)]
            if base[-1] == base[-2] and (row := concepts._row(base[:-1])) is not None:
                return row, ending
    return None


@pytest.mark.parametrize("word", [w.lower() for w in _WORDS if w])
def test_a_words_table_entry_is_found_as_before(word):
    assert concepts._entry(word) == _entry_one_by_one(word)


def _stem_one_by_one(word: str) -> str:
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 4:
        return w
    for suffix in text_module._SUFFIXES_LONG:
        if w.endswith(suffix):
            return w[: -len(suffix)]
    for suffix in text_module._SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


@pytest.mark.parametrize(
    "word",
    _WORDS + ["nationalization", "organization", "happiness", "usefulness", "quickly",
              "released", "releases", "statement", "movements", "agency", "employers"],
)  # fmt: skip
def test_a_word_is_stemmed_as_before(word):
    assert text_module.stem.__wrapped__(word) == _stem_one_by_one(word)


def test_every_word_of_the_table_reads_as_before():
    # the table's own words and their inflections: each ending of _ENDINGS, a doubled consonant
    words = sorted(concepts._table())[::41]
    forms = [w + e for w in words if w.isalpha() for e in ("", "s", "es", "ed", "ing", "ly")]
    assert len(forms) > 5000
    for w in forms:
        assert concepts._entry(w) == _entry_one_by_one(w), w
        assert text_module.stem.__wrapped__(w) == _stem_one_by_one(w), w


def test_the_words_before_a_name_are_searched_for_a_title_only_after_one(monkeypatch):
    from spanproof.graders.specifics import slots

    calls = record_pattern_calls(monkeypatch, slots, "_PERSON_BEFORE")
    text = "Yesterday the striker Dana Reyes met Corvex Biologics at the club."
    assert slots.name_type(text, text.index("Corvex"), ("corvex", "biologics")) is None
    assert calls == []
    assert slots.name_type(text, text.index("Dana"), ("dana", "reyes")) == "person"
    assert calls == ["search"]


@pytest.mark.parametrize(
    "before",
    ["coach ", "the Chief Executive  ", "PROF. ", "by Dr.\n", "Mr.\t", "Mrs ", "ms.  ", "a ſir ",
     "coach", "coach.. ", "mr.x ", "drummer ", "", " ", "\n", "managers ", "the manager, "],
)  # fmt: skip
def test_a_title_the_pattern_finds_is_never_skipped(before):
    from spanproof.graders.specifics import slots

    if slots._PERSON_BEFORE.search(before):
        assert slots._may_follow_title(before)


def _development_texts() -> set[str]:
    """Every claim and span of the WiCE development pairs: real text the prechecks must pass."""
    import json

    from spanproof.goldens import shipped

    rows = [json.loads(line) for line in shipped("wice_dev_pairs.jsonl").read_text().splitlines()]
    return {t for r in rows for t in (r["claim"], r["span"])}


def test_every_title_before_a_name_in_the_development_pairs_is_searched_for():
    from spanproof.graders.specifics import slots

    found = 0
    for text in _development_texts():
        for at in range(len(text)):
            before = text[max(0, at - 40) : at]
            if slots._PERSON_BEFORE.search(before):
                found += 1
                assert slots._may_follow_title(before), before
    assert found  # some title stood before a word: the check above proved something


def test_the_words_before_a_figure_are_searched_for_a_hedge_only_when_they_end_in_one(monkeypatch):
    from spanproof.graders.specifics import numbers
    from spanproof.graders.specifics.slot_frames import hedge_start

    calls = record_pattern_calls(monkeypatch, numbers, "_HEDGE_BEFORE")
    text = "The council approved 42 homes, about 300 flats and up to 12 shops."
    assert hedge_start(text, text.index("42")) == text.index("42")
    assert calls == []
    assert hedge_start(text, text.index("300")) == text.index("about")
    assert hedge_start(text, text.index("12")) == text.index("up to")
    assert calls == ["search", "search"]


def test_a_sentence_without_a_period_inside_is_not_searched_for_a_missed_boundary(monkeypatch):
    from spanproof.core import sentences

    calls = record_pattern_calls(monkeypatch, sentences, "_MISSED_BOUNDARY")
    text = "The plant opened in 2019. It employs 40 people in Brookings, S.D. The firm grew."
    first = text.index(" It") + 1
    spans = [(0, first - 1), (first, len(text))]
    assert sentences._split_missed(text, spans[:1]) == spans[:1]
    assert calls == []
    split = sentences._split_missed(text, spans)
    assert [text[a:b] for a, b in split] == [
        "The plant opened in 2019.",
        "It employs 40 people in Brookings, S.D.",
        "The firm grew.",
    ]
    assert calls == ["finditer"]


def test_a_text_without_http_or_www_is_not_scanned_for_a_web_address(monkeypatch):
    from spanproof.graders.specifics import slot_frames

    calls = record_pattern_calls(monkeypatch, slot_frames._ADDRESS, "rx")
    layout.cache_clear()
    assert "council" in [t.word for t in layout(_SPAN).toks]
    assert calls == []
    lay = layout("The plans are at WWW.Brookfield.gov/plans and were approved.")
    assert calls == ["finditer"]
    assert [t.word for t in lay.toks] == ["The", "plans", "are", "at", "and", "were", "approved"]


def test_a_claim_without_a_hyphen_query_or_dotted_ending_is_not_scanned_for_codes(monkeypatch):
    import importlib

    # the module (the package exports its function ``identifiers`` under the same name)
    identifiers = importlib.import_module("spanproof.graders.specifics.identifiers")
    calls = record_pattern_calls(monkeypatch, identifiers, "_IDENTIFIER_RE")
    lowered: list[str] = []

    class Span(str):
        def lower(self) -> str:
            lowered.append(self)
            return super().lower()

    span = Span("The PELICAN-417 report is at example.org/report, page 3.")
    assert identifiers.missing_identifiers("The council met in 2019. It agreed.", span) == []
    assert calls == [] and lowered == []
    got = identifiers.missing_identifiers("PELICAN-418 was filed at example.org/report.", span)
    assert got == ["PELICAN-418"] and calls == ["finditer"] and lowered == [span]
    # a query string alone (no hyphen, no dotted ending) is still scanned for, and found
    assert identifiers.identifiers("Open search?id=7 now") == ["search?id=7"]


def test_whether_a_text_holds_a_digit_is_read_once(monkeypatch):
    from spanproof.graders.specifics import dates

    calls = record_pattern_calls(monkeypatch, dates, "_DIGIT")
    dates.has_digit.cache_clear()
    text = "The council met in the spring and agreed."
    assert [dates.has_digit(text) for _ in range(3)] == [False] * 3
    assert dates.has_digit("It met in 2019.") is True
    assert calls == ["search", "search"]


def test_a_text_without_age_or_years_old_is_not_scanned_for_an_age(monkeypatch):
    from spanproof.graders.specifics import slots

    calls = record_pattern_calls(monkeypatch, slots._AGE, "rx")
    # "year" alone lets the guard through: the pattern's second form also needs "old"; "page"
    # and "manager" hold "age" inside a word, where the first form never starts
    said = "In the year 2019 the manager met for ten days (page 4)."
    assert slots._word_values(said) == []
    assert calls == []
    said = "She retired aged 67; he was a 45-year-old engineer. Ages differ."
    assert [v.quantity.value for v in slots._word_values(said) if v.quantity] == [67.0, 45.0]
    assert calls == ["finditer"]


@pytest.mark.parametrize(
    "before",
    ["about ", "About", "more than $", "more than US$ ", "up to us$", "around  \n", "nearly\t",
     "an estimated £", "roughly €", "over", "almost $ ", "bus$", "(about", "about.", ""],
)  # fmt: skip
def test_a_hedge_the_pattern_finds_is_never_skipped(before):
    from spanproof.graders.specifics import numbers

    found = numbers._HEDGE_BEFORE.search(before)
    got = numbers.hedge_at_end(before)
    assert (got and got.span()) == (found and found.span())


def test_every_hedge_and_age_in_the_development_pairs_is_searched_for():
    from spanproof.graders.specifics import numbers, slots

    hedges = ages = 0
    for text in _development_texts():
        for at in range(len(text)):
            before = text[max(0, at - 24) : at]
            if numbers._HEDGE_BEFORE.search(before):
                hedges += 1
                assert numbers.hedge_at_end(before), before
        if slots._AGE.rx.search(text):
            ages += 1
            assert slots._may_state_age(text), text
    assert hedges and ages  # the checks above proved something
