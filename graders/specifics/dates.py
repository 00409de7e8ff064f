"""Dates in text, at the precision they are stated.

Years, decades ("1990s"), months with optional day and year ("November 2, 2004",
"2 November 2004", "March 2025"), ISO dates ("2004-10-19"), quarters ("Q3", "third
quarter"), named days ("New Year's Day 1903"), year ranges ("2018–19", "1491–1510") and
"since <month|year>", which marks a period, not a point.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from spanproof.graders.specifics import lexicon

from spanproof.core.prefilter import Guarded, guarded

MONTHS: dict[str, int] = lexicon.table("months")
WEEKDAYS = lexicon.words("weekdays")
_ORDINALS: dict[str, int] = lexicon.table("ordinals")
_MONTH_NAMES_FULL = [m for m in MONTHS if len(m) > 4 or m in ("may", "june", "july")]
HOLIDAYS: dict[str, tuple[int, int]] = {
    k: (v[0], v[1]) for k, v in lexicon.table("holidays").items()
}

_MONTH_ALT = "|".join(sorted(MONTHS, key=len, reverse=True))
# Flattened pages glue words ("DiplomatJuly 31, 2018", "30 JUN 2018Updated"): a capitalised
# month may follow a letter, and a year may be followed by one.
_MONTH_START = r"(?:\b|(?<=[a-z])(?-i:(?=[A-Z])))"
_DATE_MDY = guarded(
    re.compile(
        rf"{_MONTH_START}({_MONTH_ALT})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}})(?!\d))?(?!\d)",
        re.I,
    )
)
_DATE_DMY = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_ALT})\.?(?:,?\s+(\d{{4}})(?!\d))?(?![a-z])",
    re.I,
)
_DATE_MY = guarded(re.compile(rf"\b({_MONTH_ALT})\.?(?:\s+of)?,?\s+(\d{{4}})\b", re.I))
_MONTH_ONLY = guarded(re.compile(r"\b(" + "|".join(_MONTH_NAMES_FULL) + r")\b", re.I))
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR = re.compile(r"(?<![\d,.$£€])\b(1[0-9]\d\d|20\d\d)(?!\d)(?!,\d)(?!\.\d)(?!\s?%)")
_DECADE = re.compile(r"\b(1[0-9]\d0|20\d0)'?s\b")
_QUARTER = guarded(re.compile(r"\b(?:Q([1-4])|(first|second|third|fourth)\s+quarter)\b", re.I))
_SINCE = guarded(
    re.compile(rf"\bsince\s+(?:(?:early|late|mid)\s+)?(({_MONTH_ALT})\b|\d{{4}})", re.I)
)
_HOLIDAY = guarded(
    re.compile(
        r"\b(new year[’']?s day|new year[’']?s eve|christmas day|christmas eve|boxing day|"
        r"valentine[’']?s day|halloween|st\.? patrick[’']?s day)(?:,?\s+(?:of\s+)?(\d{4}))?\b",
        re.I,
    )
)
# "2018–19", "2018-2019", "1491–1510": two years, not a year and the number 19
_YEAR_RANGE = re.compile(r"\b(1[0-9]\d\d|20\d\d)\s?[–—-]\s?(\d{4}|\d{2})\b(?!\s?%)")
_ISO_DT = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?\b")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")
# Most claims and spans hold no digit at all (58% of the texts of a large generated pair file):
# the patterns that cannot match without one are not run on them. ``\d`` is the very class
# those patterns need (tests/graders/test_digit_guard.py reads each pattern to hold it so).
_DIGIT = re.compile(r"\d")
# the dates blanked before a text's numbers are read, in this order
_DATE_BLANKS = (_ISO_DT, _YEAR_RANGE, _DATE_MDY, _DATE_DMY, _CLOCK, _QUARTER, _HOLIDAY)
_DATE_BLANKS_WITHOUT_DIGITS = (_QUARTER, _HOLIDAY)


@lru_cache(maxsize=4096)  # asked of the same claim and span by a dozen readers
def has_digit(text: str) -> bool:
    return _DIGIT.search(text) is not None


def blank(m: re.Match[str]) -> str:
    """A match overwritten by as many spaces (``rx.sub(blank, text)`` keeps every offset)."""
    return " " * len(m.group(0))


@lru_cache(maxsize=4096)  # numbers and the role check blank the same text
def blank_dates(text: str) -> str:
    """``text`` with its dates and clock times overwritten by spaces (offsets kept): a date's
    figures are not quantities."""
    for rx in _DATE_BLANKS if has_digit(text) else _DATE_BLANKS_WITHOUT_DIGITS:
        text = rx.sub(blank, text)
    return text


@dataclass(frozen=True)
class DateMention:
    year: int | None = None
    month: int | None = None
    day: int | None = None
    quarter: int | None = None
    decade: int | None = None
    since: bool = False
    century: int | None = None  # "the 12th century", "the 1400s" (read by the slot reader)
    surface: str = ""


@lru_cache(maxsize=4096)
def dated(text: str) -> tuple[tuple[DateMention, int, int], ...]:
    """Every date of ``text`` with its character offsets (start, end)."""
    out: list[tuple[DateMention, int, int]] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    digits = has_digit(text)

    # the patterns that need a digit are run only on a text that has one
    def find(rx: re.Pattern[str] | Guarded) -> Iterator[re.Match[str]]:
        return rx.finditer(text) if digits else iter(())

    for m in find(_ISO):
        out.append(
            (
                DateMention(int(m.group(1)), int(m.group(2)), int(m.group(3)), surface=m.group(0)),
                *m.span(),
            )
        )
        taken.append(m.span())
    for m in _HOLIDAY.finditer(text):
        month, day = HOLIDAYS[m.group(1).lower().replace("’", "'")]
        year = int(m.group(2)) if m.group(2) else None
        out.append((DateMention(year, month, day, surface=m.group(0)), *m.span()))
        taken.append(m.span())
    for m in find(_DATE_MDY):
        if not free(*m.span()):
            continue
        day = int(m.group(2))
        if not 1 <= day <= 31:
            continue
        # "May 5" is a date, but "may 5 people" is not: months that are also words need a capital
        if m.group(1).lower() == "may" and not m.group(1)[0].isupper():
            continue
        year = int(m.group(3)) if m.group(3) else None
        out.append(
            (DateMention(year, MONTHS[m.group(1).lower()], day, surface=m.group(0)), *m.span())
        )
        taken.append(m.span())
    for m in find(_DATE_DMY):
        if not free(*m.span()):
            continue
        day = int(m.group(1))
        if not 1 <= day <= 31 or (m.group(2).lower() == "may" and not m.group(2)[0].isupper()):
            continue
        year = int(m.group(3)) if m.group(3) else None
        out.append(
            (DateMention(year, MONTHS[m.group(2).lower()], day, surface=m.group(0)), *m.span())
        )
        taken.append(m.span())
    for m in find(_DATE_MY):
        if not free(*m.span()):
            continue
        if m.group(1).lower() == "may" and not m.group(1)[0].isupper():
            continue
        out.append(
            (
                DateMention(int(m.group(2)), MONTHS[m.group(1).lower()], surface=m.group(0)),
                *m.span(),
            )
        )
        taken.append(m.span())
    for m in find(_YEAR_RANGE):
        if not free(*m.span()):
            continue
        start, end_raw = int(m.group(1)), m.group(2)
        end = int(end_raw) if len(end_raw) == 4 else start // 100 * 100 + int(end_raw)
        if start < end <= start + 100:
            out.append((DateMention(year=start, surface=m.group(0)), *m.span()))
            out.append((DateMention(year=end, surface=m.group(0)), *m.span()))
            taken.append(m.span())
    for m in _QUARTER.finditer(text):
        q = int(m.group(1)) if m.group(1) else _ORDINALS[m.group(2).lower()]
        out.append((DateMention(quarter=q, surface=m.group(0)), *m.span()))
    for m in find(_DECADE):
        out.append((DateMention(decade=int(m.group(1)), surface=m.group(0)), *m.span()))
        taken.append(m.span())
    for m in find(_YEAR):
        if free(*m.span()):
            out.append((DateMention(year=int(m.group(1)), surface=m.group(0)), *m.span()))
    for m in _MONTH_ONLY.finditer(text):
        if free(*m.span()) and m.group(1)[0].isupper():
            out.append(
                (DateMention(month=MONTHS[m.group(1).lower()], surface=m.group(0)), *m.span())
            )
    for m in _SINCE.finditer(text):
        tok = m.group(1)
        if tok.isdigit():
            out.append((DateMention(year=int(tok), since=True, surface=m.group(0)), *m.span()))
        else:
            out.append(
                (DateMention(month=MONTHS[tok.lower()], since=True, surface=m.group(0)), *m.span())
            )
    return tuple(out)


def _extract_dates(text: str) -> tuple[DateMention, ...]:
    return tuple(d for d, _, _ in dated(text))


def extract_dates(text: str) -> list[DateMention]:
    return list(_extract_dates(text))


def date_established(claim_d: DateMention, span_dates: list[DateMention]) -> bool:
    """Every field the claim states must be stated by the span.

    Month and day must come from one mention; the year may come from another mention of the
    same span (a dateline "2004-10-19" plus "on Election Day, November 2" establishes
    "November 2, 2004"). A claimed period is established by its starting point: "since 1999"
    by "in 1999" (the span dates the start), but not by a date inside it ("since January"
    is not "in March").
    """
    candidates = span_dates
    if claim_d.decade is not None:
        return any(
            d.decade == claim_d.decade
            or (d.year is not None and d.year // 10 * 10 == claim_d.decade)
            for d in candidates
        )
    years = {d.year for d in candidates if d.year is not None}
    if claim_d.year is not None and claim_d.year not in years:
        return False
    if claim_d.month is None and claim_d.day is None and claim_d.quarter is None:
        return claim_d.year is not None or not claim_d.since
    for d in candidates:
        ok = all(
            getattr(claim_d, f) is None or getattr(d, f) == getattr(claim_d, f)
            for f in ("month", "day", "quarter")
        )
        if ok:
            return True
    return False
