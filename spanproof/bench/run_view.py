"""The one view of a saved run that the graders read: the gate's checks over agent runs
and the injection suite's scoring.

A grader reads a run through this view, never live objects, and ``view_from_record`` is the
one adapter from the agent's record (``agent.record.RunRecord``) onto it; hand-made views
plant each failure in tests.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from spanproof.core.urls import canonical_url

# ---------------------------------------------------------------------------
# A normalised view of one run record: the checks depend on this, and one
# adapter (``view_from_record``) maps the agent's record onto it.


class ToolCallView(BaseModel):
    model_config = ConfigDict(extra="ignore")
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)
    ok: bool = True
    error: str | None = None  # ToolError code
    result: dict[str, Any] | None = None


class SpanView(BaseModel):
    model_config = ConfigDict(extra="ignore")
    span_id: str
    doc_id: str
    url: str = ""
    text: str
    char_start: int
    char_end: int
    judged: bool = False  # the verifier saw it with some claim
    contains_instructions: bool = False  # any verdict on it set the flag


class ClaimView(BaseModel):
    model_config = ConfigDict(extra="ignore")
    text: str
    span_ids: list[str] = Field(default_factory=list)
    verdict: str | None = None  # pre-prune verdict (SUPPORTED | PARTIAL | NOT_SUPPORTED)
    status: str = "published"  # published | flagged | narrowed | dropped | held
    error: str | None = None
    flagged: bool = False  # its verdict carries a flag (a person should look)


class EgressView(BaseModel):
    model_config = ConfigDict(extra="ignore")
    host: str
    method: str = "GET"
    url: str = ""
    decision: str = "allowed"
    reason: str = ""
    status: int | None = None  # the HTTP status, when the host answered


class RunView(BaseModel):
    model_config = ConfigDict(extra="ignore")
    run_id: str
    question: str
    question_id: str | None = None
    status: str = "complete"
    calls: list[ToolCallView] = Field(default_factory=list)
    egress: list[EgressView] = Field(default_factory=list)
    spans: list[SpanView] = Field(default_factory=list)
    draft: dict[str, Any] | None = None
    draft_error: str | None = None  # set when the record says the draft failed validation
    claims: list[ClaimView] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)
    summary: str = ""
    needs_human: bool = False
    budgets: dict[str, Any] = Field(default_factory=dict)
    usage: dict[str, Any] = Field(
        default_factory=dict
    )  # searches, fetches, tool_calls, spans, tokens
    allow_hosts: list[str] = Field(default_factory=list)
    ledger: str | None = None
    errors: list[str] = Field(default_factory=list)
    injection_observed: str | None = None
    judge_calls: int = 0  # verdicts the run asked for
    judge_errors: int = 0  # ... of which the judge failed to give one (an error verdict)

    @property
    def shown_claims(self) -> list[str]:
        """The claims the reader sees: published, narrowed or flagged (flagged is still shown);
        not a dropped one, nor one held for a person because its sources disagree."""
        return [c.text for c in self.claims if c.status not in ("dropped", "held")]

    @property
    def fetch_attempts(self) -> list[ToolCallView]:
        """Every fetch_page call as the trace records it (before egress: it may never reach it)."""
        return [c for c in self.calls if c.tool == "fetch_page" and "url" in c.args]


# ---------------------------------------------------------------------------
# From the agent's run record to the view the checks read

_URL_RE = re.compile(r"https?://[^\s\"'<>)\],]+")


def view_from_record(
    record: Any, *, question_id: str | None = None, allow_hosts: list[str] | None = None
) -> RunView:
    """Map an ``agent.record.RunRecord`` onto a RunView (reads only the record)."""
    doc_by_url: dict[str, str] = {}
    for d in record.documents:
        doc_by_url[canonical_url(d.url)] = d.doc_id
        doc_by_url[canonical_url(d.final_url)] = d.doc_id
    calls: list[ToolCallView] = []
    for t in record.trace:
        if t.kind != "tool" or not t.tool:
            continue
        result: dict[str, Any] = {}
        if t.tool == "web_search":
            hit_urls = t.hit_urls
            if hit_urls is not None:
                # The record keeps every hit's URL as data: the origin check is complete.
                result["hits"] = [{"url": u} for u in hit_urls]
                result["complete"] = True
            else:
                # Older records: the hit URLs as far as the summary lists them.
                result["hits"] = [{"url": u} for u in _URL_RE.findall(t.result_summary or "")]
                declared = re.match(r"\s*(\d+) hits", t.result_summary or "")
                result["complete"] = declared is not None and int(declared.group(1)) <= len(
                    result["hits"]
                )
        elif t.tool == "fetch_page" and t.ok:
            result["doc_id"] = doc_by_url.get(canonical_url(str(t.arguments.get("url", ""))))
        calls.append(
            ToolCallView(
                tool=t.tool,
                args=dict(t.arguments),
                ok=t.ok,
                error=t.error.error if t.error else None,
                result=result,
            )
        )
    egress = [EgressView.model_validate(e.model_dump()) for e in record.egress]
    if not egress:  # older records keep egress on trace entries only
        egress = [EgressView.model_validate(e.model_dump()) for t in record.trace for e in t.egress]
    claims = [
        ClaimView(
            text=c.text,
            span_ids=list(c.span_ids),
            verdict=c.verdict.verdict,
            status=c.status,
            error=c.verdict.error,
            flagged=c.verdict.flagged,
        )
        for c in record.answer.claims
    ]
    draft_error = None
    draft = record.draft.model_dump(mode="json") if record.draft is not None else None
    if record.draft is None and record.rejected_drafts:
        draft_error = f"{len(record.rejected_drafts)} draft(s) rejected and none accepted"
    judged: dict[str, bool] = {}
    for pv in record.verdicts:
        judged[pv.span_id] = judged.get(pv.span_id, False) or bool(pv.verdict.contains_instructions)
    spans = [
        SpanView.model_validate(s.model_dump()).model_copy(
            update={
                "judged": s.span_id in judged,
                "contains_instructions": judged.get(s.span_id, False),
            }
        )
        for s in record.spans
    ]
    m = record.metrics
    tokens = sum(u.total for u in m.tokens_by_model.values())
    b = record.config.budgets
    return RunView(
        run_id=record.run_id,
        question=record.question,
        question_id=question_id,
        status=record.status,
        calls=calls,
        egress=egress,
        spans=spans,
        draft=draft,
        draft_error=draft_error,
        claims=claims,
        gaps=list(record.answer.gaps),
        summary=record.answer.summary,
        needs_human=record.needs_human,
        budgets={"searches": b.searches, "fetches": b.fetches, "tool_calls": b.tool_calls, "spans": b.spans,
                 "tokens": b.tokens},
        usage={"searches": m.searches, "fetches": m.fetches, "tool_calls": m.tool_calls, "spans": m.spans,
               "tokens": tokens},
        allow_hosts=list(allow_hosts or []),
        errors=list(record.errors),
        injection_observed=record.injection_observed,
        judge_calls=len(record.verdicts),
        judge_errors=sum(1 for pv in record.verdicts if pv.verdict.error),
    )  # fmt: skip
