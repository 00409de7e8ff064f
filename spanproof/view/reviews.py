"""Reviewer decisions, claim by claim: approve, edit (re-verified first) or cut, with a note.

Decisions are a log in the store (`reviews` table): every decision is kept with its
reviewer and time, and the latest approve / edit / cut per claim is the one in force. A cut
says why: the span does not support the claim as stated (with the reviewer's PARTIAL or
NOT_SUPPORTED), or the claim is not an answer to the question (off-topic: true of its span,
perhaps, but no support label, so it never enters the bench). An edit the verifier refused
can be kept as ``refused`` with the reviewer's SUPPORTED. The support labels are what the
bench keeps (`spanproof goldens add-from-reviews`); a ``refused`` decision changes nothing
that is published. `ReviewDecision` is a decision the viewer has checked and
is about to store.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

Decision = Literal["approve", "edit", "cut", "refused"]
# The decisions that change what is published (the review form's buttons).
DECISIONS: tuple[Decision, ...] = ("approve", "edit", "cut")
Label = Literal["SUPPORTED", "PARTIAL", "NOT_SUPPORTED"]
CUT_LABELS: tuple[Label, ...] = ("NOT_SUPPORTED", "PARTIAL")
CutReason = Literal["not_supported", "not_an_answer"]


class CutChoice(BaseModel):
    """One answer the cut form offers to "why cut it?"."""

    reason: CutReason
    label: Label | None  # the support label the bench keeps; None: not a support judgement
    words: str


# The cut form's choices, by the value the form sends (the first is the default).
CUT_CHOICES: dict[str, CutChoice] = {
    "NOT_SUPPORTED": CutChoice(
        reason="not_supported", label="NOT_SUPPORTED",
        words="not supported by the span: it does not support the claim",
    ),
    "PARTIAL": CutChoice(
        reason="not_supported", label="PARTIAL",
        words="not supported by the span: it supports only part of the claim",
    ),
    "NOT_AN_ANSWER": CutChoice(
        reason="not_an_answer", label=None,
        words="not an answer / off-topic: it does not answer the question (kept out of the bench)",
    ),
}  # fmt: skip


class ReviewDecision(BaseModel):
    run_id: str
    claim_index: int = Field(ge=0)
    decision: Decision
    edited_text: str | None = None
    edited_verdict: dict[str, Any] | None = None  # the verifier's verdict on edited_text
    note: str = Field(default="", max_length=2000)
    reviewer: str = Field(min_length=1, max_length=100)
    label: Label | None = None  # the reviewer's verdict on the pair (cut, refused)
    cut_reason: CutReason | None = None  # why a claim was cut (cuts only)

    @field_validator("reviewer")
    @classmethod
    def _named(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("a decision needs the reviewer's name")
        return value

    @model_validator(mode="after")
    def _cut_reason_matches_label(self) -> ReviewDecision:
        # "not an answer" is no verdict on the span: were it to carry PARTIAL or NOT_SUPPORTED,
        # a fine claim would become a defect the bench holds every judge to
        if self.decision != "cut":
            if self.cut_reason is not None:
                raise ValueError("only a cut has a cut reason")
            return self
        allowed = [c.label for c in CUT_CHOICES.values() if c.reason == self.cut_reason]
        if self.cut_reason is None or self.label not in allowed:
            raise ValueError(
                f"a cut {self.cut_reason or 'without a reason'} cannot be {self.label}"
            )
        return self


def in_force(review: Any) -> bool:
    """Does this decision change what is published? (``refused`` only labels a pair.)"""
    return review.decision in DECISIONS


def latest_by_claim(reviews: Iterable[Any]) -> dict[int, Any]:
    """The decision in force per claim: the last approve / edit / cut made (reviews come
    oldest first)."""
    out: dict[int, Any] = {}
    for r in reviews:
        if in_force(r):
            out[r.claim_index] = r
    return out
