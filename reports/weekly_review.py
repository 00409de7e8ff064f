"""The weekly report's review part: flagged claims, what reviewers decided, the backlog.

A lead reads here what the verifier left to people and what people did with it:
- **flagged claims**: every claim still in a brief that carries a flag ("needs a look"),
  with the decision in force on it, or none yet;
- **decisions**: the decisions in force on the period's published claims (approve, edit,
  cut) and the share a reviewer cut;
- **backlog**: claims still in a brief that the verifier does not vouch for (not SUPPORTED, or
  flagged) and no reviewer has decided, and the runs signed against those waiting for a
  signature (the claim ledger's acceptance rule, ``spanproof.agent.signoff``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field
from spanproof.agent.ledger import citation_numbers
from spanproof.agent.signoff import decisions_in_force, sign_off, vouched_by_verifier

from spanproof.store.models import Review, Signature


class FlaggedClaim(BaseModel):
    run_id: str
    created_at: str
    citation: int  # the answer's [n]
    claim: str
    flags: list[str]
    status: str
    decision: str | None = None  # the decision in force, if any
    reviewer: str | None = None


class WaitingRun(BaseModel):
    run_id: str
    created_at: str
    question: str
    waiting_on: list[str]  # empty: every claim is decided, nobody signed yet


class ReviewPart(BaseModel):
    published_claims: int = 0
    reviewed: int = 0
    approve: int = 0
    edit: int = 0
    cut: int = 0
    cut_share: float | None = None
    flagged: list[FlaggedClaim] = Field(default_factory=list)
    flagged_undecided: int = 0
    undecided_claims: int = 0  # the backlog: claims the verifier does not vouch for, undecided
    runs_signed: int = 0
    runs_waiting: list[WaitingRun] = Field(default_factory=list)


def review_part(
    records: Sequence[Any],
    reviews: Mapping[str, Sequence[Review]],
    signatures: Mapping[str, Sequence[Signature]],
) -> ReviewPart:
    """The review part over ``records`` (the window's runs, oldest first)."""
    part = ReviewPart()
    for record in records:
        run_reviews = list(reviews.get(record.run_id, []))
        decided = decisions_in_force(run_reviews)
        number = citation_numbers(record)
        shown = record.answer.shown
        part.published_claims += len(shown)
        for claim in shown:
            review = decided.get(claim.index)
            if review is not None:
                part.reviewed += 1
                setattr(part, review.decision, getattr(part, review.decision) + 1)
            elif not vouched_by_verifier(claim):
                part.undecided_claims += 1
            if claim.verdict.flags:
                part.flagged_undecided += review is None
                part.flagged.append(FlaggedClaim(
                    run_id=record.run_id, created_at=record.created_at,
                    citation=number[claim.index], claim=claim.text,
                    flags=[f.reason for f in claim.verdict.flags], status=claim.status,
                    decision=review.decision if review else None,
                    reviewer=review.reviewer if review else None,
                ))  # fmt: skip
        standing = sign_off(record, run_reviews, list(signatures.get(record.run_id, [])))
        if standing.state == "signed":
            part.runs_signed += 1
        else:
            part.runs_waiting.append(WaitingRun(
                run_id=record.run_id, created_at=record.created_at,
                question=record.question[:80], waiting_on=standing.waiting_on,
            ))  # fmt: skip
    if part.published_claims:
        part.cut_share = part.cut / part.published_claims
    return part
