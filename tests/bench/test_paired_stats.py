"""The paired-comparison arithmetic against values worked out by hand, and its properties."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanproof.bench.paired_stats import (
    binomial_tail,
    clustered_se_ratio,
    design_effect,
    holm,
    items_needed,
    min_detectable_drop,
    paired_difference,
    sign_flip_test,
    smallest_p,
    tarone,
)


def _binary(better: int, worse: int, same_right: int, same_wrong: int):
    """Items of a paired binary comparison: (y1, y0) per item, one item per cluster."""
    y1 = [1] * better + [0] * worse + [1] * same_right + [0] * same_wrong
    y0 = [0] * better + [1] * worse + [1] * same_right + [0] * same_wrong
    return y1, y0


def _exact_mcnemar_one_sided(better: int, worse: int) -> float:
    """By hand: P(X <= better) for X ~ Bin(better + worse, 1/2), as an exact fraction."""
    m = better + worse
    return float(Fraction(sum(math.comb(m, i) for i in range(better + 1)), 2**m))


@pytest.mark.parametrize(
    ("better", "worse", "expected"),
    [(0, 5, 1 / 32), (1, 9, 11 / 1024), (2, 2, 11 / 16), (0, 0, 1.0), (3, 12, 576 / 32768)],
)
def test_one_item_per_cluster_is_the_exact_mcnemar_test(better, worse, expected):
    y1, y0 = _binary(better, worse, 40, 7)
    res = paired_difference(y1, [1] * len(y1), y0, [1] * len(y0), [str(i) for i in range(len(y1))])
    assert res.p_worse == pytest.approx(expected, rel=1e-12)
    assert res.p_worse == pytest.approx(_exact_mcnemar_one_sided(better, worse), rel=1e-12)
    assert res.p_two_sided == pytest.approx(min(1.0, 2 * expected), rel=1e-12)
    n = len(y1)
    assert res.diff == pytest.approx((better - worse) / n)
    assert (res.worse, res.better) == (worse, better)
    if better + worse:
        assert res.test == "exact McNemar"


def test_a_drop_of_a_lower_is_better_figure_is_a_rise():
    # drop rate: the current run drops 6 more claims, 0 fewer
    y1, y0 = _binary(6, 0, 10, 30)
    res = paired_difference(y1, [1] * 46, y0, [1] * 46, [str(i) for i in range(46)],
                            higher_is_better=False)  # fmt: skip
    assert res.p_worse == pytest.approx(1 / 64)
    assert res.worse == 6 and res.worse_by == pytest.approx(6 / 46)


def test_clustered_se_equals_the_plain_se_when_every_cluster_has_one_item():
    rng = np.random.default_rng(3)
    y1 = rng.integers(0, 2, 80)
    y0 = rng.integers(0, 2, 80)
    res = paired_difference(y1, np.ones(80), y0, np.ones(80), [f"c{i}" for i in range(80)])
    d = y1 - y0
    assert res.se == pytest.approx(np.std(d, ddof=1) / math.sqrt(80), rel=1e-12)
    assert res.design_effect == pytest.approx(1.0)
    assert res.ci_low == pytest.approx(res.diff - 1.959963984540054 * res.se)
    assert clustered_se_ratio(y1, np.ones(80), [str(i) for i in range(80)]) == pytest.approx(
        np.std(y1, ddof=1) / math.sqrt(80), rel=1e-12
    )


def test_clustered_se_of_a_small_example_worked_by_hand():
    # Two clusters of two items: d = (1, 1) in cluster a and (0, 0) in cluster b; mean 0.5.
    # e_a = (2 - 0.5*2)/4 = 0.25, e_b = (0 - 0.5*2)/4 = -0.25; SE^2 = 2/1 * 0.125 = 0.25.
    res = paired_difference([1, 1, 0, 0], [1] * 4, [0, 0, 0, 0], [1] * 4, ["a", "a", "b", "b"])
    assert res.diff == pytest.approx(0.5)
    assert res.se == pytest.approx(0.5)
    # were the four items independent: sd(1,1,0,0)/2 = 0.2887; the clusters double the variance
    assert res.design_effect == pytest.approx(0.25 / (np.std([1, 1, 0, 0], ddof=1) / 2) ** 2)
    # the test counts clusters, not items: two clusters, one moved (+2): P(T >= 2) = 1/2
    assert res.p_two_sided == pytest.approx(1.0)
    assert res.test.startswith("sign-flip over 2 clusters")


def test_a_moved_cluster_counts_once_however_many_items_it_holds():
    # 8 items lost, all in one cluster: as strong as one lost item (p = 1/2), not eight.
    y1 = [0] * 8 + [1] * 20
    y0 = [1] * 8 + [1] * 20
    clusters = ["page"] * 8 + [f"p{i}" for i in range(20)]
    clustered = paired_difference(y1, [1] * 28, y0, [1] * 28, clusters)
    naive = paired_difference(y1, [1] * 28, y0, [1] * 28, [str(i) for i in range(28)])
    assert clustered.p_worse == pytest.approx(0.5)
    assert naive.p_worse == pytest.approx(1 / 256)


def test_ratio_items_with_different_denominators():
    # Golden questions: (published SUPPORTED, published) per question in each run.
    cur = [(3, 3), (1, 2), (4, 5), (2, 2)]
    base = [(2, 2), (2, 2), (5, 5), (3, 3)]
    res = paired_difference([c[0] for c in cur], [c[1] for c in cur], [b[0] for b in base],
                            [b[1] for b in base], ["q1", "q2", "q3", "q4"])  # fmt: skip
    assert res.current == pytest.approx(10 / 12)
    assert res.baseline == pytest.approx(1.0)
    assert res.diff == pytest.approx(10 / 12 - 1)
    assert 0 < res.p_worse <= 1


def test_nothing_measured_compares_nothing():
    res = paired_difference([0], [0], [0], [0], ["a"])
    assert res.diff is None and res.p_worse == 1.0


def test_binomial_tail_exact():
    assert binomial_tail(9, 10) == pytest.approx(11 / 1024)
    assert binomial_tail(1, 10, upper=False) == pytest.approx(11 / 1024)
    assert binomial_tail(0, 0) == 1.0
    assert binomial_tail(3, 5, 0.2) == pytest.approx(
        sum(math.comb(5, i) * 0.2**i * 0.8 ** (5 - i) for i in range(3, 6))
    )


def test_holm_against_bonferroni_and_a_worked_example():
    # p sorted: 0.01 <= .05/4, 0.015 <= .05/3, 0.03 > .05/2 -> stop
    assert holm([0.03, 0.01, 0.015, 0.2], 0.05) == [False, True, True, False]
    assert holm([], 0.05) == []


def test_tarone_leaves_out_figures_too_small_to_ever_be_significant():
    # clusters per figure: 40, 30, 12, 4, 3. At K=3: 0.05/3 = 0.0167, reachable with >= 6
    # clusters: three figures (40, 30, 12) -> at most K, so the family is those three.
    mins = [smallest_p(k) for k in (40, 30, 12, 4, 3)]
    assert tarone(mins, 0.05) == [True, True, True, False, False]
    # a lone figure is tested at alpha itself: 5 clusters reach 1/32 < 0.05
    assert tarone([smallest_p(5)], 0.05) == [True]
    assert tarone([smallest_p(4)], 0.05) == [False]
    assert smallest_p(5) == 1 / 32


def test_sample_size_for_paired_binary_outcomes_worked_by_hand():
    # Connor (1987) with no noise: psi = delta = 0.05, one-sided alpha 0.05, power 0.8:
    # ((1.6449*sqrt(.05) + 0.8416*sqrt(.05 - .0025)) / .05)^2 = 121.56 -> 122 items
    assert items_needed(0.05, alpha=0.05, power=0.8) == 122
    # a drop no bigger than the tolerance is never a regression, whatever the set
    assert items_needed(0.02, tolerance=0.02) is None
    # clusters cost items: a design effect of 2 doubles the count
    assert items_needed(0.05, design_effect=2.0) == 244  # 2 x 121.56, rounded up


def test_min_detectable_drop_is_consistent_with_items_needed():
    for drop in (0.03, 0.05, 0.1, 0.2):
        n = items_needed(drop, noise=0.04, tolerance=0.02)
        assert min_detectable_drop(n, noise=0.04, tolerance=0.02) <= drop + 0.001
        assert min_detectable_drop(n * 0.8, noise=0.04, tolerance=0.02) > drop - 0.001
    assert min_detectable_drop(0) is None


def test_the_noise_between_runs_raises_the_smallest_drop_seen():
    quiet = min_detectable_drop(99, noise=0.0)
    noisy = min_detectable_drop(99, noise=0.06)
    assert quiet < noisy
    # 99 pairs cannot see a 5-point drop even with a perfectly repeatable judge
    assert quiet > 0.05


def test_design_effect_of_one_run():
    y = [1, 1, 1, 0, 0, 0]
    assert design_effect(y, [1] * 6, [str(i) for i in range(6)]) == pytest.approx(1.0)
    assert design_effect(y, [1] * 6, ["a", "a", "a", "b", "b", "b"]) > 1.0


# ---------------------------------------------------------------- properties

_item = st.tuples(st.integers(0, 1), st.integers(0, 1), st.integers(0, 5))


@settings(max_examples=150, deadline=None)
@given(st.lists(_item, min_size=2, max_size=40))
def test_swapping_the_runs_mirrors_the_comparison(items):
    y1 = [a for a, _, _ in items]
    y0 = [b for _, b, _ in items]
    cl = [str(c) for _, _, c in items]
    ones = [1] * len(items)
    fwd = paired_difference(y1, ones, y0, ones, cl)
    back = paired_difference(y0, ones, y1, ones, cl)
    assert fwd.diff == pytest.approx(-back.diff)
    assert fwd.p_two_sided == pytest.approx(back.p_two_sided)
    assert (fwd.se is None) == (back.se is None)
    if fwd.se is not None:
        assert fwd.se == pytest.approx(back.se)
        assert fwd.ci_low <= fwd.diff <= fwd.ci_high
    assert 0 <= fwd.p_worse <= 1 and 0 <= fwd.p_two_sided <= 1
    # the two one-sided tails overlap at the observed value, so they sum to at least 1
    assert fwd.p_worse + back.p_worse >= 1 - 1e-9


@settings(max_examples=100, deadline=None)
@given(st.lists(_item, min_size=2, max_size=30), st.randoms(use_true_random=False))
def test_cluster_names_and_item_order_do_not_matter(items, rnd):
    y1 = [a for a, _, _ in items]
    y0 = [b for _, b, _ in items]
    cl = [str(c) for _, _, c in items]
    ones = [1] * len(items)
    base = paired_difference(y1, ones, y0, ones, cl)
    order = list(range(len(items)))
    rnd.shuffle(order)
    renamed = {c: f"page-{rnd.random()}-{i}" for i, c in enumerate(sorted(set(cl)))}
    moved = paired_difference([y1[i] for i in order], ones, [y0[i] for i in order], ones,
                              [renamed[cl[i]] for i in order])  # fmt: skip
    assert moved.diff == pytest.approx(base.diff)
    assert moved.p_worse == pytest.approx(base.p_worse)
    assert (moved.se or 0) == pytest.approx(base.se or 0)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 30), st.integers(0, 30))
def test_sign_flip_on_unit_moves_is_the_binomial(up, down):
    low, high, how = sign_flip_test([1.0] * up + [-1.0] * down + [0.0] * 5)
    m = up + down
    if m == 0:
        assert (low, high) == (1.0, 1.0)
        return
    assert how == "exact"
    assert low == pytest.approx(binomial_tail(up, m, upper=False), rel=1e-9)
    assert high == pytest.approx(binomial_tail(up, m, upper=True), rel=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-3, 3, allow_nan=False).filter(lambda x: abs(x) > 0.01),
                min_size=1, max_size=12))  # fmt: skip
def test_enumerated_sign_flip_is_a_distribution(values):
    low, high, how = sign_flip_test(values)
    assert how == "exact"
    # the observed sum is one of the values, so the tails overlap in it
    assert low + high >= 1 - 1e-9
    assert 0 < low <= 1 and 0 < high <= 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=20), st.floats(0.001, 0.2))
def test_holm_is_between_bonferroni_and_the_unadjusted_level(ps, alpha):
    rejected = holm(ps, alpha)
    m = len(ps)
    for p, r in zip(ps, rejected, strict=True):
        if p <= alpha / m:
            assert r
        if p > alpha:
            assert not r
