"""The deterministic audit applied to every verdict, whatever the judge.

A judge (model or rules) is a flagger, never the last word. After it answers, code checks:

1. ``quote_in_span`` — ``quote_used`` must be evidence: verbatim in the span after
   whitespace normalisation only (runs of whitespace collapsed; no case folding, no
   quote-mark folding), at least ``MIN_QUOTE_CONTENT_WORDS`` content words long (or the
   whole span when the span is shorter), and sharing at least one content word with the
   claim. A SUPPORTED or PARTIAL verdict whose quote is not evidence becomes NOT_SUPPORTED:
   this is what catches a judge that has started agreeing by default ("the", one
   character, or an unrelated sentence quoted to pass). A SUPPORTED verdict with no quote at
   all is treated the same way (nothing in the span was pointed at). A quote over 25 words is
   recorded (the prompt's limit) but not by itself a downgrade.
2. ``specifics`` — the claim's numbers, dates and named entities are compared with the
   span's at the precision the claim states them (graders.specifics: "about 250" is met by
   248, "since 1999" by "in 1999", a first name used alone by the full name; "a third" is
   still not 34%). A specific the span does not establish downgrades SUPPORTED to PARTIAL
   and is named in ``unsupported_element``: a judge's SUPPORTED cannot override arithmetic.
   PARTIAL and NOT_SUPPORTED are left as they are — except for a reference code, web address
   or file name the span never states ("SWIFT-BOIL-22", "example.org/verify?q="): it names
   something the span does not mention at all, so SUPPORTED or PARTIAL becomes NOT_SUPPORTED
   (how an attacker's planted "fact" usually travels).
3. ``wording`` — where the claim says what its span does not
   (graders.specifics.comparison.departures): a number, date or period the span gives
   another value for in the same role ("Q1 2023" / "Q2 2023 revenue"), a part of the claim
   that negates, or uses the
   opposite word of, the span sentence it follows ("was not selected" / "the library
   selected"; "a negative influence" / "a positive influence"), states as obligation or
   certainty what it hedges ("must" / "is expected to"), or credits a source the span
   never names ("according to the World Bank"), is a different claim: SUPPORTED or PARTIAL
   becomes NOT_SUPPORTED. An element joined on with "and" that the span never states or
   never joins ("two children and adults"; "the Council and Teresa Mosqueda" where the span
   names her elsewhere) makes the claim wider than the span: SUPPORTED becomes PARTIAL.
4. ``instructions`` — a span that addresses a machine (graders.instructions) sets
   ``contains_instructions`` and makes the verdict NOT_SUPPORTED, whatever the judge said.
   A judge that itself reported ``contains_instructions`` also gets NOT_SUPPORTED.

The judge's own label is kept in ``judge_verdict`` (set once, on the first audit), so
every figure can be reported judge-only and audited. Every check is recorded in
``Verdict.checks`` whether or not it fired, so a reader can see what was looked at.
``audit`` is pure and idempotent: it replaces earlier results of the same checks rather than
appending duplicates.

``AUDIT_VERSION`` hashes the code and lexicons the audit reads; a verdict cache keyed on it
never serves a verdict audited by other code.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from spanproof.graders.instructions import find_instructions
from spanproof.graders.specifics import compare, departures
from spanproof.graders.specifics.comparison import REVERSING
from spanproof.graders.verdict import CheckResult, SpanRef, Verdict

from spanproof.text import content_stems, normalise_ws

CHECK_NAMES = ("quote_in_span", "specifics", "wording", "instructions")
MAX_QUOTE_WORDS = 25
# A quote is evidence when it holds at least this many content words (or is the whole span):
# "the", one character or "it" point at nothing; "6.5 percent" or "rate rose" point at a fact.
MIN_QUOTE_CONTENT_WORDS = 2
_RANK = {"NOT_SUPPORTED": 0, "PARTIAL": 1, "SUPPORTED": 2}


def _code_version() -> str:
    here = Path(__file__).parent
    root = here.parent / "spanproof"
    files = [here / "audit.py", here / "instructions.py", root / "text.py"]
    files += sorted((here / "specifics").rglob("*")) + sorted((root / "data").glob("*"))
    h = hashlib.sha256()
    for path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(path.name.encode() + b"\0" + path.read_bytes())
    return "audit-" + h.hexdigest()[:16]


AUDIT_VERSION = _code_version()


def quote_in_span(quote: str, span_text: str) -> bool:
    q = normalise_ws(quote)
    return bool(q) and q in normalise_ws(span_text)


def _keys(text: str) -> set[str]:
    # A 5-letter prefix of the stem joins derived forms ("announce"/"announcement").
    return {s[:5] for s in content_stems(text)}


def quote_problem(quote: str, span_text: str, claim: str) -> str | None:
    """Why ``quote`` is not evidence for ``claim`` in this span, or None when it is."""
    if not quote_in_span(quote, span_text):
        return f"quote_used is not in the span: {quote[:120]!r}"
    words = content_stems(quote)
    whole_span = normalise_ws(quote) == normalise_ws(span_text)
    if len(words) < MIN_QUOTE_CONTENT_WORDS and not whole_span:
        return (
            f"quote_used {quote[:60]!r} has {len(words)} content word(s); a quote must hold "
            f"at least {MIN_QUOTE_CONTENT_WORDS} (or be the whole span)"
        )
    claim_keys = _keys(claim)
    if claim_keys and not (claim_keys & _keys(quote)):
        return f"quote_used shares no content word with the claim: {quote[:120]!r}"
    return None


def audit(claim: str, span: SpanRef, verdict: Verdict) -> Verdict:
    v = verdict.model_copy(deep=True)
    if v.judge_verdict is None and v.error is None:
        v.judge_verdict = v.verdict
    checks = [c for c in v.checks if c.name not in CHECK_NAMES]

    # 1. the quote is really in the span, and is evidence
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
    else:
        problem = quote_problem(v.quote_used, span.text, claim)
        verbatim = quote_in_span(v.quote_used, span.text)
        # A quote that is not in the span downgrades any verdict; a quote too thin to be
        # evidence only matters when the verdict rests on it (SUPPORTED or PARTIAL).
        fired = problem is not None and (not verbatim or v.verdict != "NOT_SUPPORTED")
        if fired:
            checks.append(CheckResult(name="quote_in_span", fired=True, detail=problem or ""))
            v.verdict = "NOT_SUPPORTED"
            v.unsupported_element = v.unsupported_element or (
                "quote_used not found in the span" if not verbatim else "quote_used is not evidence"
            )
        else:
            n = len(v.quote_used.split())
            detail = "quote found in span"
            if n > MAX_QUOTE_WORDS:
                detail += f" (but {n} words, over the {MAX_QUOTE_WORDS}-word limit)"
            checks.append(CheckResult(name="quote_in_span", fired=False, detail=detail))

    # 2. the claim is no broader than the span: numbers, dates, named entities, identifiers
    mismatches = compare(claim, span.text)
    if mismatches:
        detail = "; ".join(str(m) for m in mismatches)
        foreign = [m for m in mismatches if m.kind == "identifier"]
        downgraded = v.verdict == "SUPPORTED" or (foreign and v.verdict == "PARTIAL")
        if foreign and v.verdict != "NOT_SUPPORTED":
            # a code, address or file name the span never states names something the span
            # does not mention at all: the claim is about something else
            v.verdict = "NOT_SUPPORTED"
            v.unsupported_element = foreign[0].element
        elif downgraded:
            v.verdict = "PARTIAL"
            v.unsupported_element = mismatches[0].element
        checks.append(
            CheckResult(
                name="specifics",
                fired=True,
                detail=(
                    (
                        "downgraded to NOT_SUPPORTED: "
                        if foreign
                        else "downgraded SUPPORTED to PARTIAL: "
                    )
                    if downgraded
                    else ""
                )
                + f"claim specifics not in span: {detail}",
            )
        )
    else:
        checks.append(
            CheckResult(name="specifics", fired=False, detail="numbers, dates and names agree")
        )

    # 3. the claim's wording departs from the span sentence it follows
    found = departures(claim, span.text)
    if found:
        reversing = [m for m in found if m.kind in REVERSING]
        before = v.verdict
        if reversing and v.verdict != "NOT_SUPPORTED":
            v.verdict = "NOT_SUPPORTED"
            v.unsupported_element = reversing[0].element
        elif v.verdict == "SUPPORTED":
            v.verdict = "PARTIAL"
            v.unsupported_element = found[0].element
        changed = f"downgraded {before} to {v.verdict}: " if v.verdict != before else ""
        detail = "; ".join(str(m) for m in found)
        checks.append(CheckResult(name="wording", fired=True, detail=changed + detail))
    else:
        checks.append(
            CheckResult(
                name="wording", fired=False, detail="no reversed, re-credited or joined-on wording"
            )
        )

    # 4. the span addresses a machine
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
