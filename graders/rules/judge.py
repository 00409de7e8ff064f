"""The offline ``rules`` judge: measured signals combined by a fitted model, with a confidence.

It answers the verifier's one question — would a careful reader, given only this span,
accept this claim as stated? — in two steps:

1. **Instructions** (graders.instructions): a span that addresses a machine is
   NOT_SUPPORTED with ``contains_instructions``, confidence 1. This is a security control,
   not a judgement, so it is code, never a fitted weight.
2. **Fitted signals**: the signals named in ``params.json`` (graders.rules.signals: coverage,
   clause alignment, the audit's findings, contradiction cues, ...) are measured and combined
   by a multinomial logistic regression; the verdict follows the thresholds written in the
   same file (graders.rules.model), and ``confidence`` is the model's probability of it.

``quote_used`` is the <= 25-word window of the span sharing the most content words with the
claim; ``unsupported_element`` names the strongest finding (a contradicted specific, a
stronger claim, an absent specific, or the claim's words the span lacks).

How it was fitted, what every figure is and where each signal earned its place:
``spanproof judge train`` / ``judge cv`` / ``judge ablate`` (spanproof.judge_training) and the
README's offline-judge section. Every reported figure is cross-validated over page-grouped
folds; ``goldens/judge_calibration.jsonl`` is never used to fit, select or tune.
"""

from __future__ import annotations

import hashlib
import sys

from spanproof.graders.instructions import find_instructions
from spanproof.graders.quoting import best_window
from spanproof.graders.rules.lexical import coverage, missing_words, shared_words
from spanproof.graders.rules.model import Params, load_params
from spanproof.graders.rules.signals import measure
from spanproof.graders.specifics import stronger_than_span
from spanproof.graders.specifics.comparison import unestablished
from spanproof.graders.specifics.slot_reader import contradictions

from spanproof.core.digest import dependency_digest, package_digest
from spanproof.core.verdict import CheckResult, JudgeBase, Label, SpanRef, Verdict


def _source_hash() -> str:
    """The judge's 'prompt' is its code, lexicons and fitted parameters: the digest of the
    verifier and the shared text machinery it reads through, and of the installed files of the
    distributions they import (pysbd, pint, pycountry ...: one patched in place with its
    version unchanged is another judge), so the verdict cache follows any edit to any of them.
    Computed once, on first use (``RULES_VERSION``)."""
    readers = ("spanproof.graders", "spanproof.core")
    both = package_digest(*readers) + dependency_digest(*readers)
    return "rules-" + hashlib.sha256(both.encode()).hexdigest()


def __getattr__(name: str) -> str:
    # RULES_VERSION is computed when first read, not at import: hashing the judge's code and
    # the installed files of its dependencies takes about a second, and importing this module
    # (through spanproof.graders.rules, for its readers or types) does not mean judging with it.
    if name == "RULES_VERSION":
        value: str = globals().setdefault("RULES_VERSION", _source_hash())
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def rules_version() -> str:
    """The judge's version (``RULES_VERSION``), computed once per process when first asked."""
    version: str = sys.modules[__name__].RULES_VERSION
    return version


def _finding(claim: str, span: str) -> str | None:
    """The strongest reason a claim is not supported, in the claim's own words."""
    for c in contradictions(claim, span):
        return c.claim_value[2]
    for m in stronger_than_span(claim, span):
        return m.element
    for m in unestablished(claim, span):
        return m.element
    cov, missing = coverage(claim, span)
    return missing_words(claim, missing) if missing else None


class RulesJudge(JudgeBase):
    id = "rules"

    def __init__(self, params: Params | None = None) -> None:
        self.params = params or load_params()
        self.prompt_sha256 = rules_version()

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        return self.decide(claim, span.text)

    def probabilities(self, claim: str, span_text: str) -> dict[Label, float]:
        return self.params.probabilities(measure(claim, span_text, self.params.signals))

    def decide(self, claim: str, span_text: str) -> Verdict:
        base = {
            "judge": self.id,
            "prompt_sha256": self.prompt_sha256,
            "quote_used": best_window(claim, span_text) or None,
        }
        findings = find_instructions(span_text)
        if findings:
            return Verdict(
                verdict="NOT_SUPPORTED",
                contains_instructions=True,
                unsupported_element="span contains instructions",
                confidence=1.0,
                checks=[
                    CheckResult(
                        name="rules.instructions",
                        fired=True,
                        detail="; ".join(f"{f.rule}: {f.text!r}" for f in findings),
                    )
                ],
                **base,
            )
        values = measure(claim, span_text, self.params.signals)
        probs = self.params.probabilities(values)
        cov, shared = coverage(claim, span_text)[0], shared_words(claim, span_text)
        label = self.params.decide(probs, cov, shared)
        t = self.params.thresholds
        detail = (
            f"P(SUPPORTED) {probs['SUPPORTED']:.3f} (>= {t.supported}), P(PARTIAL) "
            f"{probs['PARTIAL']:.3f}, P(NOT_SUPPORTED) {probs['NOT_SUPPORTED']:.3f} "
            f"(>= {t.not_supported}); coverage {cov:.2f}, {shared} shared words (SUPPORTED "
            f"needs >= {t.min_coverage}, >= {t.min_shared} or all); "
            "signals: "
            + ", ".join(f"{n} {v:.2f}" for n, v in zip(self.params.signals, values, strict=True))
        )
        return Verdict(
            verdict=label,
            confidence=round(probs[label], 6),
            unsupported_element=None if label == "SUPPORTED" else _finding(claim, span_text),
            checks=[CheckResult(name="rules.model", fired=label != "SUPPORTED", detail=detail)],
            **base,
        )
