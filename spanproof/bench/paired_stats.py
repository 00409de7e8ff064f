"""Paired comparisons of one figure measured twice on the same items: the arithmetic, pure.

Every gated figure is a ratio of sums over items, ``R = sum(y) / sum(n)``: a pair judged
right (y=1 of n=1), a pair judged right in 2 of 3 repeats (y=2, n=3), a golden question whose
answer published 4 SUPPORTED claims of 5 (y=4, n=5). Items belong to clusters (pairs cut from
one page; planted variants of one original pair), and items of one cluster move together, so
every interval and test here treats the cluster, not the item, as the independent unit.

Conventions (they decide what a number means, so they are stated once here):

- ``diff`` is current minus baseline, matched item by item (the caller matches them).
- The standard error of ``diff`` is the clustered (sandwich) standard error of a difference of
  two ratio estimators, linearised per cluster:
  ``e_c = (Y1_c - R1*N1_c)/N1 - (Y0_c - R0*N0_c)/N0`` and ``SE^2 = k/(k-1) * sum(e_c^2)``
  over the ``k`` clusters. With one item per cluster and n=1 it is the plain standard error
  of the mean paired difference, ``sd(d_i)/sqrt(n)``. The 95% interval is ``diff +- 1.96 SE``.
- The test is a sign-flip (randomisation) test over clusters: under "nothing changed" the two
  runs are exchangeable within each cluster, so each cluster's contribution
  ``D_c = (Y1_c - P*N1_c) - (Y0_c - P*N0_c)`` (``P`` the pooled rate of both runs, unchanged by
  swapping them) is equally likely to carry either sign. Its distribution is computed exactly
  when every ``D_c`` is a whole number (always so for binary items with the same number of
  repeats on both sides) or when at most ``EXACT_CLUSTERS`` clusters moved; otherwise it is the
  normal approximation ``sum(D_c) / sqrt(sum(D_c^2))`` (the clustered McNemar statistic). For
  binary items, one per cluster, the exact test *is* the exact McNemar test on the discordant
  pairs. ``p_worse`` is one-sided (is the current run worse?), ``p_two_sided`` doubles the
  smaller tail (capped at 1).
- "Worse" follows the figure's direction: a drop for ``>=`` figures (agreement, recall), a
  rise for ``<=`` figures (drop rate).
- Holm's step-down procedure keeps the chance of any false alarm over a family of compared
  figures at ``alpha``. A figure over a handful of clusters can never reach a small p-value
  (the sign-flip test over ``k`` clusters cannot go below ``2^-k``), so it would only widen the
  family; Tarone's rule leaves out, before looking at any outcome, the figures that could not
  be significant even if every cluster moved the bad way.
- The smallest detectable drop uses the sample-size relation for paired binary outcomes
  (Connor 1987): a drop ``delta`` with discordance ``psi = noise + delta`` is seen with the
  given power when ``z_alpha*sqrt(psi/n) + z_power*sqrt((psi - delta^2)/n) <= delta``, with
  ``n`` the effective number of items (items over the design effect of the clusters). A gate
  that also asks the drop to exceed a tolerance needs ``tol + z_power*sqrt((psi-delta^2)/n)
  <= delta`` as well.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike
from pydantic import BaseModel

EXACT_CLUSTERS = 20  # at most this many moved clusters: enumerate every sign pattern
Z95 = NormalDist().inv_cdf(0.975)


def z(p: float) -> float:
    """The standard normal quantile."""
    return NormalDist().inv_cdf(p)


class PairedDifference(BaseModel):
    """One figure, current vs baseline, on the items both runs measured."""

    current: float | None
    baseline: float | None
    diff: float | None  # current - baseline
    se: float | None  # clustered standard error of diff; None with fewer than 2 clusters
    ci_low: float | None
    ci_high: float | None
    p_worse: float  # one-sided: the current run is worse (direction-aware)
    p_two_sided: float
    test: str
    n_items: int
    n_clusters: int
    # How much moved the bad / good way: successes lost / gained, netted within each cluster
    # (for binary items one per cluster: the discordant pairs of McNemar's table).
    worse: float
    better: float
    higher_is_better: bool = True
    design_effect: float = 1.0  # clustered variance over the variance were items independent

    @property
    def worse_by(self) -> float | None:
        """How much worse, in the figure's own units (positive = worse)."""
        if self.diff is None:
            return None
        return -self.diff if self.higher_is_better else self.diff


def _as_arrays(*cols: ArrayLike) -> list[np.ndarray]:
    return [np.asarray(c, dtype=float) for c in cols]


def _cluster_index(clusters: Sequence[str]) -> tuple[np.ndarray, int]:
    _, idx = np.unique(np.asarray(list(clusters), dtype=object).astype(str), return_inverse=True)
    return idx, int(idx.max()) + 1 if len(idx) else 0


def cluster_sums(values: np.ndarray, idx: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(idx, weights=values, minlength=k)


def ratio(y: ArrayLike, n: ArrayLike) -> float | None:
    total = float(np.sum(n))
    return None if total == 0 else float(np.sum(y)) / total


def clustered_se_ratio(y: ArrayLike, n: ArrayLike, clusters: Sequence[str]) -> float | None:
    """The clustered standard error of one run's ``sum(y)/sum(n)`` (None when undefined)."""
    yy, nn = _as_arrays(y, n)
    idx, k = _cluster_index(clusters)
    total = nn.sum()
    if k < 2 or total == 0:
        return None
    r = yy.sum() / total
    e = cluster_sums(yy - r * nn, idx, k) / total
    return float(math.sqrt(k / (k - 1) * float(np.sum(e**2))))


def design_effect(y: Sequence[float], n: Sequence[float], clusters: Sequence[str]) -> float:
    """The clustered variance of ``sum(y)/sum(n)`` over its variance were every trial
    independent (``R(1-R)/(N-1)``), never below 1: what a set can see never gains from its
    clusters. Binary items, one per cluster, give exactly 1."""
    yy, nn = _as_arrays(y, n)
    total = nn.sum()
    clustered = clustered_se_ratio(yy, nn, clusters)
    if clustered is None or total < 2:
        return 1.0
    r = yy.sum() / total
    independent = r * (1 - r) / (total - 1)
    if independent <= 0:
        return 1.0
    return max(1.0, float(clustered**2 / independent))


def _whole(d: np.ndarray) -> bool:
    return bool(np.all(np.abs(d - np.round(d)) < 1e-9))


def _sign_flip_distribution(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every value of sum(s_c * d_c) over the 2^k sign patterns, with its probability
    (whole numbers: by convolution, any k; otherwise by enumeration, small k)."""
    d = d[d != 0]
    if _whole(d):
        ints = np.abs(np.round(d)).astype(np.int64)
        span = int(ints.sum())
        prob = np.zeros(2 * span + 1)
        prob[span] = 1.0  # index = value + span
        for v in ints:
            prob = 0.5 * (np.roll(prob, v) + np.roll(prob, -v))
        values = np.arange(-span, span + 1, dtype=float)
        keep = prob > 0
        return values[keep], prob[keep]
    k = len(d)
    signs = ((np.arange(2**k)[:, None] >> np.arange(k)) & 1) * 2 - 1
    totals = signs @ d
    return totals, np.full(len(totals), 1.0 / len(totals))


def sign_flip_test(d_by_cluster: Sequence[float]) -> tuple[float, float, str]:
    """(P(T <= t), P(T >= t), how) for T = sum of the clusters' contributions under random
    signs, t the observed sum. Exact when possible (see the module doc)."""
    d = np.asarray(d_by_cluster, dtype=float)
    moved = d[np.abs(d) > 1e-12]
    if len(moved) == 0:
        return 1.0, 1.0, "no item moved"
    whole = _whole(moved)
    if whole:
        moved = np.round(moved)
    t = float(moved.sum())
    if whole or len(moved) <= EXACT_CLUSTERS:
        values, prob = _sign_flip_distribution(moved)
        eps = 1e-9 * max(1.0, float(np.abs(moved).sum()))
        low = float(prob[values <= t + eps].sum())
        high = float(prob[values >= t - eps].sum())
        return min(1.0, low), min(1.0, high), "exact"
    sd = math.sqrt(float(np.sum(moved**2)))
    nd = NormalDist()
    return nd.cdf(t / sd), 1.0 - nd.cdf(t / sd), "normal approximation"


def paired_difference(
    y1: Sequence[float],
    n1: Sequence[float],
    y0: Sequence[float],
    n0: Sequence[float],
    clusters: Sequence[str],
    *,
    higher_is_better: bool = True,
) -> PairedDifference:
    """Current (y1/n1) against baseline (y0/n0) on matched items (same order, same cluster)."""
    a1, b1, a0, b0 = _as_arrays(y1, n1, y0, n0)
    if not (len(a1) == len(b1) == len(a0) == len(b0) == len(clusters)):
        raise ValueError("paired_difference needs one y, n and cluster per item on both sides")
    idx, k = _cluster_index(clusters)
    r1, r0 = ratio(a1, b1), ratio(a0, b0)
    if r1 is None or r0 is None:
        return PairedDifference(
            current=r1, baseline=r0, diff=None, se=None, ci_low=None, ci_high=None,
            p_worse=1.0, p_two_sided=1.0, test="nothing to compare", n_items=len(a1),
            n_clusters=k, worse=0.0, better=0.0, higher_is_better=higher_is_better,
        )  # fmt: skip
    diff = r1 - r0
    N1, N0 = b1.sum(), b0.sum()
    e = cluster_sums(a1 - r1 * b1, idx, k) / N1 - cluster_sums(a0 - r0 * b0, idx, k) / N0
    se = math.sqrt(k / (k - 1) * float(np.sum(e**2))) if k >= 2 else None
    item_e = (a1 - r1 * b1) / N1 - (a0 - r0 * b0) / N0
    n_items = len(a1)
    plain = math.sqrt(n_items / (n_items - 1) * float(np.sum(item_e**2))) if n_items >= 2 else None
    deff = max(1.0, (se / plain) ** 2) if se is not None and plain else 1.0
    pooled = (a1.sum() + a0.sum()) / (N1 + N0)
    d = cluster_sums(a1 - pooled * b1, idx, k) - cluster_sums(a0 - pooled * b0, idx, k)
    low, high, how = sign_flip_test(d)
    p_worse = low if higher_is_better else high
    p_two = min(1.0, 2 * min(low, high))
    one_each = k == n_items and np.all(b1 == 1) and np.all(b0 == 1)
    binary = np.all(np.isin(a1, (0, 1))) and np.all(np.isin(a0, (0, 1)))
    if how == "exact" and one_each and binary:
        test = "exact McNemar"
    elif how in ("exact", "normal approximation"):
        test = f"sign-flip over {k} clusters ({how})"
    else:
        test = how
    gained = float(np.clip(d, 0, None).sum())
    lost = float(np.clip(-d, 0, None).sum())
    worse, better = (lost, gained) if higher_is_better else (gained, lost)
    return PairedDifference(
        current=r1, baseline=r0, diff=diff, se=se,
        ci_low=None if se is None else diff - Z95 * se,
        ci_high=None if se is None else diff + Z95 * se,
        p_worse=p_worse, p_two_sided=p_two, test=test, n_items=n_items, n_clusters=k,
        worse=worse, better=better, higher_is_better=higher_is_better, design_effect=deff,
    )  # fmt: skip


def smallest_p(clusters: int) -> float:
    """The smallest one-sided p-value a sign-flip test over ``clusters`` clusters can give."""
    return 0.5**clusters


def tarone(min_p_values: Sequence[float], alpha: float) -> list[bool]:
    """Which hypotheses are worth testing (Tarone 1990): the smallest K such that at most K of
    them could reach ``alpha / K``; those are the family, the others can never be rejected.
    Depends on the design only (how many clusters each figure has), never on outcomes."""
    m = len(min_p_values)
    for k in range(1, m + 1):
        testable = [p <= alpha / k for p in min_p_values]
        if sum(testable) <= k:
            return testable
    return [False] * m


def holm(p_values: Sequence[float], alpha: float) -> list[bool]:
    """Which hypotheses Holm's step-down procedure rejects at family-wise level ``alpha``."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    m = len(p_values)
    rejected = [False] * m
    for rank, i in enumerate(order):
        if p_values[i] <= alpha / (m - rank):
            rejected[i] = True
        else:
            break
    return rejected


# ---------------------------------------------------------------- what a set can see


class Power(BaseModel):
    """What one figure's set can see, compared with a baseline run."""

    n_items: int
    trials: int = 0  # judgements behind the figure (items x repeats; claims of golden answers)
    n_effective: float  # trials over the design effect of their clusters
    noise: float  # discordance expected between two runs of an unchanged judge
    alpha: float  # the one-sided false-alarm rate this figure is held to
    power: float
    tolerance: float
    min_detectable: float | None  # None: not even a drop of 1.0 (every item) is seen
    target: float  # the drop a team asked about
    items_for_target: int | None  # None: never, by this rule (the target is within tolerance)

    def per_item(self, items: int) -> Power:
        """The same statement counted in items rather than trials (``items`` items behind
        ``n_items`` trials): how many pairs or questions the set would need."""
        need = self.items_for_target
        return self.model_copy(update={
            "n_items": items,
            "items_for_target": None if need is None else math.ceil(need * items / self.trials),
        })  # fmt: skip


def _detectable(delta: np.ndarray, n_eff: float, noise: float, za: float, zb: float,
                tol: float) -> np.ndarray:  # fmt: skip
    psi = np.minimum(1.0, noise + delta)
    alt = np.sqrt(np.clip(psi - delta**2, 0, None) / n_eff)
    seen: np.ndarray = (za * np.sqrt(psi / n_eff) + zb * alt <= delta) & (tol + zb * alt <= delta)
    return seen


def min_detectable_drop(
    n_eff: float, *, noise: float = 0.0, alpha: float = 0.05, power: float = 0.8,
    tolerance: float = 0.0,
) -> float | None:  # fmt: skip
    """The smallest drop (on the 0..1 scale) seen with ``power`` at one-sided ``alpha``."""
    if n_eff <= 0:
        return None
    grid = np.arange(1, 1001) / 1000
    ok = _detectable(grid, n_eff, noise, z(1 - alpha), z(power), tolerance)
    return float(grid[np.argmax(ok)]) if ok.any() else None


def items_needed(
    drop: float, *, design_effect: float = 1.0, noise: float = 0.0, alpha: float = 0.05,
    power: float = 0.8, tolerance: float = 0.0,
) -> int | None:  # fmt: skip
    """How many items (at the same design effect) a set needs to see ``drop``; None when the
    rule can never see it (the drop is within the tolerance)."""
    if drop <= tolerance or drop <= 0:
        return None
    za, zb = z(1 - alpha), z(power)
    psi = min(1.0, noise + drop)
    alt = math.sqrt(max(psi - drop**2, 0.0))
    n_test = ((za * math.sqrt(psi) + zb * alt) / drop) ** 2
    n_tol = (zb * alt / (drop - tolerance)) ** 2
    return math.ceil(max(n_test, n_tol) * design_effect)


def power_of(
    n_items: int, *, design_effect: float = 1.0, noise: float = 0.0, alpha: float = 0.05,
    power: float = 0.8, tolerance: float = 0.0, target: float = 0.05,
) -> Power:  # fmt: skip
    n_eff = n_items / design_effect if design_effect > 0 else 0.0
    return Power(
        n_items=n_items, trials=n_items, n_effective=n_eff, noise=noise, alpha=alpha, power=power,
        tolerance=tolerance,
        min_detectable=min_detectable_drop(n_eff, noise=noise, alpha=alpha, power=power,
                                           tolerance=tolerance),
        target=target,
        items_for_target=items_needed(target, design_effect=design_effect, noise=noise,
                                      alpha=alpha, power=power, tolerance=tolerance),
    )  # fmt: skip


def binomial_tail(k: int, n: int, p: float = 0.5, *, upper: bool = True) -> float:
    """P(X >= k) (``upper``) or P(X <= k) for X ~ Binomial(n, p), summed exactly in log space."""
    if n < 0 or not 0 <= p <= 1:
        raise ValueError("binomial_tail needs n >= 0 and 0 <= p <= 1")
    ks = range(max(k, 0), n + 1) if upper else range(0, min(k, n) + 1)
    if p in (0.0, 1.0):
        hit = n if p == 1.0 else 0
        return 1.0 if hit in ks else 0.0
    logs = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
        + i * math.log(p) + (n - i) * math.log1p(-p)
        for i in ks
    ]  # fmt: skip
    if not logs:
        return 0.0
    top = max(logs)
    return min(1.0, math.exp(top) * sum(math.exp(v - top) for v in logs))
