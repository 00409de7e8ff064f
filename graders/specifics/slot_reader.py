"""The slot reader: for each value a claim states, the values its span (or a whole page) states
in the same slot, and the contradictions code can prove from them.

"The total rose to 800" against "the total rose to 750": the span does not merely omit 800,
it fills the claim's slot with another value. That is something code can prove, so it is the
one finding besides the quote check that may override a judge (``graders.audit``). One
mechanism reads every kind of value:

1. **Values, normalised** (``slots.values_of``, ``readings.read``): counts ("two dozen"),
   shares ("a third", "34%", "one in five"), money per currency, units through ``pint`` ("5
   km" / "5,000 metres"; "3 hours 52 minutes" one length), lengths of time ("three decades"
   / "30 years"), ages ("aged 74", "a seventeen-year-old"), hedges ("more than a decade"
   states a range, as "more than 10 years" does), ordinals, dates of
   every granularity as intervals (a day to a century; "the sixties", "the 1400s", "7/1/2018"
   both ways), weekdays (and the weekday of a full date), compass directions (where a thing
   lies or goes, and apart from it where it comes from: "westerly", "from the east"), names
   (with their kind when their words say it: a title, an organisation's ending, ISO 3166, a
   GeoNames town, written with its accents or without, a census given name). A fraction a
   word places in a sequence ("the first half of the year") is a segment, not a share; a
   figure multiplied by another ("a 4 × 4 grid") fills no slot alone.
2. **The slot, by alignment**: a claim value and a span value share a slot when they are
   read on one measure and the words around them say the same thing, after morphology and
   synonyms (``concepts``: the same lemma, a WordNet synonym or a derived form): the word
   they attach to ("rose to", "a fee of", "turnout was"), or what they count ("16 piers" /
   "14 piers"), or the noun a value specifies ("revenue in the first quarter" / "Q2
   revenue"), or for a fronted value the statement after it; with the same preposition
   where prepositions change the role ("rose to" is not "rose by"; "of", a copula and a
   colon are one; "in", "on", "at", "during" are one for dates, "from" and "since" one start,
   "to", "until" and "till" one end, and a date a part of which is named, "in the autumn of
   1933", has the role of the preposition before that part) and nothing that tells the
   two apart (what each counts, the word that qualifies each: "primary schools" /
   "secondary schools"). A word of a name anchors only the value right after the name.
   Or **by measure**: each is the only value of one specific measure (money, a share, a
   unit, a date, an age, a direction; never a bare count) in its clause, and the span's
   clause holds at least half of the claim clause's words and at least two ("the dance style
   first gained a mass following in the 1980s" / "the dance style became popular in the
   1970s"); a dateline or heading never fills the slot of a value attached to a word.
3. **The same statement**: at least half of the claim's words leading to its value are in
   the span sentence (synonyms count, a name counts when any of its words is), and the words
   of the span clause's subject and the two nearest the span value are in the claim's
   clause, its verbs and words that only describe ("raised", "a healthy") aside. A pronoun
   for the subject, another subject or another measure proves nothing; nor does a relation
   stated from the other side ("the capital lies south of the town"). A span worded
   otherwise may still share the slot **by uniqueness** (``slot_unique``): the only value of
   the claim value's measure in the span sentence, the words next to both aligned or the
   measure a physical one, the claim's things in the span value's clause, its other values
   stated there, and no word that narrows what is measured ("signed in Lisbon on March 21,
   1951" / "signed on 12 March 1951": a place added is no other statement).
4. **Agreement at the precision written** (``readings.agrees``): a rounding either way, a
   hedge's range ("up to 900" / "450"), a list or a range ("in 2003, 2005 and 2008"; "between
   200 and 300", "two to four years"), a date inside the claim's period (1925 for "the
   1920s"), a count of a qualified part no larger than the whole ("four consecutive titles"
   / "five championships").

A **proof** (``contradictions``): an aligned span value that differs beyond that precision, no
aligned value that agrees, and the claim's value stated nowhere else in the span (unless in the
same sentence as another statement of its own: "joined Sky in 1999, and became finance chief in
2008" against "joined Sky in 2008"), and nothing in a span sentence that ranks the thing the
claim's subject selects otherwise ("the firm's third plant" / "its first plant"). A name the
span writes as its initials ("The WHO's") is stated. Names of one kind in an aligned slot count
when they share no distinctive word, no acronym and no initials and neither may hold the other
(``places``: towns over 40 km apart, a town outside the country named); the same word and "by"
before both make them one kind ("developed by Novagen" / "developed by Corvex Biologics"); and
an **opposite event**: a part of the claim whose words the span sentence holds except that it
uses the opposite predicate (won/lost, approved/rejected, rose/fell, opened/closed,
convicted/acquitted) and never the claim's. Each proof keeps both values' offsets and the span
words its alignment rests on. Names and kinship words are also aligned **by role**
(``slot_roles``): the role each fills of its deed, wherever it is written ("the libretto was
written by Clara Venn" / "Tomas Adler wrote the libretto"; "according to Reuters" / "the
Associated Press reported"; "passed to his son" / "passed to his granddaughter"; a kinship word
said of a person by a copula or an apposition, "X is the sister of Y" / "X, Y's cousin,"), a
name the span names only in another role ("with Felix Ahrens as soloist") hides no swap in the
claim's role; a verb and its particle are the one verb WordNet lists ("set up", "turned down");
a rank beyond a count of the same noun is another count ("a two-term mayor" / "won a third
term"); and a **life state** (``slot_life``: died, was killed / alive, survived) is a value of
its subject. Absence alone never proves anything.

``slot_statements(claim, text)`` runs the same reader over any text, a whole page included:
every value the text states in each of the claim's slots, with offsets and whether it agrees
(a page stating two values for one slot is a page to hold back).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache

from spanproof.graders.specifics import lexicon, slot_life
from spanproof.graders.specifics.concepts import keys as word_keys
from spanproof.graders.specifics.concepts import phrase_concepts, phrase_verb, verb_form
from spanproof.graders.specifics.names import entity_present, spelled_variant, token_set
from spanproof.graders.specifics.readings import in_year, unit_end, year_of

# the reader's internals, split by concern: one package, one reader
from spanproof.graders.specifics.slot_agreement import acronym_in, same_figure
from spanproof.graders.specifics.slot_agreement import comparable_frames as _comparable
from spanproof.graders.specifics.slot_agreement import distinctive as _distinctive
from spanproof.graders.specifics.slot_agreement import group_agrees as _group_agrees
from spanproof.graders.specifics.slot_agreement import measure as _measure
from spanproof.graders.specifics.slot_agreement import name_agrees as _name_agrees
from spanproof.graders.specifics.slot_agreement import number_of as _number_of
from spanproof.graders.specifics.slot_agreement import odd_member as _odd_member
from spanproof.graders.specifics.slot_frames import PREPS as _PREPS
from spanproof.graders.specifics.slot_frames import WORD_NEXT as _WORD_NEXT
from spanproof.graders.specifics.slot_frames import Frame as _Frame
from spanproof.graders.specifics.slot_frames import Layout as _Layout
from spanproof.graders.specifics.slot_frames import Tok as _Tok
from spanproof.graders.specifics.slot_frames import describes as _describes
from spanproof.graders.specifics.slot_frames import frame_of as _frame
from spanproof.graders.specifics.slot_frames import layout as _layout
from spanproof.graders.specifics.slot_frames import outside as _outside
from spanproof.graders.specifics.slot_roles import (
    SOURCE,
    aligned,
    displaced,
    kin_base,
    kin_words,
    names_differ,
    roles,
    same_report,
    same_statement,
)
from spanproof.graders.specifics.slot_swaps import KINDS as SWAP_KINDS
from spanproof.graders.specifics.slot_swaps import swapped_names
from spanproof.graders.specifics.slot_unique import Side, unique_slot
from spanproof.graders.specifics.slots import Value, members

from spanproof.core.heap import freeze_loaded

# prepositions that do not change a value's role: "a fee of €45m" / "the fee was €54m" /
# "signed for €54m" / "budgeted at $1.7bn"; "in", "on", "at", "during", "for" before a date.
# Any other preposition must be the same on both sides ("rose to" is not "rose by").
_SAME_ROLE = (
    frozenset({"of", "at", "for", None}),
    frozenset({"in", "on", "at", "during", "for", None}),
)

_SPECIFYING = frozenset({"of", "in", "for", "during"})

_NOT_A_SUBJECT = re.compile(
    r"^\W*(?:[a-z]+(?:ed|ing)\b|(?:" + "|".join(sorted(_PREPS)) + r")\b)", re.I
)

_OPPOSITES: list[tuple[frozenset[str], frozenset[str]]] = [
    (frozenset(a.split()), frozenset(b.split())) for a, b in lexicon.table("opposites")
]

_NEGATION = re.compile(r"\b(?:not|never|no|n't|without|failed to|unbeaten|undefeated)\b", re.I)

MIN_LEAD_SHARE = 0.5  # of the claim's words leading to its value, held by the span sentence

MIN_MEASURE_WORDS = 2  # of the claim clause's words a span clause holds to share a slot by measure


def _match(a: frozenset, b: frozenset) -> bool:
    return bool(a & b)


def _union(toks) -> frozenset:
    return frozenset().union(*(t.keys for t in toks))


def _near(before: tuple[_Tok, ...], n: int) -> tuple[_Tok, ...]:
    """The ``n`` words nearest a value that may anchor its slot: a word of a name counts only
    when the value stands right after the name ("CEO Richard Onizuka by 13 percent"): "the
    Security Council in New York" is not anchored by "Council" to "the war in Syria", two
    phrases after the same name."""
    head = before[0].run if before else -1
    return tuple(t for t in before[:n] if t.run < 0 or t.run == head)


# a date's start and its end, whichever word says it ("from Thursday" / "since Monday",
# "put back to 3 March" / "adjourned until 17 March")
_DATE_ENDS = (frozenset({"from", "since"}), frozenset({"to", "until", "till"}))


def _same_prep(c: str | None, s: str | None, dated: bool) -> bool:
    if c == s:
        return True
    same = _SAME_ROLE[1] if dated else _SAME_ROLE[0]
    if dated and any(c in end and s in end for end in _DATE_ENDS):
        return True
    return c in same and s in same


# the anchors that rest on the words next to both values (not on the clause they share, as
# "measure" does): the alignment a sentence worded otherwise may still hold by uniqueness
_WORDED = frozenset({"near", "noun", "counts", "after"})


def _role_of(cf: _Frame):
    """The test of whether a span value's preposition gives it the claim value's role."""
    dated = _dated(cf)
    return lambda c, s: _same_prep(c, s, dated)


def _specifies(a: _Frame, b: _Frame) -> bool:
    """``a`` names its noun before it with "of/in/for" ("revenue in the first quarter",
    "budget of $2 million") where ``b`` puts it after ("Q2 2023 revenue", "a $3 million
    budget"): the same noun, so the same slot."""
    return bool(
        a.before and a.prep in _SPECIFYING and b.right and b.prep is None
        and _match(a.before[0].keys, b.right)
    )  # fmt: skip


def _dated(f: _Frame) -> bool:
    return bool(_measure(f) & {"date", "weekday", "calendar"})


def _anchor(cf: _Frame, sf: _Frame) -> str | None:
    """How the two values share a slot (which words), or None when they do not."""
    if not _comparable(cf, sf):
        return None
    if _specifies(cf, sf) or _specifies(sf, cf):
        return "noun"
    if not _same_prep(cf.prep, sf.prep, _dated(cf)):
        return None
    if cf.right and sf.right and not _match(cf.right, sf.right):
        return None  # they count or date different things ("14 secondary" / "9 primary")
    if cf.qualifier and sf.qualifier and not _match(cf.qualifier, sf.qualifier):
        return None  # one noun, qualified otherwise ("61 primary schools" / "14 secondary schools")
    near_c, near_s = _near(cf.before, 2), _near(sf.before, 2)
    if (
        near_c
        and near_s
        and (
            _match(_union(near_c), _union(_near(sf.before, 3)))
            or _match(_union(near_s), _union(_near(cf.before, 3)))
        )
    ):
        return "near"
    if cf.value.kind == "name":
        return None  # a name opening its clause is its subject: people go by many names
    if cf.right and sf.right:
        return "counts"
    if (
        not near_c
        and not near_s
        and cf.after
        and sf.after
        and _match(cf.after[0].keys, sf.after[0].keys)
    ):
        return "after"
    return None


def _held(toks, own: _Layout, keys: frozenset) -> list[bool]:
    """For each word of ``toks``: is it among ``keys`` (a name when any of its words is)."""
    runs = {t.run for t in own.toks if t.run >= 0 and t.keys & keys}
    return [bool(t.keys & keys) or (t.run >= 0 and t.run in runs) for t in toks]


def _keys_in(lay: _Layout, span: tuple[int, int], skip: Value | None = None) -> frozenset:
    """The keys of the words in ``span`` of the text (a value's own words skipped)."""
    return _keys_between(lay.text, span, (skip.start, skip.end) if skip else (0, 0))


@lru_cache(maxsize=16384)  # asked for each sentence and clause once per claim value
def _keys_between(text: str, span: tuple[int, int], skip: tuple[int, int]) -> frozenset:
    out: set = set()
    for t in _layout(text).toks:
        if span[0] <= t.start < span[1] and not (skip[0] <= t.start < skip[1]):
            out |= t.keys
    return frozenset(out)


def _subject(lay: _Layout, f: _Frame) -> tuple[_Tok, ...]:
    """The words of the clause that say what its value is about: the first comma segment
    when it is a subject (not a fronted "In 2004," or "Founded in 1902,") and the value
    stands later; otherwise the words before the value."""
    a, _ = f.clause
    first_end = lay.text.find(",", a, f.value.start)
    if first_end >= 0:
        segment = lay.text[a:first_end]
        if not _NOT_A_SUBJECT.match(segment) and not any(
            a <= v.start < first_end and v.kind != "name" for v in lay.values
        ):  # a name may be the subject ("Charlie Russell, a naturalist, died"), a date not
            return tuple(t for t in lay.toks if a <= t.start < first_end and t.keys)
        return ()
    return _outside((t for t in lay.toks if a <= t.start and t.end <= f.value.start), f.value)


def _claim_lead(lay: _Layout, f: _Frame) -> tuple[_Tok, ...]:
    return _outside(
        (t for t in lay.toks if f.clause[0] <= t.start and t.end <= f.value.start), f.value
    )


_DETERMINERS = frozenset(["a", "an", "the", "its", "their", "his", "her", "our", "this", "that"])
_WORD = re.compile(r"[A-Za-z']+")


def _verb(lay: _Layout, t: _Tok) -> bool:
    """Whether the word is a verb where it stands: an -s form is one after a word that is not
    a determiner ("the trail runs for 500 metres", not "the runs")."""
    prior = _WORD.findall(lay.text, max(0, t.start - 12), t.start)
    after_noun = bool(prior) and prior[-1].lower() not in _DETERMINERS
    # an irregular form counts ("the senator won re-election"): this reads which of the span's
    # words is its predicate, not whose role a name fills (``slot_roles``), which a word also
    # a noun ("won", "led") would read more often wrongly
    return verb_form(t.word, after_noun=after_noun, irregular=True) or phrase_verb(t.keys)


def _same_statement(c_lay: _Layout, cf: _Frame, s_lay: _Layout, sf: _Frame, anchor: str) -> bool:
    """The two values are stated of the same thing: the span sentence holds the claim's
    words leading to its value, and the span's words for its value's subject and slot are in
    the claim; a word of one side the other lacks is allowed only as a substitution (a word
    of the claim the span has nowhere, for one of the span's: "the novel sold" / "the book
    sold"), never as an extra qualifier ("the town's population" / "the county's
    population, while the town grew")."""
    sentence_keys = _keys_in(s_lay, sf.sentence, sf.value)
    claim_keys = _keys_in(c_lay, cf.clause, cf.value)
    lead = _claim_lead(c_lay, cf)
    missing = [t for t, h in zip(lead, _held(lead, c_lay, sentence_keys), strict=True) if not h]
    if lead and len(missing) > MIN_LEAD_SHARE * len(lead):
        return False
    span_words = {t: None for t in (*_subject(s_lay, sf), *sf.before[:2])}
    # a verb of the span's ("raised four children" / "had six") is its predicate, which the
    # anchor has read; what may make it another statement is a word naming another subject
    extra = [
        t
        for t, h in zip(span_words, _held(span_words, s_lay, claim_keys), strict=True)
        if not h and not _verb(s_lay, t) and not _describes(t.word)
    ]
    whole_span = _keys_in(s_lay, (0, len(s_lay.text)))
    if any(t.keys & whole_span or t.run >= 0 for t in missing) and extra:
        return False  # the claim's word is in the span elsewhere: the span's is a qualifier
    if len(extra) > len(missing):
        return False
    if anchor == "after":
        return all(_held(sf.after, s_lay, claim_keys)) and all(
            _held(cf.after, c_lay, sentence_keys)
        )
    return True


# ---------------------------------------------------------------- what a text states


@dataclass(frozen=True)
class SlotStatement:
    """A value a text states in a claim value's slot, with both places."""

    claim_value: Value
    value: Value  # the text's value
    agrees: bool | None  # True: it states the claim's value; False: another value
    anchor: str  # near | counts | noun | after: which words the slot rests on
    claim_words: tuple[int, int]  # the claim's words for the slot, anchor through value
    words: tuple[int, int]  # the text's words the slot rests on, anchor through value


@dataclass(frozen=True)
class Contradiction:
    """A proof: a claim value (or predicate) the span states otherwise in the same slot."""

    kind: str  # number | date | name | direction | event
    claim_value: tuple[int, int, str]  # start, end, text
    span_value: tuple[int, int, str]
    span_words: tuple[int, int]  # the span words the alignment rests on
    anchor: str


def _words_span(lay: _Layout, f: _Frame, anchor: str) -> tuple[int, int]:
    start, end = f.value.start, unit_end(lay.text, f.value)
    if anchor in ("near", "noun") and f.before:
        start = min(start, f.before[0].start)
    if anchor in ("counts", "noun") and f.right and not (f.before and f.prep in _SPECIFYING):
        m = _WORD_NEXT.match(lay.text, end)
        end = m.end() if m else end
    if anchor == "after" and f.after:
        end = f.after[0].end
    return start, end


def _frames(lay: _Layout) -> list[_Frame]:
    return list(_frames_of(lay.text))


def _span_frames(c_lay: _Layout, s_lay: _Layout) -> list[_Frame]:
    """The span's frames that may share a slot with a claim value: a name's only with a name
    (``_comparable``), so a claim of names only (or of no name) is not read against the span's
    other values (or its names). Either part keeps its order, its lists and its ranges."""
    names = {v.kind == "name" for v in c_lay.values}
    if len(names) != 1:
        return _frames(s_lay)
    return list(_frames_of(s_lay.text, names.pop()))


@lru_cache(maxsize=2048)
def _frames_of(text: str, names: bool | None = None) -> tuple[_Frame, ...]:
    """The frames of every value of ``text``; of its names only (``names`` True) or of its
    other values only (False): a list or a range holds values of one kind."""
    lay = _layout(text)
    values = lay.values if names is None else [v for v in lay.values if (v.kind == "name") == names]
    values = [v for v in values if not _in_product(text, v)]
    frames = [_frame(lay, v) for v in values]
    # "two to four years", "April-June 2017": a unit or a year written after a range's last
    # value is every value's
    for group in {f.value.group for f in frames if f.value.in_range}:
        members_ = [i for i, f in enumerate(frames) if f.value.group == group]
        last = frames[members_[-1]]
        year = year_of(last.readings[0]) if last.readings else None
        if year is not None:
            for i in members_[:-1]:
                dated = [d for r in frames[i].readings if (d := in_year(r, year))]
                if dated:
                    frames[i] = replace(frames[i], readings=tuple(dated))
            continue
        q = last.value.quantity
        if not last.readings or last.readings[0].dim == "count" or q is None or not q.value:
            continue
        unit = last.readings[0]
        factor = unit.value / q.value
        for i in members_[:-1]:
            r = frames[i].readings
            if r and r[0].dim == "count":
                scaled = replace(
                    r[0], dim=unit.dim, value=r[0].value * factor, unit=r[0].unit * factor
                )
                frames[i] = replace(frames[i], readings=(scaled,))
    return tuple(frames)


_TIMES_AFTER = re.compile(r"\s*[×xX]\s*\d")
_TIMES_BEFORE = re.compile(r"\d\s*[×xX]\s*$")


def _in_product(text: str, v: Value) -> bool:
    """A figure multiplied by another ("a 4 × 4 grid", "a 2 x 3 m panel"): the product or the
    dimensions are what the text states, never either figure alone, so neither fills a slot."""
    return v.kind == "quantity" and bool(
        _TIMES_AFTER.match(text, v.end) or _TIMES_BEFORE.search(text, max(0, v.start - 8), v.start)
    )


def _group_of(frames: list[_Frame], lay: _Layout, f: _Frame) -> list[_Frame]:
    # values compared by what they are, never by identity: frames and layouts are cached
    # apart, so a frame's value may be an equal copy of the layout's. An equal value has the
    # same start and group: those integers are compared first, so a page's hundreds of frames
    # are not each compared field by field (the slot check reads whole pages)
    v = f.value
    if v.group < 0:
        return [g for g in frames if g.value.start == v.start and g.value == v] or [f]
    group = members(lay.values, v)
    return [g for g in frames if g.value.group == v.group and g.value in group] or [f]


def _claim_frames(c_lay: _Layout) -> list[tuple[_Frame, list[_Frame]]]:
    frames = _frames(c_lay)
    out, seen = [], set()
    for cf in frames:
        if cf.value.group >= 0:
            if cf.value.group in seen:
                continue
            seen.add(cf.value.group)
        out.append((cf, _group_of(frames, c_lay, cf)))
    return out


def _part_within_whole(cf: _Frame, sf: _Frame) -> bool:
    """One side counts a qualified part of what the other counts ("four consecutive titles"
    against "five championships", "16 concrete piers" against "14 piers"): a part may be
    smaller than the whole, so only a part larger than the whole states another value."""
    if (cf.qualifier is None) == (sf.qualifier is None):
        return False
    part, whole = (cf, sf) if cf.qualifier is not None else (sf, cf)
    p, w = _number_of(part), _number_of(whole)
    return p is not None and w is not None and p[1] <= w[0]


def _bare(lay: _Layout, f: _Frame) -> bool:
    """A value no word of its phrase leads to: a dateline, a heading (a parenthesis is not:
    "the Nobel Prize in Chemistry (2011)")."""
    return not f.before and f.prep is None and not lay.text[: f.value.start].rstrip().endswith("(")


def _alone(frames: list[_Frame], lay: _Layout, f: _Frame) -> bool:
    """No other value of ``f``'s measure in its clause (its own list or range aside)."""
    own = members(lay.values, f.value)
    return not any(
        g.clause == f.clause and g.value not in own and _comparable(f, g) for g in frames
    )


def _by_measure(
    c_lay: _Layout, cf: _Frame, c_frames: list[_Frame], s_lay: _Layout, sf: _Frame, s_frames
) -> bool:
    """The two values share a slot by what they measure: each is the only value of one
    specific measure (money, a share, a length, a date, an age: not a bare count) in its
    clause, nothing around them tells them apart, and the span's clause holds most of the
    claim's clause ("the dance style became popular in the 1970s" / "the dance style first
    gained a mass following in the 1980s"): at least half of its words and at least two."""
    if not cf.readings or any(r.dim in ("count", "ordinal") for r in cf.readings):
        return False
    head = _group_of(s_frames, s_lay, sf)[0]  # a range's words stand before its first value
    if cf.before and _bare(s_lay, head):
        return False  # a dateline ("July 18, 2014 IAS expresses ...") dates the page, not
        # what the claim's value is attached to ("the conference, starting on 20 July")
    # "between 200 and 800 metres", "from 1410 to 1437": the range's own word, not a role
    prep = None if sf.value.in_range and head.prep in ("between", "from") else head.prep
    if _dated(cf) and sf.value.in_range and not cf.value.in_range and cf.prep != prep:
        return False  # a period ("served from 1990 to 1998") is not the date of an event
        # the claim places at a point ("died in 2015"): by measure alone, two slots
    if not _comparable(cf, sf) or not _same_prep(cf.prep, prep, _dated(cf)):
        return False
    if cf.right and sf.right and not _match(cf.right, sf.right):
        return False
    if not (_alone(c_frames, c_lay, cf) and _alone(s_frames, s_lay, sf)):
        return False
    words = _outside((t for t in c_lay.toks if cf.clause[0] <= t.start < cf.clause[1]), cf.value)
    held = sum(_held(words, c_lay, _keys_in(s_lay, sf.clause, sf.value)))
    return held >= max(MIN_MEASURE_WORDS, MIN_LEAD_SHARE * len(words))


def _names_of_one_kind(cf: _Frame, sf: _Frame, anchor: str) -> bool:
    """Two names the same word leads to through "by" ("developed by Novagen" / "developed by
    Corvex Biologics"): the slot names who did it, whatever kind of name fills it. Not "in"
    or "of", whose names may hold one another ("a sea monster in the Bible" / "mentioned in
    the Book of Psalms", "chair of the World Economic Forum's ASEAN council")."""
    return (
        cf.value.kind == sf.value.kind == "name"
        and anchor == "near"
        and cf.prep == sf.prep == "by"
        and _match(cf.before[0].keys, sf.before[0].keys)  # the same deed, not "illustrations by"
    )


def _converse(cf: _Frame, s_lay: _Layout, sf: _Frame) -> bool:
    """A direction stated the other way round: what the claim places things relative to
    stands before the span's direction ("the town lies north of the capital" / "the capital
    lies south of the town"), so the span's direction is the claim's, reversed."""
    if cf.value.kind != "direction" or not cf.after:
        return False
    reference = _union(cf.after[:2])
    before = _keys_between(s_lay.text, (sf.clause[0], sf.value.start), (0, 0))
    return bool(reference & before)


def _count_and_rank(cf: _Frame, sf: _Frame) -> tuple[float, float] | None:
    """(the count, the rank) when one side counts a noun and the other ranks one of the same
    noun ("a two-term mayor" / "won a third term"; "served two terms" / "in his fourth
    term"): one slot, the number of them. Only exact figures: "more than two terms" ranks
    nothing out."""
    if not cf.readings or not sf.readings or not cf.right or not sf.right:
        return None
    c, s = cf.readings[0], sf.readings[0]
    if {c.dim, s.dim} != {"count", "ordinal"} or not _match(cf.right, sf.right):
        return None
    if any(r.hedge is not None or r.end is not None for r in (c, s)):
        return None
    count, rank = (c, s) if c.dim == "count" else (s, c)
    return count.value, rank.value


def _rank_agrees(cf: _Frame, sf: _Frame) -> bool | None:
    """A rank beyond the count states another count ("a third term" is not "a two-term"); a
    rank within it says nothing against it (the second of three terms)."""
    found = _count_and_rank(cf, sf)
    if found is None:
        return None
    count, rank = found
    return False if rank > count else None


def _slot_matches(c_lay: _Layout, s_lay: _Layout):
    """(claim frame, its group, [(span frame, span group, anchor, agrees)]) per claim value."""
    s_frames = _span_frames(c_lay, s_lay)
    c_frames = _frames(c_lay)
    for cf, c_group in _claim_frames(c_lay):
        found = []
        for sf in s_frames:
            if not _comparable(cf, sf) and _count_and_rank(cf, sf) is None:
                continue  # another measure: no anchor, measure or uniqueness can align them
            anchor = _anchor(cf, sf)
            if anchor is None and _by_measure(c_lay, cf, c_frames, s_lay, sf, s_frames):
                anchor = "measure"
            if anchor is None and _count_and_rank(cf, sf) is not None:
                anchor = "counts"
            if anchor is not None and _converse(cf, s_lay, sf):
                continue
            if anchor is None or not _same_statement(c_lay, cf, s_lay, sf, anchor):
                # worded otherwise, but the only value of the sentence that could fill it
                if not unique_slot(
                    Side(c_lay, cf, c_frames),
                    Side(s_lay, sf, s_frames),
                    same_prep=_role_of(cf),
                    held=_held,
                    anchored=anchor in _WORDED,
                ):
                    continue
                anchor = "unique"
            s_group = _group_of(s_frames, s_lay, sf)
            agrees_ = _group_agrees(c_group, s_group)
            if agrees_ is True and _odd_member(c_group, s_group) is not None:
                agrees_ = False  # one member of a list stated otherwise at its place
            if agrees_ is False and _part_within_whole(cf, sf):
                agrees_ = None
            if agrees_ is None and _names_of_one_kind(cf, sf, anchor):
                agrees_ = _name_agrees(cf.value, sf.value, one_kind=True)
            if agrees_ is None:
                agrees_ = _rank_agrees(cf, sf)
            found.append((sf, s_group, anchor, agrees_))
        yield cf, c_group, found


def slot_statements(claim: str, text: str) -> list[SlotStatement]:
    """Every value ``text`` (a span or a whole page) states in each slot of the claim's
    values, in reading order, with whether it states the claim's value."""
    c_lay, s_lay = _layout(claim), _layout(text)
    out = []
    for cf, _, found in _slot_matches(c_lay, s_lay):
        for sf, _, anchor, agrees_ in found:
            out.append(
                SlotStatement(
                    cf.value,
                    sf.value,
                    agrees_,
                    anchor,
                    _words_span(c_lay, cf, anchor),
                    _words_span(s_lay, sf, anchor),
                )  # fmt: skip
            )
    return out


def _name_stated(c: Value, lay: _Layout) -> bool:
    """The span names ``c`` somewhere: a name of the span agrees with it, the span writes its
    initials in capitals, or its head word (or a spelling of it) stands in the span outside a
    name that contrasts with it ("West Lothian" is not stated by "East Lothian")."""
    names = [v for v in lay.values if v.kind == "name"]
    verdicts = [_name_agrees(c, v) for v in names]
    if any(r is True for r in verdicts) or acronym_in(c.name, lay.text):
        return True  # a name of the span is it, or the span writes its initials ("The WHO's")
    if any(r is False and set(c.name) & set(v.name) for r, v in zip(verdicts, names, strict=True)):
        return False
    tokens = token_set(lay.text)
    if entity_present(" ".join(c.name), tokens, strict=False):
        return True
    return any(spelled_variant(t, tokens) for t in _distinctive(c.name))


def _stated_elsewhere(
    s_lay: _Layout, s_frames: list[_Frame], c_group: list[_Frame], rival: _Frame, claim_keys
) -> bool:
    """The claim's value appears in the span outside the rival's slot, and not clearly as
    another statement of the rival's sentence."""
    if c_group[0].value.kind == "name":
        return any(_name_stated(c.value, s_lay) for c in c_group)
    for f in s_frames:
        if _group_agrees(c_group, [f]) is not True and not same_figure(c_group, f):
            continue
        if f.sentence != rival.sentence:
            return True
        own = [t for t in f.before[:3] if t.keys]
        if len(own) < 2 or any(t.keys & claim_keys for t in own):
            return True
    return False


def stated_after_normalising(claim: str, span: str) -> list[str]:
    """The texts of the claim's values that the span states somewhere once both are read
    into normalised readings ("3 km" / "3,000 metres", "one in five" / "20%", "the sixties"
    / "the 1960s"): a flag that such a value is "not stated" would be wrong."""
    return list(_stated_after_normalising(claim, span))


@lru_cache(maxsize=4096)
def _stated_after_normalising(claim: str, span: str) -> tuple[str, ...]:
    c_lay, s_lay = _layout(claim), _layout(span)
    out = []
    for cf, c_group in _claim_frames(c_lay):
        if cf.value.kind == "name":
            if _name_stated(cf.value, s_lay):
                out.append(cf.value.text)
        # the span's frames are read only for a claim value other than a name: a claim of
        # names (most of the pairs asking) never compares them
        elif any(
            _group_agrees(c_group, [f]) is True and f.value.hedge in (None, cf.value.hedge)
            for f in _frames(s_lay)
        ):  # a span figure hedged where the claim's is not ("roughly a third" / "34%") is less
            out += [g.value.text for g in c_group]  # precise than the claim: not its statement
    return tuple(out)


def _kind(v: Value) -> str:
    if v.kind == "quantity":
        return "number"
    if v.kind == "direction":
        return "direction"
    return {"weekday": "date"}.get(v.kind, v.kind)


def load_tables() -> None:
    """Load what the reader reads, once per process (about a second: pint's unit definitions,
    the WordNet concepts, ISO 3166, the towns and given names), so that no pair pays for it:
    the verifier calls this when it is made, before any pair is judged."""
    from spanproof.graders.specifics import concepts, names, places, readings

    readings.load_units()
    concepts.load()
    places.load()
    names.load()
    freeze_loaded()  # never walked by the garbage collector again (spanproof.core.heap)


def contradictions(claim: str, span: str) -> list[Contradiction]:
    """The claim's values (and predicates) the span states otherwise in the same slot."""
    return list(_contradictions(claim, span))


@lru_cache(maxsize=4096)
def _contradictions(claim: str, span: str) -> tuple[Contradiction, ...]:
    out = list(_value_contradictions(claim, span))
    proven = {c.claim_value[0] for c in out}
    out += [c for c in _role_contradictions(claim, span) if c.claim_value[0] not in proven]
    proven |= {c.claim_value[0] for c in out}
    out += [c for c in _swap_contradictions(claim, span) if c.claim_value[0] not in proven]
    out += [
        Contradiction("event", c.claim, c.span, c.sentence, "life")
        for c in slot_life.contradictions(claim, span)
    ]
    out += _event_contradictions(claim, span)
    if out and (other_things := _ranked_otherwise(_layout(claim), _layout(span))):
        out = [c for c in out if not any(a <= c.span_value[0] < b for a, b in other_things)]
    return tuple(out)


def _selects_its_subject(lay: _Layout, f: _Frame) -> bool:
    """A rank in the claim's subject says which thing the claim is about, not a value it
    states of it: "the firm's third plant was opened in Lagos" against "the firm's first plant
    opened in Leopoldville" speaks of another plant (a rank the claim states comes after its
    verb: "finished third", "was its fourth album")."""
    q = f.value.quantity
    if q is None or q.kind != "ordinal" or not f.right:
        return False
    a, b = f.clause
    before = [t for t in lay.toks if a <= t.start < f.value.start]
    after = [t for t in lay.toks if f.value.end <= t.start < b]
    return not any(_verb(lay, t) for t in before) and any(_verb(lay, t) for t in after)


def _ranked_otherwise(c_lay: _Layout, s_lay: _Layout) -> set[tuple[int, int]]:
    """The span sentences that rank the thing the claim's subject selects otherwise ("the
    firm's third plant was opened in Lagos" / "the firm's first plant opened in
    Léopoldville"): they speak of another thing, so no value of theirs is the claim's."""
    selecting = [f for f in _frames(c_lay) if _selects_its_subject(c_lay, f)]
    if not selecting:
        return set()
    return {
        sf.sentence
        for sf in _frames(s_lay)
        for cf in selecting
        if cf.right
        and sf.right
        and _match(cf.right, sf.right)
        and _group_agrees([cf], [sf]) is False
    }


def _value_contradictions(claim: str, span: str):
    c_lay = _layout(claim)
    if not c_lay.values:
        return  # a claim without a value has no slot: the span is not read for one
    s_lay = _layout(span)
    if not s_lay.values:
        return
    s_frames = _span_frames(c_lay, s_lay)
    for cf, c_group, found in _slot_matches(c_lay, s_lay):
        if not found or any(a is True for *_, a in found):
            continue
        if _selects_its_subject(c_lay, cf):
            continue
        claim_keys = _keys_in(c_lay, cf.clause, cf.value)
        for sf, s_group, anchor, agrees_ in found:
            if agrees_ is not False:
                continue
            odd = _odd_member(c_group, s_group)
            c_at, c_of, s_at = cf, c_group, sf
            if odd is not None:  # the member the span states otherwise, not the whole list
                c_at, s_at = c_group[odd], s_group[odd]
                c_of = [c_at]
            if _stated_elsewhere(s_lay, s_frames, c_of, s_at, claim_keys):
                break
            yield Contradiction(
                kind=_kind(cf.value),
                claim_value=_extent(claim, c_at, c_group),
                span_value=_extent(span, s_at, s_group),
                span_words=_words_span(s_lay, sf, anchor),
                anchor=anchor,
            )
            break


# ---------------------------------------------------------------- names and kin by role


def _swap_contradictions(claim: str, span: str) -> list[Contradiction]:
    """A name the span never states, in a claim whose other specifics one span sentence
    states, against that sentence's one other name of the kind (``slot_swaps``)."""
    c_lay = _layout(claim)
    if not any(v.kind == "name" and v.name_type in SWAP_KINDS for v in c_lay.values):
        return []  # no typed name: the span is not read for a swap
    s_lay = _layout(span)
    return [
        Contradiction(
            kind="name",
            claim_value=(cv.start, cv.end, cv.text),
            span_value=(sv.start, sv.end, sv.text),
            span_words=sentence,
            anchor="statement",
        )
        for cv, sv, sentence in swapped_names(c_lay, s_lay, _stated_after_normalising, _name_stated)
    ]


def _word_value(lay: _Layout, t: _Tok) -> Value:
    return Value("name", t.start, t.end, t.word, name=(kin_base(t.word),), name_type="kin")


def _role_contradictions(claim: str, span: str) -> list[Contradiction]:
    """A name or a kinship word of the claim whose role (``slot_roles``: who did the deed,
    to what, where, on whose word) the span fills with another of one kind, in the same
    statement, while naming the claim's nowhere: "the libretto was written by Clara Venn" /
    "Tomas Adler wrote the libretto"; "passed to his son" / "passed to his granddaughter"."""
    c_lay = _layout(claim)
    c_names = [v for v in c_lay.values if v.kind == "name"]
    c_kin = [_word_value(c_lay, t) for t in kin_words(c_lay)]
    if not c_names and not c_kin:
        return []  # nothing of the claim's fills a role: the span is not read for one
    s_lay = _layout(span)
    out = []
    s_names = [v for v in s_lay.values if v.kind == "name"]
    for cv in c_names if s_names else ():
        rival = _rival(c_lay, cv, s_lay, s_names, names_differ)
        # a rival first, then the name anywhere (the dearer look, and most names have none)
        if rival is not None and not _stated_in_its_role(c_lay, cv, s_lay):
            out.append(_role_proof(c_lay, cv, s_lay, rival))
    s_kin = [_word_value(s_lay, t) for t in kin_words(s_lay)] if c_kin else []
    for cv in c_kin if s_kin else ():
        if re.search(rf"\b{cv.name[0]}s?\b", span, re.I):
            continue  # the span says the claim's relation somewhere
        rival = _rival(c_lay, cv, s_lay, s_kin, lambda c, s: c.name != s.name)
        if rival is not None:
            out.append(_role_proof(c_lay, cv, s_lay, rival))
    return out


def _roles(lay: _Layout, start: int, end: int) -> frozenset:
    """``roles`` of the words at ``start:end`` of a layout the reader made (``_layout``): a
    span name's roles are asked again for every name of the claim, a claim name's again when
    a rival is found."""
    return _roles_in(lay.text, start, end) if _layout(lay.text) is lay else roles(lay, start, end)


@lru_cache(maxsize=16384)
def _roles_in(text: str, start: int, end: int) -> frozenset:
    return roles(_layout(text), start, end)


def _stated_in_its_role(c_lay: _Layout, cv: Value, s_lay: _Layout) -> bool:
    """The span names the claim's name where it may fill the claim's role: a swap ("At the
    premiere Lena Vogt conducted the orchestra, with Felix Ahrens as soloist" against
    "conducted by Felix Ahrens") names the claim's name only in another role, which states
    nothing about who filled the claim's. A mention whose role is unread, or a mention
    other than as a name of the span's, counts as stated."""
    if not _name_stated(cv, s_lay):
        return False
    mentions = [v for v in s_lay.values if v.kind == "name" and _name_agrees(cv, v) is True]
    if not mentions:
        return True  # named by a word outside the span's names: where it stands is unread
    c_roles = _roles(c_lay, cv.start, cv.end)
    for v in mentions:
        s_roles = _roles(s_lay, v.start, v.end)
        if displaced(s_roles):
            continue  # "by Clara Jensen instead of Amir Haddad": named as the one it was not
        if not s_roles or aligned(c_roles, s_roles):
            return True
    return False


def _rival(c_lay: _Layout, cv: Value, s_lay: _Layout, s_values: list[Value], differ):
    """The span value that fills ``cv``'s role in the same statement with another value."""
    c_roles = _roles(c_lay, cv.start, cv.end)
    if not c_roles:
        return None
    for sv in s_values:
        s_roles = _roles(s_lay, sv.start, sv.end)
        if not aligned(c_roles, s_roles) or not differ(cv, sv):
            continue
        # a source is compared by what it reports, any other role by what its deed is of
        if aligned(c_roles & SOURCE, s_roles & SOURCE):
            if same_report(c_lay, cv, s_lay, sv):
                return _frame(s_lay, sv)
        elif same_statement(c_lay, cv, s_lay, sv):
            return _frame(s_lay, sv)
    return None


def _role_proof(c_lay: _Layout, cv: Value, s_lay: _Layout, sf: _Frame) -> Contradiction:
    sv = sf.value
    return Contradiction(
        kind="name",
        claim_value=(cv.start, cv.end, cv.text),
        span_value=(sv.start, sv.end, sv.text),
        span_words=sf.clause,
        anchor="role",
    )


def _extent(text: str, f: _Frame, group: list[_Frame]) -> tuple[int, int, str]:
    """Where a value stands, a range whole ("April-June 2017", not "April")."""
    if not f.value.in_range:
        return f.value.start, f.value.end, f.value.text
    a, b = min(g.value.start for g in group), max(g.value.end for g in group)
    return a, b, text[a:b]


# ---------------------------------------------------------------- opposite events


def _content(toks) -> list[_Tok]:
    return [t for t in toks if t.keys]


_OPPOSITE_WORDS = frozenset().union(*(a | b for a, b in _OPPOSITES))


@lru_cache(maxsize=4096)
def _concepts_of(word: str) -> frozenset:
    return frozenset(k for k in word_keys(word) if isinstance(k, int))


@lru_cache(maxsize=16384)  # asked for every content word of a claim and its span, repeatedly
def _said(t: _Tok) -> frozenset[str]:
    """The words of the opposite pairs a word says: itself, and for a verb with its particle
    ("turned down") the pair's words WordNet lists as the same verb ("rejected") in at least
    half of the phrase's senses: a proof overrides the judge, so a phrase that shares one
    sense of several ("held up": delayed, and in one sense supported) says neither."""
    own = frozenset({t.word.lower()})
    mine = phrase_concepts(t.keys)
    if not mine:
        return own  # no verb phrase (most words): no pair's word can share half its senses
    return own | {w for w in _OPPOSITE_WORDS if 2 * len(mine & _concepts_of(w)) >= len(mine)}


def _event_contradictions(claim: str, span: str) -> list[Contradiction]:
    """A claim clause the span sentence states with the opposite predicate (module doc)."""
    if _NEGATION.search(claim):
        return []  # "did not lose" says what "won" says: a negation is the polarity check's
    c_lay = _layout(claim)
    claim_words = frozenset().union(*(_said(t) for t in _content(c_lay.toks)))
    if not claim_words & _OPPOSITE_WORDS:
        return []  # the claim says no side of any pair (most claims): the span is not read
    s_lay = _layout(span)
    span_words = frozenset().union(*(_said(t) for t in _content(s_lay.toks)))
    # the opposite pairs that can fire at all: the claim says one side somewhere, the span
    # the other, and the span never the claim's (most pairs have none, and are not looped on)
    pairs = [
        (said, other)
        for a, b in _OPPOSITES
        for said, other in ((a, b), (b, a))
        if claim_words & said and span_words & other and not span_words & said
    ]
    if not pairs:
        return []  # nothing can fire: no clause or sentence is walked
    span_toks = _content(s_lay.toks)
    for ca, cb in c_lay.clauses:
        c_toks = _content(t for t in c_lay.toks if ca <= t.start < cb)
        for sa, sb in s_lay.sentences:
            sentence = span[sa:sb]
            if _NEGATION.search(sentence):
                continue
            s_toks = _content(t for t in s_lay.toks if sa <= t.start < sb)
            for said_side, other_side in pairs:
                said = [t for t in c_toks if _said(t) & said_side]
                answer = [t for t in s_toks if _said(t) & other_side]
                if not said or not answer:
                    continue
                if any(_match(w.keys, t.keys) for w in said for t in span_toks):
                    continue  # the span states the claim's side in other words ("went up" / "climbed")
                if frozenset().union(*(_said(t) for t in c_toks)) & other_side:
                    continue  # the claim states both ("left Reading to join Millwall")
                rest = [t for t in c_toks if t not in said]
                s_keys = frozenset().union(*(t.keys for t in s_toks))
                if not rest or not all(_held(rest, c_lay, s_keys)):
                    continue
                w, a = said[0], answer[0]
                return [
                    Contradiction(
                        kind="event",
                        claim_value=(w.start, w.end, w.word),
                        span_value=(a.start, a.end, a.word),
                        span_words=(sa, sb),
                        anchor="event",
                    )
                ]
    return []
