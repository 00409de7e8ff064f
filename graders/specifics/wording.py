"""The small words that change meaning: quantifiers, modality, negation, hedges, opposites,
and now-versus-then. Lexicons in ``lexicons/``; each function compares a claim with a span."""

from __future__ import annotations

import re
from functools import lru_cache

from spanproof.graders.specifics import lexicon

from spanproof.core.memo import memo_list
from spanproof.core.text import STOPWORDS, stem, words

QUANTIFIER_GROUPS: dict[str, frozenset[str]] = {
    k: frozenset(v) for k, v in lexicon.table("quantifier_groups").items()
}
STRONG_QUANTIFIERS = ("all", "most", "none", "only")
STRONG_MODALS = lexicon.words("strong_modals")
OBLIGATION = lexicon.entries("obligation")
BOOSTERS = lexicon.entries("boosters")
HEDGED_MODALS = lexicon.words("hedged_modals")
NEGATIONS = lexicon.words("negations")
HEDGES = lexicon.entries("hedges")
# a claim holding any hedge of its own ("about", "reportedly"), as whole words
_ANY_HEDGE = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, HEDGES)) + r")(?!\w)")
NOW_WORDS = lexicon.entries("now_words")
PAST_ONLY_WORDS = lexicon.entries("past_only_words")
_OPPOSITES: list[tuple[str, str]] = [(a, b) for a, b in lexicon.table("opposites")]
# every word of either side of an opposite pair: ``opposites`` finds nothing for a claim that
# uses none of them
OPPOSITE_WORDS = frozenset(w for pair in _OPPOSITES for side in pair for w in side.split())
_NEG_WORDS = lexicon.words("negation_words")
_NEG_SKIP = STOPWORDS | {"be", "been", "being", "also", "yet", "ever", "even", "really", "only"}
_NEG_WINDOW = 4  # a negation governs a content word at most this many words later


@lru_cache(maxsize=256)  # keyed by the lexicons themselves, not sorted again on every call
def _alternation(phrases: frozenset[str] | tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(re.escape(p) for p in sorted(phrases)) + r")\b")


@lru_cache(maxsize=1024)
def _whole_words(phrase: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(phrase)}\b")


def phrase_in(text_low: str, words_list: frozenset[str] | tuple[str, ...]) -> bool:
    """Whether any of the words or phrases occurs in the text as whole words."""
    return bool(_alternation(words_list).search(text_low))


def has_phrase(low: str, phrases: frozenset[str] | tuple[str, ...]) -> str | None:
    """The first of ``phrases`` (in their order) that occurs in the text as whole words."""
    if not _alternation(phrases).search(low):
        return None
    for p in phrases:
        if _whole_words(p).search(low):
            return p
    return None


@memo_list()
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


def _neg_key(word: str) -> str:
    # the light stemmer leaves short words whole ("race") and strips longer ones ("raced" ->
    # "rac"): a final "e" is dropped too, so the two forms of one verb meet
    st = stem(word)
    return st[:-1] if len(st) > 3 and st.endswith("e") else st


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
        st = _neg_key(t)
        if i - last_neg <= _NEG_WINDOW:
            negated.add(st)
            last_neg = -99  # one negation, one predicate
        else:
            content.add(st)
    return negated, content


@memo_list()
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


_HEDGE_RE = re.compile(
    r"\b("
    + "|".join(re.escape(h) for h in HEDGES)
    + r")\s+(?:be\s+|have\s+|been\s+)?([\w.,$£€%-]+)"
)


@memo_list()
def hedges_dropped(claim: str, span: str) -> list[tuple[str, str]]:
    """(hedge, word): the span hedges a word the claim states flatly.

    "approximately 230 metres" -> "230 metres", "reportedly grew" -> "grew" / "certainly
    grew", "can be made" -> "must be made". Only when the hedged word itself is in the claim
    and the claim carries no hedge of its own.
    """
    c_low = claim.lower()
    if _ANY_HEDGE.search(c_low):
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


@memo_list()
def period_conflicts(claim: str, span: str) -> list[tuple[str, str]]:
    """(claim word, span word) where one text says now and the other says only in the past.

    ("now" and "previously" are left out: "Now 38, he ..." and "had previously announced"
    are about other things; on the WiCE development pairs they fired only on non-conflicts.)
    """
    c_low, s_low = claim.lower(), span.lower()
    out = []
    c_now, s_past = has_phrase(c_low, NOW_WORDS), has_phrase(s_low, PAST_ONLY_WORDS)
    if c_now and s_past and not has_phrase(s_low, NOW_WORDS) and s_past != "former":
        out.append((c_now, s_past))
    c_past, s_now = has_phrase(c_low, PAST_ONLY_WORDS), has_phrase(s_low, NOW_WORDS)
    if (
        c_past and c_past != "former" and s_now and s_now != "remain"
        and not has_phrase(s_low, PAST_ONLY_WORDS)
    ):  # fmt: skip
        out.append((c_past, s_now))
    return out
