"""The slot a claim's value and a span's value share when the span words the statement
differently: alignment by uniqueness.

Writers rarely repeat a claim's words: "the male lion weighed 190 kg" is "keepers said the
male lion tipped the scales at 230 kilograms"; "the treaty was signed on 12 March 1951" is "the
treaty, signed in Lisbon on March 21, 1951". The word-by-word same-statement test
(``slot_reader._same_statement``) reads "Lisbon" or "Keepers", words the claim lacks, as a sign
of another statement. What the sentence *holds* tells the reader more than its wording:

1. **What says what is measured.** Either the words next to both values align (the reader's
   anchors "near", "noun", "counts", "after": "signed ... on" / "signed ... on"), or the
   measure says it by itself: a length, an area, a mass, a length of time, an age. A date, a
   sum of money or a share needs the words: the only date of a sentence may date another
   deed ("a war that had begun in 1618" / "signed in 1648"), the only sum be another sum ("a
   budget of $40 million" / "grossed $90 million"). A count or a rank needs the same counted
   noun on both sides.
2. **One value of the measure each side.** The claim's value is the only value of its measure
   in the claim, and the span sentence holds no other value that could fill the claim's slot
   (its other values are of other kinds: a date beside a weight, a length beside a mass; or
   in another role than the one the claim names: "rose to 388 members ... from 301").
3. **The same thing.** At least one of the claim's nouns (synonyms count, a name counts when
   any of its words does) is in the clause of the span's value, every name of the claim is
   ("he" is no name), and no noun of the claim is in the span only outside that sentence.
4. **Compatible qualifiers.** Each other value of the claim (a year, a month) that the span
   sentence answers with a value of the same measure is stated there: another year makes
   another statement. A part the span counts ("12 wind players") must be named in the claim.
5. **No narrower thing.** A word one side puts right before a noun both hold, or after it
   through "of" or "for", which the other lacks ("European revenue" / "revenue", "support for
   the measure" / "support") narrows what is measured: another statement. A word elsewhere
   (where the event happened, who reported it) adds to the statement without changing what
   is measured.

A proof from such a slot still needs, as every proof, a value that differs beyond the precision
either side writes and the claim's value stated nowhere in the span (``slot_reader``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from spanproof.graders.specifics.concepts import verb_form
from spanproof.graders.specifics.slot_agreement import comparable_frames, group_agrees
from spanproof.graders.specifics.slot_frames import (
    Frame,
    Layout,
    Tok,
    counted_noun,
    hedge_start,
    outside,
)
from spanproof.graders.specifics.slots import members

# prepositions that leave a value's role unchanged on top of the reader's own (``_SAME_ROLE``):
# a change written with or without "by" ("grew by 12%" / "rose 21 per cent")
_CHANGE_PREPS = frozenset({"by", None})

# what joins a noun to the noun that narrows it after it ("support for the measure")
_OF_GAP = re.compile(r"\s+(?:of|for)\s+(?:(?:the|a|an|its|their)\s+)?", re.I)

# a gap of at most this many characters between two words that are one noun phrase
# ("European revenue", "the county's population"): a space, no punctuation
_ADJACENT_GAP = 1


def _alone(frames: list[Frame], lay: Layout, f: Frame, of: Frame, same_prep: SamePrep) -> bool:
    """No other value in ``f``'s sentence (its own list or range aside) that could fill the
    slot of ``of`` (the claim's value): one of its measure, in its role when the claim names
    one ("fell to 4.1 per cent" / "fell to 4.7 per cent from 5.0 per cent": the value it fell
    from is no rival for the value it fell to; a bare "weighed 190 kg" may be either of "230
    kilograms, up from 210")."""
    own = members(lay.values, f.value)
    return not any(
        g.sentence == f.sentence and g.value not in own and comparable_frames(of, g)
        and (of.prep is None or _roles_agree(of, g, same_prep))
        for g in frames
    )  # fmt: skip


def _unread_bound(lay: Layout, f: Frame) -> bool:
    """A hedge or a bound stands before the value ("more than", "nearly") but its reading is a
    point: compared as a point, it would disagree with values it allows."""
    return hedge_start(lay.text, f.value.start) < f.value.start and not any(
        r.hedge for r in f.readings
    )


def _keys_of(lay: Layout, span: tuple[int, int]) -> frozenset:
    return frozenset().union(*(t.keys for t in lay.toks if span[0] <= t.start < span[1]))


def _roles_agree(cf: Frame, sf: Frame, same_prep: SamePrep) -> bool:
    if same_prep(cf.prep, sf.prep):
        return True
    shares = any(r.dim == "share" for r in cf.readings)
    return shares and cf.prep in _CHANGE_PREPS and sf.prep in _CHANGE_PREPS


def _sentence_toks(lay: Layout, f: Frame) -> tuple[Tok, ...]:
    a, b = f.sentence
    return outside((t for t in lay.toks if a <= t.start and t.end <= b), f.value)


def _nouns(toks) -> list[Tok]:
    """The words that name things (not the verbs that say what happened to them)."""
    return [t for t in toks if t.run >= 0 or not verb_form(t.word, after_noun=True)]


def _narrowed(lay: Layout, toks, held: list[bool]) -> bool:
    """A word not held by the other side standing right before a word that is ("European
    revenue"), or after it through "of" or "for" ("support for the measure", "the population
    of the county"): it narrows what both speak of."""
    for (t, h), (u, hu) in zip(zip(toks, held, strict=True), zip(toks[1:], held[1:], strict=True),
                               strict=False):  # fmt: skip
        gap = lay.text[t.end : u.start]
        before = not h and hu and len(gap) <= _ADJACENT_GAP and not gap.strip() and t.run < 0
        if (
            before
            and not verb_form(t.word, after_noun=True)
            and not verb_form(u.word, after_noun=True)
        ):
            return True  # a word before a noun ("jobless rate dropped": "dropped" is no noun)
        if h and not hu and _OF_GAP.fullmatch(gap) and not verb_form(u.word, after_noun=True):
            return True
    return False


def _qualifiers_agree(c_lay: Layout, c_frames, cf: Frame, s_frames, sf: Frame) -> bool:
    """Every other value of the claim that the span sentence answers with a value of the same
    measure is stated there ("in 2022" / "in 2022"; not "in 2021")."""
    own = members(c_lay.values, cf.value)
    for g in c_frames:
        if g.value in own or g.value.kind == "name" or not g.readings:
            continue
        rivals = [h for h in s_frames if h.sentence == sf.sentence and h is not sf
                  and comparable_frames(g, h)]  # fmt: skip
        if rivals and not any(group_agrees([g], [h]) is True for h in rivals):
            return False
    return True


@dataclass(frozen=True)
class Side:
    """One text at the value being aligned: its layout, the value's frame and every frame of
    the text (the claim's or the span's)."""

    lay: Layout
    frame: Frame
    frames: list[Frame]


# the reader's test of a preposition's role: the claim value's, the span value's
SamePrep = Callable[[str | None, str | None], bool]
# the reader's test of words held by a text: for each token, is it among the keys (a name
# when any of its words is), reading the tokens' own layout for their name runs
Held = Callable[[Sequence[Tok], Layout, frozenset], list[bool]]


def unique_slot(
    claim: Side, span: Side, *, same_prep: SamePrep, held: Held, anchored: bool
) -> bool:
    """Whether the claim's value and the span's fill one slot by uniqueness (module doc).
    ``anchored``: the words next to both values align (the reader's worded anchors)."""
    c_lay, cf, c_frames = claim.lay, claim.frame, claim.frames
    s_lay, sf, s_frames = span.lay, span.frame, span.frames
    if cf.value.kind == "name" or sf.value.kind == "name" or not cf.readings:
        return False
    if not comparable_frames(cf, sf) or not _roles_agree(cf, sf, same_prep):
        return False
    if _unread_bound(c_lay, cf) or _unread_bound(s_lay, sf):
        return False  # "more than a decade" read as ten years would disagree with "over 11"
    counts = any(r.dim in ("count", "ordinal") for r in cf.readings)
    if counts and not counted_noun(c_lay.text, cf) & counted_noun(s_lay.text, sf):
        return False  # a bare count says nothing of what it counts: "16 piers" / "30 metres"
    if cf.right and sf.right and not (cf.right & sf.right):
        return False  # they measure different things
    if sf.qualifier and not sf.qualifier & _keys_of(c_lay, cf.clause):
        return False  # the span counts a part the claim does not name ("12 wind players")
    physical = all(
        (r.dim.startswith("[") and r.dim != "[time]") or r.dim == "age" for r in cf.readings
    )
    if not (anchored or physical or _lasts_in_its_clause(c_lay, cf, s_lay, sf, held)):
        return False  # a date, a sum or a share of another deed ("begun in 1618" / "signed
        # in 1648"; "won the cup in 2019"): only a physical measure or an age says what it
        # measures by itself, and a length of time only of what its own clause names
    if not (
        _alone(c_frames, c_lay, cf, cf, same_prep) and _alone(s_frames, s_lay, sf, cf, same_prep)
    ):
        return False
    if not _qualifiers_agree(c_lay, c_frames, cf, s_frames, sf):
        return False
    return _same_thing(c_lay, cf, s_lay, sf, held)


def _lasts_in_its_clause(c_lay: Layout, cf: Frame, s_lay: Layout, sf: Frame, held: Held) -> bool:
    """A length of time is how long a deed lasted: it fills the claim's slot only when its own
    clause names a thing the claim's does ("two-year term as mayor" / "was mayor for four
    years"), not when another clause of the sentence does ("sat as a magistrate for nineteen
    years and was also chairman of the committee" / "chaired the committee for ten years")."""
    if not all(r.dim == "[time]" for r in cf.readings):
        return False
    things = [t for t in _nouns(_sentence_toks(c_lay, cf)) if t.run < 0]
    return any(held(things, c_lay, _keys_of(s_lay, sf.clause)))


def _same_thing(c_lay: Layout, cf: Frame, s_lay: Layout, sf: Frame, held: Held) -> bool:
    c_toks = _sentence_toks(c_lay, cf)
    s_toks = _sentence_toks(s_lay, sf)
    s_keys = _keys_of(s_lay, sf.clause)  # "revenue rose, while profit fell 3%": the clause's
    c_keys = frozenset().union(*(t.keys for t in c_toks))
    nouns = _nouns(c_toks)
    c_held = held(nouns, c_lay, s_keys)
    if not any(c_held):
        return False  # nothing the claim names is in the sentence: maybe another thing
    if any(t.run >= 0 and not h for t, h in zip(nouns, c_held, strict=True)):
        return False  # a name of the claim's the sentence lacks ("he" is no name)
    rest_of_span = frozenset().union(
        *(t.keys for t in s_lay.toks if not sf.sentence[0] <= t.start < sf.sentence[1])
    )
    if any(t.keys & rest_of_span for t, h in zip(nouns, c_held, strict=True) if not h):
        return False  # the claim's thing is in the span, outside this sentence
    if _narrowed(c_lay, c_toks, held(c_toks, c_lay, s_keys)):
        return False
    return not _narrowed(s_lay, s_toks, held(s_toks, s_lay, c_keys))
