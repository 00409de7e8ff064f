"""The verifier: judges, the code audit (quote, specifics, instructions), the verdict cache.
Below the agent; tool-less by construction.

    from spanproof.graders import Verifier, make_judge
    verdicts = await Verifier([make_judge("rules")]).verify_many([(claim, SpanRef(text=span))])
"""

from spanproof.graders.cache import VerdictCache
from spanproof.graders.judges import judge, make_judge
from spanproof.graders.verify import Verifier

from spanproof.core.verdict import Judge, Pair, SpanRef, Verdict

__all__ = [
    "Judge",
    "Pair",
    "SpanRef",
    "Verdict",
    "VerdictCache",
    "Verifier",
    "judge",
    "make_judge",
]
