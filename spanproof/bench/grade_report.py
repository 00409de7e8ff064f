"""Grade another agent's cited report: every (atomic claim, cited URL) against the page itself.

For each cited URL the source is fetched now, through the egress layer, with the
allowlist set to the hosts the report cites (replayed from an offline corpus, or live),
and stored as a snapshot (check 1: a fetch that fails or is redirected off the allowlist
gives ``UNREACHABLE``, counted in every rate, never dropped). Candidate passages are
sentence windows of the stored text, at most 900 characters, ranked by relevance to the
claim (BM25, ``spanproof.core.text.PassageIndex``); navigation and page furniture ("Archive |
About | Skip to content", headings, menus) are never candidates. The most relevant few are
judged through the Verifier (so the deterministic audit applies) and the verdict is chosen
for evidence, not leniency:

1. a passage that SUPPORTS the claim decides (the most relevant one);
2. else a passage among the most relevant in which code proves a contradiction (another
   number, date or name in the same role; ``graders.specifics.roles``, a proof of the audit)
   decides: NOT_SUPPORTED, whatever a vaguer passage elsewhere was judged;
3. else the most relevant passage with the strongest verdict decides.

The deciding passage is recorded with its exact offsets (``stored_text[char_start:char_end]
== span.text``), why it decided, and every judged passage with its verdict and rank.

Metrics (per judge):

- citation recall: share of atomic claims with at least one SUPPORTED citation (uncited
  and unreachable claims count against it);
- citation precision: share of (claim, citation) pairs SUPPORTED; PARTIAL is reported in its
  own column (``partial_citation_rate``) and in ``citation_precision_with_partial``, never
  counted as a pass in the headline;
- unreachable rate: share of (claim, citation) pairs whose source did not resolve;
- laundering: written citations shared by several atomic claims (a paragraph-final
  marker, or one marker on a sentence that splits) that SUPPORT only some of them.

``plant_variants`` makes report-level planted failures from the good sentences of a
report (citation swapped for another page the report cites, a number drifted, a time
reference shifted, a foreign sentence slipped under a paragraph's citation), and
``grade_report(..., plant=True)`` reports each grader's sensitivity on them.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections import defaultdict
from collections.abc import Callable
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, Field

from spanproof.bench.atomic import AtomicClaim, atomic_claims
from spanproof.bench.presence import PRESENCE_ID, PresenceGrader
from spanproof.bench.report_input import Citation, ParsedReport, ReportSentence
from spanproof.core.evidence import Document, EgressEvent
from spanproof.core.sentences import sentence_spans
from spanproof.core.text import PassageIndex as TextIndex
from spanproof.core.text import looks_like_chrome
from spanproof.core.tool_schema import ToolFailure
from spanproof.core.urls import host_of
from spanproof.core.verdict import Proof, SpanRef, Verdict
from spanproof.web.egress import EgressPolicy, Fetcher
from spanproof.web.snapshots import SnapshotStore

MAX_PASSAGE_CHARS = 900
DEFAULT_PASSAGES = 3
_RANK = {"SUPPORTED": 2, "PARTIAL": 1, "NOT_SUPPORTED": 0}

# --- models -----------------------------------------------------------------------------


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
    decided_by: str | None = None  # why that passage decided (see the module docstring)
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


class PlantedVariant(BaseModel):
    id: str
    kind: Literal["swap_citation", "drift_number", "shift_time", "append_claim", "negation"]
    sentence_index: int
    before: str
    after: str
    targets: list[str]  # "claim text @ url" pairs the plant must make fail
    detected: dict[str, bool] = Field(default_factory=dict)
    # passed by the verdict but flagged for a person: never counted as detected
    flagged_only: dict[str, bool] = Field(default_factory=dict)


class PlantedSummary(BaseModel):
    eligible_sentences: list[int]  # sentences all of whose pairs every span judge SUPPORTED
    variants: list[PlantedVariant]
    sensitivity: dict[str, float]
    sensitivity_by_kind: dict[str, dict[str, float]]
    original_pass_rate: dict[str, float]  # share of the original report's pairs SUPPORTED
    # share of variants each grader's verdict passed but a flag would hold back for a person
    flag_only: dict[str, float] = Field(default_factory=dict)


class GradeResult(BaseModel):
    report: str
    format: str
    judges: list[JudgeGrade]
    sources: list[SourceResult] = Field(default_factory=list)
    egress: list[EgressEvent] = Field(default_factory=list)
    planted: PlantedSummary | None = None


class GradeError(RuntimeError):
    """Grading cannot proceed; the message says how to fix it."""


# --- sources ----------------------------------------------------------------------------


def cited_hosts(urls: list[str]) -> list[str]:
    hosts = []
    for url in urls:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if not host:
            continue
        entry = f"{host}:{parts.port}" if parts.port else host
        if entry not in hosts:
            hosts.append(entry)
    return hosts


class SourceFetcher:
    """Fetches each cited URL once through the egress layer and keeps the snapshot."""

    def __init__(self, fetcher: Fetcher, store: SnapshotStore) -> None:
        self.fetcher = fetcher
        self.store = store
        self.results: dict[str, SourceResult] = {}
        self.documents: dict[str, Document] = {}

    async def fetch_all(self, urls: list[str]) -> dict[str, SourceResult]:
        todo = [u for u in dict.fromkeys(urls) if u not in self.results]
        await asyncio.gather(*(self._one(u) for u in todo))
        return self.results

    async def _one(self, url: str) -> None:
        try:
            doc = await self.fetcher.fetch(url)
        except ToolFailure as exc:
            self.results[url] = SourceResult(
                url=url, reachable=False, reason=f"{exc.detail.error}: {exc.detail.message}"
            )
            return
        if doc.status >= 400:
            self.results[url] = SourceResult(url=url, reachable=False, reason=f"HTTP {doc.status}")
            return
        if host_of(doc.final_url).lower() != host_of(url).lower():
            # Another host, even one the report cites elsewhere, is not the cited source.
            self.results[url] = SourceResult(
                url=url,
                reachable=False,
                reason=f"REDIRECTED_AWAY: {url} now redirects to {doc.final_url}",
                doc_id=doc.doc_id,
                final_url=doc.final_url,
                retrieved_at=doc.retrieved_at,
            )
            return
        self.documents[url] = doc
        self.results[url] = SourceResult(
            url=url,
            reachable=True,
            doc_id=doc.doc_id,
            final_url=doc.final_url,
            retrieved_at=doc.retrieved_at,
            title=doc.title,
        )


# --- passages ---------------------------------------------------------------------------


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """Sentence (start, end) offsets of a stored text; blocks (lines) never share a sentence."""
    out: list[tuple[int, int]] = []
    for block in re.finditer(r"[^\n]+", text):
        base = block.start()
        body = block.group(0)
        if len(body) < 200 and not re.search(r"[.!?]\s", body):
            out.append((base, block.end()))  # a short line is its own unit (headings, items)
            continue
        out.extend((base + start, base + end) for start, end in sentence_spans(body))
    return [b for b in out if text[b[0] : b[1]].strip()]


class PassageIndex:
    """Sentence windows (1-3 sentences, <= 900 chars) of one document, ranked by BM25
    (``spanproof.core.text.PassageIndex``: SQLite FTS5 over the project's stems)."""

    def __init__(self, text: str, max_chars: int = MAX_PASSAGE_CHARS) -> None:
        self.text = text
        bounds = sentence_bounds(text)
        windows: list[tuple[int, int]] = []
        for i, (start, end) in enumerate(bounds):
            if end - start > max_chars:
                windows.append((start, _cut(text, start, max_chars)))
                continue
            for j in range(i, min(i + 3, len(bounds))):
                stop = bounds[j][1]
                if stop - start > max_chars:
                    break
                windows.append((start, stop))
        # navigation and page furniture are never evidence: they are not candidates at all
        self.windows = [(s, e) for s, e in windows if not looks_like_chrome(text[s:e])]
        self._index = TextIndex([text[s:e] for s, e in self.windows])

    def best(self, claim: str, n: int = DEFAULT_PASSAGES) -> list[tuple[int, int]]:
        """The ``n`` most relevant windows sharing a word with the claim, best first."""
        chosen: list[tuple[int, int]] = []
        for k, score in self._index.rank(claim):
            if score <= 0:
                break  # the rest share no word with the claim
            s, e = self.windows[k]
            # A window mostly inside one already chosen adds little for the judge.
            if any(min(e, ce) - max(s, cs) > 0.5 * (e - s) for cs, ce in chosen):
                continue
            chosen.append((s, e))
            if len(chosen) == n:
                break
        return chosen


def _cut(text: str, start: int, max_chars: int) -> int:
    """End of a window that must be cut: the last space before max_chars."""
    end = start + max_chars
    space = text.rfind(" ", start, end)
    return space if space > start + max_chars // 2 else end


# --- grading ----------------------------------------------------------------------------


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
    pair: _Pair, verdict, *, reason=None, span=None, judged=0, decided_by=None, passages=()
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
        judges: dict[str, object],  # grader id -> Verifier (span judges) or PresenceGrader
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

    async def _grade_pair(self, judge_id: str, grader, pair: _Pair) -> GradedClaim:
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

    async def _judge(self, verifier, pair: _Pair, doc: Document) -> GradedClaim:
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


def ratio(a: int, b: int) -> float:
    return round(a / b, 4) if b else 0.0


def compute_metrics(entries: list[GradedClaim]) -> GradeMetrics:
    by_claim: dict[str, list[GradedClaim]] = defaultdict(list)
    for e in entries:
        by_claim[e.id].append(e)
    n_claims = len(by_claim)
    full = sum(1 for es in by_claim.values() if any(e.supports for e in es))
    part = sum(1 for es in by_claim.values() if any(e.supports_part for e in es))
    cited = [e for e in entries if e.url is not None]
    n_cit = len(cited)
    strict = sum(1 for e in cited if e.supports)
    loose = sum(1 for e in cited if e.supports_part)
    unreachable = sum(1 for e in cited if e.verdict == "UNREACHABLE")
    errors = sum(1 for e in cited if isinstance(e.verdict, Verdict) and e.verdict.error)
    by_marker: dict[str, list[GradedClaim]] = defaultdict(list)
    for e in cited:
        by_marker[e.occurrence or f"{e.id}@{e.url}"].append(e)
    shared = {k: es for k, es in by_marker.items() if len({e.id for e in es}) > 1}
    laundered = []
    for k, es in shared.items():
        yes = [e.text for e in es if e.supports]
        no = [e.text for e in es if not e.supports]
        if yes and no:
            laundered.append(
                LaunderingCase(url=es[0].url or "", occurrence=k, supported=yes, unsupported=no)
            )
    return GradeMetrics(
        claims=n_claims,
        uncited_claims=sum(1 for es in by_claim.values() if es[0].url is None),
        citations=n_cit,
        citation_recall=ratio(full, n_claims),
        citation_recall_with_partial=ratio(part, n_claims),
        partial_claim_rate=ratio(part - full, n_claims),
        citation_precision=ratio(strict, n_cit),
        citation_precision_with_partial=ratio(loose, n_cit),
        partial_citation_rate=ratio(loose - strict, n_cit),
        unreachable=unreachable,
        unreachable_rate=ratio(unreachable, n_cit),
        judge_errors=errors,
        paragraph_level_citations=sum(1 for e in cited if e.scope == "paragraph"),
        shared_citations=len(shared),
        laundering=len(laundered),
        laundered=laundered,
    )


# --- planted failures at report level ---------------------------------------------------

# "negation" changes no number, date or name, so only a judge that reads the span for
# meaning catches it; the deterministic audit alone (e.g. behind the blind judge) does not.
PLANT_KINDS = ("swap_citation", "drift_number", "shift_time", "append_claim", "negation")
_CLAIM_MUTATORS = {
    "drift_number": "drift_number",
    "shift_time": "wrong_period",
    "negation": "negation_flip",
}


def _replace_sentence(report: ParsedReport, index: int, **update) -> ParsedReport:
    sentences = [s.model_copy(update=update) if s.index == index else s for s in report.sentences]
    return report.model_copy(update={"sentences": sentences})


def _claim_mutation(kind: str, text: str, rng: random.Random) -> tuple[str, str, str] | None:
    """(new sentence, before, after) via the planted_failures claim mutators."""
    from spanproof.planted_failures.registry import MUTATORS

    from spanproof.core.verdict import Pair

    mutator = MUTATORS[_CLAIM_MUTATORS[kind]]
    planted = mutator(Pair(id="report", claim=text, span="", label="SUPPORTED"), rng, [])
    if planted is None or planted.claim == text:
        return None
    change = planted.changes[0] if planted.changes else None
    return (
        planted.claim,
        change.before if change else text,
        change.after if change else planted.claim,
    )


def plant_variants(
    report: ParsedReport,
    eligible: list[int],
    *,
    seed: int = 0,
    per_kind: int = 3,
    reachable: set[str] | None = None,
    page_texts: dict[str, str] | None = None,
) -> list[tuple[PlantedVariant, ParsedReport]]:
    """Corrupt good sentences of a report in four known ways; each variant has one change.

    Swapped-in citations and appended sentences come only from pages that resolved and
    sentences that were good, so a variant is wrong in content, never merely broken.
    """
    rng = random.Random(seed)
    by_index = {s.index: s for s in report.sentences}
    good = set(eligible)
    cited_urls = [u for u in report.cited_urls if reachable is None or u in reachable]
    out: list[tuple[PlantedVariant, ParsedReport]] = []

    def targets_of(
        variant: ParsedReport, sentence_index: int, only_new_vs: set[str] | None
    ) -> list[str]:
        claims = [c for c in atomic_claims(variant) if c.sentence_index == sentence_index]
        found = []
        for c in claims:
            if only_new_vs is not None and c.text in only_new_vs:
                continue
            for cit in c.citations:
                found.append(f"{c.text} @ {cit.url}")
        return found

    original_texts = {c.text for c in atomic_claims(report)}
    order = list(eligible)
    for kind in PLANT_KINDS:
        made = 0
        candidates = order[:]
        rng.shuffle(candidates)
        for idx in candidates:
            if made >= per_kind:
                break
            s = by_index[idx]
            if kind == "swap_citation":
                own = {c.url for c in s.citations}
                others = [u for u in cited_urls if u not in own]
                if not others or not s.citations:
                    continue
                new_url = rng.choice(others)
                old = s.citations[0]
                # The swapped marker is this sentence's own: others sharing it keep the old URL.
                cits = [
                    old.model_copy(update={"url": new_url, "occurrence": old.occurrence + "-swap"})
                ] + s.citations[1:]
                variant = _replace_sentence(report, idx, citations=cits)
                targets = [
                    f"{c.text} @ {new_url}"
                    for c in atomic_claims(variant)
                    if c.sentence_index == idx
                ]
                pv = PlantedVariant(
                    id=f"{kind}-{idx}",
                    kind=kind,
                    sentence_index=idx,
                    before=old.url,
                    after=new_url,
                    targets=targets,
                )
            elif kind in _CLAIM_MUTATORS:
                mutated = _claim_mutation(kind, s.text, rng)
                if mutated is None:
                    continue
                new_text, before, after = mutated
                urls = [c.url for c in s.citations]
                if kind != "negation" and _stated_on_pages(after, urls, page_texts or {}):
                    continue  # "1991 -> 1992" on a page that says "1991 - 1992" is no failure
                variant = _replace_sentence(report, idx, text=new_text)
                targets = targets_of(variant, idx, original_texts)
                if not targets:
                    continue
                pv = PlantedVariant(
                    id=f"{kind}-{idx}",
                    kind=kind,
                    sentence_index=idx,
                    before=before,
                    after=after,
                    targets=targets,
                )
            else:  # append_claim
                if not s.citations:
                    continue
                host_cits = s.citations
                foreign = [
                    o for o in report.sentences
                    if o.paragraph != s.paragraph and o.citations and o.index in good
                    and not ({c.url for c in o.citations} & {c.url for c in host_cits})
                ]  # fmt: skip
                if not foreign:
                    continue
                donor = rng.choice(foreign)
                variant, new_index = _append_under_citation(report, s, donor)
                targets = targets_of(variant, new_index, None)
                pv = PlantedVariant(
                    id=f"{kind}-{idx}",
                    kind=kind,
                    sentence_index=new_index,
                    before="",
                    after=donor.text,
                    targets=targets,
                )
            out.append((pv, variant))
            made += 1
    return out


def _stated_on_pages(value: str, urls: list[str], page_texts: dict[str, str]) -> bool:
    pattern = re.compile(rf"(?<![\w.,]){re.escape(value)}(?![\w]|[.,]\d)")
    return any(pattern.search(page_texts.get(u, "")) for u in urls)


def _append_under_citation(
    report: ParsedReport, host: ReportSentence, donor: ReportSentence
) -> tuple[ParsedReport, int]:
    """Insert ``donor``'s words, uncited, just before ``host``'s closing citation."""
    shared = [c.model_copy(update={"scope": "paragraph"}) for c in host.citations]
    new_sentences: list[ReportSentence] = []
    new_index = -1
    for s in report.sentences:
        if s.index == host.index:
            new_index = len(new_sentences)
            new_sentences.append(
                ReportSentence(
                    index=new_index,
                    paragraph=s.paragraph,
                    text=donor.text,
                    line=s.line,
                    citations=shared,
                )
            )
            new_sentences.append(
                s.model_copy(update={"index": len(new_sentences), "citations": shared})
            )
        else:
            new_sentences.append(s.model_copy(update={"index": len(new_sentences)}))
    return report.model_copy(update={"sentences": new_sentences}), new_index


def _detected(grade: JudgeGrade, targets: list[str]) -> bool:
    wanted = set(targets)
    hits = [e for e in grade.claims if f"{e.text} @ {e.url}" in wanted]
    return any(not e.supports for e in hits)


def _flagged_only(grade: JudgeGrade, targets: list[str]) -> bool:
    wanted = set(targets)
    hits = [e for e in grade.claims if f"{e.text} @ {e.url}" in wanted]
    return not any(not e.supports for e in hits) and any(
        isinstance(e.verdict, Verdict) and e.verdict.flagged for e in hits
    )


async def run_plant(
    grader: ReportGrader,
    report: ParsedReport,
    original: list[JudgeGrade],
    *,
    seed: int = 0,
    per_kind: int = 3,
) -> PlantedSummary:
    span_judges = [g for g in original if not isinstance(grader.judges[g.judge], PresenceGrader)]
    reference = span_judges or original
    bad_sentences = {e.sentence_index for g in reference for e in g.claims if not e.supports}
    eligible = sorted({s.index for s in report.sentences if s.citations} - bad_sentences)
    if not eligible:
        raise GradeError(
            "--plant needs a good report: no sentence had all of its claims SUPPORTED by "
            f"{', '.join(g.judge for g in reference)}. Plant from a report whose claims hold."
        )
    reachable = {u for u, r in grader.sources.results.items() if r.reachable}
    texts = {u: d.text for u, d in grader.sources.documents.items()}
    variants = plant_variants(
        report, eligible, seed=seed, per_kind=per_kind, reachable=reachable, page_texts=texts
    )
    for pv, variant in variants:
        grades = await grader.grade(variant)
        for g in grades:
            pv.detected[g.judge] = _detected(g, pv.targets)
            pv.flagged_only[g.judge] = _flagged_only(g, pv.targets)
    judges = [g.judge for g in original]
    sensitivity = {
        j: ratio(sum(pv.detected[j] for pv, _ in variants), len(variants)) for j in judges
    }
    by_kind: dict[str, dict[str, float]] = {}
    for kind in PLANT_KINDS:
        of_kind = [pv for pv, _ in variants if pv.kind == kind]
        if of_kind:
            by_kind[kind] = {
                j: ratio(sum(pv.detected[j] for pv in of_kind), len(of_kind)) for j in judges
            }
    pass_rate = {
        g.judge: ratio(sum(1 for e in g.claims if e.supports), len(g.claims)) for g in original
    }
    return PlantedSummary(
        eligible_sentences=eligible,
        variants=[pv for pv, _ in variants],
        sensitivity=sensitivity,
        sensitivity_by_kind=by_kind,
        original_pass_rate=pass_rate,
        flag_only={
            j: ratio(sum(pv.flagged_only.get(j, False) for pv, _ in variants), len(variants))
            for j in judges
        },
    )


# --- entry point ------------------------------------------------------------------------


def build_graders(
    specs: list[str], allow_hosts: list[str], *, cache=None, endpoint=None
) -> dict[str, object]:
    """Grader id -> Verifier (for judge specs) or PresenceGrader (for ``presence``)."""
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    out: dict[str, object] = {}
    for spec in specs:
        if spec.strip() == PRESENCE_ID:
            out[PRESENCE_ID] = PresenceGrader(allow_hosts)
            continue
        judge = make_judge(spec, endpoint=endpoint)
        out[judge.id if judge.id not in out else spec] = Verifier([judge], cache=cache)
    return out


async def grade_report(
    report: ParsedReport,
    *,
    fetcher: Fetcher,
    store: SnapshotStore,
    judges: list[str],
    allow_hosts: list[str] | None = None,
    plant: bool = False,
    seed: int = 0,
    cache=None,
    endpoint=None,
    claims: list[AtomicClaim] | None = None,
    progress: Callable[[str], None] | None = None,
) -> GradeResult:
    """Grade ``report`` with every spec in ``judges`` (side by side), optionally planting."""
    hosts = allow_hosts if allow_hosts is not None else cited_hosts(report.cited_urls)
    graders = build_graders(judges, hosts, cache=cache, endpoint=endpoint)
    sources = SourceFetcher(fetcher, store)
    grader = ReportGrader(sources, graders, progress=progress)
    grades = await grader.grade(report, claims)
    planted = await run_plant(grader, report, grades, seed=seed) if plant else None
    return GradeResult(
        report=report.source,
        format=report.format,
        judges=grades,
        sources=[sources.results[u] for u in report.cited_urls if u in sources.results],
        egress=list(fetcher.events),
        planted=planted,
    )


def make_fetcher(
    store: SnapshotStore,
    allow_hosts: list[str],
    *,
    transport=None,
    allow_networks: list[str] | None = None,
    page_timeout_s: float | None = None,
) -> Fetcher:
    """A Fetcher whose allowlist is exactly the cited hosts (``transport`` for replay/tests).

    Live, only public addresses are reached unless ``allow_networks`` (CIDRs) names others:
    a report is untrusted, and a citation of 127.0.0.1 or 169.254.169.254 is an SSRF.
    ``page_timeout_s`` bounds each whole page: a cited server may trickle its bytes."""
    timeout = {"page_timeout_s": page_timeout_s} if page_timeout_s else {}
    policy = EgressPolicy(allow_hosts=allow_hosts, allow_networks=allow_networks or [], **timeout)
    return Fetcher(policy, store, transport=transport)
