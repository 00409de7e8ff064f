"""The runtime's own draft, for a run whose policy submitted none.

A model that spent its budget, ran out of tokens or never called draft_answer
still leaves spans it quoted; the run ends with those restated (each claim a
span's first sentence, so as narrow as the evidence) rather than with nothing.
They go through verification like any other draft, and the record says the
runtime wrote them.
"""

from __future__ import annotations

from spanproof.agent.record import Draft, DraftClaim
from spanproof.agent.runtime import Runtime

from spanproof.core.sentences import first_sentence

FALLBACK_CONFIDENCE = 0.3


def fallback_draft(rt: Runtime, why: str) -> Draft:
    claims = []
    for span in rt.tb.spans.values():
        if span.purpose != "support_claim":
            continue
        sentence = first_sentence(span.text)
        if sentence:
            claims.append(
                DraftClaim(text=sentence, span_ids=[span.span_id], confidence=FALLBACK_CONFIDENCE)
            )
    draft = Draft(claims=claims, summary="", needs_human=False)
    rt.accept_draft(draft, "runtime_fallback")
    rt.record.errors.append(f"no draft from the policy ({why}); the runtime restated its spans")
    rt.trace.add(
        kind="note", result_summary=f"runtime fallback draft: {len(claims)} claim(s) ({why})"
    )
    rt.sync()
    return draft
