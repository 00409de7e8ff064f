"""The claim ledger's acceptance rule: when a reviewer may sign a run, and what a signature is.

A reviewer vouches for a run's brief by signing it. The rule is the ledger's own: every
claim that remains in the brief (not dropped by the verifier) is either SUPPORTED with no
flag on it (the verifier vouches for it) or carries a reviewer's decision in force (approve,
edit or cut; a ``refused`` edit kept for the bench decides nothing). A run that did not
complete is never signed: its brief is not the one it would have written.

A signature vouches for the brief as it stood: a decision recorded after it changes the
brief, so the signature stops being in force and the run waits for a new one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel
from spanproof.agent.ledger import ReviewLike, citation_numbers, ledger_with_reviews
from spanproof.agent.record import AnswerClaim, LedgerRow, RunRecord

if TYPE_CHECKING:
    from spanproof.store.models import Signature
    from spanproof.store.store import Store

PUBLISHING = ("approve", "edit", "cut")


class SignatureLike(Protocol):
    @property
    def reviewer(self) -> str: ...
    @property
    def signed_at(self) -> datetime: ...


class SignOff(BaseModel):
    """A run's standing: signed (by whom, when), or waiting (and on what)."""

    state: Literal["signed", "waiting"]
    signed_by: str | None = None
    signed_at: str | None = None  # ISO 8601, UTC
    # Why it cannot be signed yet: one line per claim that needs a decision (or the status).
    waiting_on: list[str] = []
    # A signature made before a later decision (no longer in force), kept so the page says so.
    superseded_by_decision: bool = False

    @property
    def signable(self) -> bool:
        return self.state == "waiting" and not self.waiting_on


def decisions_in_force(reviews: Iterable[ReviewLike]) -> dict[int, ReviewLike]:
    """The decision in force per claim index: the latest approve, edit or cut."""
    latest: dict[int, ReviewLike] = {}
    for r in reviews:  # oldest first, as the store lists them
        if r.decision in PUBLISHING:
            latest[r.claim_index] = r
    return latest


def vouched_by_verifier(claim: AnswerClaim) -> bool:
    v = claim.verdict
    return v.error is None and v.verdict == "SUPPORTED" and not v.flags


def waiting_on(record: RunRecord, reviews: Iterable[ReviewLike]) -> list[str]:
    """What stands between the run and a signature; empty when a reviewer may sign it."""
    if record.status != "complete":
        return [f"the run is {record.status}, not complete: only a complete brief is signed"]
    decided = decisions_in_force(reviews)
    number = citation_numbers(record)
    out = []
    for claim in record.answer.shown:
        if vouched_by_verifier(claim) or claim.index in decided:
            continue
        v = claim.verdict
        why = (
            "judge error"
            if v.error
            else "needs a look: " + "; ".join(f.reason for f in v.flags)
            if v.flags
            else f"{v.verdict}, {claim.status}"
        )
        out.append(f"claim [{number[claim.index]}] has no decision ({why})")
    return out


def sign_off(
    record: RunRecord, reviews: Sequence[ReviewLike], signatures: Sequence[SignatureLike]
) -> SignOff:
    """The run's standing from its reviews and signatures (both oldest first)."""
    last_decision = max((r.decided_at for r in reviews if r.decision in PUBLISHING), default=None)
    latest = signatures[-1] if signatures else None
    if latest is not None and (last_decision is None or latest.signed_at >= last_decision):
        return SignOff(
            state="signed",
            signed_by=latest.reviewer,
            signed_at=latest.signed_at.isoformat(timespec="seconds")
            + ("Z" if latest.signed_at.tzinfo is None else ""),
        )
    return SignOff(
        state="waiting",
        waiting_on=waiting_on(record, reviews),
        superseded_by_decision=latest is not None,
    )


class SignRefused(ValueError):
    """The run was not signed; the message says what to decide first."""


def sign(store: Store, record: RunRecord, reviewer: str) -> Signature:
    """Sign ``record`` as ``reviewer`` when the acceptance rule allows it (module doc); returns
    the stored signature, or raises SignRefused saying what stands in the way."""
    reviewer = reviewer.strip()
    if not reviewer:
        raise SignRefused("say who signs: fill in the reviewer name")
    blocking = waiting_on(record, store.list_reviews(record.run_id))
    if blocking:
        raise SignRefused(
            f"run {record.run_id} cannot be signed yet: {'; '.join(blocking)}. Approve, edit or "
            "cut each of these claims (in `spanproof view`), then sign."
        )
    return store.add_signature(record.run_id, reviewer=reviewer)


def signed_ledger(
    record: RunRecord, reviews: Sequence[ReviewLike], signatures: Sequence[SignatureLike]
) -> tuple[list[LedgerRow], SignOff]:
    """The ledger as exported (reviewer decisions filled in, the signature in force on every
    row) and the run's standing."""
    standing = sign_off(record, reviews, signatures)
    rows = ledger_with_reviews(record, reviews)
    stamp = {"signed_by": standing.signed_by, "signed_at": standing.signed_at}
    return [r.model_copy(update=stamp) for r in rows], standing
