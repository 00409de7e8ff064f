"""Who a sentence says is speaking: "X said", "according to X", "his doctors told"; and
opinion markers ("In my view", "said columnist")."""

from __future__ import annotations

import re

from spanproof.graders.specifics.names import (
    COMMON_CAPITALISED,
    entity_present,
    entity_tokens,
    token_set,
)

from spanproof.core.prefilter import guarded
from spanproof.core.text import STOPWORDS

_ATTRIB_RE = re.compile(
    r"(?:(?i:according to)\s+(?P<a>(?:the\s+)?[\w.’'\- ]{2,60}?)(?=[,;]|\.(?:\s|$)|$| said| says)"
    r"|(?P<b>[A-Z][\w.’'\-]+(?:\s(?:of|the|de|[A-Z][\w.’'\-]+)){0,5})\s+(?:said|says|stated|states|told|announced|reported|claimed|claims|wrote|argued|noted|added|confirmed))"
)
REPORTING = (
    r"(?:said|says|say|stated|states|told|tells|announced|announces|reported|reports|claimed|"
    r"claims|wrote|writes|argued|argues|noted|notes|added|confirmed|confirms|insisted|"
    r"revealed|reveals|estimated|estimates|warned|warns|predicted|predicts|believes|believed)"
)
_REPORTED_BY = re.compile(rf"\b(\w[\w’'-]*)\s+(?:has\s+|have\s+|had\s+)?{REPORTING}\b")
SPAN_ATTRIBUTES = guarded(
    re.compile(
        rf"\b{REPORTING}\b|\baccording to\b|\b(?:by|from) (?:his|her|their|its|the) "
        r"(?:publicist|spokes\w+|lawyer|agent|office|ministry|department)\b",
        re.I,
    )
)
_NOT_AN_ACTOR = STOPWORDS | {"he", "she", "they", "it", "we", "i", "you", "who", "which", "that",
                            "also", "later", "previously", "publicly", "has", "have", "had",
                            "recently", "officially", "first", "then", "once"}  # fmt: skip
OPINION = guarded(
    re.compile(
        r"\b(?:in my (?:view|opinion)|in our (?:view|opinion)|i think|i believe|we believe|"
        r"i would argue|to my mind|(?:said|says|writes|wrote) (?:the )?(?:columnist|commentator|"
        r"blogger|pundit)|columnist|op-ed|opinion:)",
        re.I,
    )
)
CLAIM_HEDGED = guarded(
    re.compile(
        rf"\b{REPORTING}\b|\baccording to\b|\b(?:in (?:his|her|their|my|our) (?:view|opinion)|"
        r"believes?|thinks?|argues?|opinion)\b",
        re.I,
    )
)


def attributions_in(text: str) -> list[str]:
    """Named speakers: "X said" with X capitalised, and "according to X"."""
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
    return attribs


def claim_attributions(claim: str) -> list[str]:
    """Who the claim says is speaking: "X said" (the word before the reporting verb, so
    lower-case actors count too: "his doctors", "regulators") and "according to X"."""
    out = attributions_in(claim)
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


_ACCORDING = re.compile(
    r"(?i:according to)\s+(?P<who>(?:the\s+|an?\s+)?[\w.’'\- ]{2,60}?)(?=[,;]|\.(?:\s|$)|$)"
)


def credited_elsewhere(claim: str, span: str) -> list[str]:
    """Sources the claim credits ("according to the World Bank", "according to the company's
    chief executive") that the span never names, word for word: crediting a statement to
    someone the span does not is a different claim (docs/architecture.md: "different attribution"). Every
    word of the source must be in the span; the head-word rule names use elsewhere would
    let "the World Bank" pass on "World-exclusive"."""
    tokens: set[str] | None = None  # the span's, read only for a claim that credits someone
    out = []
    for m in _ACCORDING.finditer(claim):
        who = m.group("who").strip()
        if not entity_tokens(who):
            continue
        if tokens is None:
            tokens = token_set(span)
        if not entity_present(who, tokens, strict=True):
            out.append(who)
    return out
