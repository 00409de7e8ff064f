"""The review queue: the order a person sees verdicts in, the most likely wrong first.

One ordering for every place a reviewer reads verdicts (the viewer's run page and ledger,
``grade``'s claim table, the figures ``calibrate`` reports), from what the verifier already
knows about each claim, strongest evidence first:

1. **proofs** — code established the claim is not supported as judged (the span states
   another value in the claim's slot, the quote is not evidence, the span addresses a
   machine); a judge error and a claim with no verdict at all (its source unreachable) sit
   here too: nothing vouches for them;
2. **flags** — a specific the span does not state, hardened or re-credited wording: a
   reason to look, established by code but not a proof;
3. **the judge's own reading** — within each tier, NOT_SUPPORTED before PARTIAL before
   SUPPORTED, a confident NOT_SUPPORTED before a hesitant one and a hesitant SUPPORTED before
   a confident one (``Verdict.confidence`` is the judge's probability for its own label; a
   judge that gives none is read at 0.5).

Ties keep the input order, so the queue is the same on every run. How well the order puts
the truly unsupported claims first is measured against labels by
``spanproof.bench.queue_figures`` (``calibrate`` reports it).
"""

from __future__ import annotations

from collections.abc import Sequence

from spanproof.core.verdict import Verdict

# tiers: the lower, the earlier a reviewer sees the claim
PROVEN, FLAGGED, JUDGED = 0, 1, 2
# the judge's label, least supported first
_LABEL_ORDER = {"NOT_SUPPORTED": 0, "PARTIAL": 1, "SUPPORTED": 2}
UNSTATED_CONFIDENCE = 0.5

ReviewKey = tuple[int, int, float]


def review_tier(verdict: Verdict | None) -> int:
    """PROVEN, FLAGGED or JUDGED (``None``: no verdict could be reached, e.g. the cited page
    is unreachable)."""
    if verdict is None or verdict.error is not None or verdict.proofs:
        return PROVEN
    return FLAGGED if verdict.flags else JUDGED


def review_key(verdict: Verdict | None) -> ReviewKey:
    """Sort key of one verdict in the review queue (ascending: most likely wrong first)."""
    tier = review_tier(verdict)
    if verdict is None or verdict.error is not None:
        return (tier, -1, 0.0)
    label = verdict.judge_verdict or verdict.verdict
    sure = UNSTATED_CONFIDENCE if verdict.confidence is None else verdict.confidence
    # a SUPPORTED reading is likelier wrong the less sure the judge is; a lower one the surer
    return (tier, _LABEL_ORDER[label], sure if label == "SUPPORTED" else -sure)


def review_order(verdicts: Sequence[Verdict | None]) -> list[int]:
    """The indexes of ``verdicts`` in review order."""
    return sorted(range(len(verdicts)), key=lambda i: review_key(verdicts[i]))
