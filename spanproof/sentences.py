"""The one sentence splitter: pysbd (English, character offsets), whitespace trimmed, with
two corrections for abbreviations it gets wrong.

Span boundaries, report parsing, passage windows, the atomic splitter and the planted
failures must all agree on where a sentence ends, so they all cut text here. pysbd keeps
"U.S.", "Dr." and "3.5%" inside one sentence, but news text trips it twice:
- it ends a sentence at "p.m." even when the time goes on ("5:17 p.m. EDT on Sept. 12",
  "9 a.m. Monday"), which cuts a date off the sentence that holds it;
- it runs on past an initialism or a street/company abbreviation that does end a
  sentence ("... in Brookings, S.D. The company was founded ..."), which makes one
  quoted "sentence" out of two.
Both are repaired here, on offsets, so every user of the splitter gets the same
boundaries.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pysbd

_segmenter: pysbd.Segmenter | None = None

# A clock time's "a.m."/"p.m." ends a sentence only when what follows could start one.
_CLOCK_SUFFIX = re.compile(r"\b\d{1,2}(?::\d{2})?\s*[ap]\.m\.$", re.I)
_TIME_ZONES = (
    "ET|EST|EDT|CT|CST|CDT|MT|MST|MDT|PT|PST|PDT|AKST|AKDT|HST|GMT|UTC|BST|CET|CEST|EET|EEST"
    "|WET|IST|JST|KST|AEST|AEDT|ACST|AWST|NZST|NZDT|local"
)
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec"
)
_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tue|Tues|Wed|Thu|Thurs|Fri|Sat|Sun"
_TIME_GOES_ON = re.compile(
    rf"(?:[a-z0-9(,;–—-]|(?:{_TIME_ZONES}|{_DAYS}|{_MONTHS})\b)",
)

# An initialism ("S.D.", "D.C.", "U.S.") or an address/company abbreviation, then a word
# that only starts a sentence. Titles before a name (Dr., Mr., Gov.) and "v."/"No." are not
# listed: they are followed by what they introduce, never by the end of a sentence.
_ENDING_ABBREVIATION = r"(?:\b(?:[A-Z]\.){2,}|\b(?:St|Ave|Blvd|Rd|Co|Corp|Inc|Ltd|Jr|Sr|Bros)\.)"
_SENTENCE_STARTERS = (
    "The|He|She|It|They|We|His|Her|Its|Their|Our|This|These|Those|There|But|However|"
    "After|When|While|Although|In|On|At|A|An|I"
)
_MISSED_BOUNDARY = re.compile(rf"{_ENDING_ABBREVIATION}(\s+)(?=(?:{_SENTENCE_STARTERS})\b[^.])")


def _pysbd_spans(text: str) -> list[tuple[int, int]]:
    global _segmenter
    if _segmenter is None:  # built on first use: nothing pays for it at import
        _segmenter = pysbd.Segmenter(language="en", clean=False)
    out: list[tuple[int, int]] = []
    pos = 0
    for sent in _segmenter.segment(text):
        # Offsets are found from where the last segment ended: pysbd's own char_span searches
        # from the start and lands on an earlier repeat of the same characters.
        found = text.find(sent, pos)
        if found < 0:
            found = text.find(sent.strip(), pos)
            sent = sent.strip()
        if found < 0:
            continue
        start, end = found, found + len(sent)
        pos = end
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            out.append((start, end))
    return out


def _join_clock_times(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out:
            prev_start, prev_end = out[-1]
            gap = text[prev_end:start]
            if (
                _CLOCK_SUFFIX.search(text[prev_start:prev_end])
                and "\n" not in gap
                and _TIME_GOES_ON.match(text, start)
            ):
                out[-1] = (prev_start, end)
                continue
        out.append((start, end))
    return out


def _split_missed(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        for m in _MISSED_BOUNDARY.finditer(text, start, end):
            cut = m.start(1)
            if cut > start:
                out.append((start, cut))
            start = m.end(1)
        out.append((start, end))
    return out


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every non-blank sentence of ``text``, surrounding whitespace excluded."""
    return _split_missed(text, _join_clock_times(text, _pysbd_spans(text)))


def sentence_ends(text: str) -> list[int]:
    """End offsets (exclusive) of every non-blank sentence of ``text``."""
    return [end for _, end in sentence_spans(text)]


def first_sentence(text: str, limit: int = 400) -> str:
    """The first sentence of ``text`` (at most ``limit`` characters): a claim restating a span."""
    text = text.strip()
    ends = sentence_ends(text[:2000])
    sentence = text[: ends[0]] if ends else text
    return sentence[:limit].strip()


@lru_cache(maxsize=4096)
def sentences_of(text: str) -> tuple[str, ...]:
    """The sentences of ``text``, line by line (a line break always ends one); ``(text,)``
    when none is found. Cached: the judge and the audit ask for the same span's many times."""
    out: list[str] = []
    for line in text.splitlines():
        out += [line[a:b] for a, b in sentence_spans(line)]
    return tuple(s for s in out if s.strip()) or (text,)
