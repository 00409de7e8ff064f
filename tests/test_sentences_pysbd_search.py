"""The splitter's faster use of pysbd gives what pysbd's own ``segment`` gives.

``spanproof.core.sentences`` runs pysbd's processor with an abbreviation pass that skips the
abbreviations a line never writes with a period, and finds each sentence in the text with
``str.find`` instead of pysbd's one compiled pattern per sentence (which also evicted every
other pattern from ``re``'s cache). These tests hold the two equal to stock pysbd on real
pages and on texts built to repeat, start and end with whitespace, mix cases and scripts
around abbreviations, and hold the oddities pysbd keeps.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pysbd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanproof.core.sentences import _pysbd_segments

ROOT = Path(__file__).resolve().parent.parent
_PYSBD = pysbd.Segmenter(language="en", clean=False)


def _pages(n: int) -> list[str]:
    with gzip.open(ROOT / "goldens" / "wice_dev_pages.jsonl.gz", "rt", encoding="utf-8") as f:
        pages = [json.loads(line)["sentences"] for line in f]
    picked = random.Random(22).sample(pages, n)
    # the two ways pages reach the splitter: one paragraph, and one sentence a line
    return [" ".join(p[:60]) for p in picked] + ["\n".join(p[:60]) for p in picked]


@pytest.mark.parametrize("text", _pages(6))
def test_same_segments_as_pysbd_on_real_pages(text):
    assert _pysbd_segments(text) == _PYSBD.segment(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "a",
        "Hi.  Hi.  Hi.",  # the same sentence three times: each found after the last
        "\n\n  Leading space. Trailing space.   \n",
        "Dr. Who. Dr. Who. Dr. Who.",
        "He said “Go.” “Go.” Then left.",
        "x. . . y . . . z",
        "'' '' ''",
        "A.\n\nA.\n\nB. A.",
        "The U.S. Army was there.\u00a0The U.S. Army left.\u2003Done.",
        "1. First item 2. Second item 3. Third item",
        "It cost $3.5 million (about 3.5%). It rose 3.5% again.",
    ],
)
def test_same_segments_as_pysbd_on_awkward_texts(text):
    assert _pysbd_segments(text) == _PYSBD.segment(text)


_PIECES = ["The cat sat.", "Dr.", "U.S.", "p.m.", " ", "  ", "\n", "\u00a0", "“", "”", "'", "...",
           "It rose 3.5%.", "He left!", "Why?", "a", "(see above)", "e.g.", "No.", "1.", "St. ",
           "Mr. Smith", "ST.", "dR.", "no. 5", "Inc. ", "Ph.D.", "a.m. ", "Jan. ", "approx. ",
           "Bruzón.", "K.", "ſt.", "Fig. 2", "vs. ", "Co."]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=25).map("".join))
def test_same_segments_as_pysbd_on_repeats(text):
    assert _pysbd_segments(text) == _PYSBD.segment(text)
