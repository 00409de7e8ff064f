"""The verifier: judges, the code audit (quote, specifics, instructions), the verdict cache.
Below the agent; tool-less by construction.

    from spanproof.graders import Verifier, make_judge
    verdicts = await Verifier([make_judge("rules")]).verify_many([(claim, SpanRef(text=span))])
"""

from spanproof.core.lazy import lazy_exports

_EXPORTS = {
    "Verdict": "spanproof.core.verdict",
    "Pair": "spanproof.core.verdict",
    "SpanRef": "spanproof.core.verdict",
    "Judge": "spanproof.core.verdict",
    "make_judge": "spanproof.graders.judges",
    "Verifier": "spanproof.graders.verify",
    "VerdictCache": "spanproof.graders.cache",
    "audit": "spanproof.graders.audit",
}
__all__ = sorted(_EXPORTS)
__getattr__ = lazy_exports(__name__, _EXPORTS)
