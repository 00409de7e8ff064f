"""Numbers in text: digits, number words, scales, percentages, currency, fractions, ordinals.

- digits with thousands separators and decimals ("3,400", "41.3");
- number words through text2num's ``alpha2digit`` ("twelve" -> 12, "three hundred
  thousand" -> 300000; a bare "one" is left alone: it is usually a pronoun);
- scale words ("5 million", "2.3bn"), percentages ("12%", "12 percent", "12 per cent"),
  currency ("$5 million", "£3", "5 euros");
- common fractions ("half", "a third", "two-thirds" -> kind ``fraction``, compared with
  percentages as value/100) — text2num does not read them;
- ordinals ("third", "3rd" -> kind ``ordinal``);
- a unit word right after the number ("12 km", "7 albums").

Four-digit numbers 1000-2100 with no unit or currency are years: ``dates`` reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from spanproof.graders.specifics import lexicon
from spanproof.graders.specifics.dates import blank, blank_dates, has_digit
from text_to_num import alpha2digit

from spanproof.core.prefilter import guarded

FRACTIONS: dict[str, float] = lexicon.table("fractions")
ORDINALS: dict[str, int] = lexicon.table("ordinals")
SCALES: dict[str, float] = lexicon.table("scales")
CURRENCY_SYMBOLS: dict[str, str] = lexicon.table("currency_symbols")
CURRENCY_WORDS: dict[str, str] = lexicon.table("currency_words")
UNITS = lexicon.words("units")
UNIT_SYNONYMS: dict[str, str] = lexicon.table("unit_synonyms")

_FRACTION_ALT = "|".join(sorted((re.escape(k) for k in FRACTIONS), key=len, reverse=True))
# "a third of", "two-thirds." and "half the" are fractions; "a third cousin" and "a fifth
# season" are ordinals, so a fraction must be followed by of/the/a/majority/... or punctuation.
_FRACTION_RE = guarded(
    re.compile(
        # "fell by a third", "cut by a quarter": after "by" a fraction is a share
        rf"(?<=\bby )({_FRACTION_ALT})\b"
        rf"|\b({_FRACTION_ALT})\b"
        r"(?=\s+(?:of|the|a|an|its|their|his|her|majority|share|stake|percent|per\s?cent)\b"
        r"|\s*[^\w\s-]|\s*$)"
        r"|\b(two[ -]thirds|three[ -]quarters|two fifths|three fifths|four fifths)\b",
        re.I,
    )
)
# a whole number up to 99 in words ("seventeen", "seventy-four"): ages and multiples are
# written so as often as in figures
_UNIT_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen"]  # fmt: skip
_TEN_WORDS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
WORD_NUMBER = (
    rf"(?:(?:{'|'.join(_TEN_WORDS)})(?:[-\s](?:{'|'.join(_UNIT_WORDS[1:10])}))?"
    rf"|{'|'.join(_UNIT_WORDS)})"
)


def whole_number(figure: str) -> int:
    """The value of a whole number written in figures or by ``WORD_NUMBER``."""
    if figure.isdigit():
        return int(figure)
    return sum(
        20 + 10 * _TEN_WORDS.index(w) if w in _TEN_WORDS else _UNIT_WORDS.index(w)
        for w in re.split(r"[-\s]+", figure.lower())
    )


# "a dozen", "two dozen", "half a dozen": twelve times the figure before it
_DOZEN_RE = guarded(re.compile(rf"\b(a|half a|\d{{1,3}}|{WORD_NUMBER})\s+dozen\b", re.I))


def dozens(m: re.Match[str]) -> float:
    """The count a ``_DOZEN_RE`` match states."""
    figure = m.group(1).lower()
    return 12.0 * (1.0 if figure == "a" else 0.5 if figure == "half a" else whole_number(figure))


_ORDINAL_WORD_RE = guarded(re.compile(r"\b(" + "|".join(ORDINALS) + r")\b", re.I))
# "the first half of the year", "the second half", "the final third": a word that places a
# fraction in a sequence makes it a segment of the whole (a period, a match), not a share of
# it, so "half" there is no 50% to compare with "42 percent"
_SEGMENT_BEFORE = re.compile(
    r"\b(?:"
    + "|".join(ORDINALS)
    + r"|\d{1,2}(?:st|nd|rd|th)|last|final|latter|former|opening|closing)\s+$",
    re.I,
)
_ORDINAL_DIGIT_RE = re.compile(r"\b(\d{1,4})(st|nd|rd|th)\b", re.I)

_NUM_RE = re.compile(
    r"(?P<cur>US\$|[$£€¥₹])?\s?"
    r"(?P<num>(?<![\w.])\d{1,3}(?:,\d{3})+(?:\.\d+)?|(?<![\w.,])\d+(?:\.\d+)?)"
    r"(?P<scale>\s?(?:thousand|million|billion|trillion|mln|mn|bn|tn|k|m|b)\b)?"
    r"(?P<pct>\s?(?:%|per\s?cent\b|percent\b|pct\b))?"
    r"(?P<after>\s+[A-Za-z/]+)?",
    re.I,
)


@dataclass(frozen=True)
class Quantity:
    value: float
    kind: str  # number | percent | currency | fraction | ordinal
    unit: str | None = None
    surface: str = ""
    in_name: bool = False  # "3 Idiots", "Series 4": part of a title, not a count

    def comparable(self) -> float:
        # Percentages and fractions meet on the same scale: 34% -> 0.34, "a third" -> 0.333.
        if self.kind == "percent":
            return self.value / 100.0
        return self.value


def _close(a: float, b: float) -> bool:
    if a == b:
        return True
    return abs(a - b) <= 0.005 * max(abs(a), abs(b))


def canonical_unit(unit: str | None) -> str | None:
    if unit is None:
        return None
    u = unit.lower()
    return UNIT_SYNONYMS.get(u, u.rstrip("s") if len(u) > 3 else u)


def units_compatible(a: Quantity, b: Quantity) -> bool:
    """Both counted or measured in the same thing ("5 years" is not "5 albums", nor the "3"
    of the title "3 Idiots"); a bare number is compatible with any unit."""
    if (a.unit and b.in_name) or (b.unit and a.in_name):
        return False
    return None in (a.unit, b.unit) or canonical_unit(a.unit) == canonical_unit(b.unit)


def quantities_match(claim_q: Quantity, span_q: Quantity) -> bool:
    if (
        claim_q.kind == "number"
        and span_q.kind == "number"
        and not units_compatible(claim_q, span_q)
    ):
        return False
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
def alpha2digit_safe(text: str) -> str:
    """Number words as digits ("twelve" -> "12"); the text unchanged if text2num refuses it."""
    try:
        return alpha2digit(text, "en", threshold=2)
    except Exception:  # text2num is strict about odd input; the raw text is still usable
        return text


def _read_numbers(
    text: str, out: list[Quantity], *, mask: bool, spans: list[tuple[int, int]] | None = None
) -> str:
    """Append the digit numbers of ``text`` to ``out`` (and their offsets to ``spans``, when
    given); return the text with them masked."""
    if not has_digit(text):
        return text  # what the loop below returns for a text it finds no number in
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
        if (
            scale_word in ("m", "b", "k")
            and not cur
            and not (scale_word == "k" and m.group("scale")[:1] in "kK")
        ):
            # "5 m" is metres and "5 k" is ambiguous unless money is involved ("120k" is not)
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
        in_name = (
            kind == "number"
            and unit is None
            and (after[:1].isupper() or bool(re.search(r"[A-Z][a-z]+\s$", text[: m.start()])))
        )
        out.append(Quantity(value, kind, unit, surface, in_name))
        if spans is not None:
            lead = len(text[m.start() : end]) - len(text[m.start() : end].lstrip())
            spans.append((m.start() + lead, m.start() + lead + len(surface)))
    pieces.append(text[last:])
    return "".join(pieces)


def share_of(text: str, m: re.Match[str]) -> float | None:
    """The share a match of ``_FRACTION_RE`` in ``text`` states, or None: none when a word
    before it places it in a sequence ("the first half of the year")."""
    word = next(g for g in m.groups() if g)
    val = FRACTIONS.get(word.lower()) or FRACTIONS.get(word.lower().replace(" ", "-"))
    if val is None or _SEGMENT_BEFORE.search(text, max(0, m.start() - 16), m.start()):
        return None
    return float(val)


@lru_cache(maxsize=4096)
def _extract_numbers(text: str) -> tuple[Quantity, ...]:
    out: list[Quantity] = []

    # Fractions first and blanked, so "a third" is not also read as the ordinal "third".
    def _frac(m: re.Match[str]) -> str:
        word = next(g for g in m.groups() if g)
        val = share_of(text, m)
        if val is not None:
            out.append(Quantity(val, "fraction", None, word))
        return " " * len(m.group(0))

    # "half a dozen" before fractions: six; a pattern's matches are blanked by a second scan
    # only when the first found one (the substitution finds the very matches finditer found)
    found = list(_DOZEN_RE.finditer(text))
    for m in found:
        out.append(Quantity(dozens(m), "number", None, m.group(0)))
    if found:
        text = _DOZEN_RE.sub(blank, text)
    text = _FRACTION_RE.sub(_frac, text)
    # Dates are not quantities: blank "November 2", "2004-10-19", "14:49" first.
    text = blank_dates(text)
    found = list(_ORDINAL_WORD_RE.finditer(text))
    for m in found:
        out.append(Quantity(float(ORDINALS[m.group(1).lower()]), "ordinal", None, m.group(1)))
    if found:
        text = _ORDINAL_WORD_RE.sub(blank, text)
    found = list(_ORDINAL_DIGIT_RE.finditer(text))
    for m in found:
        out.append(Quantity(float(m.group(1)), "ordinal", None, m.group(0)))
    if found:
        text = _ORDINAL_DIGIT_RE.sub(blank, text)
    # Digits first, masked, then number words: alpha2digit would otherwise turn the
    # "million" of "$5 million" into a second number.
    masked = _read_numbers(text, out, mask=True)
    _read_numbers(alpha2digit_safe(masked), out, mask=False)
    return tuple(out)


def extract_numbers(text: str) -> list[Quantity]:
    return list(_extract_numbers(text))


# ---------------------------------------------------------------- precision as stated

# "about 250" is met by 248, "more than 260,000" by 260,415, "nearly 30" by 28: a hedge states
# a range, and a claim is no broader than a span whose figure lies in it.
NUMBER_HEDGES: dict[str, str] = lexicon.table("number_hedges")
_HEDGE_BEFORE = re.compile(
    r"(?:^|\W)("
    + "|".join(sorted(map(re.escape, NUMBER_HEDGES), key=len, reverse=True))
    + r")\s*(?:US\$|[$£€¥₹])?\s*$",
    re.I,
)
_HEDGE_ENDS = tuple(h.lower() for h in NUMBER_HEDGES)


def hedge_at_end(before: str) -> re.Match[str] | None:
    """``_HEDGE_BEFORE.search(before)``: the hedge that ``before`` (the characters before a
    figure) ends with. Every match ends the text with a hedge word, then perhaps "$" or "US$",
    and whitespace; an ASCII text ending otherwise is not searched (the search tries every
    hedge at every character, and is asked before every figure of every text). Another text
    is always searched: re.I folds more than str.lower does."""
    if before.isascii():
        low = before.rstrip().lower()
        if low.endswith("$"):
            low = low[:-1]
        if not (
            low.rstrip().endswith(_HEDGE_ENDS)
            or (low.endswith("us") and low[:-2].rstrip().endswith(_HEDGE_ENDS))
        ):
            return None
    return _HEDGE_BEFORE.search(before)


NEAR_SHARE = 0.10  # "about X" never reaches further than 10% of X


def hedge_before(text: str, surface: str) -> str | None:
    """The numeric hedge written right before ``surface`` in ``text`` ("about", "more than")."""
    at = text.find(surface)
    if at < 0:
        return None
    m = hedge_at_end(text[max(0, at - 24) : at])
    return NUMBER_HEDGES[m.group(1).lower()] if m else None


def rounding_unit(surface: str, value: float) -> float:
    """The unit the figure was written to: "250" -> 10, "2.5 billion" -> 1e8, "3,400" -> 100."""
    m = re.search(r"\d[\d,]*(?:\.(\d+))?", surface)
    if not m:
        return 0.0
    digits = m.group(0).replace(",", "")
    if m.group(1):
        unit = 10.0 ** -len(m.group(1))
    else:
        stripped = digits.rstrip("0")
        unit = 10.0 ** (len(digits) - len(stripped)) if stripped else 1.0
    raw = float(digits) if digits else 0.0
    return unit * (value / raw) if raw else unit  # scaled by "million", "bn", ...


def _significant(surface: str) -> int:
    m = re.search(r"\d[\d,]*(?:\.\d+)?", surface)
    if not m:
        return 0
    digits = m.group(0).replace(",", "").replace(".", "").lstrip("0")
    return len(digits.rstrip("0")) if "." not in m.group(0) else len(digits)


def same_kind(claim_q: Quantity, span_q: Quantity) -> bool:
    """Whether two quantities measure the same thing, so their values may be compared."""
    if claim_q.kind != span_q.kind:
        return False
    if claim_q.kind == "currency" and claim_q.unit != span_q.unit:
        return False
    return claim_q.unit == span_q.unit or None in (claim_q.unit, span_q.unit)


def within_stated_precision(claim_q: Quantity, span_q: Quantity, hedge: str | None) -> bool:
    """The span's figure lies in the range the claim's wording states.

    A hedge gives the range ("about", "more than", "nearly", "up to", ...). Without one, a
    claim figure written to two or more significant digits may round the span's ("250" for
    248, "2.5 billion" for 2.47 billion); one significant digit ("3,000") is not a rounding
    of 3,400. Ordinals and fractions are exact.
    """
    if claim_q.kind in ("ordinal", "fraction") or not same_kind(claim_q, span_q):
        return False
    a, b = claim_q.value, span_q.value
    half_unit = rounding_unit(claim_q.surface, a) / 2
    if hedge == "near":
        return abs(a - b) <= min(max(half_unit, 1e-9), NEAR_SHARE * abs(a)) + 1e-9
    if hedge == "just_below":
        return a * (1 - NEAR_SHARE) <= b < a
    if hedge == "above":
        return b > a
    if hedge == "at_least":
        return b >= a
    if hedge == "at_most":
        return 0 <= b <= a
    if hedge == "below":
        return b < a
    if _significant(claim_q.surface) >= 2 and rounding_unit(span_q.surface, b) < half_unit * 2:
        return abs(a - b) <= half_unit + 1e-9
    return False
