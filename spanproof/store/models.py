"""Typed rows the store hands out and takes in (its public boundary)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

RunKind = Literal["ask", "gate", "injection", "grade"]
RUN_KINDS: tuple[RunKind, ...] = ("ask", "gate", "injection", "grade")
Decision = Literal["approve", "edit", "cut", "refused"]
# The decisions that change what is published; "refused" (an edit the verifier refused, kept
# because the reviewer says the span supports it) is a label for the bench, never in force.
PUBLISHING_DECISIONS: tuple[str, ...] = ("approve", "edit", "cut")
# Why a claim was cut: its span does not support it as stated (a support label, a pair for
# the bench), or it is not an answer to the question (no support label; never a pair).
CutReason = Literal["not_supported", "not_an_answer"]


class RunSummary(BaseModel):
    """One run as `runs list` and the viewer's run list show it (no record parsing)."""

    run_id: str
    kind: RunKind = "ask"
    question: str
    status: str
    policy: str
    model: str | None = None
    created_at: str
    updated_at: str
    claims_published: int | None = None
    published_groundedness: float | None = None
    pre_prune_supported_rate: float | None = None
    cost_usd: float | None = None
    host: str = ""
    runner: str = ""
    ci_job: str | None = None
    still_running: bool = False  # interrupted, on this host, and its process is alive


VerdictMix = Literal["all_supported", "some_published_unsupported", "some_drafted_unsupported",
                     "no_claims"]  # fmt: skip


class RunFilter(BaseModel):
    """What the run list may be narrowed by; every field reads an indexed-or-small column,
    never a record, so a filtered page costs what an unfiltered one does."""

    question: str = ""  # every word must occur in the question (case-insensitive, literal)
    status: str | None = None
    policy: str | None = None
    model: str | None = None  # the agent model spec, exactly
    judge: str | None = None  # one judge spec among the run's judges, exactly
    prompt_version: str | None = None  # a prefix of the run's prompt version hash
    since: datetime | None = None  # created at or after (naive UTC or aware)
    until: datetime | None = None  # created before
    # all_supported: every published claim SUPPORTED; some_published_unsupported: a published
    # claim was flagged or narrowed; some_drafted_unsupported: a drafted claim was not
    # SUPPORTED (dropped, flagged or narrowed); no_claims: nothing published.
    mix: VerdictMix | None = None


class RunPage(BaseModel):
    """A page of runs, newest first: ``items``, the ``total`` matching, and where it starts."""

    items: list[RunSummary]
    total: int
    offset: int
    limit: int

    @property
    def next_offset(self) -> int | None:
        end = self.offset + len(self.items)
        return end if end < self.total else None


class StoredRun(BaseModel):
    """A run's columns plus its record as stored (JSON text, parsed by the caller)."""

    run_id: str
    kind: RunKind
    created_at: datetime
    status: str
    host: str
    runner: str
    ci_job: str | None = None
    git_commit: str | None = None
    spanproof_version: str
    sanitiser_version: str
    prompt_version: str | None = None
    model: str | None = None
    judges: str | None = None
    home: str | None = None
    record: str


class GateRunRow(BaseModel):
    gate_id: str
    started_at: datetime
    passed: bool
    exit_code: int
    judge: str
    policy: str
    model: str | None = None
    host: str
    runner: str
    ci_job: str | None = None
    git_commit: str | None = None
    git_branch: str | None = None
    spanproof_version: str
    sanitiser_version: str
    prompt_version: str | None = None
    result: str  # GateResult JSON


class GateWhere(BaseModel):
    """Where a gate run ran: what the gate list shows beside each result."""

    gate_id: str
    runner: str
    host: str
    ci_job: str | None = None
    git_commit: str | None = None


class Review(BaseModel):
    id: str
    run_id: str
    claim_index: int = Field(ge=0)
    decision: Decision
    edited_text: str | None = None
    edited_verdict: dict[str, Any] | None = None
    note: str = ""
    reviewer: str
    decided_at: datetime
    # The reviewer's verdict on the claim (or the refused edit) against its span, when the
    # decision states one; what `spanproof goldens add-from-reviews` exports.
    label: Literal["SUPPORTED", "PARTIAL", "NOT_SUPPORTED"] | None = None
    cut_reason: CutReason | None = None  # a cut's reason (None: a cut stored before reasons)


class Signature(BaseModel):
    """A reviewer vouching for a run's brief as it stands (``spanproof.agent.signoff`` says
    when a run may be signed and whether a signature is still in force)."""

    id: str
    run_id: str
    reviewer: str = Field(min_length=1, max_length=100)
    signed_at: datetime


class Recheck(BaseModel):
    """One cited span as `spanproof recheck` found it (checks 1 and 2)."""

    span_id: str
    url: str
    checked_at: datetime | None = None
    resolves: bool
    same_snapshot: bool | None = None
    quote_on_page: bool | None = None
    snapshot_sha256: str = ""
    fetched_sha256: str | None = None
    flag: str = ""
    runner: str = ""


class SnapshotHolder(BaseModel):
    doc_id: str
    runner: str
    host: str
    home: str
    sha256: str
    url: str
    retrieved_at: str


class TableInfo(BaseModel):
    name: str
    rows: int
    bytes: int | None = None


class StoreInfo(BaseModel):
    url: str  # password redacted
    backend: str
    revision: str | None
    tables: list[TableInfo]
    runs_by_kind: dict[str, int]
    oldest_run: str | None = None
    newest_run: str | None = None
    total_bytes: int | None = None


class PruneResult(BaseModel):
    cutoff: str
    dry_run: bool
    runs: int
    verdicts: int
    usefulness: int
    kept_runs_referenced: int  # older than the cutoff but kept: a gate result or a review uses them
    kept_verdicts_referenced: int


class CopyResult(BaseModel):
    source: str
    runs_copied: int = 0
    runs_already_there: int = 0
    runs_conflicting: list[str] = Field(default_factory=list)  # same id, different record
    runs_unreadable: list[str] = Field(default_factory=list)
    gate_runs_copied: int = 0
    gate_runs_already_there: int = 0
    verdicts_copied: int = 0
    verdicts_already_there: int = 0
    usefulness_copied: int = 0
    reviews_copied: int = 0
    signatures_copied: int = 0
    snapshot_holders_copied: int = 0
