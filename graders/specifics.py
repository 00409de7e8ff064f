"""The specifics of a sentence, extracted by code: numbers, dates, names, and the small words
that change meaning (quantifiers, modality, negation, attribution).

Both the deterministic audit (DESIGN check 4: the claim is no broader than the quote) and the
offline ``rules`` judge use this module. Everything here is deterministic and offline.

What is extracted, and how
--------------------------
- **Numbers** (`Quantity`): digits with thousands separators and decimals ("3,400", "41.3");
  number words through text2num's ``alpha2digit`` ("twelve" -> 12, "three hundred thousand"
  -> 300000; a bare "one" is left alone by text2num because it is usually a pronoun);
  scale words ("5 million", "2.3bn"); percentages ("12%", "12 percent", "12 per cent");
  currency ("$5 million", "£3", "5 euros"); common fractions mapped here because text2num
  does not ("half", "a third", "two-thirds", "a quarter", "three quarters" -> 0.5, 0.333...,
  stored as kind ``fraction`` and compared with percentages as value/100); ordinals
  ("third", "3rd", kind ``ordinal``); and a unit word right after the number ("12 km").
  Four-digit numbers 1000-2100 without a unit or currency are dates (years), not numbers.
- **Dates** (`DateMention`): years, decades ("1990s"), months with optional day and year
  ("November 2, 2004", "2 November 2004", "March 2025"), ISO dates ("2004-10-19"), quarters
  ("Q3", "third quarter"), and "since <month|year>" which marks a period, not a point.
- **Named entities** (heuristic): maximal runs of capitalised tokens, allowing lower-case
  connectors inside a run ("Bank of England", "Led Zeppelin", "Thomas K. Arnold"). The first
  token of a sentence is dropped when its lower-case form is a common word ("The", "He",
  "In"), month and weekday names are dates not entities, and possessive "'s" is removed. An
  entity is *present* in a text when every one of its content tokens occurs in that text
  (case-insensitive) — so "Arnold" is found in "Thomas K. Arnold" but "Thomas Arnold" is not
  found in "Arnold said". This misses entities written in lower case and over-collects
  title-cased headings; both errors are visible in the audit's `checks`.
- **Direction words** (approved/rejected, rose/fell, won/lost, ...: a short fixed list of
  opposites): the span using the opposite and never the claim's word is a contradiction.
- **Quantifiers** (all/every/most/majority/many/some/few/none/only), **modality**
  (must/shall/will/is required vs should/may/might/could/is expected to/plans to),
  **negation** (not/no/never/n't/without/neither), and **attribution** ("X said", "according
  to X", "X announced"), each as the word or entity found.

`compare(claim, span)` lists the claim's numbers, dates and entities the span does not
establish; that list is what the audit acts on.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from text_to_num import alpha2digit

# ---------------------------------------------------------------- tokens and words

_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-\.]*[A-Za-z0-9]|[A-Za-z0-9]")

STOPWORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
        "s",
        "t",
        "also",
        "its",
        "it's",
        "one",
        "ones",
        "who's",
        "which",
        "whose",
        "upon",
        "via",
        "per",
        "among",
        "within",
    ]
)

MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "mar": 3, "april": 4,
    "apr": 4, "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sep": 9, "sept": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}  # fmt: skip
_MONTH_NAMES_FULL = [m for m in MONTHS if len(m) > 4 or m in ("may", "june", "july")]
WEEKDAYS = {"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}


def normalise_ws(text: str) -> str:
    """Collapse every run of whitespace to one space; the only normalisation the quote check allows."""
    return " ".join(text.split())


def words(text: str) -> list[str]:
    return [w.strip(".'’-").lower() for w in _WORD_RE.findall(text)]


def stem(word: str) -> str:
    """A light suffix stripper: enough to match 'released'/'releases'/'release', no more."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 4:
        return w
    for suffix in ("ational", "ization", "iveness", "fulness", "ousness"):
        if w.endswith(suffix):
            return w[: -len(suffix)]
    for suffix in ("ments", "ment", "ness", "ings", "ing", "edly", "ies", "ied", "ers", "ed",
                   "es", "er", "ly", "s", "e", "y"):  # fmt: skip
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            w = w[: -len(suffix)]
            break
    return w


def content_stems(text: str) -> list[str]:
    return [stem(w) for w in words(text) if w not in STOPWORDS and len(w) > 1]


# ---------------------------------------------------------------- numbers

FRACTIONS = {
    "half": 0.5, "a half": 0.5, "one half": 0.5, "a third": 1 / 3, "one third": 1 / 3,
    "one-third": 1 / 3, "two thirds": 2 / 3, "two-thirds": 2 / 3, "a quarter": 0.25,
    "one quarter": 0.25, "one-quarter": 0.25, "three quarters": 0.75, "three-quarters": 0.75,
    "a fifth": 0.2, "one fifth": 0.2, "one-fifth": 0.2, "a tenth": 0.1, "one tenth": 0.1,
    "one-tenth": 0.1, "two fifths": 0.4, "three fifths": 0.6, "four fifths": 0.8,
}  # fmt: skip
# "a third of", "two-thirds." and "half the" are fractions; "a third cousin" and "a fifth
# season" are ordinals, so a fraction must be followed by of/the/a/majority/... or punctuation.
_FRACTION_RE = re.compile(
    # "fell by a third", "cut by a quarter": after "by" a fraction is a share
    r"(?<=\bby )("
    + "|".join(sorted((re.escape(k) for k in FRACTIONS), key=len, reverse=True))
    + r")\b"
    r"|\b(" + "|".join(sorted((re.escape(k) for k in FRACTIONS), key=len, reverse=True)) + r")\b"
    r"(?=\s+(?:of|the|a|an|its|their|his|her|majority|share|stake|percent|per\s?cent)\b"
    r"|\s*[^\w\s-]|\s*$)"
    r"|\b(two[ -]thirds|three[ -]quarters|two fifths|three fifths|four fifths)\b",
    re.I,
)
_DOZEN_RE = re.compile(r"\ba dozen\b", re.I)
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13,
    "fourteenth": 14, "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18,
    "nineteenth": 19, "twentieth": 20,
}  # fmt: skip
_ORDINAL_WORD_RE = re.compile(r"\b(" + "|".join(ORDINALS) + r")\b", re.I)
_ORDINAL_DIGIT_RE = re.compile(r"\b(\d{1,4})(st|nd|rd|th)\b", re.I)
SCALES = {
    "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "mln": 1e6,
    "billion": 1e9, "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12,
}  # fmt: skip
CURRENCY_SYMBOLS = {"$": "USD", "US$": "USD", "£": "GBP", "€": "EUR", "¥": "JPY", "₹": "INR"}
CURRENCY_WORDS = {
    "dollar": "USD", "dollars": "USD", "usd": "USD", "pound": "GBP", "pounds": "GBP",
    "gbp": "GBP", "euro": "EUR", "euros": "EUR", "eur": "EUR", "yen": "JPY", "rupees": "INR",
}  # fmt: skip
UNITS = {
    "km", "kilometres", "kilometers", "kilometre", "kilometer", "miles", "mile", "m", "metres",
    "meters", "metre", "meter", "feet", "ft", "foot", "inches", "cm", "mm", "kg", "kilograms",
    "tonnes", "tons", "tonne", "ton", "pounds", "lb", "lbs", "acres", "hectares", "ha", "mph",
    "km/h", "years", "year", "months", "month", "weeks", "days", "hours", "minutes", "seconds",
    "people", "persons", "votes", "seats", "copies", "episodes", "albums", "songs", "games",
    "goals", "points", "times", "decades", "centuries", "members", "employees", "students",
    "languages", "countries", "volumes", "citations", "journals", "units", "residents",
}  # fmt: skip

_NUM_RE = re.compile(
    r"(?P<cur>US\$|[$£€¥₹])?\s?"
    r"(?P<num>(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?)"
    r"(?P<scale>\s?(?:thousand|million|billion|trillion|mln|mn|bn|tn|k|m|b)\b)?"
    r"(?P<pct>\s?(?:%|per\s?cent\b|percent\b|pct\b))?"
    r"(?P<after>\s+[A-Za-z/]+)?",
    re.I,
)


_MONTH_ALT = "|".join(sorted(MONTHS, key=len, reverse=True))
# Flattened pages glue words ("DiplomatJuly 31, 2018", "30 JUN 2018Updated"): a capitalised
# month may follow a letter, and a year may be followed by one.
_MONTH_START = r"(?:\b|(?<=[a-z])(?-i:(?=[A-Z])))"
_DATE_MDY = re.compile(
    rf"{_MONTH_START}({_MONTH_ALT})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?(?:,?\s+(\d{{4}})(?!\d))?(?!\d)",
    re.I,
)
_DATE_DMY = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_ALT})\.?(?:,?\s+(\d{{4}})(?!\d))?(?![a-z])",
    re.I,
)
_DATE_MY = re.compile(rf"\b({_MONTH_ALT})\.?(?:\s+of)?,?\s+(\d{{4}})\b", re.I)
_MONTH_ONLY = re.compile(r"\b(" + "|".join(_MONTH_NAMES_FULL) + r")\b", re.I)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_YEAR = re.compile(r"(?<![\d,.$£€])\b(1[0-9]\d\d|20\d\d)(?!\d)(?!,\d)(?!\.\d)(?!\s?%)")
_DECADE = re.compile(r"\b(1[0-9]\d0|20\d0)'?s\b")
_QUARTER = re.compile(r"\b(?:Q([1-4])|(first|second|third|fourth)\s+quarter)\b", re.I)
_SINCE = re.compile(rf"\bsince\s+(?:(?:early|late|mid)\s+)?(({_MONTH_ALT})\b|\d{{4}})", re.I)


# "2018–19", "2018-2019", "1491–1510": two years, not a year and the number 19
# Named days that are dates: "New Year's Day 1903" is 1 January 1903.
HOLIDAYS = {
    "new year's day": (1, 1), "new year's eve": (12, 31), "christmas day": (12, 25),
    "christmas eve": (12, 24), "boxing day": (12, 26), "valentine's day": (2, 14),
    "halloween": (10, 31), "st patrick's day": (3, 17), "st. patrick's day": (3, 17),
}  # fmt: skip
_HOLIDAY = re.compile(
    r"\b(new year[’']?s day|new year[’']?s eve|christmas day|christmas eve|boxing day|"
    r"valentine[’']?s day|halloween|st\.? patrick[’']?s day)(?:,?\s+(?:of\s+)?(\d{4}))?\b",
    re.I,
)
_YEAR_RANGE = re.compile(r"\b(1[0-9]\d\d|20\d\d)\s?[–—-]\s?(\d{4}|\d{2})\b(?!\s?%)")
_ISO_DT = re.compile(r"\b\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2})?)?\b")
_CLOCK = re.compile(r"\b\d{1,2}:\d{2}\b")


@dataclass(frozen=True)
class Quantity:
    value: float
    kind: str  # number | percent | currency | fraction | ordinal
    unit: str | None = None
    surface: str = ""

    def comparable(self) -> float:
        # Percentages and fractions meet on the same scale: 34% -> 0.34, "a third" -> 0.333.
        if self.kind == "percent":
            return self.value / 100.0
        return self.value


def _close(a: float, b: float) -> bool:
    if a == b:
        return True
    return abs(a - b) <= 0.005 * max(abs(a), abs(b))


def quantities_match(claim_q: Quantity, span_q: Quantity) -> bool:
    pct_like = {"percent", "fraction"}
    if claim_q.kind in pct_like or span_q.kind in pct_like:
        if not (claim_q.kind in pct_like and span_q.kind in pct_like):
            # "50%" can be written "50 per cent" (percent) but never "50 people".
            if not (claim_q.kind == "percent" and span_q.kind == "number" and span_q.unit is None):
                return False
            return _close(claim_q.value, span_q.value)
        a, b = claim_q.comparable(), span_q.comparable()
        if "fraction" in (claim_q.kind, span_q.kind) and claim_q.kind != span_q.kind:
            # "a third" is written "33%": a fraction read as a percentage is rounded, so
            # they meet within half a percentage point ("34%" is still not "a third")
            return abs(a - b) <= 0.005
        return _close(a, b)
    if claim_q.kind == "currency" and span_q.kind == "currency" and claim_q.unit != span_q.unit:
        return False
    if claim_q.kind == "ordinal" and span_q.kind not in ("ordinal", "number"):
        return False
    return _close(claim_q.value, span_q.value)


def _year_like(value: float, text_num: str) -> bool:
    return text_num.isdigit() and len(text_num) == 4 and 1000 <= value <= 2100


@lru_cache(maxsize=4096)
def _alpha2digit(text: str) -> str:
    try:
        return alpha2digit(text, "en", threshold=2)
    except Exception:  # text2num is strict about odd input; the raw text is still usable
        return text


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


def _read_numbers(text: str, out: list[Quantity], *, mask: bool) -> str:
    """Append the digit numbers of ``text`` to ``out``; return the text with them masked."""
    pieces: list[str] = []
    last = 0
    for m in _NUM_RE.finditer(text):
        raw = m.group("num")
        try:
            value = float(raw.replace(",", ""))
        except ValueError:
            continue
        scale_word = (m.group("scale") or "").strip().lower()
        after = (m.group("after") or "").strip()
        cur = m.group("cur")
        pct = m.group("pct")
        if scale_word in ("m", "b", "k") and not cur:
            # "5 m" is metres and "5 k" is ambiguous unless money is involved
            scale_word = ""
        if scale_word:
            value *= SCALES[scale_word]
        unit: str | None = None
        kind = "number"
        if pct:
            kind = "percent"
        elif cur:
            kind, unit = "currency", CURRENCY_SYMBOLS.get(cur, cur)
        elif after and after.lower() in CURRENCY_WORDS:
            kind, unit = "currency", CURRENCY_WORDS[after.lower()]
        elif after and after.lower() in UNITS:
            unit = after.lower()
        unit_word = bool(after) and (after.lower() in UNITS or after.lower() in CURRENCY_WORDS)
        end = m.end("after") if unit_word else max(m.end("num"), m.end("scale"), m.end("pct"))
        surface = text[m.start() : end].strip()
        pieces.append(text[last : m.start()])
        pieces.append(" zqnumq " if mask else text[m.start() : end])
        last = end
        if kind == "number" and not scale_word and unit is None and _year_like(value, raw):
            continue  # a year: extract_dates reads it
        out.append(Quantity(value, kind, unit, surface))
    pieces.append(text[last:])
    return "".join(pieces)


def extract_numbers(text: str) -> list[Quantity]:
    out: list[Quantity] = []

    # Fractions first and blanked, so "a third" is not also read as the ordinal "third".
    def _frac(m: re.Match[str]) -> str:
        word = next(g for g in m.groups() if g)
        val = FRACTIONS.get(word.lower()) or FRACTIONS.get(word.lower().replace(" ", "-"))
        if val is not None:
            out.append(Quantity(float(val), "fraction", None, word))
        return " " * len(m.group(0))

    text = _FRACTION_RE.sub(_frac, text)
    for m in _DOZEN_RE.finditer(text):
        out.append(Quantity(12.0, "number", None, m.group(0)))
    text = _DOZEN_RE.sub(_blank, text)
    # Dates are not quantities: blank "November 2", "2004-10-19", "14:49" first.
    for rx in (_ISO_DT, _YEAR_RANGE, _DATE_MDY, _DATE_DMY, _CLOCK, _QUARTER, _HOLIDAY):
        text = rx.sub(_blank, text)
    for m in _ORDINAL_WORD_RE.finditer(text):
        out.append(Quantity(float(ORDINALS[m.group(1).lower()]), "ordinal", None, m.group(1)))
    text = _ORDINAL_WORD_RE.sub(_blank, text)
    for m in _ORDINAL_DIGIT_RE.finditer(text):
        out.append(Quantity(float(m.group(1)), "ordinal", None, m.group(0)))
    text = _ORDINAL_DIGIT_RE.sub(_blank, text)
    # Digits first, masked, then number words: alpha2digit would otherwise turn the
    # "million" of "$5 million" into a second number.
    masked = _read_numbers(text, out, mask=True)
    _read_numbers(_alpha2digit(masked), out, mask=False)
    return out


# ---------------------------------------------------------------- dates


@dataclass(frozen=True)
class DateMention:
    year: int | None = None
    month: int | None = None
    day: int | None = None
    quarter: int | None = None
    decade: int | None = None
    since: bool = False
    surface: str = ""


def extract_dates(text: str) -> list[DateMention]:
    out: list[DateMention] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    for m in _ISO.finditer(text):
        out.append(
            DateMention(int(m.group(1)), int(m.group(2)), int(m.group(3)), surface=m.group(0))
        )
        taken.append(m.span())
    for m in _HOLIDAY.finditer(text):
        month, day = HOLIDAYS[m.group(1).lower().replace("’", "'")]
        year = int(m.group(2)) if m.group(2) else None
        out.append(DateMention(year, month, day, surface=m.group(0)))
        taken.append(m.span())
    for m in _DATE_MDY.finditer(text):
        if not free(*m.span()):
            continue
        day = int(m.group(2))
        if not 1 <= day <= 31:
            continue
        # "May 5" is a date, but "may 5 people" is not: months that are also words need a capital
        if m.group(1).lower() == "may" and not m.group(1)[0].isupper():
            continue
        year = int(m.group(3)) if m.group(3) else None
        out.append(DateMention(year, MONTHS[m.group(1).lower()], day, surface=m.group(0)))
        taken.append(m.span())
    for m in _DATE_DMY.finditer(text):
        if not free(*m.span()):
            continue
        day = int(m.group(1))
        if not 1 <= day <= 31 or (m.group(2).lower() == "may" and not m.group(2)[0].isupper()):
            continue
        year = int(m.group(3)) if m.group(3) else None
        out.append(DateMention(year, MONTHS[m.group(2).lower()], day, surface=m.group(0)))
        taken.append(m.span())
    for m in _DATE_MY.finditer(text):
        if not free(*m.span()):
            continue
        if m.group(1).lower() == "may" and not m.group(1)[0].isupper():
            continue
        out.append(DateMention(int(m.group(2)), MONTHS[m.group(1).lower()], surface=m.group(0)))
        taken.append(m.span())
    for m in _YEAR_RANGE.finditer(text):
        if not free(*m.span()):
            continue
        start, end_raw = int(m.group(1)), m.group(2)
        end = int(end_raw) if len(end_raw) == 4 else start // 100 * 100 + int(end_raw)
        if start < end <= start + 100:
            out.append(DateMention(year=start, surface=m.group(0)))
            out.append(DateMention(year=end, surface=m.group(0)))
            taken.append(m.span())
    for m in _QUARTER.finditer(text):
        q = int(m.group(1)) if m.group(1) else ORDINALS[m.group(2).lower()]
        out.append(DateMention(quarter=q, surface=m.group(0)))
    for m in _DECADE.finditer(text):
        out.append(DateMention(decade=int(m.group(1)), surface=m.group(0)))
        taken.append(m.span())
    for m in _YEAR.finditer(text):
        if free(*m.span()):
            out.append(DateMention(year=int(m.group(1)), surface=m.group(0)))
    for m in _MONTH_ONLY.finditer(text):
        if free(*m.span()) and m.group(1)[0].isupper():
            out.append(DateMention(month=MONTHS[m.group(1).lower()], surface=m.group(0)))
    for m in _SINCE.finditer(text):
        tok = m.group(1)
        if tok.isdigit():
            out.append(DateMention(year=int(tok), since=True, surface=m.group(0)))
        else:
            out.append(DateMention(month=MONTHS[tok.lower()], since=True, surface=m.group(0)))
    return out


def date_established(claim_d: DateMention, span_dates: list[DateMention]) -> bool:
    """Every field the claim states must be stated by the span.

    Month and day must come from one mention; the year may come from another mention of the
    same span (a dateline "2004-10-19" plus "on Election Day, November 2" establishes
    "November 2, 2004"). A claimed period ("since January") is not established by a single
    date inside it ("in March"): the span must state the period too.
    """
    candidates = [d for d in span_dates if d.since or not claim_d.since]
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


# ---------------------------------------------------------------- named entities

_CONNECTORS = {
    "of",
    "the",
    "de",
    "la",
    "le",
    "del",
    "der",
    "van",
    "von",
    "and",
    "&",
    "for",
    "du",
    "da",
    "y",
}
_CAP_TOKEN = re.compile(r"[A-Z][\w’'.\-]*|[A-Z]\.|&")
_SPLIT_TOKENS = re.compile(r"[\w’'.\-&]+|[^\w\s]")
COMMON_CAPITALISED = STOPWORDS | {
    "instead", "however", "although", "after", "before", "during", "since", "according", "following",
    "later", "today", "yesterday", "meanwhile", "while", "many", "several", "some", "most",
    "all", "both", "each", "every", "another", "there", "here", "it", "its", "their", "his",
    "her", "our", "we", "they", "he", "she", "i", "you", "this", "that", "these", "those", "a",
    "an", "the", "in", "on", "at", "for", "from", "with", "as", "by", "to", "of", "and", "but",
    "or", "when", "where", "what", "who", "why", "how", "one", "two", "three", "first", "last",
    "new", "also", "then", "thus", "yes", "no", "not", "if", "so", "despite", "currently",
    "under", "over", "between", "about", "unlike", "like", "upon", "once", "(meta",
    "data)", "title", "published", "datetime", "skip", "home", "news", "read", "more",
    "half", "third", "quarter", "dozen", "four", "five", "six", "seven", "eight", "nine", "ten",
}  # fmt: skip


# a sentence break, but not after an initial ("Thomas K. Arnold") or "U.S."
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])(?<![\s.][A-Z]\.)(?<!^[A-Z]\.)\s+(?=[A-Z\"“(])|\n+")
# Capitalised words dropped when they open a name mid-sentence ("The" of "The Beatles");
# not "New" of "New York", which COMMON_CAPITALISED drops only at a sentence start.
_RUN_OPENERS = COMMON_CAPITALISED - {"new", "first", "last", "one", "two", "three", "home", "news"}
_QUARTER_TOKEN = re.compile(r"^Q[1-4]$")
_PRONOUN_CAPS = {"I", "I'm", "I’m", "I've", "I’ve", "I'd", "I’d", "I'll", "I’ll"}


def _strip_possessive(tok: str) -> str:
    tok = tok.rstrip(',;:!?"”)')
    for suffix in ("'s", "’s", "'", "’"):
        if tok.endswith(suffix):
            return tok[: -len(suffix)]
    return tok


def extract_entities(text: str) -> list[str]:
    """Capitalised runs, as described in the module docstring."""
    entities: list[str] = []
    text = _HOLIDAY.sub(_blank, text)  # "New Year's Day" is a date, not a name
    for sentence in _SENTENCE_SPLIT.split(text):
        toks = _SPLIT_TOKENS.findall(sentence)
        run: list[str] = []

        def flush(run: list[str] = run) -> None:
            while run and run[-1].lower() in _CONNECTORS:
                run.pop()
            if run:
                entities.append(" ".join(run))
            run.clear()

        for i, tok in enumerate(toks):
            clean = _strip_possessive(tok)
            is_cap = bool(clean) and bool(_CAP_TOKEN.match(clean))
            low = clean.lower().strip(".")
            if is_cap and (low in MONTHS and len(low) > 2 or low in WEEKDAYS):
                flush()
                continue
            if (
                is_cap
                and i == 0
                and (low in COMMON_CAPITALISED or low.endswith(("ly", "ing")) or low == "a")
            ):
                continue  # sentence-initial common word
            if clean in _PRONOUN_CAPS:
                flush()  # "I" is capitalised everywhere and names no one
                continue
            if is_cap and _QUARTER_TOKEN.match(clean):
                flush()
                continue
            if is_cap and low in _RUN_OPENERS and not run and (len(low) > 1 or clean == "A"):
                # a capitalised common word opening a run ("The" in "The Beatles") is dropped;
                # the content words that follow still form the entity
                continue
            if is_cap:
                if (
                    clean.endswith(".")
                    and len(clean) > 2
                    and not re.fullmatch(r"(?:[A-Z]\.)+", clean)
                ):
                    clean = clean[:-1]  # sentence-final period, not an initial or "U.S."
                run.append(clean)
                if clean != tok.rstrip(',;:!?"”)') or tok.endswith(
                    (",", ";", ":", ")", '"', "”", "!", "?")
                ):
                    flush()  # possessive or punctuation ends the name
            elif run and low in _CONNECTORS:
                run.append(low)
            else:
                flush()
        flush()
    seen: set[str] = set()
    out = []
    for e in entities:
        if e.lower() not in seen and any(c.isalpha() for c in e):
            seen.add(e.lower())
            out.append(e)
    return out


def _fold(tok: str) -> str:
    """Lower-case and strip accents, so "Bruzón" meets "Bruzon"."""
    tok = unicodedata.normalize("NFKD", tok.lower().replace("’", "'"))
    return "".join(c for c in tok if not unicodedata.combining(c))


def entity_tokens(entity: str) -> list[str]:
    out = []
    for t in re.findall(r"[\w’'.\-]+", entity):
        t = _strip_possessive(_fold(t).strip("'")).strip(".-")
        if t and t not in _CONNECTORS:
            out.append(t)
    return out


PREFIX = 5  # demonyms and derived forms: "Libyan"/"Libya", "Canadians"/"Canada"


def _token_present(t: str, text_tokens: set[str]) -> bool:
    if t in text_tokens or stem(t) in text_tokens:
        return True
    if "-" in t and all(_token_present(p, text_tokens) for p in t.split("-") if p):
        return True
    return len(t) >= PREFIX + 1 and "pre:" + t[:PREFIX] in text_tokens


# Words that make up names but do not tell one name from another: titles and kinds of
# institution. "Bank of England" vs "Bank of France" differs in "england", not "bank".
GENERIC_NAME_WORDS = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "dr",
        "prof",
        "professor",
        "sir",
        "dame",
        "lady",
        "lord",
        "prince",
        "princess",
        "king",
        "queen",
        "duke",
        "duchess",
        "earl",
        "count",
        "saint",
        "st",
        "monsignor",
        "father",
        "rev",
        "reverend",
        "judge",
        "justice",
        "president",
        "vice",
        "governor",
        "senator",
        "general",
        "captain",
        "colonel",
        "major",
        "minister",
        "chairman",
        "chair",
        "chief",
        "officer",
        "director",
        "united",
        "states",
        "national",
        "international",
        "federal",
        "royal",
        "supreme",
        "high",
        "higher",
        "court",
        "bank",
        "university",
        "college",
        "school",
        "academy",
        "institute",
        "institution",
        "museum",
        "library",
        "council",
        "committee",
        "commission",
        "department",
        "ministry",
        "office",
        "agency",
        "party",
        "club",
        "league",
        "association",
        "society",
        "foundation",
        "company",
        "corporation",
        "corp",
        "inc",
        "ltd",
        "group",
        "house",
        "hall",
        "church",
        "cathedral",
        "city",
        "county",
        "state",
        "province",
        "district",
        "region",
        "republic",
        "kingdom",
        "empire",
        "order",
        "award",
        "awards",
        "prize",
        "medal",
        "festival",
        "championship",
        "championships",
        "cup",
        "series",
        "season",
        "world",
        "north",
        "south",
        "east",
        "west",
        "northern",
        "southern",
        "eastern",
        "western",
        "new",
        "old",
        "great",
        "grand",
        "central",
        "american",
        "british",
        "european",
        "street",
        "road",
        "avenue",
        "river",
        "lake",
        "mount",
        "mountain",
        "park",
        "station",
        "base",
        "airport",
        "center",
        "centre",
        "theatre",
        "theater",
        "hospital",
        "centre",
        "army",
        "navy",
        "air",
        "force",
        "band",
        "records",
        "times",
        "news",
        "press",
        "the",
    ]
)
GENERIC_NAME_WORDS = GENERIC_NAME_WORDS | frozenset(
    [
        "knight",
        "commander",
        "prefecture",
        "parish",
        "borough",
        "municipality",
        "township",
        "village",
        "town",
        "fc",
        "afc",
        "cf",
        "sc",
        "board",
        "memorial",
        "monument",
        "stadium",
        "arena",
        "hotel",
        "tower",
        "bridge",
        "building",
        "island",
        "islands",
        "bay",
        "valley",
    ]
)
GENERIC_NAME_WORDS = GENERIC_NAME_WORDS - {"new"}  # part of names: New Order, New Zealand


def entity_present(entity: str, text_tokens: set[str], *, strict: bool = True) -> bool:
    """Whether the text names this entity (see the module docstring).

    Tokens match after accent folding, light stemming, hyphen splitting/joining, and on a
    shared 5-letter prefix for tokens of 6+ letters; initials ("K.") are optional, so
    "Thomas Arnold" is found in "Thomas K. Arnold".

    ``strict=True`` (the rules judge): every content token must occur. ``strict=False`` (the
    audit): the entity's *head* must occur — its last distinctive token, i.e. the last one
    that is not a title or institution word (GENERIC_NAME_WORDS). So "Dave Filoni" is found
    in "Filoni revealed" (a surname alone is how reports name people), "United States
    Supreme Court" in "the Supreme Court", but "John Smith" is not found in "John Brown" nor
    "Bank of England" in "Bank of France". An entity made only of generic words needs one
    of them. In "X of Y" the head is X's last distinctive token when X has one ("Cavalry FC
    of the Canadian Premier League"), else Y's ("Bank of England"). (On the WiCE development
    pairs the all-distinctive-tokens rule fired on 53 of 115 SUPPORTED pairs, the head rule
    on 49, "any distinctive token" on 42 — the head rule keeps surname and place swaps
    detectable; the X-of-Y head and administrative words brought it to 46. Known gap: a
    head found alone passes, so "New York" is found in "York".)
    """
    needed = [t for t in entity_tokens(entity) if len(t) > 1]
    if not needed:
        # Only single letters ("R&B", a stray "U"): nothing distinctive to look up, so the
        # letters themselves must occur.
        letters = entity_tokens(entity)
        return bool(letters) and all(t in text_tokens for t in letters)
    if strict:
        return all(_token_present(t, text_tokens) for t in needed)
    # In "X of Y" the head is X ("Cavalry FC of the Canadian Premier League") unless X is
    # only generic words ("Bank of England", "Duke of Cambridge"), then Y.
    raw = [t.lower() for t in re.findall(r"[\w’'.\-]+", entity)]
    before_of = entity_tokens(" ".join(raw[: raw.index("of")])) if "of" in raw else []
    for group in (before_of, needed):
        distinctive = [t for t in group if len(t) > 1 and t not in GENERIC_NAME_WORDS]
        if distinctive:
            return _token_present(distinctive[-1], text_tokens)
    return any(_token_present(t, text_tokens) for t in needed)


def token_set(text: str) -> set[str]:
    toks = {_fold(t).strip(".'-") for t in re.findall(r"[\w’'.\-]+", text)}
    extra = set()
    for t in toks:
        base = _strip_possessive(t)
        variants = {base}
        if "-" in base:
            variants.update(p for p in base.split("-") if p)
            variants.add(base.replace("-", ""))
        for v in variants:
            extra.add(v)
            extra.add(stem(v))
            if len(v) >= PREFIX:
                extra.add("pre:" + v[:PREFIX])
    return toks | extra


# ---------------------------------------------------------------- small meaning-bearing words

QUANTIFIER_GROUPS = {
    "all": {"all", "every", "each", "entire", "whole", "always", "everyone", "everything"},
    "most": {"most", "majority", "mostly", "largely", "mainly", "predominantly"},
    "none": {"none", "no one", "nobody", "nothing"},
    # "all of them voted for it except one" says one alone did otherwise
    "only": {
        "only",
        "sole",
        "solely",
        "exclusively",
        "alone",
        "except one",
        "except for one",
        "all but one",
    },
    "many": {"many", "numerous", "much", "lots"},
    "some": {"some", "several", "few", "certain", "a number of"},
}
_STRONG_QUANTIFIERS = ("all", "most", "none", "only")
STRONG_MODALS = {
    "must",
    "shall",
    "will",
    "required",
    "requires",
    "mandatory",
    "obliged",
    "has to",
    "have to",
}
_OBLIGATION = ("must", "shall", "required to", "is required", "are required", "mandatory",
               "obliged to", "obligated to", "has to", "have to", "compulsory")  # fmt: skip
_BOOSTERS = ("certainly", "definitely", "undoubtedly", "undeniably", "clearly", "proven",
             "proved", "conclusively", "without doubt", "guaranteed", "always")  # fmt: skip
HEDGED_MODALS = {
    "should", "may", "might", "could", "expected", "plans", "planned", "proposed", "likely",
    "intends", "aims", "considering", "possibly", "reportedly", "allegedly",
    # advice, proposals and estimates are not obligations or facts (modality lexicon;
    # goldens/judge_calibration.jsonl's modality_slip failures showed these were missing)
    "recommends", "recommended", "recommend", "advises", "advised", "suggests", "suggested",
    "proposes", "estimates", "estimated", "set to", "scheduled to", "hopes to", "intend to",
}  # fmt: skip
NEGATIONS = {
    "not",
    "no",
    "never",
    "without",
    "neither",
    "nor",
    "none",
    "cannot",
    "n't",
    "denied",
    "denies",
}
_ATTRIB_RE = re.compile(
    r"(?:(?i:according to)\s+(?P<a>(?:the\s+)?[\w.’'\- ]{2,60}?)(?=[,;]|\.(?:\s|$)|$| said| says)"
    r"|(?P<b>[A-Z][\w.’'\-]+(?:\s(?:of|the|de|[A-Z][\w.’'\-]+)){0,5})\s+(?:said|says|stated|states|told|announced|reported|claimed|claims|wrote|argued|noted|added|confirmed))"
)


# Direction words: a claim that says one side while the span says the other is contradicted,
# whatever the overlap ("approved" vs "rejected", "rose" vs "fell"). Compared on stems.
_OPPOSITES = [
    ("approve approved approves approval", "reject rejected rejects rejection"),
    ("accept accepted accepts", "decline declined declines refuse refused refuses"),
    ("increase increased increases increasing", "decrease decreased decreases decreasing"),
    ("rise rises rose risen rising", "fall falls fell fallen falling"),
    ("gain gained gains", "lose loses lost losing"),
    ("win wins won winning", "lose loses lost losing"),
    ("higher", "lower"), ("above", "below"), ("before", "after"),
    ("more", "less fewer"),
    ("open opened opens opening", "close closed closes closing shut"),
    ("allow allowed allows permitted", "ban banned bans prohibit prohibited forbid forbidden"),
    ("support supported supports", "oppose opposed opposes"),
    ("expand expanded expands grow grew grown", "shrink shrank shrunk contract contracted"),
    ("hire hired hires", "fire fired fires dismissed laid"),
    ("profit profits", "loss losses"), ("surplus", "deficit"), ("best", "worst"),
    ("positive", "negative"), ("join joined joins", "leave left leaves quit"),
    ("release released releases", "cancel cancelled canceled cancels shelved"),
    ("legal", "illegal"), ("guilty convicted", "innocent acquitted"), ("alive", "dead"),
    ("maximum", "minimum"), ("earlier", "later"),
]  # fmt: skip


def opposites(claim: str, span: str) -> list[tuple[str, str]]:
    """(claim word, span word) pairs where the span uses the opposite and never the claim's word."""
    cw, sw = set(words(claim)), set(words(span))
    out = []
    for a, b in _OPPOSITES:
        side_a, side_b = set(a.split()), set(b.split())
        for x, y in ((side_a, side_b), (side_b, side_a)):
            said, answered = cw & x, sw & y
            if said and answered and not (sw & x) and not (cw & y):
                out.append((sorted(said)[0], sorted(answered)[0]))
    return out


_NEG_WORDS = {"not", "no", "never", "without", "neither", "nor", "cannot", "n't", "didn't",
              "doesn't", "don't", "isn't", "wasn't", "weren't", "aren't", "hasn't", "haven't",
              "hadn't", "won't", "wouldn't", "couldn't", "shouldn't"}  # fmt: skip
_NEG_SKIP = STOPWORDS | {"be", "been", "being", "also", "yet", "ever", "even", "really", "only"}
_NEG_WINDOW = 4  # a negation governs a content word at most this many words later


def _negated_stems(text: str) -> tuple[set[str], set[str]]:
    """(stems that follow a negation within the window, stems used at least once without
    one): "will not race ... in a sprint car race" both negates and asserts "race"."""
    toks = re.findall(r"[a-z0-9]+(?:'[a-z]+)?", text.lower().replace("’", "'"))
    negated, content = set(), set()
    last_neg = -99
    for i, t in enumerate(toks):
        if t == "not" and i + 1 < len(toks) and toks[i + 1] == "only":
            continue  # "not only X but Y" asserts X
        if t in _NEG_WORDS or t.endswith("n't"):
            last_neg = i
            continue
        if t in _NEG_SKIP:
            continue
        st = stem(t)
        if i - last_neg <= _NEG_WINDOW:
            negated.add(st)
            last_neg = -99  # one negation, one predicate
        else:
            content.add(st)
    return negated, content


def negation_conflicts(claim: str, span: str) -> list[tuple[str, bool]]:
    """Words negated on one side and asserted on the other.

    Local, not global: "did not approve" in the claim conflicts with an un-negated "approved"
    in the span (and the reverse), whatever other negations either text holds. Returns
    (stem, True when the claim is the negated side).
    """
    c_neg, c_pos = _negated_stems(claim)
    s_neg, s_pos = _negated_stems(span)
    out = []
    for st in sorted(c_neg):
        if st in s_pos and st not in s_neg:
            out.append((st, True))
    for st in sorted(s_neg):
        if st in c_pos and st not in c_neg and st not in s_pos:
            out.append((st, False))
    return out


HEDGES = (
    "reportedly", "allegedly", "approximately", "about", "around", "nearly", "almost",
    "roughly", "estimated", "up to", "at least", "more than", "over", "some", "possibly",
    "probably", "likely", "may", "might", "could", "can", "expected to", "believed to",
    "thought to", "said to", "apparently", "around", "circa", "c.",
)  # fmt: skip
_HEDGE_RE = re.compile(
    r"\b("
    + "|".join(re.escape(h) for h in HEDGES)
    + r")\s+(?:be\s+|have\s+|been\s+)?([\w.,$£€%-]+)"
)


def hedges_dropped(claim: str, span: str) -> list[tuple[str, str]]:
    """(hedge, word): the span hedges a word the claim states flatly.

    "approximately 230 metres" -> "230 metres", "reportedly grew" -> "grew" / "certainly
    grew", "can be made" -> "must be made". Only when the hedged word itself is in the claim
    and the claim carries no hedge of its own.
    """
    c_low = claim.lower()
    if any(re.search(rf"(?<!\w){re.escape(h)}(?!\w)", c_low) for h in HEDGES):
        return []
    c_words = set(re.findall(r"[\w.,$£€%-]+", c_low))
    c_stems = {stem(w) for w in c_words}
    out = []
    for m in _HEDGE_RE.finditer(span.lower()):
        hedge, word = m.group(1), m.group(2).strip(".,")
        if hedge == "some" and not word[:1].isdigit():
            continue  # "some people" is a quantifier, not a hedge on a figure
        if hedge == "over" and not word[:1].isdigit():
            continue
        if hedge == "can" and not re.search(r"\b(?:must|shall|required|has to|have to)\b", c_low):
            continue  # "can" is ability unless the claim turned it into an obligation
        if word in STOPWORDS or not word:
            continue
        if word in c_words or (not word[:1].isdigit() and stem(word) in c_stems):
            out.append((hedge, word))
    return out


@dataclass
class Specifics:
    numbers: list[Quantity] = field(default_factory=list)
    dates: list[DateMention] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    quantifiers: set[str] = field(default_factory=set)  # group names present
    strong_modal: bool = False
    hedged_modal: bool = False
    negated: bool = False
    attributions: list[str] = field(default_factory=list)
    tokens: set[str] = field(default_factory=set)


def _phrase_in(text_low: str, words_list: set[str]) -> bool:
    return any(re.search(rf"\b{re.escape(w)}\b", text_low) for w in words_list)


@lru_cache(maxsize=2048)
def extract(text: str) -> Specifics:
    low = text.lower().replace("’", "'")
    # "not only X but Y" asserts both: neither a negation nor an "only"
    low = re.sub(r"\bnot only\b", " ", low)
    quants = {g for g, ws in QUANTIFIER_GROUPS.items() if _phrase_in(low, ws)}
    attribs = []
    for m in _ATTRIB_RE.finditer(text):
        who = (m.group("a") or m.group("b") or "").strip()
        first = who.split()[0].lower() if who.split() else ""
        if who.lower().startswith("the "):
            who = who[4:]
        if not entity_tokens(who):
            continue  # "The said": nobody named
        if who and (first not in COMMON_CAPITALISED or first == "the" or m.group("a")):
            attribs.append(who)
    return Specifics(
        numbers=extract_numbers(text),
        dates=extract_dates(text),
        entities=extract_entities(text),
        quantifiers=quants,
        strong_modal=_phrase_in(low, STRONG_MODALS),
        # "May" the month is not "may" the modal
        hedged_modal=_phrase_in(re.sub(r"\bMay\b", " ", text).lower(), HEDGED_MODALS),
        negated=_phrase_in(low, NEGATIONS) or "n't" in low,
        attributions=attribs,
        tokens=token_set(text),
    )


# ---------------------------------------------------------------- contradiction


def _occurrences(text: str, surface: str) -> list[int]:
    """Where ``surface`` stands as a whole token ("2" in "Two ... 2 of", not in "5.25%")."""
    if not surface:
        return []
    rx = rf"(?<![\w.,]){re.escape(surface)}(?![\w]|[.,]\d)"
    return [m.start() for m in re.finditer(rx, text)] or (
        [text.find(surface)] if surface in text else []
    )


def _word_after(text: str, surface: str) -> str | None:
    for i in _occurrences(text, surface):
        m = re.match(r"\s*([A-Za-z]+)", text[i + len(surface) :])
        if m:
            return stem(m.group(1).lower())
    return None


def _word_before(text: str, surface: str) -> str | None:
    for i in _occurrences(text, surface):
        m = re.search(r"([A-Za-z]+)\W*$", text[:i])
        if m:
            return m.group(1).lower()
    return None


def contradictions(claim: str, span: str) -> list[Mismatch]:
    """Claim specifics the span *contradicts* rather than omits (DESIGN: contradiction is
    NOT_SUPPORTED, silence is PARTIAL).

    A number contradicts when the span has a different number of the same kind in the same
    role: same unit or currency, or for a bare number the same word after it ("7 albums" vs
    "5 albums"); a percentage against a different percentage. A date contradicts when the
    span gives the same granularity differently: a year after the same word ("in 2019" vs
    "in 2018"), a different month of the same year, a different day of the same month.
    """
    c, s = extract(claim), extract(span)
    out: list[Mismatch] = []
    claim_d, span_d = _alpha2digit(claim), _alpha2digit(span)
    for q in c.numbers:
        if any(quantities_match(q, sq) for sq in s.numbers):
            continue
        share = {"percent", "fraction"}  # "43%" against "a third": two shares of one whole
        rivals = [
            sq for sq in s.numbers
            if sq.unit == q.unit and (
                sq.kind == q.kind
                # a share near the other ("34%" against "roughly a third") is imprecise, not
                # contradicted: that stays PARTIAL
                or ({sq.kind, q.kind} <= share and abs(sq.comparable() - q.comparable()) > 0.02)
            )
        ]  # fmt: skip
        if q.kind in ("number", "ordinal") and q.unit is None:
            # same role: the same word follows ("eighth consecutive" / "seventh consecutive",
            # "Three of the nine" / "Two of the nine"); number words are read as digits too
            after = _word_after(claim, q.surface) or _word_after(claim_d, q.surface)
            rivals = [
                sq for sq in rivals
                if after and after not in STOPWORDS - {"of"}
                and (_word_after(span, sq.surface) or _word_after(span_d, sq.surface)) == after
            ]  # fmt: skip
        if rivals:
            out.append(Mismatch("number", f"{q.surface} (span: {rivals[0].surface})"))
    span_years = {x.year for x in s.dates if x.year is not None}
    for d in c.dates:
        if date_established(d, s.dates):
            continue
        if d.since:
            # "since January" against "since March": two different starting points
            rivals = [
                x for x in s.dates
                if x.since and (x.month, x.year) != (d.month, d.year)
            ]  # fmt: skip
        elif d.quarter is not None:
            rivals = [
                x for x in s.dates
                if x.quarter is not None and x.quarter != d.quarter
                and not any(y.quarter == d.quarter for y in s.dates)
            ]  # fmt: skip
        elif d.day is not None:
            rivals = [
                x for x in s.dates
                if x.day is not None and (
                    (x.month == d.month and x.day != d.day)
                    or (x.month != d.month and d.year is not None and x.year == d.year)
                    # the same day and month in another year ("June 10, 1951" / "1961")
                    or (x.month == d.month and x.day == d.day and None not in (x.year, d.year)
                        and x.year != d.year)
                )
            ]  # fmt: skip
        elif d.month is not None:
            rivals = [
                x for x in s.dates
                if x.month is not None and x.day is None and (
                    (x.month != d.month and (d.year is None or x.year == d.year))
                    # the same month in another year, the claim's year nowhere in the span
                    or (x.month == d.month and None not in (x.year, d.year)
                        and x.year != d.year and d.year not in span_years)
                )
            ]  # fmt: skip
        elif d.year is not None:
            before = _word_before(claim, d.surface)
            rivals = [
                x for x in s.dates
                if x.year is not None and x.month is None and x.year != d.year
                and before is not None and _word_before(span, x.surface) == before
            ]  # fmt: skip
        else:
            rivals = []
        if rivals:
            out.append(Mismatch("date", f"{d.surface} (span: {rivals[0].surface})"))
    for said, answered in period_conflicts(claim, span):
        out.append(Mismatch("period", f"{said} (span: {answered})"))
    return out


# "today" against "used to": the claim puts in the present what the span puts in the past,
# or the reverse. Phrases, matched on whole words.
# ("now" and "previously" are left out: "Now 38, he ..." and "had previously announced" are
# about other things; on the WiCE development pairs they fired only on non-conflicts.)
_NOW_WORDS = ("today", "currently", "at present", "presently", "still", "nowadays",
              "to this day")  # fmt: skip
_PAST_ONLY_WORDS = ("used to", "formerly", "once was", "once were", "no longer",
                    "at one time", "was once", "were once", "former")  # fmt: skip


def _has_phrase(low: str, phrases: tuple[str, ...]) -> str | None:
    for p in phrases:
        if re.search(rf"\b{re.escape(p)}\b", low):
            return p
    return None


def period_conflicts(claim: str, span: str) -> list[tuple[str, str]]:
    """(claim word, span word) where one text says now and the other says only in the past."""
    c_low, s_low = claim.lower(), span.lower()
    out = []
    c_now, s_past = _has_phrase(c_low, _NOW_WORDS), _has_phrase(s_low, _PAST_ONLY_WORDS)
    if c_now and s_past and not _has_phrase(s_low, _NOW_WORDS) and s_past != "former":
        out.append((c_now, s_past))
    c_past, s_now = _has_phrase(c_low, _PAST_ONLY_WORDS), _has_phrase(s_low, _NOW_WORDS)
    if (
        c_past and c_past != "former" and s_now and s_now != "remain"
        and not _has_phrase(s_low, _PAST_ONLY_WORDS)
    ):  # fmt: skip
        out.append((c_past, s_now))
    return out


# ---------------------------------------------------------------- comparison


def _century_established(q: Quantity, claim: str, s: Specifics) -> bool:
    """ "the fifteenth century" is a period: any year of it in the span establishes it."""
    if q.kind != "ordinal" or _word_after(claim, q.surface) != stem("century"):
        return False
    lo, hi = (q.value - 1) * 100 + 1, q.value * 100
    return any(
        (d.year is not None and lo <= d.year <= hi)
        or (d.decade is not None and lo <= d.decade + 1 <= hi)
        for d in s.dates
    )


@dataclass
class Mismatch:
    kind: str  # number | date | entity | quantifier | modality | negation | attribution
    element: str  # the claim's words that the span does not establish

    def __str__(self) -> str:
        return f"{self.kind}: {self.element}"


def compare(
    claim: str, span: str, *, soft: bool = False, strict_entities: bool = False
) -> list[Mismatch]:
    """The claim's specifics the span does not establish.

    Default (the audit, DESIGN check 4): numbers (ordinal *words* excepted), dates and named
    entities (head rule, see ``entity_present``). ``soft=True`` (the rules judge) adds
    ordinal words, quantifiers, modality, negation and attribution; ``strict_entities``
    requires every token of a name.
    """
    c, s = extract(claim), extract(span)
    out: list[Mismatch] = []
    for q in c.numbers:
        if not soft and q.kind == "ordinal" and not q.surface[:1].isdigit():
            continue  # "first", "third": too often idiom ("first time") to overrule a judge
        if _century_established(q, claim, s):
            continue
        if not any(quantities_match(q, sq) for sq in s.numbers):
            # a number the span spells as a year-like 4-digit figure ("1,200" vs "1200")
            if q.kind == "number" and any(d.year == q.value for d in s.dates):
                continue
            out.append(Mismatch("number", q.surface))
    for d in c.dates:
        if not date_established(d, s.dates):
            out.append(Mismatch("date", d.surface))
    for e in c.entities:
        if not entity_present(e, s.tokens, strict=strict_entities):
            out.append(Mismatch("entity", e))
    if not soft:
        return out
    for g in _STRONG_QUANTIFIERS:
        if g in c.quantifiers and g not in s.quantifiers:
            out.append(Mismatch("quantifier", g))
    if c.strong_modal and s.hedged_modal and not s.strong_modal:
        out.append(Mismatch("modality", "must/will (span hedges)"))
    # an obligation or a certainty the span does not state at all ("must be made" where the
    # span says "are made"; "certainly grew" where it says "grew")
    c_low, s_low = claim.lower(), span.lower()
    for group in (_OBLIGATION, _BOOSTERS):
        said = _has_phrase(c_low, group)
        if said and not _has_phrase(s_low, group):
            out.append(Mismatch("modality", f"{said} (span does not say it)"))
            break
    conflicts = negation_conflicts(claim, span)
    if c.negated and not s.negated and not any(claim_neg for _, claim_neg in conflicts):
        out.append(Mismatch("negation", "not"))  # the claim denies; the span denies nothing
    for word, claim_neg in conflicts:
        out.append(
            Mismatch("negation", f"not {word}" if claim_neg else f"{word} (span: not {word})")
        )
    for hedge, word in hedges_dropped(claim, span):
        out.append(Mismatch("modality", f"{word} (span: {hedge} {word})"))
    for a in c.attributions:
        if not entity_present(a, s.tokens, strict=False):
            out.append(Mismatch("attribution", a))
    for x, y in opposites(claim, span):
        out.append(Mismatch("direction", f"{x} (span: {y})"))
    for word in scope_widened(claim, span, s.tokens):
        out.append(Mismatch("scope", word))
    return out


_COORD = re.compile(
    r"(?<![\w.'’/-])([A-Za-z][\w-]+)\s+(?:and|or|&)\s+([A-Za-z][\w-]+)(?![\w.'’/-]*\w)"
)
_SHARE_OF = re.compile(
    r"(\d[\d.,]*\s?(?:%|percent|per cent))\s+of\s+(?:the\s+|all\s+)?([A-Za-z][\w-]+)", re.I
)


def scope_widened(claim: str, span: str, span_tokens: set[str]) -> list[str]:
    """Words by which the claim covers more than the span (DESIGN: "importers vs
    manufacturers" is PARTIAL): a noun coordinated with one the span names ("manufacturers
    and importers" where the span has only manufacturers), and another base for the same
    share ("64% of the population" where the span says "64% of adults"). Verbs (-ed/-ing)
    are left out: on the WiCE development pairs coordinated verbs fired on 4 SUPPORTED
    pairs and nouns on 2 PARTIAL ones."""
    out = []
    for m in _COORD.finditer(claim):
        a, b = _fold(m.group(1)), _fold(m.group(2))
        if {a, b} & STOPWORDS or any(w.endswith(("ed", "ing")) for w in (a, b)):
            continue
        if not (m.group(2).islower() and (m.group(1).islower() or not claim[: m.start()].strip())):
            continue  # names are the entity check's; this is about kinds of things
        has_a, has_b = _token_present(a, span_tokens), _token_present(b, span_tokens)
        if has_a != has_b:
            out.append(m.group(2) if has_a else m.group(1))
    span_bases = {
        m.group(1).replace(" ", "").lower(): m.group(2).lower() for m in _SHARE_OF.finditer(span)
    }
    for m in _SHARE_OF.finditer(claim):
        base = span_bases.get(m.group(1).replace(" ", "").lower())
        word = m.group(2).lower()
        if base and stem(base) != stem(word) and not _token_present(word, span_tokens):
            out.append(f"{m.group(2)} (span: {m.group(1)} of {base})")
    return out


# ---------------------------------------------------------------- identifiers

# Reference codes, web addresses and file names: "PELICAN-417", "KESTREL-CANCEL-64",
# "example.org/path", "figures.txt", "verify?question=". Each names one thing exactly, so a
# claim carrying one the span never states is about something the span does not mention.
_IDENTIFIER_RE = re.compile(
    r"(?<![\w-])[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+(?![\w-])"  # all-caps hyphenated codes
    r"|(?<![\w@/.-])(?:https?://)?[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:[a-z]{2,10})(?:/[\w?=&%./-]*)?(?![\w])"
    r"|(?<![\w/])[\w-]+\?[\w-]+=[\w-]*"  # a query string
)
_NOT_A_DOMAIN_END = {"e", "g", "i", "m", "p", "s", "st", "mr", "mrs", "dr", "jr", "sr", "co", "inc",
                     "ltd", "no", "vs", "etc", "al", "jan", "feb", "mar", "apr", "jun", "jul",
                     "aug", "sep", "sept", "oct", "nov", "dec", "am", "pm"}  # fmt: skip


_ADDRESS_ENDINGS = set(
    [
        "com",
        "org",
        "net",
        "gov",
        "edu",
        "int",
        "mil",
        "io",
        "ai",
        "co",
        "uk",
        "us",
        "eu",
        "de",
        "fr",
        "es",
        "it",
        "pt",
        "nl",
        "be",
        "ch",
        "at",
        "ie",
        "ca",
        "au",
        "nz",
        "in",
        "jp",
        "cn",
        "ru",
        "br",
        "mx",
        "info",
        "biz",
        "news",
        "example",
        "test",
        "local",
        "invalid",
        "txt",
        "pdf",
        "csv",
        "json",
        "html",
        "htm",
        "xml",
        "doc",
        "docx",
        "xls",
        "xlsx",
        "zip",
        "php",
        "asp",
        "aspx",
        "js",
        "png",
        "jpg",
        "jpeg",
        "gif",
    ]
)


def identifiers(text: str) -> list[str]:
    """Reference codes, addresses and file names in the text (see ``_IDENTIFIER_RE``)."""
    out = []
    for m in _IDENTIFIER_RE.finditer(text):
        tok = m.group(0).rstrip(".")
        if "." in tok and "?" not in tok and "/" not in tok and "-" not in tok.split(".")[0]:
            # "U.S.", "a.m.", "St. Louis": a dotted abbreviation is not a domain
            tail = tok.rsplit(".", 1)[-1].lower()
            if tail in _NOT_A_DOMAIN_END or len(tok.split(".")[0]) < 2:
                continue
        if (
            "." in tok
            and "/" not in tok
            and not tok.lower().startswith(("http", "www."))
            and tok.rsplit(".", 1)[-1].lower() not in _ADDRESS_ENDINGS
        ):
            continue  # "ended.the": two words glued by a lost space, not an address
        if "." not in tok and not any(c.isdigit() for c in tok) and tok.count("-") < 2:
            continue  # "AFL-CIO", "UK-US": hyphenated names, not codes
        if tok not in out:
            out.append(tok)
    return out


def missing_identifiers(claim: str, span: str) -> list[str]:
    """The claim's identifiers that the span never states (case- and space-insensitive)."""
    span_low = "".join(span.lower().split())
    return [t for t in identifiers(claim) if "".join(t.lower().split()) not in span_low]


# ---------------------------------------------------------------- stronger than the span
# Findings here make the claim a different claim, not a narrower one: the rules judge
# answers NOT_SUPPORTED (DESIGN: "different attribution", "opinion stated as fact",
# modality "must" vs "is expected to").

_REPORTING = (
    r"(?:said|says|say|stated|states|told|tells|announced|announces|reported|reports|claimed|"
    r"claims|wrote|writes|argued|argues|noted|notes|added|confirmed|confirms|insisted|"
    r"revealed|reveals|estimated|estimates|warned|warns|predicted|predicts|believes|believed)"
)
_REPORTED_BY = re.compile(rf"\b(\w[\w’'-]*)\s+(?:has\s+|have\s+|had\s+)?{_REPORTING}\b")
_SPAN_ATTRIBUTES = re.compile(
    rf"\b{_REPORTING}\b|\baccording to\b|\b(?:by|from) (?:his|her|their|its|the) "
    r"(?:publicist|spokes\w+|lawyer|agent|office|ministry|department)\b",
    re.I,
)
_NOT_AN_ACTOR = STOPWORDS | {"he", "she", "they", "it", "we", "i", "you", "who", "which", "that",
                            "also", "later", "previously", "publicly", "has", "have", "had",
                            "recently", "officially", "first", "then", "once"}  # fmt: skip
_OPINION = re.compile(
    r"\b(?:in my (?:view|opinion)|in our (?:view|opinion)|i think|i believe|we believe|"
    r"i would argue|to my mind|(?:said|says|writes|wrote) (?:the )?(?:columnist|commentator|"
    r"blogger|pundit)|columnist|op-ed|opinion:)",
    re.I,
)
_CLAIM_HEDGED = re.compile(
    rf"\b{_REPORTING}\b|\baccording to\b|\b(?:in (?:his|her|their|my|our) (?:view|opinion)|"
    r"believes?|thinks?|argues?|opinion)\b",
    re.I,
)
_COMPLETED = re.compile(
    # present perfect or "already"; a past perfect ("had joined") is usually reported
    # speech about a plan, so it is not counted (two WiCE PARTIAL pairs)
    r"\b(?:has|have)\s+(?:already\s+|now\s+|just\s+|recently\s+|finally\s+)?"
    r"(?:been\s+)?\w+(?:ed|en|wn|ne|ht|lt|un|ld|de)\b|\balready\b",
    re.I,
)
_FUTURE_OR_PLAN = re.compile(
    r"\b(?:will|shall|plans? to|planning to|planned to|(?:is|are) set to|intends? to|"
    r"(?:is|are) going to|(?:is|are) expected to|(?:is|are) scheduled to|aims? to|proposes? to|"
    r"proposed|would)\b",
    re.I,
)


def claim_attributions(claim: str) -> list[str]:
    """Who the claim says is speaking: "X said" (the word before the reporting verb, so
    lower-case actors count too: "his doctors", "regulators") and "according to X"."""
    out = list(extract(claim).attributions)
    for m in _REPORTED_BY.finditer(claim):
        w = m.group(1)
        if w.lower() in _NOT_AN_ACTOR or w[:1].isdigit():
            continue
        if w[:1].islower():
            # a lower-case actor only after a determiner or possessive: "his doctors",
            # "the regulators", "Enke's doctor" (not "... and novelists ever wrote")
            before = claim[: m.start(1)].split()[-1:] or [""]
            if not re.fullmatch(
                r"(?:the|his|her|their|its|our|a|an|\w+['’]s?|\w+s['’])", before[0], re.I
            ):
                continue
        out.append(w)
    return out


# Opposite verbs of change or decision: the claim says one, the span the other about the
# same thing. (before/after, open/closed, join/leave are left PARTIAL: on the WiCE
# development pairs they fired on 3 pairs, none a contradiction.)
_CHANGE_OPPOSITES = {
    "rise", "rises", "rose", "risen", "rising", "fall", "falls", "fell", "fallen", "falling",
    "increase", "increased", "increases", "decrease", "decreased", "decreases",
    "approve", "approved", "approves", "reject", "rejected", "rejects",
    "win", "wins", "won", "gain", "gained", "gains", "expand", "expanded", "shrink", "shrank",
    "hire", "hired", "fire", "fired", "support", "supported", "oppose", "opposed",
}  # fmt: skip


def stronger_than_span(claim: str, span: str) -> list[Mismatch]:
    """What makes the claim a different assertion from the span's: a speaker the span does
    not name while it names another, an opinion in the span stated as fact, an obligation or
    certainty the span only proposes or hedges, a done deed the span only plans."""
    c, s = extract(claim), extract(span)
    out: list[Mismatch] = []
    for said, answered in opposites(claim, span):
        if said in _CHANGE_OPPOSITES and answered in _CHANGE_OPPOSITES:
            out.append(Mismatch("direction", f"{said} (span: {answered})"))
    if _SPAN_ATTRIBUTES.search(span):
        for who in claim_attributions(claim):
            if entity_tokens(who) and not entity_present(who, s.tokens, strict=False):
                out.append(Mismatch("attribution", f"{who} (span attributes it to another)"))
                break
    op = _OPINION.search(span)
    if op and not _CLAIM_HEDGED.search(claim):
        out.append(Mismatch("attribution", f"stated as fact (span: {op.group(0)})"))
    if c.strong_modal and s.hedged_modal and not s.strong_modal:
        out.append(Mismatch("modality", "must/will (span: hedged or proposed)"))
    else:
        modal = {"may", "might", "could", "can", "expected to", "believed to", "thought to",
                 "said to", "likely", "possibly", "probably"}  # fmt: skip
        for hedge, word in hedges_dropped(claim, span):
            if hedge in modal:
                out.append(Mismatch("modality", f"{word} (span: {hedge} {word})"))
                break
    if (
        _COMPLETED.search(claim)
        and _FUTURE_OR_PLAN.search(span)
        and not _COMPLETED.search(span)
        and not _FUTURE_OR_PLAN.search(claim)
    ):
        out.append(Mismatch("modality", "done (span: planned or future)"))
    return out
