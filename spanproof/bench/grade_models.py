"""The typed parts of a report's grade: each graded (claim, citation) pair with the passages
judged, the sources, the metrics. ``GradeResult`` (what ``spanproof grade --json`` prints)
gathers them in ``grade_report``; the planted variants' models live with the planting."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from spanproof.core.verdict import Proof, Verdict


class SpanOut(BaseModel):
    doc_id: str
    char_start: int
    char_end: int
    text: str


class SourceResult(BaseModel):
    url: str
    reachable: bool
    reason: str | None = None  # the egress error code and message when unreachable
    doc_id: str | None = None
    final_url: str | None = None
    retrieved_at: str | None = None
    title: str = ""


class JudgedPassage(BaseModel):
    """One passage a judge read for a (claim, citation): where it is, how relevant, the verdict."""

    char_start: int
    char_end: int
    rank: int  # 0 = most relevant to the claim
    verdict: str  # the audited label, or ERROR
    contradicts: list[str] = Field(default_factory=list)  # the audit's contradiction proofs


class GradedClaim(BaseModel):
    """One (atomic claim, cited URL) pair; an uncited claim appears once with url None."""

    id: str
    text: str
    sentence: str
    sentence_index: int
    citations: list[str]
    url: str | None
    scope: Literal["sentence", "paragraph"] | None = None
    occurrence: str | None = None  # the written marker this citation came from
    verdict: Verdict | Literal["UNREACHABLE"]
    reason: str | None = None  # why UNREACHABLE
    span: SpanOut | None = None  # the passage that decided, with its offsets
    passages_judged: int = 0
    decided_by: str | None = None  # why that passage decided (see grade_judging's docstring)
    passages: list[JudgedPassage] = Field(default_factory=list)

    @property
    def label(self) -> str:
        return self.verdict if isinstance(self.verdict, str) else self.verdict.verdict

    def proofs_on_page(self) -> list[tuple[Proof, tuple[int, int] | None]]:
        """Each proof with the page offsets of the span value it rests on (the deciding
        passage's offsets plus the proof's offsets in the passage)."""
        if isinstance(self.verdict, str) or self.span is None:
            return []
        at = self.span.char_start
        return [
            (p, (at + p.span_value.start, at + p.span_value.end) if p.span_value else None)
            for p in self.verdict.proofs
        ]

    @property
    def supports(self) -> bool:
        return isinstance(self.verdict, Verdict) and self.verdict.supported

    @property
    def supports_part(self) -> bool:
        return (
            isinstance(self.verdict, Verdict)
            and self.verdict.error is None
            and self.verdict.verdict in ("SUPPORTED", "PARTIAL")
        )


class LaunderingCase(BaseModel):
    url: str
    occurrence: str
    supported: list[str]
    unsupported: list[str]


class GradeMetrics(BaseModel):
    claims: int
    uncited_claims: int
    citations: int  # (claim, URL) pairs
    citation_recall: float
    citation_recall_with_partial: float
    partial_claim_rate: float
    citation_precision: float  # SUPPORTED only
    citation_precision_with_partial: float
    partial_citation_rate: float
    unreachable: int
    unreachable_rate: float
    judge_errors: int
    paragraph_level_citations: int
    shared_citations: int
    laundering: int
    laundered: list[LaunderingCase] = Field(default_factory=list)


class JudgeGrade(BaseModel):
    judge: str
    claims: list[GradedClaim]
    metrics: GradeMetrics


class GradeError(RuntimeError):
    """Grading cannot proceed; the message says how to fix it."""
