"""Reviewer decisions, claim by claim: approve, edit (re-verified first) or cut, with a note.

Decisions are a log in the store (`reviews` table): every decision is kept with its
reviewer and time, and the latest approve / edit / cut per claim is the one in force. A cut
carries the reviewer's verdict on the claim against its span (PARTIAL or NOT_SUPPORTED), and
an edit the verifier refused can be kept as ``refused`` with the reviewer's SUPPORTED: both
are labels for the bench (`spanproof goldens add-from-reviews`); a ``refused`` decision
changes nothing that is published. `ReviewDecision` is a decision the viewer has checked and
is about to store.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

Decision = Literal["approve", "edit", "cut", "refused"]
# The decisions that change what is published (the review form's buttons).
DECISIONS: tuple[Decision, ...] = ("approve", "edit", "cut")
Label = Literal["SUPPORTED", "PARTIAL", "NOT_SUPPORTED"]
CUT_LABELS: tuple[Label, ...] = ("NOT_SUPPORTED", "PARTIAL")


class ReviewDecision(BaseModel):
    run_id: str
    claim_index: int = Field(ge=0)
    decision: Decision
    edited_text: str | None = None
    edited_verdict: dict[str, Any] | None = None  # the verifier's verdict on edited_text
    note: str = Field(default="", max_length=2000)
    reviewer: str = Field(min_length=1, max_length=100)
    label: Label | None = None  # the reviewer's verdict on the pair (cut, refused)

    @field_validator("reviewer")
    @classmethod
    def _named(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("a decision needs the reviewer's name")
        return value


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
