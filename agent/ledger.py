"""The claim ledger: one row per drafted claim, published or not, for a human reviewer.

Source type rule (host-class rule, version 1), decided from the URL alone:
- primary: the host is a government, intergovernmental, military or academic
  domain (.gov, .gov.<cc>, .gouv.<cc>, .gob.<cc>, .mil, .int, .edu, .edu.<cc>,
  .ac.<cc>), or a known primary repository (doi.org, arxiv.org, pubmed, sec.gov
  filings, eur-lex, legislation sites), or the document is a PDF;
- secondary: everything else (news, encyclopedias, blogs, aggregators).
The rule is coarse on purpose: it is stated, stable and checkable; the reviewer
column is where a person corrects it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Protocol
from urllib.parse import urlsplit

from spanproof.agent.record import NOT_SHOWN, LedgerRow, RunRecord
from spanproof.graders.review_queue import review_order

_PRIMARY_SUFFIX = re.compile(
    r"(\.gov|\.gov\.[a-z]{2}|\.gouv\.[a-z]{2}|\.gob\.[a-z]{2}|\.mil|\.int|\.edu|\.edu\.[a-z]{2}|\.ac\.[a-z]{2})$"
)
_PRIMARY_HOSTS = (
    "doi.org",
    "arxiv.org",
    "pubmed.ncbi.nlm.nih.gov",
    "ncbi.nlm.nih.gov",
    "eur-lex.europa.eu",
    "legislation.gov.uk",
    "federalregister.gov",
    "sec.gov",
    "who.int",
    "europa.eu",
)


def source_type(url: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if _PRIMARY_SUFFIX.search(host):
        return "primary"
    if any(host == h or host.endswith("." + h) for h in _PRIMARY_HOSTS):
        return "primary"
    if parts.path.lower().endswith(".pdf"):
        return "primary"
    return "secondary"


def set_by(record_verdict) -> str:
    """Who set the verdict: the judge, or the code proofs that lowered it (flags set
    nothing: they ask a person to look)."""
    if record_verdict.error is not None:
        return "judge_error"
    if (
        record_verdict.judge_verdict is not None
        and record_verdict.verdict != record_verdict.judge_verdict
    ):
        kinds = sorted({p.kind for p in record_verdict.proofs})
        if kinds:
            return "proof:" + ",".join(kinds)
    if record_verdict.judge_verdict is None:
        # verdicts recorded before proofs and flags were kept apart
        fired = [c.name for c in record_verdict.checks if c.fired]
        if fired:
            return "check:" + ",".join(fired)
    return record_verdict.judge or "judge"


def citation_numbers(record: RunRecord) -> dict[int, int]:
    """claim index -> the number the answer cites it by ([1] is the first claim shown), so the
    ledger, the viewer and `runs show` number claims as the answer does."""
    return {c.index: n for n, c in enumerate(record.answer.shown, start=1)}


def build_ledger(record: RunRecord) -> list[LedgerRow]:
    """One row per drafted claim, in review order (``graders.review_queue``: code's proofs,
    then flags, then the judge's confidence), so a reviewer reads the likeliest wrong first."""
    number = citation_numbers(record)
    rows = []
    claims = record.answer.claims
    for claim in (claims[i] for i in review_order([c.verdict for c in claims])):
        span_id = claim.supporting_span_id or (claim.span_ids[0] if claim.span_ids else None)
        span = record.span(span_id) if span_id else None
        doc = record.document(span.doc_id) if span else None
        rows.append(
            LedgerRow(
                claim=claim.text,
                quote=span.text if span else "",
                span_id=span_id,
                url=span.url if span else "",
                title=(doc.title if doc else span.title if span else ""),
                retrieved_at=span.retrieved_at if span else "",
                snapshot_sha256=doc.sha256 if doc else "",
                source_type=source_type(span.url) if span else "secondary",
                verdict=claim.verdict.verdict if claim.verdict.error is None else "ERROR",
                set_by=set_by(claim.verdict),
                status=claim.status,
                published=claim.status not in NOT_SHOWN,
                reason=claim.reason,
                flags=[f.reason for f in claim.verdict.flags],
                proofs=[p.reason for p in claim.verdict.proofs],
                needs_human=claim.needs_human,
                reviewer_decision=None,
                claim_index=claim.index,
                citation=number.get(claim.index),
            )
        )
    return rows


class ReviewLike(Protocol):
    # read-only, so a review whose decision is a Literal (the store's Review) is one
    @property
    def claim_index(self) -> int: ...
    @property
    def decision(self) -> str: ...
    @property
    def reviewer(self) -> str: ...
    @property
    def decided_at(self) -> datetime: ...
    @property
    def note(self) -> str: ...
    @property
    def edited_text(self) -> str | None: ...


def ledger_with_reviews(record: RunRecord, reviews: Iterable[ReviewLike]) -> list[LedgerRow]:
    """The run's ledger with each claim's reviewer decision in force (the latest one) filled in.

    ``reviews`` come oldest first (as the store lists them)."""
    latest: dict[int, ReviewLike] = {}
    for r in reviews:
        if r.decision != "refused":  # a refused edit kept for the bench is never in force
            latest[r.claim_index] = r
    indexes = [c.index for c in record.answer.claims]
    number = citation_numbers(record)
    rows = []
    for n, row in enumerate(record.ledger or build_ledger(record)):
        index = (
            row.claim_index
            if row.claim_index is not None
            else indexes[n]
            if n < len(indexes)
            else None
        )
        review = latest.get(index) if index is not None else None
        citation = number.get(index) if index is not None else None
        update: dict = {"claim_index": index, "citation": citation}
        if review is not None:
            update |= {
                "reviewer_decision": review.decision,
                "reviewer": review.reviewer,
                "reviewed_at": review.decided_at.isoformat(timespec="seconds") + "Z"
                if review.decided_at.tzinfo is None
                else review.decided_at.isoformat(timespec="seconds"),
                "review_note": review.note or None,
                "edited_text": review.edited_text,
            }
        rows.append(row.model_copy(update=update))
    return rows


def _look_cell(row: LedgerRow) -> str:
    # a flag's reason quotes the claim's words: untrusted text, shown as written
    return md("; ".join(row.flags)) if row.flags else ""


def reviewed_answer(record: RunRecord, reviews: Iterable[ReviewLike]) -> RunRecord:
    """The run as a reader should now see it: each claim's latest reviewer decision applied to
    the answer (an edit's wording replaces the claim's in the claim and in the answer text; a
    cut claim's sentence is struck from the answer text). Reviews come oldest first."""
    latest: dict[int, ReviewLike] = {}
    for r in reviews:
        if r.decision != "refused":  # a refused edit kept for the bench is never in force
            latest[r.claim_index] = r
    if not latest:
        return record
    answer = record.answer.model_copy(deep=True)
    for claim in answer.claims:
        review = latest.get(claim.index)
        if review is None or review.decision == "approve":
            continue
        if review.decision == "edit" and review.edited_text:
            answer.summary = answer.summary.replace(claim.text, review.edited_text)
            claim.reason = (claim.reason + "; " if claim.reason else "") + (
                f"edited by {review.reviewer} (was: {claim.text})"
            )
            claim.text = review.edited_text
        elif review.decision == "cut":
            answer.summary = answer.summary.replace(claim.text, f"(cut by {review.reviewer})")
            claim.reason = (claim.reason + "; " if claim.reason else "") + (
                f"cut by {review.reviewer}"
            )
    return record.model_copy(update={"answer": answer})


def md(text: object) -> str:
    """Untrusted text (a page's words, a model's claim) as markdown that shows it as written: a
    `<script>` in a claim is text, not markup, in any renderer; one line; table-safe pipes."""
    out = str(text if text is not None else "")
    out = out.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return " ".join(out.split()).replace("|", "\\|")


def _review_cell(row: LedgerRow) -> str:
    if not row.reviewer_decision:
        return ""
    cell = f"{row.reviewer_decision} by {row.reviewer} {row.reviewed_at}"
    if row.edited_text:
        cell += f": now reads {row.edited_text!r}"
    if row.review_note:
        cell += f" ({row.review_note})"
    return md(cell)


def ledger_markdown(record: RunRecord, rows: list[LedgerRow] | None = None) -> str:
    from tabulate import tabulate

    ledger = record.ledger if rows is None else rows
    # Numbered as the answer cites them ([1] is the first claim shown); a claim not shown has
    # no number in the answer, so it is marked by what happened to it (dropped, held).
    table = [
        [
            f"[{r.citation}]"
            if r.citation is not None
            else ("held" if r.status == "held" else "dropped"),
            md(r.claim),
            md(r.quote[:200] + ("…" if len(r.quote) > 200 else "")),
            md(r.url),
            md(r.title),
            r.retrieved_at,
            r.snapshot_sha256[:12],
            r.source_type,
            r.verdict,
            r.set_by,
            r.status,
            _look_cell(r),
            _review_cell(r),
        ]
        for r in ledger
    ]
    headers = [
        "#",
        "claim",
        "quote",
        "url",
        "title",
        "retrieved",
        "snapshot",
        "source",
        "verdict",
        "set by",
        "status",
        "needs a look",
        "reviewer",
    ]
    return tabulate(table, headers=headers, tablefmt="github")


def signature_line(rows: list[LedgerRow]) -> str:
    """The run's signature as the ledger's rows carry it, or "" when it is not signed."""
    signed = next((r for r in rows if r.signed_by), None)
    return f"_Signed by {md(signed.signed_by)} at {signed.signed_at}._" if signed else ""


def answer_markdown(record: RunRecord) -> str:
    """The brief (answer, citations, gaps) and the claim ledger, as one markdown document."""
    a = record.answer
    m = record.metrics
    out = [f"# {md(record.question)}", ""]
    signed = signature_line(record.ledger)
    if signed:
        out += [signed, ""]
    if a.label:
        out += [f"_{md(a.label)}_", ""]
    out += [md(a.summary), ""]
    if a.shown:
        out += ["## Citations", ""]
        for n, c in enumerate(a.shown, start=1):
            span = record.span(c.supporting_span_id) if c.supporting_span_id else None
            quote = " ".join(span.text.split()) if span else ""
            mark = "" if c.status == "published" else f" ({c.status}: {md(c.reason)})"
            out.append(f"{n}. {md(c.text)}{mark}  ")
            out.append(f"   > {md(quote)}  ")
            if span:
                out.append(
                    f"   {md(span.url)} (retrieved {span.retrieved_at}; verdict "
                    f"{c.verdict.verdict})"
                )
        out.append("")
    if a.gaps:
        out += ["## What I could not source", ""] + [f"- {md(g)}" for g in a.gaps] + [""]
    if a.tried:
        out += ["## What I tried", ""] + [f"- {md(t)}" for t in a.tried] + [""]
    out += ["## Claim ledger", "", ledger_markdown(record), ""]
    out += [
        "## Metrics",
        "",
        f"- pre-prune SUPPORTED rate: {m.pre_prune_supported_rate}",
        f"- published groundedness: {m.published_groundedness}",
        f"- PARTIAL rate: {m.partial_rate}; drop rate: {m.drop_rate}; held for review: "
        f"{m.claims_held} (rate {m.held_rate}); judge errors: {m.judge_errors}",
        f"- cost: ${m.cost.total_usd:.4f}",
        f"- run: {record.run_id} ({record.status})",
        "",
    ]
    return "\n".join(out)
