"""Two judges compared on SUPPORTED-vs-rest: balanced accuracy, TPR and TNR, paired.

Three-way agreement says little about a judge that never says PARTIAL (a binary judge): on a
set labelled mostly PARTIAL it is wrong on every PARTIAL pair whatever it reads, and two
binary judges tie there. What the product acts on is SUPPORTED or not (only SUPPORTED
publishes), so the comparison that matters is balanced accuracy on SUPPORTED vs the rest,
``(TPR + TNR) / 2``: TPR the share of SUPPORTED pairs judged SUPPORTED, TNR the share of the
other pairs judged anything else (an error is wrong on both sides, as in ``metrics``).

Paired, B minus A, with spanproof/bench/paired_stats.py's interval (clustered by page) and
sign-flip test:

- TPR and TNR are each a plain share over their pairs (exact McNemar when no two pairs share
  a page);
- balanced accuracy is a weighted share: a SUPPORTED pair weighs ``n_rest``, another pair
  ``n_supported`` (each divided by their greatest common divisor), so
  ``sum(w * right) / sum(w)`` is ``(TPR + TNR) / 2`` and the weights are whole numbers, which
  keeps the sign-flip test exact. The labels are fixed by the set, so the weights are too.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from pydantic import BaseModel

from spanproof.bench.paired_stats import PairedDifference, paired_difference

# Above this total weight the exact test's distribution grows too large to enumerate (a set of
# thousands of pairs with coprime class sizes): the weights become fractions and the test its
# normal approximation (paired_stats decides; the interval is the same either way).
_EXACT_WEIGHT = 200_000


class BinaryComparison(BaseModel):
    """B minus A on SUPPORTED vs rest."""

    n_supported: int
    n_rest: int
    balanced_accuracy: PairedDifference
    tpr: PairedDifference | None  # None: the set has no SUPPORTED pair
    tnr: PairedDifference | None  # None: every pair is SUPPORTED


Tally = tuple[int, int]  # (samples right, samples) of one pair


def _weights(supported: Sequence[bool]) -> list[float]:
    n_pos = sum(supported)
    n_neg = len(supported) - n_pos
    if not n_pos or not n_neg:
        return [1.0] * len(supported)  # one class: balanced accuracy is its rate
    g = math.gcd(n_pos, n_neg)
    w_pos, w_neg = n_neg // g, n_pos // g
    if (w_pos * n_pos + w_neg * n_neg) > _EXACT_WEIGHT:
        return [0.5 / n_pos if s else 0.5 / n_neg for s in supported]
    return [float(w_pos if s else w_neg) for s in supported]


def _share(
    idx: Sequence[int], a: Sequence[Tally], b: Sequence[Tally], clusters: Sequence[str]
) -> PairedDifference | None:
    if not idx:
        return None
    return paired_difference(
        [b[i][0] for i in idx], [b[i][1] for i in idx],
        [a[i][0] for i in idx], [a[i][1] for i in idx],
        [clusters[i] for i in idx],
    )  # fmt: skip


def compare_binary(
    supported: Sequence[bool],
    a_right: Sequence[Tally],
    b_right: Sequence[Tally],
    clusters: Sequence[str],
) -> BinaryComparison:
    """``supported``: each pair's label is SUPPORTED; ``a_right``/``b_right``: per pair, how
    many of a judge's samples were right on SUPPORTED vs rest, of how many."""
    if not (len(supported) == len(a_right) == len(b_right) == len(clusters)) or not supported:
        raise ValueError("compare_binary needs one label, two tallies and a cluster per pair")
    w = _weights(supported)
    # each sample of a pair counts once: a pair of n samples weighs w per sample
    ba = paired_difference(
        [wi * r for wi, (r, _) in zip(w, b_right, strict=True)],
        [wi * n for wi, (_, n) in zip(w, b_right, strict=True)],
        [wi * r for wi, (r, _) in zip(w, a_right, strict=True)],
        [wi * n for wi, (_, n) in zip(w, a_right, strict=True)],
        clusters,
    )  # fmt: skip
    pos = [i for i, s in enumerate(supported) if s]
    neg = [i for i, s in enumerate(supported) if not s]
    return BinaryComparison(
        n_supported=len(pos),
        n_rest=len(neg),
        balanced_accuracy=ba,
        tpr=_share(pos, a_right, b_right, clusters),
        tnr=_share(neg, a_right, b_right, clusters),
    )
