"""The slot reader's reading of one text: its tokens, sentences, clauses and phrases (the
layout), and each value in it with the words around it (its frame: preposition, the words
leading to it, what it describes). ``slot_reader`` aligns the frames of a claim and a span."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from spanproof.graders.specifics.concepts import PARTICLES, noun_form, phrase_keys, verb_form
from spanproof.graders.specifics.concepts import keys as word_keys
from spanproof.graders.specifics.numbers import hedge_at_end
from spanproof.graders.specifics.readings import Reading, read, unit_end
from spanproof.graders.specifics.slots import NUMBER_HEDGES, Value, values_of

from spanproof.core.prefilter import guarded
from spanproof.core.sentences import sentence_spans
from spanproof.core.text import STOPWORDS

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’]*")
_COMMA_NEXT = re.compile(r"\s*,")
_SPACES = re.compile(r"\s*")
# every text is scanned for a web address, which few hold: the guard sees "http"/"www." is absent
_ADDRESS = guarded(re.compile(r"(?:https?://|www\.)\S+", re.I))
# a word of at most two letters hyphened to a word is its prefix ("re-", "co-", "ex-")
_PREFIX_LEN = 2
_HYPHEN_WORD = re.compile(r"-[a-z]")
_NAME_GAP = re.compile(r"[\s\"“”'’.-]*")
WORD_NEXT = re.compile(r"[\s-]*([A-Za-z][A-Za-z'’]*)")
_LETTERS = re.compile(r"[A-Za-z]+")
# a clause ends at these (within a sentence): a new statement with its own subject may follow
_CLAUSE_BREAK = re.compile(
    r";|:\s|\s[–—]\s|,\s+(?:and|but|while|whereas|although|though|yet)\s"
    r"|\s(?:but|while|whereas)\s"
    # a second verb of the same subject, or a relative clause of time: another statement
    # ("sat as a magistrate for nineteen years and was also chairman of the committee";
    # "closed for 21 days, after which the repairs will continue")
    r"|\sand\s+(?:also\s+)?(?=(?:was|were|is|are|has|had|have|became|becomes)\b)"
    r"|,\s+(?:after|before|during|since|until)\s+which\s",
    re.I,
)
# a phrase ends at these (within a clause): what follows attaches to something else
_PHRASE_BREAK = re.compile(r",|\(|\)|\s(?:and|or)\s", re.I)
PREPS = frozenset(
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
        "with",
        "against",
        "per",
    ]
)
# skipped between a value and the word it attaches to ("rose to a record 800", "a reported
# $54m", "for an estimated 2 million"): they qualify the figure, not the slot
_MODIFIERS = frozenset(
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
        "reported",
        "estimated",
        "total",
        "combined",
        "further",
        "additional",
        "another",
        "overall",
        "new",
        "some",
    ]
)
_HEDGE_WORDS = frozenset(h for h in NUMBER_HEDGES if " " not in h)
# the parts of a period a text names before a date ("the autumn of 1933", "the end of 2007")
_PERIOD_PARTS = frozenset(
    ["spring", "summer", "autumn", "fall", "winter", "beginning", "start", "end", "middle",
     "close", "turn", "dawn"]
)  # fmt: skip


class Tok(NamedTuple):
    start: int
    end: int
    word: str
    keys: frozenset  # empty for stopwords (concepts.keys)
    run: int  # the capitalised name run it belongs to, -1 for none


@dataclass(frozen=True)
class Layout:
    text: str
    toks: tuple[Tok, ...]
    sentences: tuple[tuple[int, int], ...]
    clauses: tuple[tuple[int, int], ...]
    phrases: tuple[tuple[int, int], ...]
    values: tuple[Value, ...]
    # where each token starts, in order: a value's frame looks only at the tokens of its phrase
    # (found by bisection) instead of walking a whole page's tokens for every value
    starts: tuple[int, ...] = field(default=(), compare=False, repr=False)
    # where each value starts, when values_of gave them in order of start (else empty)
    value_starts: tuple[int, ...] = field(default=(), compare=False, repr=False)

    def toks_within(self, a: int, b: int) -> tuple[Tok, ...]:
        """The tokens that start in [a, b], in order: every token that may lie within
        text[a:b] (callers still test that it ends by b)."""
        if len(self.starts) != len(self.toks):  # a layout built without them: every token
            return self.toks
        return self.toks[bisect_left(self.starts, a) : bisect_right(self.starts, b)]


# A word's keys depend on the word alone, and every text repeats most of its words: read once.
@lru_cache(maxsize=1 << 16)
def token_keys(word: str) -> frozenset:
    low = word.lower()
    if low in _HEDGE_WORDS or low in _MODIFIERS:
        return frozenset()
    return word_keys(word)


_PARTICLE_REACH = 3  # words of an object a particle may follow ("turned the bid down")


def _join_particles(text: str, toks: list[Tok]) -> None:
    """A verb and its particle say one thing ("set up" a charity: found it; "turned down" an
    offer: rejected it): the verb's word takes the keys of the verb phrase WordNet lists in
    place of its own, so it aligns through the same synonyms as a one-word verb. The
    particle stands right after the verb, or after a short object when nothing but a
    preposition or the clause's end follows it ("turned the application down at its
    meeting")."""
    # read back from each particle (few texts hold one) to the verb it completes
    for k, p in enumerate(toks):
        particle = p.word.lower()
        if particle not in PARTICLES or not k:
            continue
        after = toks[k + 1] if k + 1 < len(toks) else None
        closes = (
            after is None
            or _GAP_BREAK.search(text, p.end, after.start) is not None
            or after.word.lower() in PREPS
        )
        for i in range(k - 1, max(-1, k - 2 - _PARTICLE_REACH), -1):
            t = toks[i]
            if _GAP_BREAK.search(text, t.end, toks[i + 1].start):
                break  # a break between the verb and the particle
            if (i == k - 1 or closes) and t.keys and t.run < 0:
                extra = phrase_keys(t.word, particle)
                if extra:  # the phrase's senses, not the verb's ("turned": rotated)
                    toks[i] = t._replace(keys=extra)
                    break
            low = t.word.lower()
            if t.run >= 0 or low in PREPS or low in PARTICLES:
                break  # a name, a preposition or a particle: no verb before it takes this one


# what a character of a text stands on, for the layout's tokens (``_layout``)
_ON_NAME, _ON_VALUE, _ON_ADDRESS = b"\x01", b"\x02", b"\x03"
_NOT_PROSE = frozenset({_ON_VALUE[0], _ON_ADDRESS[0]})

_GAP_BREAK = re.compile(r"[^\s]")  # anything but spaces between two words: a break


def _cuts(text: str, spans, rx: re.Pattern[str]) -> list[tuple[int, int]]:
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
def layout(text: str) -> Layout:
    values = values_of(text)
    # the words of a value (and of a unit written after it) are the value, not its context
    in_value = [(v.start, unit_end(text, v) if v.kind == "quantity" else v.end) for v in values]
    value_starts = tuple(v.start for v in values)
    ordered = all(a <= b for a, b in zip(value_starts, value_starts[1:], strict=False))
    toks: list[Tok] = []
    starts: list[int] = []  # each token's start, kept as the tokens are made
    run, last_cap = -1, None
    # What each character stands on, painted once so that a token asks one byte: a web
    # address (whose words are not prose) over everything; else the first value, in the
    # values' order, whose words hold it (painted last to first, so the first one wins): a
    # name's words are still words, any other value's are the value.
    covered = bytearray(len(text) + 1)
    for v, (a, b) in zip(reversed(values), reversed(in_value), strict=True):
        covered[a:b] = (_ON_NAME if v.kind == "name" else _ON_VALUE) * (b - a)
    for m in _ADDRESS.finditer(text):
        covered[m.start() : m.end()] = _ON_ADDRESS * (m.end() - m.start())
    # the loop runs for every word of every text: its lookups are bound once, out of it
    # (a token is made from its fields' tuple by tuple's own constructor: the named tuple's
    # generated __new__ is a Python call per word)
    append, at, make, keys_of, hyphen_after, name_gap = (
        toks.append,
        starts.append,
        Tok._make,
        token_keys,
        _HYPHEN_WORD.match,
        _NAME_GAP.fullmatch,
    )
    for m in _TOKEN.finditer(text):
        start, end = m.span()
        if covered[start] in _NOT_PROSE:
            continue
        word = m.group()
        keys = keys_of(word)
        if len(word) <= _PREFIX_LEN and hyphen_after(text, end):
            keys = frozenset()  # a prefix ("re-election", "co-founder"), not a word of its own
        cap = bool(keys) and word[:1].isupper()
        if cap:
            if last_cap is None or not name_gap(text, last_cap.end(), start):
                run += 1
            last_cap = m
        else:
            last_cap = None
        append(make((start, end, word, keys, run if cap else -1)))
        at(start)
    _join_particles(text, toks)  # replaces tokens in place, never moves one
    sentences = sentence_spans(text) or [(0, len(text))]
    clauses = _cuts(text, sentences, _CLAUSE_BREAK)
    phrases = _cuts(text, clauses, _PHRASE_BREAK)
    return Layout(text, tuple(toks), tuple(sentences), tuple(clauses), tuple(phrases), values,
                   starts=tuple(starts),
                   value_starts=value_starts if ordered else ())  # fmt: skip


def around(spans: tuple[tuple[int, int], ...], at: int) -> tuple[int, int]:
    for a, b in spans:
        if a <= at < b:
            return a, b
    return at, at


def outside(toks, v: Value) -> tuple[Tok, ...]:
    return tuple(t for t in toks if t.keys and not (v.start <= t.start < v.end))


@dataclass(frozen=True)
class Frame:
    value: Value
    readings: tuple[Reading, ...]
    sentence: tuple[int, int]
    clause: tuple[int, int]
    before: tuple[Tok, ...]  # content words of its phrase before it, nearest first
    after: tuple[Tok, ...]  # content words of its phrase after it, in order
    prep: str | None
    right: frozenset | None  # what a quantity counts, what a date dates: its noun's keys
    qualifier: frozenset | None  # a word between the value and that noun ("16 concrete piers")


# a word right after a value, its spacing kept so a gap of punctuation ends the run
_NEXT_WORDS = re.compile(r"[ \t]+([A-Za-z][A-Za-z'’-]*)")


def counted_noun(text: str, f: Frame) -> frozenset:
    """What a count or a rank counts (empty when nothing is named): a unit word the value took
    in ("36,000 people"), or the head of the words right after it, up to a function word or a
    verb: the first plural ("48,720 e-books lent", "eight public libraries", "210 new school
    places"), else the last ("third consecutive title")."""
    q = f.value.quantity
    if q is not None and q.unit:
        return word_keys(q.unit)
    words: list[str] = []
    at = unit_end(text, f.value)
    while len(words) < 3 and (m := _NEXT_WORDS.match(text, at)):
        w = m.group(1)
        if w.lower() in STOPWORDS or verb_form(w, irregular=True):
            break
        words.append(w)
        at = m.end()
    if not words:
        return frozenset()
    plural = [w for w in words if w.lower().endswith("s")]
    return word_keys(plural[0] if plural else words[-1])


def describes(word: str) -> bool:
    """A word that only describes what follows it ("grew by a healthy 6.5 percent"): lower
    case, not a function word, and neither a noun nor a verb WordNet knows."""
    return (
        word.islower()
        and not word.endswith(("'s", "’s"))  # a possessive is a noun ("the county's")
        and word not in STOPWORDS
        and word not in PREPS
        and not noun_form(word)
        and not verb_form(word)
    )


def hedge_start(text: str, at: int) -> int:
    m = hedge_at_end(text[max(0, at - 24) : at])
    return max(0, at - 24) + m.start(1) if m else at


def frame_of(lay: Layout, v: Value) -> Frame:
    sentence = around(lay.sentences, v.start)
    clause = around(lay.clauses, v.start)
    phrase = around(lay.phrases, v.start)
    lead_end = hedge_start(lay.text, v.start)
    before = tuple(
        t
        for t in reversed(lay.toks_within(phrase[0], lead_end))
        if phrase[0] <= t.start and t.end <= lead_end and t.keys
    )
    end = unit_end(lay.text, v)
    after = tuple(
        t
        for t in lay.toks_within(end, phrase[1])
        if end <= t.start and t.end <= phrase[1] and t.keys
    )
    # matched at a position, not on a slice: a page's tail is not copied for every value
    if not after and v.kind != "name" and _COMMA_NEXT.match(lay.text, end):
        # a fronted value ("In 2018, the film was selected"): what follows is its statement
        comma = lay.text.index(",", end)
        nxt = around(lay.phrases, comma + 2)
        if nxt[0] < clause[1] or nxt[0] < sentence[1]:
            after = tuple(
                t
                for t in lay.toks_within(nxt[0], nxt[1])
                if nxt[0] <= t.start and t.end <= nxt[1] and t.keys
            )
    prior = _LETTERS.findall(lay.text, max(clause[0], lead_end - 40), lead_end)
    while prior and (
        prior[-1].lower() in _MODIFIERS or prior[-1].lower() in _HEDGE_WORDS or describes(prior[-1])
    ):
        prior.pop()
    prep = prior[-1].lower() if prior and prior[-1].lower() in PREPS else None
    if prep == "of" and v.kind == "date" and len(prior) > 1 and prior[-2].lower() in _PERIOD_PARTS:
        # "in the autumn of 1933", "by the end of 2007": the date's role is the preposition
        # before the part of it the text names, as in "in 1933"
        prior = prior[:-2]
        while prior and prior[-1].lower() in _MODIFIERS:
            prior.pop()
        prep = prior[-1].lower() if prior and prior[-1].lower() in PREPS else None
    readings = read(lay.text, v)
    # a physical quantity or an age counts nothing: the word after it describes the measure
    # ("5 km long", "500 metres along the cliff", "300 years old")
    measured = any(r.dim.startswith("[") or r.dim == "age" for r in readings)
    if measured and _HYPHEN_WORD.search(lay.text, v.start, end):
        noun = _NEXT_WORDS.match(lay.text, end)
        if noun and noun[1][:1].islower() and noun[1] not in PREPS:
            # joined to its unit by a hyphen before a noun ("after a 12-day strike", "by an
            # eight-year warranty"), the measure qualifies that noun: the preposition before
            # it is the noun's, not the measure's
            prep = None
    if v.kind == "direction":
        prep = None  # "from the east": where the wind comes from is the value's own reading
    right = None
    # "Q2 2023 revenue": the noun after values written next to each other. A value is next
    # when only whitespace stands between (where the whitespace after `end` stops is found
    # once, not by copying the text up to every later value of the page)
    spaced = _SPACES.match(lay.text, end).end()  # type: ignore[union-attr]  # \s* always matches
    values = lay.values
    in_order = len(lay.value_starts) == len(values)
    if in_order:
        # in order of start, and `end` only grows: the values before `end` never qualify,
        # and after one that starts past the whitespace none does
        values = values[bisect_left(lay.value_starts, end) :]
    for w in values:
        if end <= w.start <= spaced:
            end = unit_end(lay.text, w)
            spaced = _SPACES.match(lay.text, end).end()  # type: ignore[union-attr]
        elif in_order and w.start > spaced:
            break
    qualifier = None
    m = None if measured else WORD_NEXT.match(lay.text, end)
    if m and (v.kind == "quantity" or m.group(1)[:1].islower()) and token_keys(m.group(1)):
        right = token_keys(m.group(1))
        m2 = WORD_NEXT.match(lay.text, m.end())
        if (
            m2
            and m2.group(1)[:1].islower()
            and token_keys(m2.group(1))
            and noun_form(m2.group(1))
            and not verb_form(m2.group(1))
            and (m.group(1)[:1].islower() or m2.group(1).endswith("s"))
            and not lay.text[m.end()].isalnum()
        ):
            # "16 concrete piers", "five Oscar nominations": the noun counted is the second
            # word, qualified by the first ("Part Two Admittedly we've" qualifies nothing)
            qualifier, right = right, token_keys(m2.group(1)) | right
    return Frame(v, readings, sentence, clause, before, after, prep, right, qualifier)
