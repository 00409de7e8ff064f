"""Values with where they stand: the numbers, dates, weekdays and qualified names of a text,
each with its character offsets, grouped into the lists and ranges the text writes them in.

The role check (``graders.specifics.slot_reader``) compares a claim's values with its span's by
the words around them, so it needs each value's place. Numbers and dates are read by the same
extractors as everywhere else (``numbers``, ``dates``); number words are read run by run
here, so their offsets survive ("twelve paintings" -> 12 at 0..6, "a two-term mayor" -> 2).

A list ("in 2003, 2005 and 2008") and a range ("between 200 and 300", "two to four years",
"1491–1510") share a ``group``: a claim value that meets any member of a list, or falls
inside a range, is stated by it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from spanproof.graders.specifics import lexicon
from spanproof.graders.specifics.concepts import common_word
from spanproof.graders.specifics.dates import (
    _YEAR_RANGE,
    DateMention,
    blank,
    blank_dates,
    dated,
    has_digit,
)
from spanproof.graders.specifics.names import (
    GENERIC_NAME_WORDS,
    extract_entities,
    organisation_ending,
)
from spanproof.graders.specifics.numbers import (
    _DOZEN_RE,
    _FRACTION_RE,
    _ORDINAL_DIGIT_RE,
    _ORDINAL_WORD_RE,
    CURRENCY_WORDS,
    NUMBER_HEDGES,
    ORDINALS,
    UNITS,
    WORD_NUMBER,
    Quantity,
    _read_numbers,
    alpha2digit_safe,
    dozens,
    hedge_at_end,
    share_of,
    whole_number,
)
from spanproof.graders.specifics.places import given_names, known_place

from spanproof.core.prefilter import guarded

# Words that tell apart two things of one kind that share the rest of their name: "North
# Carolina" / "South Carolina", "Henry VII" / "Henry VIII", "John Smith Jr." / "Sr.". Two
# names differing only in such a word name different things; any other difference (a
# nickname, a middle name, a title) may be the same one written another way.
CONTRASTS: list[frozenset[str]] = [frozenset(g.split()) for g in lexicon.entries("name_contrasts")]

_NUMBER_WORD = (
    r"(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy"
    r"|eighty|ninety|hundred|thousand|million|billion|trillion)"
)
_WORD_RUN = guarded(re.compile(rf"\b{_NUMBER_WORD}(?:(?:\s+|-)(?:and\s+)?{_NUMBER_WORD})*\b", re.I))
_PERCENT_AFTER = re.compile(r"\s?(?:%|per\s?cent\b|percent\b|pct\b)", re.I)
_WORD_AFTER = re.compile(r"[\s-]+([A-Za-z/]+)")
_WEEKDAY = guarded(
    re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b(?!s)")
)
# "north", "south-east", "eastern", "westward", "westerly": a compass direction (lower case:
# "North Carolina" is a name). "-erly" and "from the ..." say where something comes from.
_DIRECTION = guarded(
    re.compile(r"\b(north|south|east|west)(?:-?(east|west))?(ern|erly|wards?)?\b(?![-–]\w)")
)
_ANGLES = {"north": 0, "east": 90, "south": 180, "west": 270}
_GROUP_SEP = re.compile(r"\s*(?:,\s*(?:and\s+|or\s+|&\s*)?|(?:,?\s+(?:and|or|&)\s+))\s*")
_RANGE_SEP = re.compile(r"\s*(?:to|through|until|till|and|[–—-])\s*")


@dataclass(frozen=True)
class Value:
    """One value of a text: what it is and where it stands."""

    kind: str  # quantity | date | weekday | name | direction
    start: int
    end: int
    text: str
    quantity: Quantity | None = None
    date: DateMention | None = None
    weekday: str | None = None
    name: tuple[str, ...] = ()  # a qualified name's tokens, lower-cased
    hedge: str | None = None  # the range a hedge before it states (numbers.NUMBER_HEDGES)
    group: int = -1  # the list or range it belongs to (-1: alone)
    in_range: bool = False  # the group is a range (low to high), not a list
    alt_date: DateMention | None = None  # "7/1/2018": the other way to read a date in figures
    name_type: str | None = None  # person | org | place, when the name's words say it
    bearing: float | None = None  # a direction: degrees from north
    coming_from: bool = False  # a direction something comes from ("westerly", "from the east")

    def __str__(self) -> str:
        return self.text


def _hedge(text: str, start: int) -> str | None:
    m = hedge_at_end(text[max(0, start - 24) : start])
    return NUMBER_HEDGES[m.group(1).lower()] if m else None


def _quantities(text: str) -> list[tuple[Quantity, int, int]]:
    out: list[tuple[Quantity, int, int]] = []
    blanked = blank_dates(text)
    # Each pattern's matches are blanked by a second scan only when the first found one: the
    # substitution finds the very matches finditer found, so a text without any is kept.
    # "half a dozen" before fractions: six, not a half and a dozen
    found = list(_DOZEN_RE.finditer(blanked))
    for m in found:
        out.append((Quantity(dozens(m), "number", None, m.group(0)), *m.span()))
    if found:
        blanked = _DOZEN_RE.sub(blank, blanked)
    found = list(_FRACTION_RE.finditer(blanked))
    for m in found:
        val = share_of(blanked, m)
        if val is not None:
            word = next(g for g in m.groups() if g)
            at = m.start() + m.group(0).find(word)
            out.append((Quantity(val, "fraction", None, word), at, at + len(word)))
    if found:
        blanked = _FRACTION_RE.sub(blank, blanked)
    found = list(_ORDINAL_WORD_RE.finditer(blanked))
    for m in found:
        q = Quantity(float(ORDINALS[m.group(1).lower()]), "ordinal", None, m.group(1))
        out.append((q, *m.span(1)))
    if found:
        blanked = _ORDINAL_WORD_RE.sub(blank, blanked)
    if has_digit(blanked):
        found = list(_ORDINAL_DIGIT_RE.finditer(blanked))
        for m in found:
            out.append((Quantity(float(m.group(1)), "ordinal", None, m.group(0)), *m.span()))
        if found:
            blanked = _ORDINAL_DIGIT_RE.sub(blank, blanked)
    digits: list[Quantity] = []
    spans: list[tuple[int, int]] = []
    _read_numbers(blanked, digits, mask=False, spans=spans)
    out += [
        (q, a, b)
        for q, (a, b) in zip(digits, spans, strict=True)
        if not (text[b : b + 1] == "/" or text[max(0, a - 1) : a] == "/")  # "9/14": a ratio
    ]
    for m in _WORD_RUN.finditer(blanked):
        run = m.group(0)
        if run.lower() in ("one", "zero"):
            continue  # "one of", "at one time": a pronoun or an idiom, as text2num reads it
        digits_text = alpha2digit_safe(run.replace("-", " ")).replace(" ", "")
        if not digits_text.isdigit():
            continue
        value, end = float(digits_text), m.end()
        kind, unit = "number", None
        pct = _PERCENT_AFTER.match(text, end)
        after = _WORD_AFTER.match(text, end)
        if pct:
            kind, end = "percent", pct.end()
        elif after and after.group(1).lower() in CURRENCY_WORDS:
            kind, unit, end = "currency", CURRENCY_WORDS[after.group(1).lower()], after.end()
        elif after and after.group(1).lower() in UNITS:
            unit, end = after.group(1).lower(), after.end()
        out.append((Quantity(value, kind, unit, text[m.start() : end]), m.start(), end))
    return out


def _dates(text: str) -> list[tuple[DateMention, int, int]]:
    # "since 1999" is also read as the year 1999, which keeps its place; the preposition is
    # part of the frame the role check reads
    return [(d, a, b) for d, a, b in dated(text) if not d.since]


def _weekdays(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _WEEKDAY.finditer(text):
        before = text[: m.start()].rstrip()
        # "Good Friday", "Super Tuesday": part of a name, not a day of this week
        if re.search(r"(?<![.!?]\s)[A-Z][a-z]+$", before) and not before.endswith(","):
            prior = before[: before.rfind(" ") + 1].rstrip()
            if prior and not prior.endswith((".", "!", "?", ":")):
                continue
        out.append((m.group(1), *m.span(1)))
    return out


def _directions(text: str) -> list[tuple[float, bool, int, int]]:
    """(bearing, whether it says where something comes from, start, end) of each direction."""
    out = []
    for m in _DIRECTION.finditer(text):
        first, second = _ANGLES[m.group(1)], _ANGLES.get(m.group(2) or "")
        if second is None:
            bearing = float(first)
        else:  # "north-east": between the two, the short way round
            bearing = ((first + second) / 2) if abs(first - second) <= 180 else 315.0
        coming = m.group(3) == "erly" or bool(re.search(r"\bfrom\s+the\s+$", text[: m.start()]))
        out.append((bearing, coming, *m.span()))
    return out


def _names(text: str) -> list[tuple[tuple[str, ...], int, int]]:
    out = []
    for entity in extract_entities(text):
        toks = entity.split()
        name = tuple(t.lower().strip(".") for t in toks)
        out += [(name, a, b) for a, b in _occurrences(text, toks)]
    return out


def _word_char(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _occurrences(text: str, toks: list[str]) -> list[tuple[int, int]]:
    """Where the name's words stand in ``text``, one after another with at most three
    characters other than letters and digits between two of them, then any spaces ("J. R.
    Tolley", "Guinea-Bissau"): what the pattern ``\\b T1 \\W{0,3}\\s* T2 ... (?!\\w)`` finds,
    without compiling a pattern per name (a few hundred microseconds each, for every name of
    every text)."""
    if not all(t and _word_char(t[0]) for t in toks):
        rx = r"\b" + r"\W{0,3}\s*".join(re.escape(t) for t in toks) + r"(?!\w)"
        return [m.span() for m in re.finditer(rx, text)]
    out, at, n = [], 0, len(text)
    while (start := text.find(toks[0], at)) >= 0:
        at = start + 1
        if start and _word_char(text[start - 1]):
            continue
        end = start + len(toks[0])
        for tok in toks[1:]:
            nxt = end
            while nxt < n and not _word_char(text[nxt]):
                nxt += 1
            if len(text[end:nxt].rstrip()) > 3 or not text.startswith(tok, nxt):
                break
            end = nxt + len(tok)
        else:
            if end < n and _word_char(text[end]):
                continue
            out.append((start, end))
            at = end
    return out


# Words that say what kind of thing a name names, when they end it ("Marlow Films", "Harbour
# City", "Corvex Biologics" is left unknown) or stand before it ("coach Dana Reyes").
_ORG_ENDS = frozenset(
    """films pictures studios records press books group inc ltd corp corporation company co
    bank university college school institute foundation trust fund agency ministry council
    committee party union association society organization organisation airlines airways
    fc afc united rovers athletic city town wanderers rangers club""".split()  # noqa: SIM905
)
_TITLES = [
    "mr",
    "mrs",
    "ms",
    "dr",
    "sir",
    "dame",
    "lord",
    "lady",
    "professor",
    "prof",
    "coach",
    "manager",
    "director",
    "engineer",
    "senator",
    "president",
    "minister",
    "judge",
    "author",
    "artist",
    "singer",
    "player",
    "striker",
    "chairman",
    "chairwoman",
] + ["chief executive"]
_PERSON_BEFORE = re.compile(r"(?:\b(?:" + "|".join(_TITLES) + r")\.?\s+)$", re.I)


def _may_follow_title(before: str) -> bool:
    """Whether ``_PERSON_BEFORE`` can match ``before`` (the words before a name): a match ends
    in whitespace at the very end (``$`` is also before a last line break, itself whitespace)
    right after a title and perhaps a period. Asked before the search, which tries the titles
    at every character; an ASCII text's lower case is what the case-insensitive titles meet
    (another text is always searched)."""
    if not before.isascii():
        return True
    word = before.rstrip()
    return len(word) < len(before) and word.lower().rstrip(".").endswith(_TITLE_ENDS)


_TITLE_ENDS = tuple(_TITLES)


def _opens_sentence(text: str, at: int) -> bool:
    before = text[:at].rstrip()
    return not before or before[-1] in '.!?:;("“'


def name_type(text: str, start: int, toks: tuple[str, ...]) -> str | None:
    """person | org | place when the name's own words or the words around it say so: an
    organisation's last word ("Marlow Films", "Brentwick Rovers"), a person's title or role
    before it ("coach Dana Reyes"), a place ISO 3166 or GeoNames knows ("Leeds", "France",
    "Lisbon") or one written with such a place after it ("Blackville, New Brunswick"), a
    given name opening a name of two or three words ("Sarah Lund"). Otherwise unknown."""
    if toks and toks[-1] in _ORG_ENDS:
        return "org"
    before = text[max(0, start - 40) : start]
    if _may_follow_title(before) and _PERSON_BEFORE.search(before):
        return "person"
    if known_place(" ".join(toks)):
        return "place"
    if 2 <= len(toks) <= 3 and toks[0] in given_names() and toks[-1] not in GENERIC_NAME_WORDS:
        return "person"  # "Sarah Lund", "Marco Bellini": a given name of the census first
    if len(toks) >= 2 and organisation_ending(toks[-1]):
        return "org"  # "Halden Construction", "Northgate Holdings": a kind of organisation
    by = re.search(r"\bby\s+$", text[max(0, start - 5) : start])
    if (
        by
        and 2 <= len(toks) <= 3
        and all(t[:1].isalpha() and t not in GENERIC_NAME_WORDS for t in toks)
    ):
        return "person"  # "directed by Anna Kowal": a maker named in full
    end = start + len(" ".join(toks))
    after = re.match(r",\s+((?:[A-Z][\w.-]*\s?){1,3})", text[end : end + 40])
    if after and known_place(after.group(1).strip(" .")):  # "Phoenix, Arizona."
        return "place"
    return None


# ---------------------------------------------------------------- forms read as one value
# Each of these is a value written in words the digit and date readers do not join: read
# first, so the pieces are not also read alone ("aged 67" is an age, not the count 67).

_SMALL = {
    w: i
    for i, w in enumerate(("zero", "one", "two", "three", "four", "five", "six", "seven",
                           "eight", "nine", "ten", "eleven", "twelve"))
}  # fmt: skip
_SMALL_ALT = "|".join(_SMALL)
# "one in five", "three in every ten": a share
_IN_EVERY = re.compile(
    rf"\b({_SMALL_ALT}|\d{{1,3}})\s+(?:in|out\s+of)\s+(?:every\s+)?({_SMALL_ALT}|\d{{1,4}})\b(?!\s*%)",
    re.I,
)
# What every match of _IN_EVERY holds from the space before "in"/"out of" to the first
# character of the whole it shares: most texts hold "in" but not a figure after it, and the
# share pattern, tried at every position with its number words, was dear on every text
_IN_EVERY_GAP = re.compile(rf"\s(?:in|out\s+of)\s+(?:every\s+)?(?:{_SMALL_ALT}|\d)", re.I)
# "aged 67", "at the age of 74", "age 30", "67 years old", "a 67-year-old"
_AGE = guarded(
    re.compile(
        rf"\b(?:aged|age\s+of|ages?)\s+(\d{{1,3}}|{WORD_NUMBER})\b(?![.,]\d)(?!\s*(?:[-–]|to)\s*\d)"
        rf"|(?<![\d][-–])\b(\d{{1,3}}|{WORD_NUMBER})[\s-]years?[\s-]old\b",
        re.I,
    )
)


def _may_state_age(text: str) -> bool:
    """Whether _AGE can match: its first form writes a word starting "age" ("page" and
    "manager" do not: the pattern opens with a word boundary), its second "year" and "old" (the
    guard asks for "age" or "year" alone, and "year" is in most texts with a date). A text
    other than ASCII is always read: re.I folds more than str.lower does."""
    if not text.isascii():
        return True
    low = text.lower()
    if "old" in low and "year" in low:
        return True
    at = low.find("age")
    while at >= 0:
        if not at or not (low[at - 1].isalnum() or low[at - 1] == "_"):
            return True
        at = low.find("age", at + 1)
    return False


# "half a million", "a quarter of a million", "a million": a count in words
_SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9}
_SHARE_OF_SCALE = {
    "half": 0.5,
    "a quarter of": 0.25,
    "three quarters of": 0.75,
    "a": 1.0,
    "one": 1.0,
}
_LOWER_WORD_NEXT = re.compile(r"\s+[a-z]")
_SCALED = guarded(
    re.compile(
        r"\b(half|a quarter of|three quarters of|a|one)\s+(?:a\s+)?(thousand|million|billion)\b(?!\s*(?:and|-)\s*\w)",
        re.I,
    )
)
# "a quarter of a century", "half a century", "a decade": a length of time in words
_SPAN_WORDS = {"a quarter of a century": 25.0, "half a century": 50.0, "a decade": 10.0,
               "half a decade": 5.0, "a century": 100.0}  # fmt: skip
_TIME_SPAN = guarded(
    re.compile(
        r"\b("
        + "|".join(sorted(map(re.escape, _SPAN_WORDS), key=len, reverse=True))
        + r")\b(?![-])",
        re.I,
    )
)
# "7/1/2018", "25/01/2019": a date in figures (read both ways when either way is a date)
_NUMERIC_DATE = re.compile(r"(?<![\d/])(\d{1,2})/(\d{1,2})/(\d{4})(?![\d/])")
_DECADE_WORDS = {
    w: 1900 + 10 * i
    for i, w in enumerate(("", "", "twenties", "thirties", "forties", "fifties", "sixties",
                           "seventies", "eighties", "nineties"))
    if w
}  # fmt: skip
_DECADE_WORD = guarded(
    re.compile(r"\bthe\s+(?:early\s+|late\s+|mid-?\s*)?(" + "|".join(_DECADE_WORDS) + r")\b", re.I)
)
_ORDINAL_ALT = "|".join(sorted(ORDINALS, key=len, reverse=True))
# "the 12th century", "the fifteenth century", "the 1400s" (a century, not the decade 1400-09)
_CENTURY = re.compile(
    rf"\b(?:(\d{{1,2}})(?:st|nd|rd|th)|({_ORDINAL_ALT}))[\s-]+century\b|\bthe\s+(1[0-9]|20)00s\b",
    re.I,
)


def _may_name_century(text: str) -> bool:
    """Whether ``text`` can hold a match of _CENTURY: each of its forms writes "century" or
    "00s" (case aside; a text that is not ASCII is always read, as re.I folds more than
    str.lower does)."""
    if not text.isascii():
        return True
    low = text.lower()
    return "century" in low or "00s" in low


def _small(word: str) -> int:
    return _SMALL[word.lower()] if word.lower() in _SMALL else int(word)


def _word_values(text: str) -> list[Value]:
    """Shares, ages, spans of time, centuries, decades and dates in figures written as words
    or patterns the other readers split."""
    out: list[Value] = []
    for m in _IN_EVERY.finditer(text) if _IN_EVERY_GAP.search(text) else ():
        n, d = _small(m.group(1)), _small(m.group(2))
        if 0 < n < d <= 1000:
            q = Quantity(n / d, "fraction", None, m.group(0))
            out.append(Value("quantity", *m.span(), m.group(0), quantity=q))
    for m in _AGE.finditer(text) if _may_state_age(text) else ():
        at = 1 if m.group(1) else 2
        q = Quantity(float(whole_number(m.group(at))), "age", None, m.group(0))
        out.append(Value("quantity", *m.span(), m.group(0), quantity=q))
    if has_digit(text):
        for m in _NUMERIC_DATE.finditer(text) if "/" in text else ():  # each match has two
            a, b, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
            readings = [DateMention(year, a, b, surface=m.group(0))] if a <= 12 and b <= 31 else []
            if b <= 12 and a <= 31 and a != b:
                readings.append(DateMention(year, b, a, surface=m.group(0)))
            if readings:
                out.append(Value("date", *m.span(), m.group(0), date=readings[0],
                                 alt_date=readings[1] if len(readings) > 1 else None))  # fmt: skip
    for m in _SCALED.finditer(text):
        share = _SHARE_OF_SCALE[m.group(1).lower()]
        if share == 1.0 and not _LOWER_WORD_NEXT.match(text, m.end()):
            continue  # "a million" alone is left to the number words reader
        q = Quantity(share * _SCALE_WORDS[m.group(2).lower()], "number", None, m.group(0))
        out.append(Value("quantity", *m.span(), m.group(0), quantity=q))
    for m in _TIME_SPAN.finditer(text):
        q = Quantity(_SPAN_WORDS[m.group(1).lower()], "number", "years", m.group(0))
        out.append(Value("quantity", *m.span(), m.group(0), quantity=q))
    for m in _DECADE_WORD.finditer(text):
        decade = DateMention(decade=_DECADE_WORDS[m.group(1).lower()], surface=m.group(0))
        out.append(Value("date", *m.span(), m.group(0), date=decade))
    for m in _CENTURY.finditer(text) if _may_name_century(text) else ():
        if m.group(3):
            n = int(m.group(3)) + 1
        else:
            n = int(m.group(1)) if m.group(1) else ORDINALS[m.group(2).lower()]
        if 1 <= n <= 21:
            century = DateMention(century=n, surface=m.group(0))
            out.append(Value("date", *m.span(), m.group(0), date=century))
    return out


_BETWEEN_BEFORE = re.compile(r"\bbetween\s+(?:\S+\s+)?$", re.I)


def _group(text: str, values: list[Value]) -> list[Value]:
    """Mark lists and ranges: neighbouring values of one kind with only a separator between."""
    out: list[Value] = []
    first: dict[int, Value] = {}  # group id -> its first value
    for v in values:
        prev = out[-1] if out else None
        if prev is None or prev.kind != v.kind:
            out.append(v)
            continue
        gap = text[prev.end : v.start]
        # "between" before the group's first value is read only for a bare "and" (a scan of
        # all the text before it, for every pair of neighbouring values otherwise)
        is_range = bool(_RANGE_SEP.fullmatch(gap)) and (
            gap.strip() != "and"
            or bool(_BETWEEN_BEFORE.search(text[: first.get(prev.group, prev).start]))
        )
        if not is_range and not _GROUP_SEP.fullmatch(gap):
            out.append(v)
            continue
        group = prev.group if prev.group >= 0 else len(first)
        if prev.group < 0:
            first[group] = prev
            out[-1] = replace(prev, group=group, in_range=is_range)
        out.append(replace(v, group=group, in_range=is_range or out[-1].in_range))
    return out


@lru_cache(maxsize=4096)
def values_of(text: str) -> tuple[Value, ...]:
    """Every value of ``text`` in reading order, with offsets, hedges, lists and ranges."""
    found: list[Value] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    for v in _word_values(text):
        if free(v.start, v.end):
            # "more than a decade", "nearly one in five": a hedge states a range whatever
            # the figure is written in, as it does before digits
            found.append(replace(v, hedge=_hedge(text, v.start)) if v.quantity else v)
            taken.append((v.start, v.end))
    year_ranges: dict[tuple[int, int], list[DateMention]] = {}
    for d, a, b in _dates(text):
        if _YEAR_RANGE.fullmatch(d.surface.strip()) and d.month is None:
            year_ranges.setdefault((a, b), []).append(d)
            continue
        if free(a, b):
            found.append(Value("date", a, b, text[a:b], date=d))
            taken.append((a, b))
    for q, a, b in _quantities(text):
        if free(a, b):
            found.append(Value("quantity", a, b, text[a:b], quantity=q, hedge=_hedge(text, a)))
            taken.append((a, b))
    for day, a, b in _weekdays(text):
        if free(a, b):
            found.append(Value("weekday", a, b, day, weekday=day.lower()))
            taken.append((a, b))
    for bearing, coming, a, b in _directions(text):
        if free(a, b):
            found.append(Value("direction", a, b, text[a:b], bearing=bearing, coming_from=coming))
            taken.append((a, b))
    for toks, a, b in _names(text):
        if len(toks) == 1 and common_word(toks[0]) and _opens_sentence(text, a):
            continue  # "Population (2021 census): ...", "Directed by ...": a word, capitalised
        if free(a, b):
            found.append(
                Value("name", a, b, text[a:b], name=toks, name_type=name_type(text, a, toks))
            )
            taken.append((a, b))
    found.sort(key=lambda v: v.start)
    grouped = _group(text, found)
    # a year range ("2004–05", "1491–1510") is one place holding two years
    next_group = max((v.group for v in grouped), default=-1) + 1
    for (a, b), ds in year_ranges.items():
        if not free(a, b):
            continue
        for d in ds:
            grouped.append(Value("date", a, b, text[a:b], date=d, group=next_group, in_range=True))
        next_group += 1
    grouped.sort(key=lambda v: (v.start, v.date.year if v.date and v.date.year else 0))
    return tuple(grouped)


def members(values: tuple[Value, ...] | list[Value], v: Value) -> list[Value]:
    """The values of ``v``'s list or range (``[v]`` when it stands alone)."""
    if v.group < 0:
        return [v]
    return [x for x in values if x.group == v.group]
