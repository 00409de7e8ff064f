"""The verifier: judges, the code audit (quote, specifics, instructions), the verdict cache.
Below the agent; tool-less by construction.

    from spanproof.graders import Verifier, make_judge
    verdicts = await Verifier([make_judge("rules")]).verify_many([(claim, SpanRef(text=span))])

The names below are imported when first asked for (PEP 562), not when a submodule is: a
command that needs only the judge registry (which judges run locally, for help text) does
not import the audit's readers, the verdict cache and the verifier with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from spanproof.core.lazy import lazy_exports

if TYPE_CHECKING:
    from spanproof.graders.cache import VerdictCache
    from spanproof.graders.judges import judge, make_judge
    from spanproof.graders.verify import Verifier

    from spanproof.core.verdict import Judge, Pair, SpanRef, Verdict

# each public name and the module it is defined in
_WHERE = {
    "Judge": "spanproof.core.verdict",
    "Pair": "spanproof.core.verdict",
    "SpanRef": "spanproof.core.verdict",
    "Verdict": "spanproof.core.verdict",
    "VerdictCache": "spanproof.graders.cache",
    "Verifier": "spanproof.graders.verify",
    "judge": "spanproof.graders.judges",
    "make_judge": "spanproof.graders.judges",
}

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


__getattr__, __dir__ = lazy_exports(globals(), _WHERE)
