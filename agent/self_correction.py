"""A page that corrects itself: a statement that marks itself as revising a figure.

An erratum, a note under a table, an update banner, a changelog entry, a revision-history
row, a letter or a quoted party disputing the figure, a "Clarification" section: each states
a second value for a figure the page gives, and says so in words of a few classes, not in
fixed phrases. Such a statement often restates its subject ("the corrected total", "the
total number of homes", "coverage for two-year-olds"), so the slot reader, which needs the
words around two values to say the same thing, does not align it with the first statement,
rightly for ordinary text. Here a statement that revises is aligned with the claim's value
by what is measured alone: the same measure (``graders.specifics.slot_measures``), the same
counted noun, or the claim's own value restated beside the new one ("previously given as
36,000, has been revised to 41,750"), periods and named subjects that do not differ, and
neither side a plan (a target, a forecast) while the other is an outcome. An ordinary
statement still needs the reader's full alignment.

The discourse is read by word classes, over the sentence, the sentence before it in its
block and the short label blocks before it (a heading "Erratum", a table's header row
"Revision"):

- revising: correct, revise, amend, update, restate, clarify, rectify, recount,
  recalculate, erratum, corrigendum, changelog (any inflection or derived noun);
- error: wrong, incorrect, inaccurate, mistaken, erroneous, error, overstate, understate,
  misstate, misreport, dispute; and "actually";
- an earlier version: an adverb of before (previously, originally, initially, earlier,
  formerly) with a verb of publishing (given, stated, reported, published, printed, listed,
  quoted, shown) or a noun of a version (version, edition, draft);
- a plan (target, aim, goal, forecast, expect, project, planned) marks another slot: what was
  hoped is not a revision of what was done.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from spanproof.graders.specifics.concepts import common_word
from spanproof.graders.specifics.dates import MONTHS
from spanproof.graders.specifics.slot_measures import (
    Measured,
    agrees,
    measured_values,
    same_measure,
    word_keys,
)
from spanproof.graders.specifics.slots import Value

from spanproof.core.sentences import sentence_spans
from spanproof.core.text import STOPWORDS, block_at

_REVISING = re.compile(
    r"\b(?:correct(?:ed|ion|ions|s)?|revis(?:e|ed|es|ing|ion|ions)|amend(?:ed|s|ing|ment|ments)?"
    r"|updat(?:e|ed|es|ing)|restat(?:e|ed|es|ing|ement)|clarif(?:y|ied|ies|ication|ications)"
    r"|rectif(?:y|ied|ies)|recount(?:ed|s)?|recalculat(?:e|ed|es|ion)|errat(?:um|a)"
    r"|corrigend(?:um|a)|change-?logs?)\b",
    re.I,
)
_ERROR = re.compile(
    r"\b(?:wrong(?:ly)?|incorrect(?:ly)?|inaccura(?:te|tely|cy)|mistaken(?:ly)?|erroneous(?:ly)?"
    r"|errors?|overstat(?:e|ed|es|ing)|understat(?:e|ed|es|ing)|misstat(?:e|ed|es|ement)"
    r"|misreport(?:ed|s)?|disput(?:e|es|ed|ing)|actually)\b",
    re.I,
)
_NOT = re.compile(r"\b(?:not|instead|rather)\b", re.I)
_BEFORE = re.compile(r"\b(?:previously|originally|initially|earlier|formerly)\b", re.I)
_PUBLISHED = re.compile(
    r"\b(?:given|stated|reported|published|printed|listed|quoted|shown|versions?|editions?"
    r"|drafts?)\b",
    re.I,
)
_PLAN = re.compile(
    r"\b(?:target(?:s|ed|ing)?|aim(?:s|ed|ing)?|goals?|forecast(?:s|ed|ing)?|expect(?:s|ed|ing)?"
    r"|project(?:ed|ing|ions?)|planned|plans?\s+to)\b",
    re.I,
)
# a year from 1600 to 2099. Not graders.specifics.dates' reading of years: it reads "2024-25"
# as both years and takes figures from 1000 up ("a 1024 by 800 display", "377-1195") as years,
# which would move which periods differ
_YEAR = re.compile(r"\b(?:1[6-9]|20)\d\d\b")
_FRONTED_YEAR = re.compile(r"^\W*(?:In|During|For|By)\s+((?:1[6-9]|20)\d\d)\b")
# a word that makes the value after it a change ("added", "a rise of", "up"), not a level
_CHANGE = re.compile(
    r"\b(?:add(?:ed|s|ing)?|rose|rise[sn]?|fell|fall(?:s|en)?|grew|grow(?:s|n)?|gain(?:ed|s)?"
    r"|increase[sd]?|decrease[sd]?|up|down|by)\W+(?:(?:a|an|of|the|some|another)\W+)*$",
    re.I,
)
# the month names and their short forms of the product's lexicon (lexicons/months.json)
_MONTH_ALT = "|".join(sorted(MONTHS, key=len, reverse=True))
# a year written inside a full date ("28 November 2026", "January 2026", "20/02/2026",
# "2026-02-11"): in a revising statement, the date of the revision, not the figure's period.
# Not graders.specifics.dates.dated(): it reads no "20/02/2026", and it dates "November 28,
# 2026" and "March, 2026", which this reading leaves as the figure's period.
_DATED_YEAR = re.compile(
    rf"\b(?:\d{{1,2}}\s+)?(?:{_MONTH_ALT})\.?\s+(\d{{4}})\b|\b\d{{1,2}}[/.]\d{{1,2}}[/.](\d{{4}})\b"
    rf"|\b(\d{{4}})-\d{{2}}-\d{{2}}\b",
    re.I,
)
_WORDS = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_LABEL_WORDS = 8  # a heading or a table's header row: a few words, no figure
_SHORT_BLOCK = 14  # a table row or a list item a label stands over
_LABEL_REACH = 3  # blocks a label may stand above the statement (a table's rows)


@dataclass(frozen=True)
class Revision:
    """The claim's value as the page states it, and the value a revising statement gives."""

    own: Value
    rival: Value


def revisions(text: str, own_values: list[Value]) -> list[Revision]:
    """The values ``text`` gives for the figures ``own_values`` (values of ``text`` that state
    the claim's) in a statement that revises one or the other."""
    page = measured_values(text)
    by_start = {m.value.start: m for m in page}
    out = []
    for v in own_values:
        own = by_start.get(v.start)
        if own is None:
            continue
        own_block = block_at(text, own.value.start)
        own_revises = _revising(text, own.sentence)
        for other in page:
            if block_at(text, other.value.start) == own_block:
                continue  # a block's own figures are a list, a change or a range
            if not (own_revises or _revising(text, other.sentence)):
                continue
            if not same_measure(own, other) or agrees(own, other) is not False:
                continue
            if _one_thing(text, own, other, page):
                out.append(Revision(own.value, other.value))
    return out


# ---------------------------------------------------------------- the discourse of revision


def _marks(sentence: str) -> bool:
    return bool(
        _REVISING.search(sentence)
        or _ERROR.search(sentence)
        or (_BEFORE.search(sentence) and _PUBLISHED.search(sentence))
    )


@lru_cache(maxsize=4096)
def _revising(text: str, sentence: tuple[int, int]) -> bool:
    """Does the statement at ``sentence`` mark itself as revising: in its own words, the
    sentence before it in its block ("Sir, your report that ... is wrong. The accounts show
    ..."), or a label above it ("Erratum"; a table header "Revision Date Detail")?"""
    if _marks(text[sentence[0] : sentence[1]]):
        return True
    before = _sentence_before(text, sentence[0])
    if before is not None and _marks(text[before[0] : before[1]]):
        return True
    for block in _blocks_above(text, block_at(text, sentence[0])[0]):
        words = _WORDS.findall(block)
        if len(words) <= _LABEL_WORDS and not any(ch.isdigit() for ch in block):
            return _marks(block)
        if len(words) > _SHORT_BLOCK:
            return False  # a paragraph, not a row under a header: no label reaches past it
    return False


def _blocks_above(text: str, start: int) -> list[str]:
    """The blocks above the one starting at ``start``, nearest first, a few at most."""
    out: list[str] = []
    end = start - 2
    while end > 0 and len(out) < _LABEL_REACH:
        a, b = block_at(text, end - 1)
        out.append(text[a:b])
        end = a - 2
    return out


# ---------------------------------------------------------------- one measured thing


def _one_thing(text: str, own: Measured, other: Measured, page: tuple[Measured, ...]) -> bool:
    """Are the two values of one measured thing, the words around them aside?"""
    s_own, s_other = (text[slice(*m.sentence)] for m in (own, other))
    if bool(_PLAN.search(s_own)) != bool(_PLAN.search(s_other)):
        return False  # a target or a forecast beside an outcome: two slots
    if _change(text, own) != _change(text, other):
        return False  # "added four galleries" is not "has 14 galleries"
    if _periods_differ(text, own, other) or _subjects_differ(text, own, other):
        return False
    if _restated_beside(text, own, other, page) or _restated_beside(text, other, own, page):
        return True  # "previously given as 36,000, revised to 41,750"; "~~1,240~~ 1,870"
    if own.physical:
        return True  # "14.5 million cubic metres" / "18.2 million cubic metres"
    own_words = word_keys(text, own.clause)
    other_words = word_keys(text, _context(text, other.sentence))
    if own.counted is not None and other.counted is not None:
        return bool(own.counted & other.counted)  # a count is of its noun
    # one side counts a noun the other names without counting it after its figure
    # ("6,200 trees" / "the number of trees ... now stands at 4,960")
    if own.counted is not None:
        return bool(own.counted & other_words)
    if other.counted is not None:
        return bool(other.counted & own_words)
    if "count" in own.dims:
        return False  # a bare number, counting nothing named: nothing to tell its slot by
    return bool(_content(own_words) & _content(other_words))


def _content(keys: frozenset) -> frozenset:
    return frozenset(k for k in keys if not (isinstance(k, str) and k in STOPWORDS))


def _restated_beside(text: str, a: Measured, b: Measured, page: tuple[Measured, ...]) -> bool:
    """``b``'s sentence states ``a``'s value too, and between the two a word of revision, a
    negation or a strike-through sets one against the other: the revising sentence names the
    figure it replaces ("previously given as 36,000, has been revised to 41,750"; "~~1,240~~
    1,870"; "212 beds, not 174"), not a list or a span of them ("in his 20s and 30s")."""
    for m in page:
        if m.sentence != b.sentence or m.value == b.value or agrees(a, m) is not True:
            continue
        lo, hi = sorted((m.value.end, b.value.start)) if m.value.end <= b.value.start else (
            b.value.end, m.value.start)  # fmt: skip
        between = text[lo:hi]
        if "~~" in between or _NOT.search(between) or _marks(between):
            return True
    return False


def _context(text: str, sentence: tuple[int, int]) -> tuple[int, int]:
    """The sentence with the one before it in its block."""
    before = _sentence_before(text, sentence[0])
    return (before[0] if before else sentence[0], sentence[1])


def _sentence_before(text: str, start: int) -> tuple[int, int] | None:
    """The sentence before the one starting at ``start``, within its block (page offsets)."""
    a, b = block_at(text, start)
    before = [(a + s, a + e) for s, e in _block_sentences(text, a, b) if a + e <= start]
    return before[-1] if before else None


@lru_cache(maxsize=4096)
def _block_sentences(text: str, a: int, b: int) -> tuple[tuple[int, int], ...]:
    # split once a block: every value of a block asks for the sentence before its own
    return tuple(sentence_spans(text[a:b]))


def _years(text: str, m: Measured) -> set[str]:
    """The years a value is stated for: those of its stretch of sentence between commas, and
    a year fronting its sentence ("In 2025, 91.4 percent ..."); a year of another event set off
    by a comma ("opened in 1874, is 2.9 kilometres long"; "in 2025, a rise of 14 percent on the
    42,740 lent in 2024") is not its period."""
    a, b = m.sentence
    sentence = text[a:b]
    at, end = m.value.start - a, m.value.end - a
    left = max(sentence.rfind(c, 0, at) for c in ",;—(")
    rights = [i for i in (sentence.find(c, end) for c in ",;—)") if i >= 0]
    stretch = sentence[left + 1 : min(rights, default=len(sentence))]
    found = set(_YEAR.findall(stretch)) | set(_FRONTED_YEAR.findall(sentence[:12]))
    if _marks(sentence):
        # a revision's own date ("Updated 28 November 2026: ...") is not the figure's period
        dated = {y for d in _DATED_YEAR.finditer(sentence) for y in d.groups() if y}
        found -= dated
    return found


def _periods_differ(text: str, a: Measured, b: Measured) -> bool:
    ya, yb = _years(text, a), _years(text, b)
    return bool(ya and yb and not ya & yb)


def _names(text: str, m: Measured) -> set[str]:
    """The capitalised words of a value's clause that name who or where it is about: not a
    sentence's or a quotation's first word, not a month, and not a word WordNet knows as a
    common word unless it stands in a run of capitalised words ("Long Meadow", "Westbury
    Council"). Not graders.specifics.names.extract_entities, which the audit reads for names a
    claim adds: it keeps a sentence's first word that is no common capitalised word
    ("Thornbury's eight public libraries", "Loans of printed books"), a weekday's plural
    ("Thursdays") and a road number ("A629"), so a subject would differ where this reads none."""
    a, b = m.clause
    words = [w for w in _WORDS.finditer(text, a, b) if w.start() < b]
    out = set()
    for i, w in enumerate(words):
        word = w.group().removesuffix("'s").removesuffix("’s")
        if not word[:1].isupper() or word.lower() in MONTHS:
            continue
        lead = text[max(0, w.start() - 3) : w.start()]
        if w.start() == m.sentence[0] or any(ch in lead for ch in ':—–"“(¹.!?'):
            continue
        in_run = any(
            0 <= j < len(words) and words[j].group()[:1].isupper()
            and text[min(w.start(), words[j].start()) : max(w.end(), words[j].end())].count(" ") == 1
            for j in (i - 1, i + 1)
        )  # fmt: skip
        if word.lower() not in STOPWORDS and (in_run or not common_word(word)):
            out.add(word.lower())
    return out


def _subjects_differ(text: str, a: Measured, b: Measured) -> bool:
    na, nb = _names(text, a), _names(text, b)
    return bool(na and nb and not na & nb)


def _change(text: str, m: Measured) -> bool:
    """The value is a change, not a level: "added four", "a rise of 14 percent", "up 300"."""
    return bool(_CHANGE.search(text[max(m.sentence[0], m.value.start - 24) : m.value.start]))
