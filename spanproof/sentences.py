"""The one sentence splitter: pysbd (English, character offsets), whitespace trimmed.

Span boundaries, report parsing, passage windows, the atomic splitter and the planted
failures must all agree on where a sentence ends, so they all cut text here. pysbd keeps
"U.S.", "Dr." and "3.5%" inside one sentence.
"""

from __future__ import annotations

import pysbd

_segmenter: pysbd.Segmenter | None = None


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every non-blank sentence of ``text``, surrounding whitespace excluded."""
    global _segmenter
    if _segmenter is None:  # built on first use: nothing pays for it at import
        _segmenter = pysbd.Segmenter(language="en", clean=False, char_span=True)
    out: list[tuple[int, int]] = []
    for seg in _segmenter.segment(text):
        start, end = seg.start, seg.end
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            out.append((start, end))
    return out


def sentence_ends(text: str) -> list[int]:
    """End offsets (exclusive) of every non-blank sentence of ``text``."""
    return [end for _, end in sentence_spans(text)]
