"""Negation and direction against the span sentence a claim follows.

A claim that says "X was not selected" while the span sentence it is built from says "the
library selected X" reverses the span; a word-by-word check misses it whenever the negated
word is paraphrased ("tapped", "chose"). Here each part of the claim (its sentences, split
again at ", and" / ", but" / ";") that carries a negation (the ``negations`` lexicon) is
aligned with the span sentence sharing most of its content words; when that sentence
carries no negation at all, the claim denies what its source sentence asserts.

The same alignment finds a reversed direction: a part of the claim using a word whose
opposite (the ``opposites`` lexicon: rose/fell, joined/left, positive/negative) its span
sentence uses instead ("staff considered the Pounceys a negative influence" / "... a positive
influence"). Over the whole span that comparison fires on sentences the claim does not
follow ("the investigation remains open" against "the cases will not be closed"); against
the aligned sentence it did not fire on any WiCE development SUPPORTED pair.

Quoted text is left out on both sides: "Never Ever Getting Back Together" is a title, and a
quotation the claim repeats carries the span's own polarity.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from spanproof.graders.specifics.extract import modals, negates
from spanproof.graders.specifics.wording import BOOSTERS, OPPOSITE_WORDS, has_phrase, opposites

from spanproof.core.sentences import sentences_of
from spanproof.core.text import content_stems, words

# A negated part is compared only when it follows one span sentence this closely (share of
# its content words): below it the claim is a loose paraphrase and the sentence found may
# not be its source. Chosen on the WiCE development pairs' SUPPORTED claims and the
# planted failures made from them (never on the calibration set): at 0.4 it fired on 1 of
# 115 SUPPORTED pairs and on none of the 950 synthetic supported sentences.
MIN_ALIGNMENT = 0.4
MIN_PART_WORDS = 3  # "Not yet." aligns with anything
_QUOTED = re.compile(r"\"[^\"]{2,300}\"|“[^”]{2,300}”|‘[^’]{2,300}’|(?<!\w)'[^']{2,300}'(?!\w)")
_PARTS = re.compile(r",\s+(?:and|but|while|whereas|although|though|yet)\s+|;\s+|\s+but\s+", re.I)


@dataclass(frozen=True)
class Departure:
    kind: str  # "negation" | "direction" | "modality"
    part: str  # the claim's words that depart
    sentence: str  # the span sentence the part follows
    alignment: float  # share of the part's content words that sentence holds
    said: str = ""  # direction: the claim's word, and the span sentence's opposite
    answered: str = ""

    def __str__(self) -> str:
        if self.kind == "direction":
            return f"{self.said} (span: {self.answered})"
        if self.kind == "modality" and not self.sentence:
            return f"{self.said} (the span states no such certainty)"
        if self.kind == "modality":
            return f"{_short(self.part)} (its span sentence hedges: {_short(self.sentence)})"
        return f"{_short(self.part)} (its span sentence negates nothing: {_short(self.sentence)})"


def _short(text: str, n: int = 90) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _keys(text: str) -> frozenset[str]:
    # a 5-letter stem prefix joins derived forms ("selected"/"selection")
    return frozenset(s[:5] for s in content_stems(text))


def _unquoted(text: str) -> str:
    return _QUOTED.sub(" ", text)


def claim_parts(claim: str) -> list[str]:
    """The claim's sentences, split again where a new clause starts."""
    out = []
    for sentence in sentences_of(claim):
        out += [p for p in _PARTS.split(sentence) if p.strip()]
    return out


def _may_depart(part: str) -> bool:
    """Whether ``polarity_departures`` can find anything in a claim part, against whatever
    sentence: the part negates, states a strong modal, or uses a word of an opposite pair
    (``opposites`` finds none without one)."""
    return negates(part) or modals(part)[0] or not OPPOSITE_WORDS.isdisjoint(words(part))


def _aligned_parts(claim: str, span: str):
    """(claim part, the span sentence sharing most of its content words, that share), for
    the parts that may depart from their sentence (``_may_depart``)."""
    read: list[tuple[str, frozenset[str], bool]] | None = None
    for part in claim_parts(_unquoted(claim)):
        wanted = _keys(part)
        if len(wanted) < MIN_PART_WORDS or not _may_depart(part.strip()):
            continue
        if read is None:
            # each sentence's words and polarity read once, not again for every part of the
            # claim, and not at all for a claim no part of which may depart (most claims)
            read = [(s, _keys(s), negates(s)) for s in map(_unquoted, sentences_of(span))]
        # Of the sentences sharing as many words, the one of the part's own polarity: a span
        # that says both "X" and "not X" states the claim's "not X" (no departure to flag).
        is_negated = negates(part)
        best, best_keys, _ = max(read, key=lambda r: (len(wanted & r[1]), r[2] == is_negated))
        alignment = len(wanted & best_keys) / len(wanted)
        if alignment >= MIN_ALIGNMENT:
            yield part.strip(), best.strip(), round(alignment, 2)


def polarity_departures(claim: str, span: str) -> list[Departure]:
    """Parts of the claim that negate what their span sentence asserts, use the opposite of
    its word, or state as obligation or certainty what it hedges ("must" / "is expected to";
    "will" / "may"); and a certainty ("certainly", "definitely") the span never states."""
    out = []
    for part, sentence, alignment in _aligned_parts(claim, span):
        if negates(part) and not negates(sentence):
            out.append(Departure("negation", part, sentence, alignment))
        for said, answered in opposites(part, sentence):
            out.append(Departure("direction", part, sentence, alignment, said, answered))
        (c_strong, _), (s_strong, s_hedged) = modals(part), modals(sentence)
        if c_strong and s_hedged and not s_strong:
            out.append(Departure("modality", part, sentence, alignment))
    # a certainty the span never states anywhere ("certainly grew close" / "grew close")
    booster = has_phrase(claim.lower(), BOOSTERS)
    if booster and not has_phrase(span.lower(), BOOSTERS):
        out.append(Departure("modality", booster, "", 0.0, booster, ""))
    return out
