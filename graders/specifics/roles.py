"""Contradiction by role: a value of the claim that its span states otherwise, in the same role.

"The total rose to 800" against "the total rose to 750": the span does not merely omit 800, it
fills the claim's slot with another value. That is something code can prove, so it is the one
finding besides the quote check that may override a judge (``graders.audit``). Everything
here is built so that it fires only where the span really states another value for the same
thing; anything less certain is left to the flags.

A claim value ``c`` (a number, date, weekday or qualified name; ``slots.values_of``) is
contradicted by a span value ``s`` when all of these hold:

1. **Same kind and scale**: both counts of one thing, amounts in one currency, lengths in one
   unit, shares (a percentage and a fraction meet: "a third" / "34%"), years, days of a
   month, weekdays... Units are never converted ("5 km" / "5,000 metres" is left alone).
2. **Same role**: the words the values attach to are the same — the nearest content word
   before each ("rose to 800" / "rose to 750"), or what each counts ("a two-term" / "a
   three-term"), or the noun a date comes before ("the March 2024 poll"), or the same noun
   written before or after the value ("revenue in the first quarter" / "Q2 2023 revenue"),
   or for a value opening its clause the first content word after it — with the same
   preposition before it ("rose to" is not "rose by"; "in" / "on" / "at" are one for dates;
   a hedge such as "at least" is read as a hedge, not as the value's words), and no anchor
   that differs.
3. **Same statement**: the claim's words leading to its value are all in the span sentence;
   the span clause's subject and the two words nearest the span value are all in the claim's
   clause. Names count as present when any of their words is ("Elizabeth 'Liz' Johnston
   Patterson" / "Liz Patterson"), other words only as themselves ("The county's population
   rose to" never aligns with "The town's population rose to"). A pronoun for the subject, a
   paraphrased verb or another subject therefore proves nothing.
4. **Not stated anyway**: no value in the same role agrees with the claim's — at the
   precision either side writes it (a rounding: "50,000" / "49,750"; a hedge: "up to 900" /
   "450", "about 250" / "between 200 and 300"; a list: "in 2005" / "in 2003, 2005 and
   2008"; a range) — and the claim's value appears nowhere else in the span, unless it
   appears in the same sentence attached to another statement of its own (at least two words
   before it, none of them the claim's: "joined Sky in 1999, and became finance chief for the
   group in 2008" against "joined Sky in 2008").
5. **Different, beyond precision**: the values differ by more than the claim's rounding
   ("800" / "750"; "50,000" / "46,000" is left as a flag).

Names are compared only where two names in the same role differ by one word from one set of
``lexicons/name_contrasts.txt`` ("North Carolina" / "South Carolina"): a nickname, a middle
name, a larger or smaller place ("Manchester" / "England") or a parent company may be the
same thing written another way, so they never prove anything.

Absence alone never proves anything: a claim value with no rival in the same role is, at
most, a flag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from spanproof.graders.specifics.numbers import (
    _HEDGE_BEFORE,
    NEAR_SHARE,
    Quantity,
    canonical_unit,
    quantities_match,
    rounding_unit,
)
from spanproof.graders.specifics.slots import (
    CONTRASTS,
    NUMBER_HEDGES,
    Value,
    members,
    values_of,
)

from spanproof.core.sentences import sentence_spans
from spanproof.core.text import STOPWORDS, stem

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’]*")
# what may stand between two capitalised words of one name ("Liz 'The Boss' Smith", "J. R.")
_NAME_GAP = re.compile(r"[\s\"“”'’.-]*")
_COMMA_NEXT = re.compile(r"\s*,")
_WORD_NEXT = re.compile(r"[\s-]*([A-Za-z][A-Za-z'’]*)")
# a clause ends at these (within a sentence): a new statement with its own subject may follow
_CLAUSE_BREAK = re.compile(
    r";|:\s|\s[–—]\s|,\s+(?:and|but|while|whereas|although|though|yet)\s"
    r"|\s(?:but|while|whereas)\s",
    re.I,
)
# a phrase ends at these (within a clause): what follows attaches to something else
_PHRASE_BREAK = re.compile(r",|\(|\)|\s(?:and|or)\s", re.I)
_PREPS = frozenset(
    [
        "in",
        "on",
        "at",
        "to",
        "from",
        "by",
        "of",
        "for",
        "since",
        "until",
        "till",
        "before",
        "after",
        "during",
        "between",
        "than",
        "into",
        "over",
        "under",
        "around",
        "near",
        "about",
        "within",
        "through",
        "across",
    ]
)
_DATE_PREPS = frozenset({"in", "on", "at", "during", None})
_SPECIFYING = frozenset({"of", "in", "for", "during"})
# skipped when looking for the preposition before a value ("rose to a record 800")
_DETERMINERS = frozenset(
    [
        "a",
        "an",
        "the",
        "its",
        "their",
        "his",
        "her",
        "our",
        "this",
        "that",
        "these",
        "those",
        "record",
    ]
)
# one-word hedges ("about", "nearly") are not words a value attaches to; phrases ("at least",
# "in excess of") are cut off as a whole before a value (``_hedge_start``)
_HEDGE_WORDS = frozenset(h for h in NUMBER_HEDGES if " " not in h)
# a first segment starting with one of these is a fronted phrase ("In 2004, ...", "Founded in
# 1902, ..."), not the clause's subject
_NOT_A_SUBJECT = re.compile(
    r"^\W*(?:[a-z]+(?:ed|ing)\b|(?:" + "|".join(sorted(_PREPS)) + r")\b)", re.I
)


class _Tok(NamedTuple):  # one per word of every span: a tuple is the cheapest to build
    start: int
    end: int
    word: str
    key: str | None  # None for stopwords
    run: int  # the capitalised name run it belongs to, -1 for none


@dataclass(frozen=True)
class _Layout:
    text: str
    toks: tuple[_Tok, ...]
    sentences: tuple[tuple[int, int], ...]
    clauses: tuple[tuple[int, int], ...]
    phrases: tuple[tuple[int, int], ...]
    values: tuple[Value, ...]


@lru_cache(maxsize=65536)  # a word's key, asked for every word of every span
def _key(word: str) -> str | None:
    low = word.lower().replace("’", "'")
    if low in STOPWORDS or len(low) < 2 or low in _HEDGE_WORDS:
        return None
    return stem(low)[:5]


def _cuts(text: str, spans: list[tuple[int, int]], rx: re.Pattern[str]) -> list[tuple[int, int]]:
    out = []
    for a, b in spans:
        start = a
        for m in rx.finditer(text, a, b):
            if m.start() > start:
                out.append((start, m.start()))
            start = m.end()
        if b > start:
            out.append((start, b))
    return out


@lru_cache(maxsize=2048)
def _layout(text: str) -> _Layout:
    values = values_of(text)
    in_value = [(v.start, v.end) for v in values]
    toks: list[_Tok] = []
    run, last_cap = -1, None
    for m in _TOKEN.finditer(text):
        word, start = m.group(0), m.start()
        if in_value and any(a <= start < b for a, b in in_value):
            continue
        key = _key(word)
        cap = key is not None and word[:1].isupper()
        if cap:
            if last_cap is None or not _NAME_GAP.fullmatch(text, last_cap.end(), start):
                run += 1
            last_cap = m
        else:
            last_cap = None
        toks.append(_Tok(start, m.end(), word, key, run if cap else -1))
    sentences = sentence_spans(text) or [(0, len(text))]
    clauses = _cuts(text, sentences, _CLAUSE_BREAK)
    phrases = _cuts(text, clauses, _PHRASE_BREAK)
    return _Layout(text, tuple(toks), tuple(sentences), tuple(clauses), tuple(phrases), values)


def _around(spans: tuple[tuple[int, int], ...], at: int) -> tuple[int, int]:
    for a, b in spans:
        if a <= at < b:
            return a, b
    return at, at


@dataclass(frozen=True)
class _Frame:
    value: Value
    sentence: tuple[int, int]
    clause: tuple[int, int]
    phrase: tuple[int, int]
    before: tuple[_Tok, ...]  # content words of its phrase before it, nearest first
    after: tuple[_Tok, ...]  # content words of its phrase after it, in order
    prep: str | None
    right: str | None  # the content word right after it: what a quantity counts, what a date dates


def _hedge_start(text: str, at: int) -> int:
    """Where a hedge written right before ``at`` begins ("at least 30"), else ``at``."""
    m = _HEDGE_BEFORE.search(text[max(0, at - 24) : at])
    return max(0, at - 24) + m.start(1) if m else at


def _frame(lay: _Layout, v: Value) -> _Frame:
    sentence = _around(lay.sentences, v.start)
    clause = _around(lay.clauses, v.start)
    phrase = _around(lay.phrases, v.start)
    lead_end = _hedge_start(lay.text, v.start)
    before = tuple(
        t for t in reversed(lay.toks) if phrase[0] <= t.start and t.end <= lead_end and t.key
    )
    after = tuple(t for t in lay.toks if v.end <= t.start and t.end <= phrase[1] and t.key)
    if not after and not before and _COMMA_NEXT.match(lay.text, v.end):
        # a fronted value ("In 2018, the film was selected"): what follows is its statement
        nxt = _around(lay.phrases, lay.text.index(",", v.end) + 1 + 1)
        if nxt[0] < clause[1]:
            after = tuple(t for t in lay.toks if nxt[0] <= t.start and t.end <= nxt[1] and t.key)
    prior = [
        w.lower()
        for w in re.findall(r"[A-Za-z]+", lay.text[max(clause[0], lead_end - 40) : lead_end])
    ]
    while prior and (prior[-1] in _DETERMINERS or prior[-1] in _HEDGE_WORDS):
        prior.pop()
    prep = prior[-1] if prior and prior[-1] in _PREPS else None
    right = None
    end = v.end
    for w in lay.values:  # "Q2 2023 revenue": the noun after a value written next to it
        if w.start >= end and not lay.text[end : w.start].strip():
            end = w.end
    m = _WORD_NEXT.match(lay.text, end)
    if v.quantity is not None and v.quantity.unit:
        right = canonical_unit(v.quantity.unit)
    elif m and _key(m.group(1)) and (v.kind == "quantity" or m.group(1)[:1].islower()):
        right = _key(m.group(1))
    return _Frame(v, sentence, clause, phrase, before, after, prep, right)


# ---------------------------------------------------------------- do two values agree


def _granularity(v: Value) -> str:
    if v.kind != "date" or v.date is None:
        return v.kind
    d = v.date
    if d.day is not None:
        return "day"
    if d.month is not None:
        return "month"
    if d.quarter is not None:
        return "quarter"
    if d.decade is not None:
        return "decade"
    return "year"


def _comparable(a: Quantity, b: Quantity) -> bool:
    shares = {"percent", "fraction"}
    if {a.kind, b.kind} <= shares:
        return True
    if a.kind != b.kind:
        return False
    if a.kind == "currency":
        return a.unit == b.unit
    if a.unit and b.unit:
        return canonical_unit(a.unit) == canonical_unit(b.unit)
    return True


def _in_hedged_range(x: float, around: float, hedge: str, unit: float) -> bool:
    """Whether ``x`` lies in the range "<hedge> around" states (non-strict: a proof needs a
    value clearly outside)."""
    if hedge == "near":
        return abs(x - around) <= max(NEAR_SHARE * abs(around), unit / 2) + 1e-9
    if hedge == "just_below":
        return around * (1 - NEAR_SHARE) - 1e-9 <= x <= around + 1e-9
    if hedge in ("above", "at_least"):
        return x >= around - 1e-9
    if hedge in ("below", "at_most"):
        return x <= around + 1e-9
    return False


def _quantity_agrees(c: Value, s: Value) -> bool | None:
    a, b = c.quantity, s.quantity
    if a is None or b is None or not _comparable(a, b):
        return None
    if "ordinal" in (a.kind, b.kind):
        return a.value == b.value
    va, vb = a.comparable(), b.comparable()
    if "fraction" in (a.kind, b.kind):
        unit_a = unit_b = 0.0
        exact = quantities_match(a, b)
    else:
        unit_a = rounding_unit(a.surface, a.value) * (va / a.value if a.value else 1)
        unit_b = rounding_unit(b.surface, b.value) * (vb / b.value if b.value else 1)
        # a rounding either way ("50,000" for 49,750; "2.5 billion" for 2.47 billion); the
        # half-way value is not a rounding ("800" for 750)
        exact = abs(va - vb) < max(unit_a, unit_b) / 2 or abs(va - vb) <= 1e-9 * max(1.0, abs(va))
    if c.hedge == s.hedge:
        return exact
    if c.hedge and not s.hedge:
        return exact or _in_hedged_range(vb, va, c.hedge, unit_a)
    if s.hedge and not c.hedge:
        return exact or _in_hedged_range(va, vb, s.hedge, unit_b)
    return None  # two different hedges: two ranges, not a contradiction code can prove


def _date_agrees(c: Value, s: Value) -> bool | None:
    x, y = c.date, s.date
    if x is None or y is None or _granularity(c) != _granularity(s):
        return None
    fields = {"day": ("month", "day"), "month": ("month",), "quarter": ("quarter",)}.get(
        _granularity(c), ()
    )
    if _granularity(c) == "decade":
        return x.decade == y.decade
    if any(getattr(x, f) != getattr(y, f) for f in fields):
        return False
    if x.year is not None and y.year is not None:
        return x.year == y.year
    return True


def _name_agrees(c: Value, s: Value) -> bool | None:
    if c.name == s.name:
        return True
    if len(c.name) != len(s.name):
        return None
    diff = [(p, q) for p, q in zip(c.name, s.name, strict=True) if p != q]
    if len(diff) == 1 and any(diff[0][0] in g and diff[0][1] in g for g in CONTRASTS):
        return False
    return None


def _agrees(c: Value, s: Value) -> bool | None:
    """True: ``s`` states ``c``'s value; False: another value of the same kind; None: the two
    cannot be compared (other kinds, units, granularity, or differences code cannot judge)."""
    if c.kind != s.kind:
        return None
    if c.kind == "quantity":
        return _quantity_agrees(c, s)
    if c.kind == "date":
        return _date_agrees(c, s)
    if c.kind == "weekday":
        return c.weekday == s.weekday
    return _name_agrees(c, s)


def _range_of(values: list[Value]) -> tuple[float, float] | None:
    nums = [
        v.quantity.comparable() if v.quantity else float(v.date.year)  # type: ignore[union-attr]
        for v in values
        if v.quantity is not None or (v.date is not None and v.date.year is not None)
    ]
    return (min(nums), max(nums)) if len(nums) >= 2 else None


def _number_of(v: Value) -> float | None:
    if v.quantity is not None:
        return v.quantity.comparable()
    if v.date is not None and _granularity(v) == "year":
        return float(v.date.year)  # type: ignore[arg-type]
    return None


def _group_agrees(c_group: list[Value], s_group: list[Value]) -> bool | None:
    """Whether the span's list or range states the claim's value (or range)."""
    results = [_agrees(c, s) for c in c_group for s in s_group]
    if any(r is True for r in results):
        return True
    for inner, outer in ((c_group, s_group), (s_group, c_group)):
        if len(outer) >= 2 and outer[0].in_range and all(_number_of(v) is not None for v in inner):
            lo_hi = _range_of(outer)
            if lo_hi and all(lo_hi[0] <= _number_of(v) <= lo_hi[1] for v in inner):  # type: ignore[operator]
                return True
    return False if any(r is False for r in results) else None


# ---------------------------------------------------------------- same role, same statement


def _specifies(a: _Frame, b: _Frame) -> bool:
    """``a`` names its noun before it with "of/in/for" ("revenue in the first quarter",
    "budget of $2 million") where ``b`` puts it after ("Q2 2023 revenue", "a $3 million
    budget"): the same noun, so the same role."""
    return bool(
        a.before and a.prep in _SPECIFYING and b.right and b.prep is None
        and a.before[0].key == b.right
    )  # fmt: skip


def _anchors(cf: _Frame, sf: _Frame) -> str | None:
    """How the two values share a role (which anchor), or None when they do not."""
    c, s = cf.value, sf.value
    if c.kind != s.kind or _granularity(c) != _granularity(s):
        return None
    if c.kind == "quantity" and (
        c.quantity is None or s.quantity is None or not _comparable(c.quantity, s.quantity)
    ):
        return None
    if _specifies(cf, sf) or _specifies(sf, cf):
        return "noun"
    if c.kind in ("date", "weekday"):
        if not (cf.prep in _DATE_PREPS and sf.prep in _DATE_PREPS) and cf.prep != sf.prep:
            return None
    elif cf.prep != sf.prep:
        return None
    near_c = cf.before[0].key if cf.before else None
    near_s = sf.before[0].key if sf.before else None
    if cf.right and sf.right and cf.right != sf.right:
        return None
    if c.kind != "quantity" and cf.right and cf.right == sf.right:
        # a date before a noun says which one ("the March 2024 poll", "the 2011 census"):
        # the noun is its role, whatever verb leads to it
        return "counts"
    if near_c and near_s and near_c != near_s:
        return None
    if near_c and near_c == near_s:
        return "near"
    if cf.right and cf.right == sf.right:
        return "counts"
    if not near_c and not near_s and cf.after and sf.after and cf.after[0].key == sf.after[0].key:
        return "after"
    return None


def _keys_in(lay: _Layout, span: tuple[int, int]) -> set[str]:
    return {t.key for t in lay.toks if span[0] <= t.start < span[1] and t.key}


def _all_present(toks, own: _Layout, keys: set[str]) -> bool:
    """Every word of ``toks`` (words of ``own``) is among ``keys``; a name counts as present
    when any of its words is."""
    runs_present = {t.run for t in own.toks if t.run >= 0 and t.key in keys}
    return all(t.key in keys or (t.run >= 0 and t.run in runs_present) for t in toks)


def _subject(lay: _Layout, f: _Frame) -> tuple[_Tok, ...]:
    """The words of the clause that say what its value is about: the first comma segment when
    it is a subject (not a fronted "In 2004," or "Founded in 1902,") and the value stands
    later; otherwise the words before the value."""
    a, _ = f.clause
    first_end = lay.text.find(",", a, f.value.start)
    if first_end >= 0:
        segment = lay.text[a:first_end]
        if not _NOT_A_SUBJECT.match(segment) and not any(
            a <= v.start < first_end for v in lay.values
        ):
            return tuple(t for t in lay.toks if a <= t.start < first_end and t.key)
        return ()
    return tuple(t for t in lay.toks if a <= t.start and t.end <= f.value.start and t.key)


def _claim_lead(lay: _Layout, f: _Frame) -> tuple[_Tok, ...]:
    return tuple(t for t in lay.toks if f.clause[0] <= t.start and t.end <= f.value.start and t.key)


@dataclass(frozen=True)
class RoleContradiction:
    """A claim value the span states otherwise in the same role, with both places."""

    claim_value: Value
    span_value: Value
    claim_words: tuple[int, int]  # the claim's words for the role, anchor through value
    span_words: tuple[int, int]  # the span's words the proof rests on, anchor through value
    anchor: str  # near | counts | noun | after

    @property
    def kind(self) -> str:
        v = self.claim_value
        return {"quantity": "number", "weekday": "date"}.get(v.kind, v.kind)


def _words_span(lay: _Layout, f: _Frame, anchor: str) -> tuple[int, int]:
    start, end = f.value.start, f.value.end
    if anchor == "near" and f.before:
        start = f.before[0].start
    if anchor == "noun" and f.before and f.prep in _SPECIFYING:
        start = f.before[0].start
    if anchor in ("counts", "noun") and not (f.before and f.prep in _SPECIFYING):
        m = re.match(r"(?:[\s-]*\d[\w,.]*)*[\s-]*[A-Za-z][A-Za-z'’]*", lay.text[end:])
        end += m.end() if m else 0
    if anchor == "after" and f.after:
        end = f.after[0].end
    return start, end


def _stated_elsewhere(
    span: _Layout, c_group: list[Value], rival: _Frame, claim_keys: set[str]
) -> bool:
    """The claim's value appears in the span outside the rival's role, and not clearly as
    another statement of the rival's sentence."""
    for v in span.values:
        if _group_agrees(c_group, [v]) is not True:
            continue
        f = _frame(span, v)
        if f.sentence != rival.sentence:
            return True
        own = [t.key for t in f.before if t.key]
        if len(own) < 2 or set(own) & claim_keys:
            return True
    return False


def role_contradictions(claim: str, span: str) -> list[RoleContradiction]:
    """The claim's values the span states otherwise in the same role (module docstring)."""
    return list(_role_contradictions(claim, span))


@lru_cache(maxsize=4096)
def _role_contradictions(claim: str, span: str) -> tuple[RoleContradiction, ...]:
    c_lay, s_lay = _layout(claim), _layout(span)
    if not c_lay.values or not s_lay.values:
        return ()
    s_frames = [_frame(s_lay, v) for v in s_lay.values]
    out: list[RoleContradiction] = []
    seen_groups: set[int] = set()
    for c in c_lay.values:
        if c.group >= 0:
            if c.group in seen_groups:
                continue
            seen_groups.add(c.group)
        cf = _frame(c_lay, c)
        c_group = members(c_lay.values, c)
        claim_keys = _keys_in(c_lay, cf.clause)
        role = [(sf, a) for sf in s_frames if (a := _anchors(cf, sf))]
        if not role:
            continue
        verdicts = [_group_agrees(c_group, members(s_lay.values, sf.value)) for sf, _ in role]
        if any(v is True for v in verdicts):
            continue
        for (sf, anchor), agrees in zip(role, verdicts, strict=True):
            if agrees is not False:
                continue
            sentence_keys = _keys_in(s_lay, sf.sentence)
            if not _all_present(_claim_lead(c_lay, cf), c_lay, sentence_keys):
                continue
            if not _all_present(_subject(s_lay, sf), s_lay, claim_keys):
                continue
            if not _all_present(sf.before[:2], s_lay, claim_keys):
                continue
            if anchor == "after" and not (
                _all_present(sf.after, s_lay, claim_keys)
                and _all_present(cf.after, c_lay, sentence_keys)
            ):
                continue
            if _stated_elsewhere(s_lay, c_group, sf, claim_keys):
                break
            out.append(
                RoleContradiction(
                    claim_value=c,
                    span_value=sf.value,
                    claim_words=_words_span(c_lay, cf, anchor),
                    span_words=_words_span(s_lay, sf, anchor),
                    anchor=anchor,
                )
            )
            break
    return tuple(out)
