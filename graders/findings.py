"""What the audit reads from a (claim, span) pair whatever the verdict: the contradictions code
proves, the flags it raises, the span's words addressed to a machine and the span's best
quote (``PairFindings``). This is the costly part of the audit (the slot reader, the flags'
readers, the instruction detector), kept apart from applying it to a verdict
(``graders.audit.audit``) so that a process which gets the findings from the audit's
workers (``graders.audit_pool``) never imports these readers.
"""

from __future__ import annotations

from functools import lru_cache

from spanproof.graders.findings_model import SPECIFIC_FLAG, PairFindings
from spanproof.graders.instructions import find_instructions
from spanproof.graders.quoting import best_window
from spanproof.graders.specifics import compare
from spanproof.graders.specifics.attribution import credited_elsewhere
from spanproof.graders.specifics.comparison import named_only_by_pronoun
from spanproof.graders.specifics.coordination import coordination_departures
from spanproof.graders.specifics.polarity import polarity_departures
from spanproof.graders.specifics.slot_reader import (
    Contradiction,
    contradictions,
    stated_after_normalising,
)
from spanproof.graders.specifics.wording import period_conflicts

from spanproof.core.verdict import Flag, Place, Proof

_POLARITY_FLAG = {"negation": "negation", "direction": "opposite", "modality": "modality"}


def _place(text: str, at: tuple[int, int]) -> Place:
    return Place(text=text[at[0] : at[1]], start=at[0], end=at[1])


def contradiction_proof(claim: str, span: str, c: Contradiction) -> Proof:
    (ca, cb, ctext), (sa, sb, stext) = c.claim_value, c.span_value
    rests = _place(span, c.span_words)
    what = "predicate" if c.kind == "event" else c.kind
    return Proof(
        kind="contradiction",
        reason=(
            f"the claim's {what} {ctext!r} is stated otherwise in the span: {stext!r} "
            f"in {rests.text!r}"
        ),
        claim_value=_place(claim, (ca, cb)),
        span_value=_place(span, (sa, sb)),
        rests_on=rests,
    )


def _specific_flags(claim: str, span: str, proven: set[str]) -> list[Flag]:
    out = []
    mismatches = compare(claim, span)
    # read only when there is a mismatch to excuse: most pairs have none, and it is dear
    stated = stated_after_normalising(claim, span) if mismatches else ()
    for m in mismatches:
        if any(p and (p in m.element or m.element in p) for p in proven):
            continue  # the proof already says it, with the span's value
        if any(v and (v in m.element or m.element in v) for v in stated):
            continue  # stated in another form the slot reader reads as the same value
        kind = SPECIFIC_FLAG.get(m.kind, m.kind)
        what = {"code": "reference code or address"}.get(kind, kind)
        out.append(
            Flag(
                kind=kind,
                reason=f"{what} the span does not state: {m.element}",
                claim_words=m.element,
            )
        )
    for name in named_only_by_pronoun(claim, span):
        out.append(
            Flag(
                kind="pronoun",
                reason=f"the span never names {name}; it says 'he', 'she', 'it' or 'they'",
                claim_words=name,
            )
        )
    return out


def _wording_flags(claim: str, span: str) -> list[Flag]:
    out = []
    for d in polarity_departures(claim, span):
        out.append(
            Flag(kind=_POLARITY_FLAG[d.kind], reason=f"{d.kind}: {d}", claim_words=d.said or d.part)
        )
    for who in credited_elsewhere(claim, span):
        out.append(
            Flag(
                kind="attribution",
                reason=f"according to {who}: the span never names them",
                claim_words=who,
            )
        )
    for c in coordination_departures(claim, span):
        out.append(Flag(kind="joined", reason=f"joined on: {c}", claim_words=str(c).split(" (")[0]))
    for said, answered in period_conflicts(claim, span):
        out.append(Flag(kind="now_then", reason=f"{said} (span: {answered})", claim_words=said))
    return out


def findings(claim: str, span: str) -> tuple[list[Proof], list[Flag]]:
    """What code finds in a (claim, span) pair whatever the verdict: the contradictions it
    proves and the flags it raises (the quote and instruction checks need the verdict)."""
    proofs, flags = _findings(claim, span)
    return [p.model_copy() for p in proofs], [f.model_copy() for f in flags]


@lru_cache(maxsize=4096)
def _findings(claim: str, span: str) -> tuple[tuple[Proof, ...], tuple[Flag, ...]]:
    # cached: the rules judge reads the same findings as signals just before the audit runs
    proofs = [contradiction_proof(claim, span, c) for c in contradictions(claim, span)]
    proven = {p.claim_value.text for p in proofs if p.claim_value}
    return tuple(proofs), tuple(_specific_flags(claim, span, proven) + _wording_flags(claim, span))


def pair_findings(claim: str, span_text: str) -> PairFindings:
    proofs, flags = _findings(claim, span_text)
    addressed = find_instructions(span_text)
    return PairFindings(
        proofs=proofs,
        flags=flags,
        addressed="; ".join(f"{f.rule}: {f.text!r}" for f in addressed) if addressed else None,
        best_quote=best_window(claim, span_text),
    )
