"""``blind``: the canary judge. Always SUPPORTED, quoting the <= 25-word window of the span
that shares most words with the claim, so that what catches it is code alone (the audit); a
sensitivity check that does not catch it is broken."""

from __future__ import annotations

from spanproof.graders.judges.registry import judge

from spanproof.core.specs import EndpointSettings
from spanproof.core.verdict import Judge, JudgeBase, SpanRef, Verdict


class BlindJudge(JudgeBase):
    """Always SUPPORTED, with the span window most like the claim as its quote. Deliberately
    useless: its judge-only sensitivity is 0 by construction, so its audited figures show
    what code alone catches."""

    id = "blind"
    prompt_sha256: str | None = "blind-v2"

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        from spanproof.graders.quoting import best_window

        return Verdict(
            verdict="SUPPORTED",
            quote_used=best_window(claim, span.text) or None,
            judge=self.id,
            prompt_sha256=self.prompt_sha256,
        )


@judge(
    "blind",
    summary="the canary: always SUPPORTED with a valid quote (every sensitivity check must catch it)",
    local=True,
    deterministic=True,
)
def build_blind(argument: str, endpoint: EndpointSettings) -> Judge:
    return BlindJudge()
