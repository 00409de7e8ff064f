"""Answers of the type a sub-question expects, found in a text: dates, numbers, names, places,
posts, reasons, statements, relations and colours (``Mention``), read with the project's
parsers of dates, numbers and names (graders.specifics)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from spanproof.agent.question.subquestion import CHECKABLE, NUMBER_KINDS, SubQuestion, numbers_in
from spanproof.agent.question.words import (
    AUX,
    NOT_TAKING_PART,
    fold,
    matched,
    same_term,
    term,
    word_set,
)
from spanproof.graders import specifics
from spanproof.graders.specifics.dates import MONTHS, WEEKDAYS

from spanproof.core.text import STOPWORDS


# The same sentence is read for every sub-question and every ranking pass: parse it once.
@lru_cache(maxsize=4096)
def extract_dates(text: str) -> list:
    return specifics.extract_dates(text)


@lru_cache(maxsize=4096)
def extract_numbers(text: str) -> list:
    return specifics.extract_numbers(text)


@lru_cache(maxsize=4096)
def extract_entities(text: str) -> list[str]:
    return specifics.extract_entities(text)


_ROLE_WORDS = word_set(
    "curator director chairman chairwoman chairperson chair president vice ceo chief head "
    "editor manager coach captain keeper officer ambassador founder member minister "
    "secretary governor mayor senator professor lecturer dean principal commissioner "
    "commander general admiral treasurer trustee fellow advisor adviser consultant "
    "partner analyst producer presenter host anchor correspondent reporter columnist "
    "publisher executive deputy assistant associate lead leader commandant superintendent "
    "inspector judge justice attorney counsel spokesman spokeswoman spokesperson "
    "administrator coordinator officer conductor composer architect engineer designer "
    "curatorship directorship chairmanship presidency"
)  # fmt: skip
_KINSHIP = word_set(
    "cousin cousins son daughter brother sister father mother parent parents grandson "
    "granddaughter grandfather grandmother grandparent niece nephew uncle aunt husband wife "
    "spouse widow widower sibling siblings stepson stepdaughter stepfather stepmother "
    "half-brother half-sister brother-in-law sister-in-law son-in-law daughter-in-law "
    "great-granddaughter great-grandson great-grandfather great-grandmother descendant "
    "descendants relative relatives related"
)  # fmt: skip
_COLOURS = word_set(
    "black white red green blue yellow orange purple pink brown grey gray olive silver gold "
    "golden crimson scarlet maroon navy violet beige tan cream ivory turquoise teal"
)
_REASON_MARKERS = re.compile(
    r"\b(because|due to|owing to|as a result of|as a result|in order to|so that|caused by|"
    r"cause[sd]?|reasons?|since|after|following|amid|in protest|to protest|out of|thanks to|"
    r"led to|leading to|was blamed on|blamed|for fear)\b",
    re.I,
)
_STRONG_REASON = re.compile(
    r"\b(because|due to|owing to|as a result|caused by|cause|reasons?|in protest|blamed)\b", re.I
)
_STATEMENT_MARKERS = re.compile(
    r"\b(said|says|say|told|tells|stated|states|announced|announces|according to|wrote|writes|"
    r"added|explained|noted|argued|called|described|insisted|claimed|warned|declared)\b|[\"“”]",
    re.I,
)
_LOCATIVE = word_set("in at from near on to inside outside across throughout into")
_PLACE_WORDS = word_set(
    "city county state province stadium arena park street avenue road square hall centre "
    "center theatre theater university college school church cathedral museum gallery "
    "island islands valley river lake mountain bay coast beach airport station hospital "
    "republic kingdom district borough village town"
)  # fmt: skip
_RELATIVE_DATE = re.compile(
    r"\b(today|yesterday|tonight|tomorrow|this (?:week|month|year|weekend|spring|summer|autumn|"
    r"fall|winter|season)|last (?:week|month|year|night|weekend|spring|summer|autumn|fall|"
    r"winter|season)|next (?:week|month|year|weekend|season)|earlier this (?:week|month|year)|"
    r"later this (?:week|month|year)|(?:\w+ )?(?:days|weeks|months|years) (?:ago|later|earlier))\b",
    re.I,
)
_WEEKDAY = re.compile(r"\b(" + "|".join(sorted(WEEKDAYS)) + r")s?\b", re.I)
_AGE = re.compile(
    r"\b(?:aged|age of|at age|at the age of)\s+\d{1,3}\b|\b\d{1,3}[- ]years?[- ]old\b|"
    r"\b(?:was|is|died at|turned|turns)\s+\d{1,3}\b(?!\s*(?:%|percent|per cent|[a-z]))|"
    r",\s*\d{1,3},",
    re.I,
)
_SCORE = re.compile(r"\b\d{1,3}\s?[-–]\s?\d{1,3}\b(?!\s?(?:%|percent))")


@dataclass
class Mention:
    """An answer of some type found in a text: where, and how sure the match of kind is."""

    type: str
    start: int
    end: int
    strength: float  # 1.0: the kind matches too (a number of "students"); lower: type only
    surface: str


def _where(text: str, surface: str, start: int = 0) -> tuple[int, int]:
    i = text.find(surface, start)
    if i < 0:
        i = text.lower().find(surface.lower(), start)
    return (i, i + len(surface)) if i >= 0 else (-1, -1)


def _dates(sq: SubQuestion, text: str) -> list[Mention]:
    out = []
    given = sq.given_numbers
    for d in extract_dates(text):
        fields = [str(x) for x in (d.year, d.day, d.decade) if x is not None]
        if d.month is not None and not any(
            k for k, v in MONTHS.items() if v == d.month and k in sq.given_names
        ):
            fields.append(f"m{d.month}")
        new = [f for f in fields if f not in given]
        if not new:
            continue  # "in 2019" when the question says 2019 is not an answer
        a, b = _where(text, d.surface)
        strength = 0.8 if (d.day or d.month or d.decade) else 0.6
        out.append(Mention("date", a, b, strength, d.surface))
    for rx, strength in ((_WEEKDAY, 0.7), (_RELATIVE_DATE, 0.5)):
        for m in rx.finditer(text):
            if fold(m.group(1)) not in sq.given_names:
                out.append(Mention("date", m.start(), m.end(), strength, m.group(0)))
    return out


_MONEY_KINDS = word_set(
    "cost price fee fees money turnover revenue budget salary worth gross earnings profit "
    "funding investment donation prize valuation fine bail raise spend pay paid receive earn "
    "sell sold buy bought charge"
)
_PERCENT_KINDS = word_set("percentage percent share proportion rate fraction majority")
_LENGTH_UNITS = re.compile(
    r"^(?:m|km|cm|mm|ft|in|mi|metres?|meters?|kilometres?|kilometers?|centimetres?|"
    r"centimeters?|millimetres?|millimeters?|feet|foot|inch(?:es)?|miles?|yards?)\b",
    re.I,
)
_TIME_UNITS = re.compile(
    r"^(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|centuries|"
    r"nights?|innings|laps?|rounds?)\b",
    re.I,
)


def _is_year(q) -> bool:
    return (
        q.kind == "number" and q.unit is None and q.value.is_integer() and 1800 <= q.value <= 2100
    )


_NUMBER_WORDS = {
    1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
    9: "nine", 10: "ten", 11: "eleven", 12: "twelve", 13: "thirteen", 14: "fourteen",
    15: "fifteen", 16: "sixteen", 17: "seventeen", 18: "eighteen", 19: "nineteen",
    20: "twenty", 30: "thirty", 40: "forty", 50: "fifty", 60: "sixty", 70: "seventy",
    80: "eighty", 90: "ninety", 100: "hundred",
}  # fmt: skip


def _locate_number(text: str, q, taken: list[tuple[int, int]]) -> tuple[int, int]:
    """Where a parsed quantity is written: its surface as a whole token, else (a figure the
    parser read from words, "five awards") the word; never inside another number."""

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    candidates = [re.escape(q.surface)]
    if q.value.is_integer() and int(q.value) in _NUMBER_WORDS:
        candidates.append(_NUMBER_WORDS[int(q.value)])
    for pattern in candidates:
        for m in re.finditer(rf"(?<![\w.,]){pattern}(?![\d])", text, re.I):
            if free(m.start(), m.end()):
                return m.start(), m.end()
    return -1, -1


def _numbers(sq: SubQuestion, text: str) -> list[Mention]:
    out = []
    kind = (sq.kind or "").lower()
    kind_term = term(kind) if kind else ""
    taken: list[tuple[int, int]] = []
    for q in extract_numbers(text):
        surface = q.surface
        digits = numbers_in(surface)
        a, b = _locate_number(text, q, taken)
        if a >= 0:
            taken.append((a, b))
        if digits and digits <= sq.given_numbers:
            continue  # "Position 8", "season 2": the question's own figures
        if _is_year(q) and kind not in {"year", "age"}:
            continue
        if q.kind == "ordinal" and kind not in {"place", "position", "rank", "finish"}:
            continue
        after = text[b : b + 40].lstrip(" -–") if b >= 0 else ""
        # the unit the parser read with the figure ("230 meters"), else the word after it
        unit_text = q.unit or after.strip()
        after_words = [term(w) for w in re.findall(r"[A-Za-z][\w'’-]*", after)[:3]]
        before = text[max(0, a - 60) : a] if a >= 0 else ""
        before_words = [term(w) for w in re.findall(r"[A-Za-z][\w'’-]*", before)[-6:]]
        strength = 0.6
        if kind_term and (
            (q.unit and same_term(term(q.unit), kind_term))
            or any(same_term(w, kind_term) for w in after_words)
        ):
            strength = 1.0  # "400 students" for "how many students"
        elif (
            kind_term
            and kind not in {"old", "much", "many", "long", "far"}
            and any(same_term(w, kind_term) for w in before_words)
        ):
            strength = 1.0  # the figure the named thing is given: "the retirement age ... to 60"
        elif (
            kind in _MONEY_KINDS
            and q.kind == "currency"
            or kind in _PERCENT_KINDS
            and q.kind == "percent"
        ):
            strength = 1.0
        elif kind in {
            "far",
            "tall",
            "high",
            "deep",
            "wide",
            "long",
            "length",
            "height",
            "depth",
            "distance",
            "size",
            "big",
            "large",
            "short",
        } and _LENGTH_UNITS.match(unit_text):
            strength = 1.0  # fmt: skip
        elif kind in {"long", "duration", "often"} and _TIME_UNITS.match(unit_text):
            strength = 1.0
        elif kind in {
            "score",
            "scores",
            "scoreline",
            "result",
            "margin",
            "lead",
            "record",
            "tally",
        } and _SCORE.search(text[max(0, a - 4) : b + 6] if a >= 0 else ""):
            strength = 1.0  # fmt: skip
        elif kind in {"old", "age"}:
            strength = 0.4
        elif q.kind == "currency" and kind in NUMBER_KINDS:
            strength = 0.8
        out.append(Mention("number", a, b, strength, surface))
    if (sq.kind or "") in {"old", "age"}:
        for m in _AGE.finditer(text):
            if not (numbers_in(m.group(0)) <= sq.given_numbers):
                out.append(Mention("number", m.start(), m.end(), 1.0, m.group(0)))
    if (sq.kind or "") in {"score", "scores", "scoreline", "result", "margin", "lead", "record"}:
        for m in _SCORE.finditer(text):
            if not (numbers_in(m.group(0)) <= sq.given_numbers):
                out.append(Mention("number", m.start(), m.end(), 1.0, m.group(0)))
    return out


def _new_names(sq: SubQuestion, text: str) -> list[tuple[str, int, int]]:
    """Names (capitalised runs) in `text` with at least one word the question does not give."""
    out = []
    pos = 0
    for ent in extract_entities(text):
        toks = [fold(t) for t in re.findall(r"[\w'’-]+", ent)]
        toks = [t for t in toks if t and t not in STOPWORDS]
        if not toks or all(t in sq.given_names for t in toks):
            continue
        low = {t.strip(".").lower() for t in toks}
        if low <= set(MONTHS) | WEEKDAYS:
            continue
        a, b = _where(text, ent, pos)
        if a < 0:
            a, b = _where(text, ent)
        else:
            pos = b
        out.append((ent, a, b))
    return out


_TITLE_SMALL = word_set("a an the of and or in on at to for with by from")


def _quoted_titles(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in re.finditer(r"[\"“']([^\"“”']{2,80})[\"”']", text):
        inner = m.group(1).strip()
        words_ = re.findall(r"[^\W\d_][\w'’-]*", inner)
        capitalised = sum(1 for w in words_ if w[0].isupper() or w.lower() in _TITLE_SMALL)
        # a title is written in title case ("We Are Never Ever Getting Back Together");
        # a quotation is not
        if (
            words_
            and words_[0][0].isupper()
            and len(words_) <= 10
            and capitalised >= 0.7 * len(words_)
        ):
            out.append((inner, m.start(), m.end()))
    return out


def _preceded_by_locative(text: str, start: int) -> bool:
    before = re.findall(r"[\w'’]+", text[max(0, start - 25) : start])
    return bool(before) and (
        before[-1].lower() in _LOCATIVE
        or (len(before) > 1 and before[-2].lower() in _LOCATIVE and before[-1].lower() == "the")
    )


def _names_of_kind(sq: SubQuestion, text: str, type_: str) -> list[Mention]:
    out = []
    kind_term = term(sq.kind) if sq.kind else ""
    for ent, a, b in _new_names(sq, text):
        ent_words = {term(w) for w in re.findall(r"[\w'’-]+", ent)}
        if type_ == "place":
            if _preceded_by_locative(text, a) or ent_words & {term(w) for w in _PLACE_WORDS}:
                out.append(Mention("place", a, b, 0.8, ent))
            elif kind_term and (
                (a >= 0 and _kind_beside(text, a, b, kind_term))
                or any(same_term(w, kind_term) for w in ent_words)
            ):
                # the kind the question asks for beside or inside the name, as for any other
                # kind: "the Delhi high court" or "the Supreme Court" for "which court"
                out.append(Mention("place", a, b, 0.8, ent))
            continue
        strength = 0.6
        if kind_term and a >= 0 and _kind_beside(text, a, b, kind_term):
            strength = 1.0  # "the band Velvet Revolver", "the club Millwall"
        elif kind_term and any(same_term(w, kind_term) for w in ent_words):
            strength = 1.0  # the name says what it is: "... National Student Cup", "... FC"
        if type_ == "person" and len(ent.split()) >= 2:
            strength = max(strength, 0.8)
        if a >= 0 and sq.entity and _beside_the_entity(sq, text, a, b):
            strength = 1.0  # a peer of what it is about: "Velvet Revolver and ... Alice in Chains"
        out.append(Mention(type_, a, b, strength, ent))
    if sq.kind and sq.kind.endswith("s") and type_ in ("entity", "person"):
        # "which bands": a list of names the question does not give is the answer's shape
        run = _longest_list([m for m in out if m.type == type_ and m.start >= 0], text)
        if len(run) >= 2:
            strength = 1.0 if len(run) >= 3 else 0.8
            out.append(
                Mention(
                    type_, run[0].start, run[-1].end, strength, "; ".join(m.surface for m in run)
                )
            )
    if type_ == "entity":
        for title, a, b in _quoted_titles(text):
            if not all(fold(t) in sq.given_names for t in re.findall(r"[\w'’-]+", title)):
                out.append(Mention("entity", a, b, 0.9, title))
        if kind_term:
            for m in re.finditer(r"[A-Za-z][\w'’-]*", text):
                if same_term(term(m.group(0)), kind_term):
                    # the kind itself with what qualifies it ("public and private sector unions";
                    # not "joined the club": a determiner ends the qualifiers)
                    qualified = _qualifiers(text[max(0, m.start() - 60) : m.start()])
                    if qualified and not all(fold(w) in sq.given_names for w in qualified):
                        out.append(Mention("entity", m.start(), m.end(), 0.5, m.group(0)))
    return out


_LIST_GLUE = re.compile(
    r"^\s*(?:,|;|and|&|or|plus|as well as)(?:\s*(?:and|plus|or|as well as))?\s*$", re.I
)


def _longest_list(mentions: list[Mention], text: str) -> list[Mention]:
    """The longest run of names written as a list: "X, Y, Z and W" (only commas, "and",
    "plus" ... between them). A name that holds " and " counts as two."""
    parts: list[Mention] = []
    for m in sorted(mentions, key=lambda m: m.start):
        pieces = re.split(r"\s+and\s+", m.surface)
        pos = m.start
        for p in pieces:
            a = text.find(p, pos)
            if a < 0:
                continue
            parts.append(Mention(m.type, a, a + len(p), m.strength, p))
            pos = a + len(p)
    best: list[Mention] = []
    run: list[Mention] = []
    for m in parts:
        if run and _LIST_GLUE.match(text[run[-1].end : m.start]):
            run.append(m)
        else:
            run = [m]
        if len(run) > len(best):
            best = list(run)
    return best


_COORDINATION = word_set("and with alongside & plus joined by")


def _beside_the_entity(sq: SubQuestion, text: str, a: int, b: int) -> bool:
    """Is the name coordinated with the name the question is about -- "X and (the members
    of) E", "E with X" -- as the answer to "which band did E tour with" is?"""
    after = re.findall(r"[\w'’&-]+", text[b : b + 60])[:6]
    before = re.findall(r"[\w'’&-]+", text[max(0, a - 60) : a])[-6:]
    for side in (after, list(reversed(before))):
        if (
            side
            and side[0].lower() in _COORDINATION
            and any(term(w) in sq.entity for w in side[1:])
        ):
            return True
    return False


def _kind_beside(text: str, a: int, b: int, kind_term: str) -> bool:
    """Is the kind noun right next to the name: "the band X", "X band", "club X", "X, a club"?"""
    before = re.findall(r"[A-Za-z][\w'’-]*", text[max(0, a - 30) : a])[-2:]
    after = re.findall(r"[A-Za-z][\w'’-]*", text[b : b + 25])[:2]
    return any(same_term(term(w), kind_term) for w in before + after)


def _qualifiers(before: str) -> list[str]:
    """The words right before a noun that qualify it, back to a determiner or other stopword
    ("... applies to public and private sector" -> public, private, sector)."""
    out: list[str] = []
    for w in reversed(re.findall(r"[\w'’-]+", before)):
        low = w.lower()
        if low in {"and", "or", "&"}:
            continue
        if low in STOPWORDS or low in AUX or not w[0].isalpha():
            break
        out.append(w)
    return out


def _lexicon(
    text: str, lexicon: frozenset[str], type_: str, sq: SubQuestion, strength: float
) -> list[Mention]:
    out = []
    for m in re.finditer(r"[A-Za-z][\w'’-]*", text):
        w = m.group(0).lower()
        if (w in lexicon or w.rstrip("s") in lexicon) and fold(w) not in sq.given_names:
            out.append(Mention(type_, m.start(), m.end(), strength, m.group(0)))
    return out


def answer_mentions(sq: SubQuestion, text: str) -> list[Mention]:
    """Every answer of a type `sq` expects that `text` holds (nothing for unchecked types)."""
    out: list[Mention] = []
    for t in sq.answer_types:
        if t == "date":
            out += _dates(sq, text)
        elif t == "number":
            out += _numbers(sq, text)
        elif t in ("person", "place", "entity"):
            out += _names_of_kind(sq, text, t)
        elif t == "role":
            out += _lexicon(text, _ROLE_WORDS, "role", sq, 0.8)
            out += [
                Mention("role", a, b, 1.0, e)
                for e, a, b in _new_names(sq, text)
                if {w.lower() for w in e.split()} & _ROLE_WORDS
            ]
        elif t == "reason":
            for m in _REASON_MARKERS.finditer(text):
                strong = bool(_STRONG_REASON.fullmatch(m.group(0)))
                mention = Mention("reason", m.start(), m.end(), 0.9 if strong else 0.6, m.group(0))
                # a reason attaches to what it explains: "withdrew because ..." counts in
                # full, a "because" three clauses away from the question's terms less
                if sq.focus and nearness(sq.focus, text, mention) < 1.0:
                    mention.strength *= 0.6
                out.append(mention)
        elif t == "statement":
            out += [
                Mention("statement", m.start(), m.end(), 0.8, m.group(0))
                for m in _STATEMENT_MARKERS.finditer(text)
            ]
        elif t == "relation":
            out += _lexicon(text, _KINSHIP, "relation", sq, 1.0)
        elif t == "colour":
            out += _lexicon(text, _COLOURS, "colour", sq, 1.0)
    return out


_TYPE_WORDS = {
    "date": "date", "number": "figure", "person": "name", "place": "place", "entity": "name",
    "role": "post", "reason": "reason", "statement": "statement", "relation": "relation",
    "colour": "colour",
}  # fmt: skip


def missing_answer(sq: SubQuestion) -> str:
    """How a gap names what was not found: "a date", "a figure of students", "a name" ..."""
    kinds = [_TYPE_WORDS[t] for t in sq.answer_types if t in _TYPE_WORDS]
    what = " or ".join(kinds) or "an answer"
    if sq.kind and "number" in sq.answer_types and sq.kind.endswith("s"):
        what += f" of {sq.kind}"
    return what


def answered_types(sq: SubQuestion, text: str) -> set[str]:
    return {m.type for m in answer_mentions(sq, text)}


def holds_answer(sq: SubQuestion, text: str) -> bool:
    """Does `text` hold an answer of every checkable type `sq` expects? (True when none is.)"""
    want = {t for t in sq.answer_types if t in CHECKABLE}
    return want <= answered_types(sq, text)


_WORD = re.compile(r"[\w'’-]+")


def nearness(want: set[str], text: str, mention: Mention) -> float:
    """1 within 40 characters of a word of `want`, 0.5 within 120, else 0."""
    anchors = [
        (m.start(), m.end()) for m in _WORD.finditer(text) if matched(want, {term(m.group(0))})
    ]
    if term("withdraw") in want:
        anchors += [m.span() for m in NOT_TAKING_PART.finditer(text)]
    if not anchors:
        return 0.0
    gap = min(max(0, max(a, mention.start) - min(b, mention.end)) for a, b in anchors)
    return 1.0 if gap <= 40 else 0.5 if gap <= 120 else 0.0
