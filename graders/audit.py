"""The deterministic audit applied to every verdict, whatever the judge.

A judge (model or rules) is a flagger, never the last word. After it answers, code checks:

1. ``quote_in_span`` — ``quote_used`` must occur in the span after whitespace normalisation
   only (runs of whitespace collapsed; no case folding, no quote-mark folding). A verdict
   whose quote is not in the span becomes NOT_SUPPORTED: this is what catches a judge that
   has started agreeing by default. A SUPPORTED verdict with no quote at all is treated the
   same way (nothing in the span was pointed at). A quote over 25 words is recorded (the
   prompt's limit) but not by itself a downgrade.
2. ``specifics`` — the claim's numbers, dates and named entities are compared with the
   span's (graders.specifics.compare; numbers, dates, named entities by the head rule). A mismatch downgrades SUPPORTED to
   PARTIAL and names the element in ``unsupported_element``: a judge's SUPPORTED cannot
   override arithmetic. PARTIAL and NOT_SUPPORTED are left as they are.
3. ``instructions`` — a span that addresses a machine (graders.instructions) sets
   ``contains_instructions`` and makes the verdict NOT_SUPPORTED, whatever the judge said.
   A judge that itself reported ``contains_instructions`` also gets NOT_SUPPORTED.

Every check is recorded in ``Verdict.checks`` whether or not it fired, so a reader can see
what was looked at. ``audit`` is pure and idempotent: it replaces earlier results of the
same checks rather than appending duplicates.
"""

from __future__ import annotations

from spanproof.graders.instructions import find_instructions
from spanproof.graders.specifics import compare
from spanproof.graders.verdict import CheckResult, SpanRef, Verdict

from spanproof.text import normalise_ws

CHECK_NAMES = ("quote_in_span", "specifics", "instructions")
MAX_QUOTE_WORDS = 25
_RANK = {"NOT_SUPPORTED": 0, "PARTIAL": 1, "SUPPORTED": 2}


def quote_in_span(quote: str, span_text: str) -> bool:
    q = normalise_ws(quote)
    return bool(q) and q in normalise_ws(span_text)


def audit(claim: str, span: SpanRef, verdict: Verdict) -> Verdict:
    v = verdict.model_copy(deep=True)
    checks = [c for c in v.checks if c.name not in CHECK_NAMES]

    # 1. the quote is really in the span
    if v.quote_used is None or not v.quote_used.strip():
        fired = v.verdict == "SUPPORTED" and v.error is None
        checks.append(
            CheckResult(
                name="quote_in_span",
                fired=fired,
                detail="SUPPORTED without a quote_used" if fired else "no quote given",
            )
        )
        if fired:
            v.verdict = "NOT_SUPPORTED"
            v.unsupported_element = v.unsupported_element or "no quote from the span"
    elif not quote_in_span(v.quote_used, span.text):
        checks.append(
            CheckResult(
                name="quote_in_span",
                fired=True,
                detail=f"quote_used is not in the span: {v.quote_used[:120]!r}",
            )
        )
        v.verdict = "NOT_SUPPORTED"
        v.unsupported_element = v.unsupported_element or "quote_used not found in the span"
    else:
        n = len(v.quote_used.split())
        detail = "quote found in span"
        if n > MAX_QUOTE_WORDS:
            detail += f" (but {n} words, over the {MAX_QUOTE_WORDS}-word limit)"
        checks.append(CheckResult(name="quote_in_span", fired=False, detail=detail))

    # 2. the claim is no broader than the span: numbers, dates, named entities
    mismatches = compare(claim, span.text)
    if mismatches:
        detail = "; ".join(str(m) for m in mismatches)
        downgraded = v.verdict == "SUPPORTED"
        if downgraded:
            v.verdict = "PARTIAL"
            v.unsupported_element = mismatches[0].element
        checks.append(
            CheckResult(
                name="specifics",
                fired=True,
                detail=("downgraded SUPPORTED to PARTIAL: " if downgraded else "")
                + f"claim specifics not in span: {detail}",
            )
        )
    else:
        checks.append(
            CheckResult(name="specifics", fired=False, detail="numbers, dates and names agree")
        )

    # 3. the span addresses a machine
    findings = find_instructions(span.text)
    if findings or v.contains_instructions:
        v.contains_instructions = True
        v.verdict = "NOT_SUPPORTED"
        v.unsupported_element = v.unsupported_element or "span contains instructions"
        detail = (
            "; ".join(f"{f.rule}: {f.text!r}" for f in findings)
            if findings
            else "reported by the judge"
        )
        checks.append(CheckResult(name="instructions", fired=True, detail=detail))
    else:
        checks.append(CheckResult(name="instructions", fired=False, detail="none found"))

    if v.verdict == "SUPPORTED":
        v.unsupported_element = None
    v.checks = checks
    return v


def weakest(verdicts: list[Verdict]) -> Verdict:
    """The verdict with the lowest rank (ties: the first); errors count as NOT_SUPPORTED."""
    return min(verdicts, key=lambda x: _RANK[x.verdict] if x.error is None else -1)
