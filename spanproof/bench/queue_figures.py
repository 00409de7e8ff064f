"""How well the review queue puts the truly unsupported claims first, against labels.

The queue (``graders.review_queue``) orders verdicts for a reviewer who looks at the top of it
and stops. The figure that matters to that reviewer is recall at a cut: of the pairs a human
labelled not SUPPORTED, the share that falls in the first 10% (20%) of the queue. Beside it,
what a random order finds on average (the cut's share of the pairs) and the most any order
could (every reviewed pair unsupported), so a figure reads on its own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel
from spanproof.graders.review_queue import review_order

from spanproof.core.verdict import Verdict

CUTS = (0.1, 0.2)


class QueueCut(BaseModel):
    share: float  # of the queue reviewed, e.g. 0.1 for its first 10%
    reviewed: int  # pairs in that part of the queue (rounded up)
    found: int  # of them, labelled not SUPPORTED
    recall: float | None  # found / every pair labelled not SUPPORTED
    random: float | None  # what a random order finds on average: reviewed / n
    best: float | None  # what a perfect order would find: min(reviewed, unsupported) / unsupported


class QueueFigures(BaseModel):
    n: int
    unsupported: int  # pairs labelled not SUPPORTED
    cuts: list[QueueCut]


def queue_figures(
    labels: Sequence[str], verdicts: Sequence[Verdict], cuts: Sequence[float] = CUTS
) -> QueueFigures:
    """Recall of the not-SUPPORTED pairs at each cut of the review queue."""
    if len(labels) != len(verdicts):
        raise ValueError(f"{len(labels)} labels for {len(verdicts)} verdicts")
    n = len(labels)
    wrong = [label != "SUPPORTED" for label in labels]
    total = sum(wrong)
    order = review_order(verdicts)
    out = []
    for share in cuts:
        reviewed = min(n, math.ceil(share * n - 1e-9))
        found = sum(wrong[i] for i in order[:reviewed])
        out.append(
            QueueCut(
                share=share,
                reviewed=reviewed,
                found=found,
                recall=found / total if total else None,
                random=reviewed / n if n and total else None,
                best=min(reviewed, total) / total if total else None,
            )
        )
    return QueueFigures(n=n, unsupported=total, cuts=out)


def describe_queue(q: QueueFigures) -> str:
    """One line for a terminal summary."""
    if not q.unsupported:
        return f"review queue: no pair of {q.n} is labelled not SUPPORTED; nothing to find"
    parts = [
        f"first {c.share:.0%} ({c.reviewed} pairs) holds {c.found} = {c.recall:.3f} "
        f"(random {c.random:.3f}, best {c.best:.3f})"
        for c in q.cuts
        if c.recall is not None and c.random is not None and c.best is not None
    ]
    return (
        f"review queue (proofs, then flags, then the judge's confidence): of the "
        f"{q.unsupported} pairs labelled not SUPPORTED, the " + "; the ".join(parts)
    )
