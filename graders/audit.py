"""The deterministic audit applied to every verdict, whatever the judge: proofs and flags.

A judge (model or rules) reads the pair; code then establishes what it can. The audit keeps
three things apart (``graders.verdict``):

- the **judge's verdict** (``judge_verdict``, set once, on the first audit);
- **proofs** (``Verdict.proofs``): facts code establishes, each with its evidence. A proof
  lowers the verdict, always, whatever the judge said;
- **flags** (``Verdict.flags``): reasons for a person to look, each with its reason and the
  claim words it concerns. A flag never changes the verdict: the agent does not publish a
  flagged claim as it stands (``agent.publish``), and every figure reports flags beside the
  verdicts, but what the judge read is not rewritten.

The final ``verdict`` is the judge's, lowered only by proofs.

Proofs:

1. ``quote_in_span`` — ``quote_used`` must be evidence: verbatim in the span after
   whitespace normalisation only (runs of whitespace collapsed; no case folding, no
   quote-mark folding), at least ``MIN_QUOTE_CONTENT_WORDS`` content words long (or the
   whole span when the span is shorter) and sharing a content word with the claim. For a
   SUPPORTED verdict it must also point where the span states the claim: hold at least half
   of the claim's content words that the best quote of the same length the span allows holds
   (``graders.quoting.best_window``, 25 words). A quote shows what the verdict rests on; two
   or three words of the claim's subject ("Rothschild investment banker") point at a topic,
   not at the statement, whatever the judge concluded from it. A quote that is not in the
   span lowers any verdict to NOT_SUPPORTED; a quote that is not evidence, or no quote for a
   SUPPORTED verdict, lowers a SUPPORTED or PARTIAL one. This is what catches a judge that
   has started agreeing by default. A quote over 25 words is recorded (the prompt's limit)
   but is not by itself a proof.
2. ``contradiction`` — a value of the claim (number, date, weekday, qualified name) that
   the span states otherwise in the same role: "rose to 800" / "rose to 750", "died on
   Sunday" / "died Saturday", "North Carolina Gov." / "South Carolina Gov."
   (graders.specifics.slot_reader, which says what "same role" requires). The proof carries both
   values with their offsets and the span words it rests on. NOT_SUPPORTED.
3. ``instructions`` — a span that addresses a machine (graders.instructions), or a judge that
   reported ``contains_instructions``: NOT_SUPPORTED with ``contains_instructions``. A security
   control, in code.

Flags (absence alone is never a proof):

4. ``specifics`` — a number, date, name, reference code or web address of the claim that the
   span does not state literally, compared at the precision the claim states it
   (graders.specifics.compare: "about 250" is met by 248, a first name by the full name), and
   the claim's subject when the span refers to it only by pronoun (kind ``pronoun``). A
   pronoun for the name, a date given relatively, a publication the claim names: a careful
   reader may accept them, a person should look.
5. ``wording`` — a part of the claim that negates, or uses the opposite word of, the span
   sentence it follows, hardens a hedge into an obligation or a certainty, credits a source
   the span never names, joins on an element the span never states or never joins, or says
   "now" where the span says only "formerly" (graders.specifics.polarity, attribution,
   coordination, wording).

Every check is recorded in ``Verdict.checks`` whether or not it found anything, so a reader
can see what was looked at. ``audit`` is pure and idempotent: it recomputes from the judge's
own verdict and replaces earlier results of the same checks.

``AUDIT_VERSION`` hashes the code and lexicons the audit reads; the verdict cache stores the
judge's raw verdict and re-applies the audit on every read, and this version says which
audit a stored figure came from.
"""

from __future__ import annotations

from spanproof.graders.findings_model import SPECIFIC_FLAG, PairFindings
from spanproof.graders.quoting import QUOTE_MAX_WORDS, best_window

from spanproof.core.digest import package_digest
from spanproof.core.text import content_stems, normalise_ws, words
from spanproof.core.verdict import CheckResult, Label, Proof, SpanRef, Verdict

CHECK_NAMES = ("quote_in_span", "contradiction", "specifics", "wording", "instructions")
MAX_QUOTE_WORDS = QUOTE_MAX_WORDS
# A quote is evidence when it holds at least this many content words (or is the whole span):
# "the", one character or "it" point at nothing; "6.5 percent" or "rate rose" point at a fact.
MIN_QUOTE_CONTENT_WORDS = 2
# ... and, for SUPPORTED, at least this share of the claim's words the best quote holds.
QUOTE_SHARE_OF_BEST = 0.5
RANK: dict[str, int] = {"NOT_SUPPORTED": 0, "PARTIAL": 1, "SUPPORTED": 2}
_SPECIFIC_KINDS = (*SPECIFIC_FLAG.values(), "pronoun")
# Flag kinds found but not shown to a reviewer: their precision did not beat the base rate of
# not-SUPPORTED pairs on data they were not written from (the WiCE development pairs for
# ``pronoun`` 0.56 and ``negation`` 0.67 against a base rate of 0.67; held-out WiCE pairs for
# ``joined``, 0.44 against 0.69). The rules judge still reads them as signals (``findings``).
UNSHIPPED_FLAGS = frozenset({"pronoun", "negation", "joined"})


def _code_version() -> str:
    # The audit reads the specifics, the instruction detector and the shared text machinery:
    # the digest of their packages as installed (one general rule, no file list to forget).
    return "audit-" + package_digest("spanproof.graders", "spanproof.core")[:16]


AUDIT_VERSION = _code_version()


def quote_in_span(quote: str, span_text: str) -> bool:
    q = normalise_ws(quote)
    return bool(q) and q in normalise_ws(span_text)


def _keys(text: str) -> set[str]:
    # A 5-letter prefix of the stem joins derived forms ("announce"/"announcement").
    return {s[:5] for s in content_stems(text)}


def _evidence_keys(text: str) -> set[str]:
    return _keys(text) | {w for w in words(text) if w.isdigit()}


def quote_problem(
    quote: str,
    span_text: str,
    claim: str,
    verdict: Label = "PARTIAL",
    best: str | None = None,
) -> str | None:
    """Why ``quote`` is not evidence for ``verdict`` on ``claim`` in this span, or None.
    ``best``: the span's best quote for the claim, when already known (``best_window``)."""
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
    # a quote that is the whole span points at all the evidence there is: whether it holds
    # the claim's words is the judge's question, not a proof ("shot in the United Kingdom" /
    # "principal photography took place in the UK")
    if claim_keys and not whole_span and not (claim_keys & _keys(quote)):
        return f"quote_used shares no content word with the claim: {quote[:120]!r}"
    if verdict == "SUPPORTED" and claim_keys and not whole_span:
        # numbers count, however short ("$2 million" holds "2"): a value is the claim's content
        wanted = _evidence_keys(claim)
        held = len(wanted & _evidence_keys(quote))
        window = best if best is not None else best_window(claim, span_text)
        most = len(wanted & _evidence_keys(window))
        if held < QUOTE_SHARE_OF_BEST * most:
            return (
                f"quote_used {quote[:80]!r} holds {held} of the claim's content words where the "
                f"span's best {MAX_QUOTE_WORDS}-word quote holds {most}: it points at a topic, "
                "not at where the span states the claim"
            )
    return None


def _quote_proof(
    v: Verdict, base: Label, claim: str, span: str, best: str
) -> tuple[Proof | None, str]:
    """(the quote's proof or None, the check's detail)."""
    if v.quote_used is None or not v.quote_used.strip():
        if base == "SUPPORTED" and v.error is None:
            return Proof(kind="quote_missing", reason="SUPPORTED without a quote_used"), (
                "proof: SUPPORTED without a quote_used"
            )
        return None, "no quote given"
    problem = quote_problem(v.quote_used, span, claim, base, best)
    verbatim = quote_in_span(v.quote_used, span)
    # A quote that is not in the span lowers any verdict; a quote that is not evidence only
    # matters when the verdict rests on it (SUPPORTED or PARTIAL).
    if problem is not None and (not verbatim or base != "NOT_SUPPORTED"):
        kind = "quote_not_in_span" if not verbatim else "quote_not_evidence"
        return Proof(kind=kind, reason=problem), f"proof: {problem}"
    n = len(v.quote_used.split())
    detail = "quote found in span"
    if n > MAX_QUOTE_WORDS:
        detail += f" (but {n} words, over the {MAX_QUOTE_WORDS}-word limit)"
    return None, detail


def audit(
    claim: str, span: SpanRef, verdict: Verdict, found: PairFindings | None = None
) -> Verdict:
    """``verdict`` audited: its proofs and flags, its final verdict (module doc). ``found``:
    the pair's findings when already computed (``pair_findings``); else computed here."""
    if found is None:
        # the readers are imported only where findings are computed: a process that gets
        # them from the audit's workers (graders.audit_pool) never loads them
        from spanproof.graders.findings import pair_findings

        found = pair_findings(claim, span.text)
    v = verdict.model_copy(deep=True)
    if v.judge_verdict is None and v.error is None:
        v.judge_verdict = v.verdict
    base: Label = v.judge_verdict if v.judge_verdict is not None else v.verdict
    checks = [c for c in v.checks if c.name not in CHECK_NAMES]
    proofs: list[Proof] = []

    # 1. the quote is really in the span, and is evidence
    quote, detail = _quote_proof(v, base, claim, span.text, found.best_quote)
    checks.append(CheckResult(name="quote_in_span", fired=quote is not None, detail=detail))
    if quote is not None:
        proofs.append(quote)

    # 2. a value the span states otherwise in the same role; 4-5. what a person should look at
    contradictions = [p.model_copy() for p in found.proofs]
    flags = [f.model_copy() for f in found.flags if f.kind not in UNSHIPPED_FLAGS]
    proofs += contradictions
    checks.append(
        _check(
            "contradiction",
            "proof: ",
            [p.reason for p in contradictions],
            "no value the span states otherwise in the same role",
        )
    )
    specific = [f.reason for f in flags if f.kind in _SPECIFIC_KINDS]
    wording = [f.reason for f in flags if f.kind not in _SPECIFIC_KINDS]
    checks.append(
        _check("specifics", "flag (needs a look): ", specific, "numbers, dates and names agree")
    )
    checks.append(
        _check(
            "wording",
            "flag (needs a look): ",
            wording,
            "no reversed, re-credited or joined-on wording",
        )
    )

    # 3. the span addresses a machine
    if found.addressed or v.contains_instructions:
        v.contains_instructions = True
        detail = found.addressed or "reported by the judge"
        proofs.append(Proof(kind="instructions", reason=f"the span addresses a machine: {detail}"))
        checks.append(CheckResult(name="instructions", fired=True, detail="proof: " + detail))
    else:
        checks.append(CheckResult(name="instructions", fired=False, detail="none found"))

    final: Label = base
    lowered_by: Proof | None = None
    # the element named is the most telling proof's: a contradiction says what the span says
    for p in sorted(proofs, key=lambda p: p.kind != "contradiction"):
        if RANK[p.lowers_to] < RANK[final]:
            final, lowered_by = p.lowers_to, p
    v.verdict = final
    if final == "SUPPORTED":
        v.unsupported_element = None
    elif lowered_by is not None:
        v.unsupported_element = _element(lowered_by)
    v.proofs, v.flags, v.checks = proofs, flags, checks
    return v


def _check(name: str, kind: str, reasons: list[str], otherwise: str) -> CheckResult:
    """A check that fired when there are reasons (listed after ``kind``), else ``otherwise``."""
    detail = kind + "; ".join(reasons) if reasons else otherwise
    return CheckResult(name=name, fired=bool(reasons), detail=detail)


def _element(p: Proof) -> str:
    if p.claim_value is not None and p.span_value is not None:
        return f"{p.claim_value.text} (span: {p.span_value.text})"
    return {
        "quote_missing": "no quote from the span",
        "quote_not_in_span": "quote_used not found in the span",
        "quote_not_evidence": "quote_used is not evidence",
        "instructions": "span contains instructions",
    }.get(p.kind, p.reason)


def weakest(verdicts: list[Verdict]) -> Verdict:
    """The verdict with the lowest rank (ties: the first); errors count as NOT_SUPPORTED."""
    return min(verdicts, key=lambda x: RANK[x.verdict] if x.error is None else -1)
