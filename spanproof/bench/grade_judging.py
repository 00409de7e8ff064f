"""Each (atomic claim, citation) pair of a report judged on the page it cites.

The most relevant few passages are judged through the Verifier (so the deterministic audit
applies) and the verdict is chosen for evidence, not leniency:

1. a passage that SUPPORTS the claim decides (the most relevant one);
2. else a passage among the most relevant in which code proves a contradiction (another
   number, date or name in the same role; ``graders.specifics.slot_reader``, a proof of the audit)
   decides: NOT_SUPPORTED, whatever a vaguer passage elsewhere was judged;
3. else the most relevant passage with the strongest verdict decides.

The deciding passage is recorded with its exact offsets (``stored_text[char_start:char_end]
== span.text``), why it decided, and every judged passage with its verdict and rank.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from spanproof.bench.atomic import AtomicClaim, atomic_claims
from spanproof.bench.grade_metrics import compute_metrics
from spanproof.bench.grade_models import GradedClaim, JudgedPassage, JudgeGrade, SpanOut
from spanproof.bench.grade_passages import DEFAULT_PASSAGES, PassageIndex
from spanproof.bench.grade_sources import SourceFetcher
from spanproof.bench.presence import PresenceGrader
from spanproof.bench.report_input import Citation, ParsedReport
from spanproof.core.evidence import Document
from spanproof.core.verdict import SpanRef, Verdict

if TYPE_CHECKING:
    from spanproof.graders.verify import Verifier

_RANK = {"SUPPORTED": 2, "PARTIAL": 1, "NOT_SUPPORTED": 0}


class _Pair(BaseModel):
    claim: AtomicClaim
    citation: Citation | None


def _pairs(claims: list[AtomicClaim]) -> list[_Pair]:
    out: list[_Pair] = []
    for claim in claims:
        seen: set[str] = set()
        if not claim.citations:
            out.append(_Pair(claim=claim, citation=None))
        for c in claim.citations:
            if c.url in seen:
                continue
            seen.add(c.url)
            out.append(_Pair(claim=claim, citation=c))
    return out


def _uncited_verdict(judge: str) -> Verdict:
    return Verdict(verdict="NOT_SUPPORTED", judge=judge, unsupported_element="no citation attached")


def _entry(
    pair: _Pair,
    verdict: Verdict | Literal["UNREACHABLE"],
    *,
    reason: str | None = None,
    span: SpanOut | None = None,
    judged: int = 0,
    decided_by: str | None = None,
    passages: Sequence[JudgedPassage] = (),
) -> GradedClaim:
    c = pair.citation
    return GradedClaim(
        id=pair.claim.id,
        text=pair.claim.text,
        sentence=pair.claim.sentence,
        sentence_index=pair.claim.sentence_index,
        citations=list(dict.fromkeys(x.url for x in pair.claim.citations)),
        url=c.url if c else None,
        scope=c.scope if c else None,
        occurrence=c.occurrence if c else None,
        verdict=verdict,
        reason=reason,
        span=span,
        passages_judged=judged,
        decided_by=decided_by,
        passages=list(passages),
    )


class ReportGrader:
    """Grades parsed reports with one or more graders; memoises (grader, claim, URL)."""

    def __init__(
        self,
        sources: SourceFetcher,
        judges: dict[str, Verifier | PresenceGrader],  # grader id -> its grader
        *,
        passages: int = DEFAULT_PASSAGES,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        self.sources = sources
        self.judges = judges
        self.passages = passages
        self.progress = progress
        self._index: dict[str, PassageIndex] = {}
        self._memo: dict[tuple[str, str, str], GradedClaim] = {}

    def _passages_for(self, doc: Document) -> PassageIndex:
        if doc.doc_id not in self._index:
            self._index[doc.doc_id] = PassageIndex(doc.text)
        return self._index[doc.doc_id]

    async def grade(
        self, report: ParsedReport, claims: list[AtomicClaim] | None = None
    ) -> list[JudgeGrade]:
        claims = claims if claims is not None else atomic_claims(report)
        pairs = _pairs(claims)
        urls = [p.citation.url for p in pairs if p.citation]
        await self.sources.fetch_all(urls)
        out: list[JudgeGrade] = []
        for judge_id, grader in self.judges.items():
            if self.progress:
                self.progress(f"grading {len(pairs)} (claim, citation) pairs with {judge_id}")
            entries = await asyncio.gather(*(self._grade_pair(judge_id, grader, p) for p in pairs))
            out.append(
                JudgeGrade(
                    judge=judge_id, claims=list(entries), metrics=compute_metrics(list(entries))
                )
            )
        return out

    async def _grade_pair(
        self, judge_id: str, grader: Verifier | PresenceGrader, pair: _Pair
    ) -> GradedClaim:
        if pair.citation is None:
            return _entry(pair, _uncited_verdict(judge_id))
        url = pair.citation.url
        key = (judge_id, pair.claim.text, url)
        if key in self._memo:
            cached = self._memo[key]
            fresh = _entry(
                pair,
                cached.verdict,
                reason=cached.reason,
                span=cached.span,
                judged=cached.passages_judged,
            )
            return fresh
        source = self.sources.results[url]
        if not source.reachable:
            result = _entry(pair, "UNREACHABLE", reason=source.reason)
        elif isinstance(grader, PresenceGrader):
            result = _entry(pair, grader.grade(url, resolved=True))
        else:
            result = await self._judge(grader, pair, self.sources.documents[url])
        self._memo[key] = result
        return result

    async def _judge(self, verifier: Verifier, pair: _Pair, doc: Document) -> GradedClaim:
        windows = self._passages_for(doc).best(pair.claim.text, self.passages)
        if not windows:
            verdict = Verdict(
                verdict="NOT_SUPPORTED",
                judge=verifier.id,
                unsupported_element="the page has no prose to quote (only navigation or headings)",
            )
            return _entry(pair, verdict, decided_by="no prose on the page")
        items = [
            (
                pair.claim.text,
                SpanRef(text=doc.text[s:e], url=doc.final_url, retrieved_at=doc.retrieved_at),
            )
            for s, e in windows
        ]
        verdicts = await verifier.verify_many(items)
        judged = [
            JudgedPassage(
                char_start=s,
                char_end=e,
                rank=i,
                verdict="ERROR" if v.error else v.verdict,
                contradicts=[p.reason for p in v.proofs if p.kind == "contradiction"],
            )
            for i, ((s, e), v) in enumerate(zip(windows, verdicts, strict=True))
        ]
        best, why = choose_passage(verdicts, judged)
        s, e = windows[best]
        span = SpanOut(doc_id=doc.doc_id, char_start=s, char_end=e, text=doc.text[s:e])
        verdict = verdicts[best]
        return _entry(
            pair, verdict, span=span, judged=len(verdicts), decided_by=why, passages=judged
        )


CONTRADICTION_RANKS = 2  # a contradiction counts when it is in one of the most relevant passages


def choose_passage(verdicts: list[Verdict], judged: list[JudgedPassage]) -> tuple[int, str]:
    """Which judged passage decides, and why (evidence, not leniency; see the docstring)."""
    for i, v in enumerate(verdicts):
        if v.supported:
            return i, "the most relevant passage that supports the claim"
    for i, p in enumerate(judged[:CONTRADICTION_RANKS]):
        if p.contradicts and verdicts[i].error is None:
            return i, "contradiction of a specific in one of the most relevant passages"
    best = max(range(len(verdicts)), key=lambda i: (_score(verdicts[i]), -i))
    return best, "the most relevant passage with the strongest verdict"


def _score(v: Verdict) -> int:
    return -1 if v.error else _RANK[v.verdict]
