"""Reviewer decisions, claim by claim: approve, edit (re-verified first) or cut, with a note.

Decisions are a log in the store (`reviews` table): every decision is kept with its
reviewer and time, and the latest one per claim is the one in force. `ReviewDecision`
is a decision the viewer has checked and is about to store.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator

Decision = Literal["approve", "edit", "cut"]
DECISIONS: tuple[Decision, ...] = ("approve", "edit", "cut")


class ReviewDecision(BaseModel):
    run_id: str
    claim_index: int = Field(ge=0)
    decision: Decision
    edited_text: str | None = None
    edited_verdict: dict[str, Any] | None = None  # the verifier's verdict on edited_text
    note: str = Field(default="", max_length=2000)
    reviewer: str = Field(min_length=1, max_length=100)

    @field_validator("reviewer")
    @classmethod
    def _named(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("a decision needs the reviewer's name")
        return value


def latest_by_claim(reviews: Iterable[Any]) -> dict[int, Any]:
    """The decision in force per claim: the last one made (reviews come oldest first)."""
    out: dict[int, Any] = {}
    for r in reviews:
        out[r.claim_index] = r
    return out
