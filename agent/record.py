"""The run record: everything a run did and produced, typed and versioned.

Graders, reports and the gate read run records, never live objects, so every
metric here can be recomputed from the record alone (see `agent.publish.compute_metrics`).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    Field,
    ValidationInfo,
    computed_field,
    field_validator,
    model_validator,
)
from spanproof.agent.chat import Usage
from spanproof.agent.prices import Cost, Prices

from spanproof.core.evidence import SPAN_ID_PATTERN, EgressEvent, Span, utc_now_iso
from spanproof.core.tool_schema import ToolError, json_schema_of
from spanproof.core.verdict import Verdict
from spanproof.store.models import RunKind

RECORD_VERSION = 1
PROMPT_DIR = Path(__file__).parent / "prompts"

RunStatus = Literal["complete", "interrupted", "failed"]
# held: supported by its span, but its sources state another value for its slot; not shown,
# waiting for a person (counted apart from the claims the verifier dropped)
ClaimStatus = Literal["published", "flagged", "narrowed", "dropped", "held"]
NOT_SHOWN: frozenset[str] = frozenset({"dropped", "held"})
PartialMode = Literal["flag", "narrow", "drop"]


def load_prompt(name: str) -> tuple[str, str]:
    """(text sent to the model, sha256 of the file). Leading `#` header lines are not sent."""
    raw = (PROMPT_DIR / name).read_bytes()
    lines = raw.decode("utf-8").splitlines()
    while lines and (lines[0].startswith("#") or not lines[0].strip()):
        lines.pop(0)
    return "\n".join(lines).strip() + "\n", hashlib.sha256(raw).hexdigest()


# --- configuration ----------------------------------------------------------------------


class Budgets(BaseModel):
    """Hard limits the runtime enforces (defaults: a typical three-part question)."""

    searches: int = Field(default=6, ge=0)
    fetches: int = Field(default=5, ge=0)
    tool_calls: int = Field(default=14, ge=1)
    spans: int = Field(default=11, ge=0)
    tokens: int = Field(default=200_000, ge=1)
    # Dollars the agent model may spend (research and convergence calls, priced by the run's
    # price table); None: no dollar limit. Checked after each reply, like tokens.
    cost_usd: float | None = Field(default=None, gt=0)
    draft_reserve: int = Field(default=2, ge=1)  # at this many calls left, only draft_answer
    stall_window: int = Field(default=3, ge=1)  # no new span in this many calls = stall
    max_subquestions: int = Field(default=3, ge=1)


class RunConfig(BaseModel):
    policy: Literal["extractive", "llm"]
    model: str | None = None
    convergence: Literal["rules", "llm", "off"] = "rules"
    convergence_model: str | None = None
    judges: list[str] = Field(default_factory=list)
    partial: PartialMode = "flag"
    budgets: Budgets = Field(default_factory=Budgets)
    prices: Prices = Field(default_factory=Prices)
    targeted_round: bool = True
    web: str = ""

    @field_validator("prices", mode="before")
    @classmethod
    def _legacy_prices(cls, value: Any) -> Any:
        return Prices.from_legacy(value)


# --- the draft (the model's one submission) ----------------------------------------------

_SPAN_RE = re.compile(SPAN_ID_PATTERN)


class DraftClaim(BaseModel):
    text: str = Field(min_length=1, max_length=600)
    span_ids: list[str] = Field(min_length=1)
    inference: bool = False
    confidence: float = Field(default=0.5, ge=0, le=1)

    @field_validator("span_ids")
    @classmethod
    def _span_ids_from_this_run(cls, value: list[str], info: ValidationInfo) -> list[str]:
        bad = [s for s in value if not _SPAN_RE.match(s)]
        if bad:
            raise ValueError(f"not span ids: {bad}; cite ids returned by extract_quote")
        known = (info.context or {}).get("run_span_ids")
        if known is not None:
            foreign = [s for s in value if s not in known]
            if foreign:
                raise ValueError(
                    f"span ids not extracted in this run: {foreign}; cite only ids returned by "
                    "extract_quote in this run"
                )
        return value


class Draft(BaseModel):
    """draft_answer's arguments. Validate with context={"run_span_ids": set(...)}."""

    claims: list[DraftClaim] = Field(default_factory=list)
    summary: str = Field(default="", max_length=1500)
    injection_observed: str | None = Field(default=None, max_length=200)
    needs_human: bool = False
    needs_human_reason: str | None = Field(default=None, max_length=300)

    @field_validator("summary")
    @classmethod
    def _summary_words(cls, value: str) -> str:
        if len(value.split()) > 150:
            raise ValueError(f"summary has {len(value.split())} words; the limit is 150")
        return value

    @model_validator(mode="after")
    def _reason_when_escalating(self) -> Draft:
        if self.needs_human and not (self.needs_human_reason or "").strip():
            raise ValueError("needs_human is true but needs_human_reason is empty; say why")
        return self

    @classmethod
    def tool_schema(cls) -> dict[str, Any]:
        return {
            "type": "function",
            "function": {
                "name": "draft_answer",
                "description": (
                    "Submit the answer, exactly once. Every claim cites >= 1 span_id returned by "
                    "extract_quote in this run. Summary <= 150 words and holds no claim absent "
                    "from claims."
                ),
                "parameters": json_schema_of(cls),
            },
        }


# --- trace ---------------------------------------------------------------------------------


class TraceEntry(BaseModel):
    step: int
    kind: Literal["tool", "model", "convergence", "stall", "verify", "note"]
    tool: str | None = None
    call_id: str | None = None
    batch: int | None = None  # shared by fetches run concurrently from one turn
    arguments: dict[str, Any] = Field(default_factory=dict)
    ok: bool = True
    error: ToolError | None = None
    result_summary: str = ""
    new_span_ids: list[str] = Field(default_factory=list)
    # web_search only: the URL of every hit, in rank order, so a fetch can be proven to come
    # from search. None on other entries and in records written before it was kept.
    hit_urls: list[str] | None = None
    started_at: str = Field(default_factory=utc_now_iso)
    ms: float = 0.0
    usage: Usage | None = None
    model_id: str | None = None
    egress: list[EgressEvent] = Field(default_factory=list)
    budget_after: dict[str, int] = Field(default_factory=dict)
    flags: list[str] = Field(default_factory=list)  # near_duplicate_search, budget_exceeded, ...
    role: str | None = None  # for model entries: research | small


class SubquestionStatus(BaseModel):
    subquestion: str
    status: Literal["covered", "thin", "empty"]
    span_ids: list[str] = Field(default_factory=list)


class ConvergenceDecision(BaseModel):
    subquestions: list[SubquestionStatus] = Field(default_factory=list)
    decision: Literal["CONTINUE", "DRAFT", "DRAFT_WITH_GAPS"]
    next_action: str | None = None
    reason: str = ""
    source: Literal["rules", "llm", "rules_fallback"] = "rules"
    trigger: str = ""  # "iteration" | "stall" | "policy"

    @field_validator("reason")
    @classmethod
    def _short_reason(cls, value: str) -> str:
        words = value.split()
        return " ".join(words[:25])


class DocumentRecord(BaseModel):
    doc_id: str
    url: str
    final_url: str
    title: str = ""
    retrieved_at: str
    sha256: str


# --- verification, answer, ledger ---------------------------------------------------------


class PairVerdict(BaseModel):
    claim_index: int
    span_id: str
    verdict: Verdict


class AnswerClaim(BaseModel):
    index: int  # position in the draft (0-based); citations number published claims from 1
    text: str  # as published (narrowed claims carry the qualifier)
    draft_text: str
    span_ids: list[str]
    supporting_span_id: str | None = None
    verdict: Verdict
    status: ClaimStatus
    reason: str = ""
    inference: bool = False
    confidence: float = 0.5
    subquestion: int | None = None
    round: int = 1
    # A flagged claim (graders.audit: a specific the span does not state literally, ...) is
    # never published as it stands: a person should look, for this reason.
    needs_human: bool = False
    needs_human_reason: str | None = None


class Answer(BaseModel):
    summary: str = ""
    gaps: list[str] = Field(default_factory=list)
    tried: list[str] = Field(default_factory=list)
    claims: list[AnswerClaim] = Field(default_factory=list)
    label: str = ""

    @property
    def shown(self) -> list[AnswerClaim]:
        return [c for c in self.claims if c.status not in NOT_SHOWN]


class LedgerRow(BaseModel):
    claim: str
    quote: str
    span_id: str | None
    url: str
    title: str
    retrieved_at: str
    snapshot_sha256: str
    source_type: Literal["primary", "secondary"]
    verdict: str
    set_by: str  # the judge id, or the deterministic check that fired
    status: ClaimStatus
    published: bool
    reason: str = ""
    # the audit's flags on the verdict (a person should look) and the proofs that lowered it
    flags: list[str] = Field(default_factory=list)
    proofs: list[str] = Field(default_factory=list)
    needs_human: bool = False
    reviewer_decision: str | None = None  # approve | edit | cut: the latest decision in force
    claim_index: int | None = None  # AnswerClaim.index, which reviewer decisions refer to
    reviewer: str | None = None
    reviewed_at: str | None = None
    review_note: str | None = None
    edited_text: str | None = None  # the reviewer's edit, which the verifier supported
    citation: int | None = None  # the answer's [n] for this claim; None when it is not shown
    # The run's signature in force (spanproof.agent.signoff), the same on every row of a run.
    signed_by: str | None = None
    signed_at: str | None = None


class Metrics(BaseModel):
    claims_drafted: int = 0
    claims_published: int = 0
    claims_flagged: int = 0
    claims_narrowed: int = 0
    claims_dropped: int = 0
    claims_held: int = 0  # supported, but held for a person: the sources disagree on a slot
    pre_prune_supported_rate: float | None = None
    published_groundedness: float | None = None
    partial_rate: float | None = None
    drop_rate: float | None = None
    held_rate: float | None = None
    judge_errors: int = 0
    searches: int = 0
    fetches: int = 0
    tool_calls: int = 0
    spans: int = 0
    duplicate_fetches_refused: int = 0
    near_duplicate_searches: int = 0
    locator_failures: int = 0
    first_try_quote_success: float | None = None
    useful_fetch_rate: float | None = None
    budget_overruns: int = 0  # tool calls refused because a budget was spent
    egress_refused: int = 0
    tokens_by_model: dict[str, Usage] = Field(default_factory=dict)
    wall_ms_by_phase: dict[str, float] = Field(default_factory=dict)
    cost: Cost = Field(default_factory=Cost)


class RunRecord(BaseModel):
    record_version: int = RECORD_VERSION
    run_id: str
    question: str
    # Who made the run: a person's `ask` (the default), or the gate, injection suite, grader.
    kind: RunKind = "ask"
    status: RunStatus = "interrupted"  # stays so until the run finishes cleanly
    ended_by: str = ""  # draft | budget:<name> | convergence | model_error | ...
    created_at: str = Field(default_factory=utc_now_iso)
    finished_at: str | None = None
    pid: int | None = None
    # Where the run was made (host, runner, CI job, versions, judge/model/prompt hashes);
    # stamped by the run store on save. None in records written before it was kept.
    provenance: dict[str, Any] | None = None
    config: RunConfig
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    model_ids: dict[str, str] = Field(default_factory=dict)
    subquestions: list[str] = Field(default_factory=list)
    trace: list[TraceEntry] = Field(default_factory=list)
    egress: list[EgressEvent] = Field(default_factory=list)
    documents: list[DocumentRecord] = Field(default_factory=list)
    spans: list[Span] = Field(default_factory=list)
    convergence: list[ConvergenceDecision] = Field(default_factory=list)
    draft: Draft | None = None
    draft_origin: Literal["model", "policy", "runtime_fallback"] | None = None
    supplementary_draft: Draft | None = None  # from the targeted round after pruning
    rejected_drafts: list[dict[str, Any]] = Field(default_factory=list)
    verdicts: list[PairVerdict] = Field(default_factory=list)
    answer: Answer = Field(default_factory=Answer)
    ledger: list[LedgerRow] = Field(default_factory=list)
    injection_observed: str | None = None
    needs_human: bool = False
    needs_human_reason: str | None = None
    metrics: Metrics = Field(default_factory=Metrics)
    errors: list[str] = Field(default_factory=list)

    # pydantic's documented pattern; mypy does not take a decorator above @property
    @computed_field  # type: ignore[prop-decorator]
    @property
    def costs(self) -> Cost:
        return self.metrics.cost

    def span(self, span_id: str) -> Span | None:
        return next((s for s in self.spans if s.span_id == span_id), None)

    def document(self, doc_id: str) -> DocumentRecord | None:
        return next((d for d in self.documents if d.doc_id == doc_id), None)
