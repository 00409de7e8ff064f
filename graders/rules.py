"""The offline ``rules`` judge: deterministic, explainable, no network, no model.

(Thresholds and their tuning are documented below once tuned on goldens/wice_dev_pairs.jsonl.)
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from graders.instructions import find_instructions
from graders.specifics import compare, content_stems
from graders.verdict import CheckResult, SpanRef, Verdict

QUOTE_MAX_WORDS = 25

# Thresholds on content coverage (share of the claim's content words found in the span).
SUPPORTED_COVERAGE = 0.75
NOT_SUPPORTED_COVERAGE = 0.35


def _source_hash() -> str:
    """The rules judge's 'prompt' is its code: hash it so the verdict cache follows edits."""
    here = Path(__file__).parent
    h = hashlib.sha256()
    for name in ("rules.py", "specifics.py", "instructions.py"):
        h.update((here / name).read_bytes())
    return "rules-" + h.hexdigest()


def best_window(claim: str, span_text: str, max_words: int = QUOTE_MAX_WORDS) -> str:
    """The verbatim window of <= max_words span words sharing the most content stems with the claim."""
    toks = span_text.split()
    if len(toks) <= max_words:
        return " ".join(toks)
    wanted = set(content_stems(claim))
    scores = [1 if wanted.intersection(content_stems(t)) else 0 for t in toks]
    best, best_i = -1, 0
    run = sum(scores[:max_words])
    for i in range(len(toks) - max_words + 1):
        if i:
            run += scores[i + max_words - 1] - scores[i - 1]
        if run > best:
            best, best_i = run, i
    return " ".join(toks[best_i : best_i + max_words])


def coverage(claim: str, span_text: str) -> tuple[float, list[str]]:
    claim_stems = list(dict.fromkeys(content_stems(claim)))
    if not claim_stems:
        return 0.0, []
    span_stems = set(content_stems(span_text))
    missing = [s for s in claim_stems if s not in span_stems]
    return 1 - len(missing) / len(claim_stems), missing


class RulesJudge:
    id = "rules"
    model_id: str | None = None

    def __init__(self) -> None:
        self.prompt_sha256 = _source_hash()

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        return self.decide(claim, span.text)

    def decide(self, claim: str, span_text: str) -> Verdict:
        quote = best_window(claim, span_text) or None
        base = {"judge": self.id, "prompt_sha256": self.prompt_sha256, "quote_used": quote}
        findings = find_instructions(span_text)
        if findings:
            return Verdict(
                verdict="NOT_SUPPORTED",
                contains_instructions=True,
                unsupported_element="span contains instructions",
                checks=[
                    CheckResult(name="rules.instructions", fired=True, detail=findings[0].rule)
                ],
                **base,
            )
        cov, missing = coverage(claim, span_text)
        mismatches = compare(claim, span_text, hard_only=False)
        checks = [
            CheckResult(
                name="rules.coverage",
                fired=cov < SUPPORTED_COVERAGE,
                detail=f"coverage {cov:.2f}; missing {missing[:8]}",
            ),  # fmt: skip
            CheckResult(
                name="rules.specifics",
                fired=bool(mismatches),
                detail="; ".join(str(m) for m in mismatches),
            ),  # fmt: skip
        ]
        if cov < NOT_SUPPORTED_COVERAGE:
            element = missing[0] if missing else claim[:60]
            return Verdict(
                verdict="NOT_SUPPORTED", unsupported_element=element, checks=checks, **base
            )
        if mismatches or cov < SUPPORTED_COVERAGE:
            element = mismatches[0].element if mismatches else " ".join(missing[:3])
            return Verdict(verdict="PARTIAL", unsupported_element=element, checks=checks, **base)
        return Verdict(verdict="SUPPORTED", checks=checks, **base)
