"""The audit skips work whose answer it never reads, and gives the same findings.

Each test plants a text on which the skipped work used to run (numbers in every span
sentence, a claim with no figure against a span full of them, words with no verb phrase) and
counts the calls that must no longer happen; the findings themselves are held equal to the
previous revision's on every guard pair by the speed-only guards, and by the readers' own tests.
"""

from __future__ import annotations

import gc
import importlib
import subprocess
import sys

import pytest
from spanproof.graders.specifics import polarity, slot_reader
from spanproof.graders.specifics.comparison import compare
from spanproof.graders.specifics.extract import extract, modals, negates
from spanproof.graders.specifics.slot_frames import layout

from tests.recording import record_calls

# the module (the package exports its function ``extract`` under the same name)
extract_module = importlib.import_module("spanproof.graders.specifics.extract")


@pytest.fixture
def numbers_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The texts whose numbers are read (``extract_numbers``), from now on."""
    seen = record_calls(monkeypatch, extract_module, "extract_numbers")
    extract.cache_clear()  # a Specifics made earlier holds its own answers
    return seen


# a span of several sentences, each with figures: what the polarity check ranks
_SPAN = (
    "The council approved 42 new homes in 2019. Turnout rose to 61.5 percent. "
    "The budget of $3.2 million was not spent. Work on 17 of the sites began in March."
)


def test_the_polarity_check_reads_no_numbers_of_the_span_sentences(numbers_read):
    claim = "The council did not approve the new homes."
    found = polarity.polarity_departures(claim, _SPAN)
    assert [d.kind for d in found] == ["negation"]  # it still reads the sentences' polarity
    assert numbers_read == []


def test_negation_and_modals_are_read_as_a_whole_reading_reads_them():
    assert negates("The plan was not approved.")
    assert negates("It wasn’t approved.")  # a curly apostrophe
    assert not negates("It not only rose but doubled.")  # asserts both
    assert modals("Prices will rise.") == (True, False)
    assert modals("Prices may rise.") == (False, True)
    assert modals("Prices rose in May.") == (False, False)  # the month, not the modal
    s = extract("The plan may not be approved.")
    assert (s.negated, s.strong_modal, s.hedged_modal) == (True, False, True)


def test_a_claim_without_figures_reads_none_of_the_span_s(numbers_read):
    claim = "The council approved the new homes."
    assert compare(claim, _SPAN) == []
    assert _SPAN not in numbers_read
    # a claim with a figure still has the span's read, and its figure found stated
    assert compare("The council approved 42 new homes.", _SPAN) == []
    assert _SPAN in numbers_read


def test_a_word_without_a_verb_phrase_is_not_compared_with_every_opposite_word(monkeypatch):
    asked = record_calls(
        monkeypatch, slot_reader, "_concepts_of", real=slot_reader._concepts_of.__wrapped__
    )
    plain = next(t for t in layout("The board approved the merger.").toks if t.word == "approved")
    assert slot_reader._said.__wrapped__(plain) == frozenset({"approved"})
    assert asked == []
    # a verb with its particle still says the opposite pair's word WordNet lists it as
    lay = layout("The board turned down the merger.")
    phrase = next(t for t in lay.toks if t.word == "turned")
    assert "rejected" in slot_reader._said.__wrapped__(phrase)
    assert asked


def test_the_loaded_tables_are_frozen_out_of_the_collector_once_per_process():
    # a fresh process: this one's tables may have been loaded (and frozen) by another test
    probe = (
        "import gc; from spanproof.graders.specifics.slot_reader import load_tables\n"
        "before = gc.get_freeze_count(); load_tables(); first = gc.get_freeze_count()\n"
        "junk = [[] for _ in range(1000)]; load_tables()\n"
        "print(before, first, gc.get_freeze_count())\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    before, first, again = map(int, out.stdout.split())
    assert before == 0 and first > 0
    assert again == first  # a second call freezes nothing more (spanproof.core.heap)
    assert gc.isenabled()


def test_values_stated_after_normalising_are_read_only_to_excuse_a_mismatch(monkeypatch):
    from spanproof.graders import findings

    asked = record_calls(monkeypatch, findings, "stated_after_normalising", lambda c, s: (c, s))
    # every specific of the claim stated literally: nothing to excuse
    assert findings._specific_flags("Turnout rose to 61.5 percent.", _SPAN, set()) == []
    assert asked == []
    # a distance stated in other units: read, and the flag it would raise excused
    claim, span = "The trail is 3 km long.", "The trail runs for 3,000 metres along the cliff."
    assert findings._specific_flags(claim, span, set()) == []
    assert asked == [(claim, span)]
