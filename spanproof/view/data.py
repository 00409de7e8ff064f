"""Everything the viewer reads and writes, through the shared store (spanproof.store):
runs (a filtered, paginated listing and whole records), gate results, reviewer
decisions, recheck findings, and the stored snapshot text spans index into.

The run listing reads only the runs table's columns (never a record it does not show),
so a page costs the same with ten runs or ten thousand.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field, field_validator
from spanproof.agent.record import RunRecord

from spanproof.gate.result import GateResult
from spanproof.store.models import GateWhere, Recheck, Review, RunFilter, RunPage, Signature

if TYPE_CHECKING:
    from spanproof.view.reviews import ReviewDecision
    from spanproof.web.snapshots import SnapshotStore

MIX_LABELS: dict[str, str] = {
    "": "any",
    "all_supported": "every published claim SUPPORTED",
    "some_published_unsupported": "a published claim flagged or narrowed",
    "some_drafted_unsupported": "a drafted claim not SUPPORTED",
    "no_claims": "nothing published",
}
KIND_LABELS: dict[str, str] = {
    "": "any",
    "ask": "ask",
    "gate": "gate",
    "injection": "injection",
    "grade": "grade",
}
RUN_STATUSES = ("complete", "interrupted", "failed")
POLICIES = ("extractive", "llm")


class RunQuery(BaseModel):
    """The run list's filters as the page's form sends them; empty strings mean "any"."""

    kind: Literal["", "ask", "gate", "injection", "grade"] = ""
    q: str = Field("", max_length=200)
    status: Literal["", "complete", "interrupted", "failed"] = ""
    policy: Literal["", "extractive", "llm"] = ""
    since: str = ""  # YYYY-MM-DD, inclusive
    until: str = ""  # YYYY-MM-DD, inclusive
    mix: Literal[
        "", "all_supported", "some_published_unsupported", "some_drafted_unsupported", "no_claims"
    ] = ""
    model: str = Field("", max_length=255)
    judge: str = Field("", max_length=255)
    prompt: str = Field("", max_length=64)

    @field_validator("since", "until")
    @classmethod
    def _iso_day(cls, value: str) -> str:
        if value:
            date.fromisoformat(value)  # raises a ValueError that names the format
        return value

    def active(self) -> bool:
        return any(v for v in self.model_dump().values())

    def store_filter(self) -> RunFilter:
        def day(text: str) -> datetime:
            return datetime.combine(date.fromisoformat(text), datetime.min.time(), tzinfo=UTC)

        return RunFilter(
            question=self.q,
            status=self.status or None,
            policy=self.policy or None,
            model=self.model or None,
            judge=self.judge or None,
            prompt_version=self.prompt or None,
            since=day(self.since) if self.since else None,
            until=day(self.until) + timedelta(days=1) if self.until else None,
            mix=self.mix or None,
        )


class SnapshotMissing(KeyError):
    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class ViewData:
    """One store (and the home whose snapshots this machine holds)."""

    def __init__(self, home: Path, db: str | None = None):
        from spanproof.agent.runstore import RunStore

        from spanproof.gate.store import GateStore
        from spanproof.store import open_store

        self.home = Path(home)
        self.store = open_store(home=self.home, db=db)
        self.runs = RunStore(self.store)
        self.gates = GateStore(self.store)
        self._snapshots: SnapshotStore | None = None

    # -- runs ------------------------------------------------------------------------------

    def list_runs(self, query: RunQuery, page: int = 1, per_page: int = 50) -> RunPage:
        page = max(1, page)
        return self.store.list_runs(
            kind=query.kind or None,
            limit=per_page,
            offset=(page - 1) * per_page,
            filters=query.store_filter(),
        )

    def run(self, run_id: str) -> RunRecord:
        """The record for an id (or a unique prefix); KeyError when there is none."""
        return self.runs.get(run_id)

    def reviews_for(self, run_id: str) -> list[Review]:
        return self.store.list_reviews(run_id)

    def add_review(self, decision: ReviewDecision) -> Review:
        return self.store.add_review(
            decision.run_id,
            decision.claim_index,
            decision.decision,
            reviewer=decision.reviewer,
            edited_text=decision.edited_text,
            edited_verdict=decision.edited_verdict,
            note=decision.note,
            label=decision.label,
            cut_reason=decision.cut_reason,
        )

    def signatures_for(self, run_id: str) -> list[Signature]:
        return self.store.signatures([run_id]).get(run_id, [])

    def sign(self, record: RunRecord, reviewer: str) -> Signature:
        """Sign the run when the ledger's acceptance rule allows it; SignRefused otherwise."""
        from spanproof.agent.signoff import sign

        return sign(self.store, record, reviewer)

    def rechecks_for(self, run_id: str) -> list[Recheck]:
        return self.store.list_rechecks(run_id)

    # -- gate results ----------------------------------------------------------------------

    def gate_results(self) -> list[GateResult]:
        return sorted(self.gates.list(), key=lambda g: g.started_at, reverse=True)

    def gate_runners(self) -> dict[str, GateWhere]:
        """Where each gate ran (runner, CI job), by gate id: recorded with the run, not in it."""
        return {g.gate_id: g for g in self.store.gate_provenance()}

    def gate(self, gate_id: str) -> GateResult:
        for g in self.gates.list():
            if g.gate_id == gate_id:
                return g
        raise KeyError(gate_id)

    # -- snapshots -------------------------------------------------------------------------

    def snapshot_text(self, doc_id: str) -> str:
        """The stored document text every span offset indexes into."""
        from spanproof.web.env import SNAPSHOT_DIR
        from spanproof.web.snapshots import SnapshotStore

        if self._snapshots is None:
            root = self.home / SNAPSHOT_DIR
            if not root.is_dir():
                raise SnapshotMissing(self._elsewhere(doc_id, f"no snapshot store at {root}"))
            self._snapshots = SnapshotStore(root)
        try:
            return self._snapshots.text(doc_id)
        except KeyError:
            raise SnapshotMissing(
                self._elsewhere(doc_id, f"{doc_id} is not in the snapshots under {self.home}")
            ) from None

    def _elsewhere(self, doc_id: str, why: str) -> str:
        holders = self.store.snapshot_holders([doc_id]).get(doc_id) or []
        if not holders:
            return why
        where = "; ".join(f"runner {h.runner} ({h.host}) in {h.home}" for h in holders[:3])
        return f"{why}; the snapshot is held by {where}: open the viewer there with --home"

    def text(self, doc_id: str) -> str:
        """`snapshot_text` under the name the runtime's span checks call (agent.publish)."""
        return self.snapshot_text(doc_id)
