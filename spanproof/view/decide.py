"""A reviewer's decision on one claim, checked before it is stored.

- approve: the claim as the run published it. A dropped claim cannot be approved:
  the verifier refused it, and a person's click does not overrule the verifier. A held
  claim (its sources state two values for one of its slots) waits for exactly this person:
  approving it says the reviewer read both values and the claim's is right.
- edit: the new text is verified against the same span, with the run's own judges,
  exactly as the run verified it (span fidelity against the snapshot, instructions in
  the span's paragraph, then the judges and the code audit). Only a SUPPORTED verdict
  lets the edit stand; anything else refuses it and stores nothing. A reviewer edit
  never bypasses the verifier.
- cut: the claim is withdrawn from what is published, with a note and the reason: not
  supported by its span (the reviewer's verdict, NOT_SUPPORTED or PARTIAL: the span supports
  part of it; cutting a flagged claim confirms its flag), or not an answer / off-topic (no
  verdict on the span, so no labelled pair: a claim that equals its span is not a defect).
- refused: an edit the verifier refused, kept because the reviewer says the span supports
  it (the note says why). It is checked again: an edit the verifier now supports is an edit,
  not a disagreement; and it is screened for instructions like any span (the bench judges it
  on every gate run), so an edit that reads as instructions is neither stored nor offered
  for keeping. It changes nothing that is published; it is a labelled pair for the bench
  (`spanproof goldens add-from-reviews`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from spanproof.agent.record import AnswerClaim, RunRecord

from spanproof.core.evidence import Span
from spanproof.core.verdict import SpanRef, Verdict
from spanproof.view.reviews import CUT_CHOICES, ReviewDecision

if TYPE_CHECKING:
    from spanproof.agent.publish import StoredTexts
    from spanproof.graders.verify import Verifier

MAX_CLAIM_CHARS = 600  # the draft schema's limit on a claim


class DecisionRefused(ValueError):
    """The decision was not stored; the message says why and what the reviewer can do."""

    def __init__(self, message: str, verdict: Verdict | None = None, *, keepable: bool = False):
        super().__init__(message)
        self.verdict = verdict
        # a refused edit the reviewer may keep for the bench (never one that reads as
        # instructions)
        self.keepable = keepable


def instructions_in(text: str) -> str | None:
    """What in a reviewer's text reads as instructions to a machine (the detector every span
    goes through), or None."""
    from spanproof.graders.instructions import find_instructions

    found = find_instructions(text)
    return "; ".join(f"{f.rule}: {f.text!r}" for f in found[:3]) if found else None


def claim_of(record: RunRecord, claim_index: int) -> AnswerClaim:
    for claim in record.answer.claims:
        if claim.index == claim_index:
            return claim
    raise KeyError(claim_index)


def supporting_span(record: RunRecord, claim: AnswerClaim) -> Span:
    span_id = claim.supporting_span_id or (claim.span_ids[0] if claim.span_ids else None)
    span = record.span(span_id) if span_id else None
    if span is None:
        raise DecisionRefused(f"claim {claim.index} cites no span stored in run {record.run_id}")
    return span


async def reverify(
    record: RunRecord,
    claim: AnswerClaim,
    text: str,
    verifier: Verifier,
    snapshots: StoredTexts,
) -> Verdict:
    """The verdict the run's verifier gives `text` on the claim's span, after the runtime's checks."""
    from spanproof.agent.publish import instructions_around_spans, span_fidelity_failures

    span = supporting_span(record, claim)
    one = record.model_copy(update={"spans": [span]})
    unfaithful = span_fidelity_failures(one, snapshots)
    if span.span_id in unfaithful:
        return Verdict(
            verdict="NOT_SUPPORTED", judge="span_fidelity", error=unfaithful[span.span_id]
        )
    hostile = instructions_around_spans(one, snapshots)
    if span.span_id in hostile:
        return hostile[span.span_id]
    ref = SpanRef(text=span.text, url=span.url, retrieved_at=span.retrieved_at)
    return await verifier.verify(text, ref, pair_id=f"{record.run_id}:{claim.index}:review")


async def decide(
    record: RunRecord,
    claim_index: int,
    decision: str,  # checked here: an unknown one is refused
    *,
    reviewer: str,
    note: str = "",
    edited_text: str | None = None,
    cut_reason: str | None = None,
    verifier_for: Callable[[RunRecord], Verifier],
    snapshots: StoredTexts,
) -> ReviewDecision:
    """Check a decision and return what to store; raise DecisionRefused otherwise."""
    try:
        claim = claim_of(record, claim_index)
    except KeyError:
        raise DecisionRefused(f"run {record.run_id} has no claim {claim_index}") from None
    if not reviewer.strip():
        raise DecisionRefused("say who decides: fill in the reviewer name")
    base = dict(run_id=record.run_id, claim_index=claim_index, note=note.strip(), reviewer=reviewer)
    if decision == "approve":
        if claim.status == "dropped":
            raise DecisionRefused(
                "this claim was dropped because the verifier did not support it "
                f"({claim.verdict.verdict}); approving it would publish what the verifier refused. "
                "Edit it instead: the edited text is verified against the same span."
            )
        return ReviewDecision(decision="approve", **base)
    if decision == "cut":
        if claim.status == "dropped":
            raise DecisionRefused("this claim was already dropped by the verifier; nothing to cut")
        choice = CUT_CHOICES.get(cut_reason or "NOT_SUPPORTED")
        if choice is None:
            raise DecisionRefused(
                f"say why the claim is cut: one of {', '.join(CUT_CHOICES)}, not {cut_reason!r}"
            )
        return ReviewDecision(decision="cut", cut_reason=choice.reason, label=choice.label, **base)
    if decision == "refused":
        if not base["note"]:
            raise DecisionRefused(
                "say in the note why the span supports the edit: the note is what the bench "
                "keeps as the reason for the label"
            )
        text = _edited(edited_text)
        hostile = instructions_in(text)
        if hostile:
            raise DecisionRefused(
                f"the edit reads as instructions to a machine ({hostile}); a refused edit kept "
                "for the bench is judged on every gate run, so it is screened like any span. "
                "Nothing was stored: write the claim as a plain statement of what the span says."
            )
        verdict = await reverify(record, claim, text, verifier_for(record), snapshots)
        if verdict.supported:
            raise DecisionRefused(
                "the verifier supports this edit now; approve it as an edit instead", verdict
            )
        return ReviewDecision(
            decision="refused", edited_text=text, edited_verdict=verdict.model_dump(mode="json"),
            label="SUPPORTED", **base,
        )  # fmt: skip
    if decision == "edit":
        text = _edited(edited_text)
        verdict = await reverify(record, claim, text, verifier_for(record), snapshots)
        if not verdict.supported:
            why = (
                verdict.error
                or verdict.unsupported_element
                or ", ".join(c.name for c in verdict.checks if c.fired)
            )
            hostile = instructions_in(text)
            raise DecisionRefused(
                f"the verifier did not support the edited claim: {verdict.verdict}"
                + (f" ({why})" if why else "")
                + ". Nothing was stored; narrow the claim to what the span says."
                + (
                    f" It reads as instructions ({hostile}), so it cannot be kept for the bench."
                    if hostile
                    else ""
                ),
                verdict=verdict,
                keepable=hostile is None,
            )
        return ReviewDecision(
            decision="edit",
            edited_text=text,
            edited_verdict=verdict.model_dump(mode="json"),
            **base,
        )
    raise DecisionRefused(f"unknown decision {decision!r}; use approve, edit or cut")


def _edited(edited_text: str | None) -> str:
    text = " ".join((edited_text or "").split())
    if not text:
        raise DecisionRefused("the edited claim is empty; write the claim as it should read")
    if len(text) > MAX_CLAIM_CHARS:
        raise DecisionRefused(f"the edited claim has {len(text)} characters; the limit is 600")
    return text
