"""The measured signals the offline judge combines: each is a number computed by code from
(claim, span) alone, with one sentence saying what it measures.

``SIGNALS`` are the candidates; ``params.json`` names the ones the judge uses, chosen by a
backward elimination scored by grouped cross-validation (``spanproof judge train``): a
signal stays only when removing it scores worse. The held-out figure written beside them
runs the same selection inside each fold, so it is not the selection's own training score.
The audit's findings are signals like any other (``graders.findings.findings``): the specifics
it flags as not stated, its wording flags, its proven contradictions. Since flags no longer
lower any verdict, the judge reads them and decides for itself.

Signals tried and removed because the held-out figure of the whole procedure was better
without them as candidates: claim values none of the span's values of the same kind agrees
with, whatever their role (nested objective 0.692 with it, 0.704 without). Removed earlier:
the order of the claim's words in the span, clause-by-clause alignment, the best covered
clause, a span that is only a question or navigation.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from spanproof.graders.clauses import split_clauses
from spanproof.graders.findings import findings
from spanproof.graders.rules.lexical import coverage, keys
from spanproof.graders.specifics import (
    compare,
    extract,
    hedges_dropped,
    negation_conflicts,
    opposites,
    stronger_than_span,
)
from spanproof.graders.specifics.comparison import unestablished

from spanproof.core.sentences import sentences_of


@dataclass
class Reading:
    """One (claim, span) pair, with the analyses several signals share computed once."""

    claim: str
    span: str
    _memo: dict = field(default_factory=dict, repr=False)

    @cached_property
    def coverage(self) -> tuple[float, list[str]]:
        return coverage(self.claim, self.span)

    @cached_property
    def span_sentences(self) -> list[str]:
        return list(sentences_of(self.span))

    @cached_property
    def clauses(self) -> list[str]:
        parts = [p for p in split_clauses(self.claim) if len(keys(p)) >= 2]
        return parts or [self.claim]

    @cached_property
    def unestablished(self):
        return unestablished(self.claim, self.span)

    @cached_property
    def soft(self):
        return compare(self.claim, self.span, soft=True)

    @cached_property
    def audit(self) -> tuple[list, list]:
        """The code audit's proofs (values the span states otherwise in their slot) and flags."""
        return findings(self.claim, self.span)


def _clause_coverage(r: Reading) -> float:
    return min(coverage(c, r.span)[0] for c in r.clauses)


def _substituted(r: Reading) -> float:
    """Words changed in a claim that otherwise follows one sentence of the span: the count
    of the claim's content words missing when its best sentence holds most of the rest."""
    if _sentence_alignment(r) < 0.75:
        return 0.0
    return float(len(r.coverage[1]))


def _sentence_alignment(r: Reading) -> float:
    return max(coverage(r.claim, s)[0] for s in r.span_sentences)


def _bigrams(seq: list[str]) -> set[tuple[str, str]]:
    return set(zip(seq, seq[1:], strict=False))


def _bigram_overlap(r: Reading) -> float:
    wanted = _bigrams(keys(r.claim))
    if not wanted:
        return r.coverage[0]
    return len(wanted & _bigrams(keys(r.span))) / len(wanted)


def _entity_share_missing(r: Reading) -> float:
    n = len(extract(r.claim).entities)
    return sum(1 for m in r.unestablished if m.kind == "entity") / n if n else 0.0


def _soft_kind(*kinds: str) -> Callable[[Reading], float]:
    def fn(r: Reading) -> float:
        return float(sum(1 for m in r.soft if m.kind in kinds))

    return fn


def _aligned(base: Callable[[Reading], float]) -> Callable[[Reading], float]:
    """``base`` weighted by how closely the claim follows one sentence of the span: a
    contradicted specific, a negation or a stronger word is decisive in a claim that
    otherwise repeats the span, and weak evidence in a loose paraphrase."""

    def fn(r: Reading) -> float:
        value = base(r)
        return value * _sentence_alignment(r) if value else 0.0

    return fn


def _opposites(r: Reading) -> float:
    return float(len(opposites(r.claim, r.span)))


def _negation(r: Reading) -> float:
    return float(
        len(negation_conflicts(r.claim, r.span))
        + (extract(r.claim).negated and not extract(r.span).negated)
    )


def _stronger(r: Reading) -> float:
    return float(len(stronger_than_span(r.claim, r.span)))


def _hedge_dropped(r: Reading) -> float:
    return float(len(hedges_dropped(r.claim, r.span)))


def _unstated_share(kind: str, count) -> Callable[[Reading], float]:
    """Share of the claim's numbers (or dates) the audit flags as not stated by the span."""

    def fn(r: Reading) -> float:
        n = len(count(extract(r.claim)))
        return sum(1 for m in r.unestablished if m.kind == kind) / n if n else 0.0

    return fn


def _flags(*kinds: str) -> Callable[[Reading], float]:
    """How many of the audit's flags of these kinds the pair carries."""

    def fn(r: Reading) -> float:
        return float(sum(1 for f in r.audit[1] if f.kind in kinds))

    return fn


def _proven(r: Reading) -> float:
    return float(len(r.audit[0]))


_WORDING_FLAGS = ("negation", "opposite", "modality", "attribution", "joined", "now_then")


@dataclass(frozen=True)
class Signal:
    name: str
    doc: str
    fn: Callable[[Reading], float]


SIGNALS: tuple[Signal, ...] = (
    Signal("coverage", "share of the claim's content words the span contains",
           lambda r: r.coverage[0]),
    Signal("clause_coverage", "coverage of the claim's least covered clause",
           _clause_coverage),
    Signal("substituted", "content words changed in a claim that otherwise follows a sentence",
           _substituted),
    Signal("sentence_alignment", "coverage of the claim by the span's best single sentence",
           _sentence_alignment),
    Signal("bigram_overlap", "share of the claim's adjacent content-word pairs the span has",
           _bigram_overlap),
    Signal("claim_length", "log of the number of the claim's content words",
           lambda r: math.log1p(len(set(keys(r.claim))))),
    Signal("missing_entities", "share of the claim's names the span does not establish (audit)",
           _entity_share_missing),
    Signal("opposite_words", "words whose opposite the span uses instead (rose/fell, won/lost)",
           _opposites),
    Signal("negation_conflict", "words negated on one side and asserted on the other",
           _negation),
    Signal("stronger_claim", "a speaker, certainty, obligation or done deed the span does not give",
           _stronger),
    Signal("quantifier_scope", "a strong quantifier or a wider scope the span does not state",
           _soft_kind("quantifier", "scope")),
    # the same findings weighted by how closely the claim follows one span sentence
    Signal("contradiction_aligned", "values the span states otherwise in the same slot (the "
           "audit's proofs), in a claim that follows one of its sentences", _aligned(_proven)),
    Signal("negation_conflict_aligned", "negation_conflict, in a claim that follows a sentence",
           _aligned(_negation)),
    Signal("stronger_claim_aligned", "stronger_claim, in a claim that follows a sentence",
           _aligned(_stronger)),
    Signal("opposite_words_aligned", "opposite_words, in a claim that follows a sentence",
           _aligned(_opposites)),
    Signal("missing_entities_aligned", "missing_entities, in a claim that follows a sentence",
           _aligned(_entity_share_missing)),
    Signal("quantifier_scope_aligned", "quantifier_scope, in a claim that follows a sentence",
           _aligned(_soft_kind("quantifier", "scope"))),
    Signal("hedge_dropped_aligned", "a hedge of the span (about, may, reportedly) the claim "
           "drops, in a claim that follows a sentence", _aligned(_hedge_dropped)),
    # the audit's findings as the judge's own signals (graders.findings.findings): its flags,
    # which no longer lower any verdict, and its proofs, which do whatever the judge says
    Signal("unstated_numbers", "share of the claim's numbers the audit flags as not stated",
           _unstated_share("number", lambda s: s.numbers)),
    Signal("unstated_dates", "share of the claim's dates the audit flags as not stated",
           _unstated_share("date", lambda s: s.dates)),
    Signal("unstated_code", "reference codes or addresses the audit flags as not stated",
           _flags("code")),
    Signal("wording_flags", "the audit's wording flags: a negation, opposite word, hardened "
           "hedge, uncredited source, joined element or now-for-then", _flags(*_WORDING_FLAGS)),
    Signal("wording_flags_aligned", "wording_flags, in a claim that follows a sentence",
           _aligned(_flags(*_WORDING_FLAGS))),
    Signal("unstated_specifics_aligned", "numbers and dates the audit flags, in a claim that "
           "follows a sentence", _aligned(_flags("number", "date"))),
    Signal("contradiction_proven", "values the span states otherwise in the same slot (the "
           "audit's proofs)", _proven),
)  # fmt: skip
BY_NAME = {s.name: s for s in SIGNALS}
# The audit's findings and coverage alone: the simplest judge worth comparing with (``spanproof
# judge cv --nested`` measures both with the signals chosen inside each fold).
SIMPLE: tuple[str, ...] = (
    "coverage", "missing_entities", "unstated_numbers", "unstated_dates", "unstated_code",
    "wording_flags", "contradiction_proven",
)  # fmt: skip
# The slot reader's proofs as signals: ``spanproof judge cv --nested`` also measures every
# candidate but these, to say whether the judge gains by reading them.
PROOFS: tuple[str, ...] = ("contradiction_aligned", "contradiction_proven")


def measure(claim: str, span: str, names: list[str] | tuple[str, ...] | None = None) -> list[float]:
    """The named signals (all of them by default) for one pair, in order."""
    r = Reading(claim, span)
    return [BY_NAME[n].fn(r) for n in (names or [s.name for s in SIGNALS])]
