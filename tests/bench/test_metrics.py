"""Metric arithmetic against hand-computed confusion matrices, edge cases, and properties."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanproof.bench.metrics import Row, bootstrap_interval, compute, confusion_matrix
from spanproof.core.verdict import LABELS

S, P, N = LABELS


def rows_from(spec: list[tuple[str, str | None, int]], *, error_pred: str = S) -> list[Row]:
    out = []
    for gold, pred, count in spec:
        for _ in range(count):
            if pred == "ERROR":
                out.append(Row(gold=gold, predicted=error_pred, error=True))
            else:
                out.append(Row(gold=gold, predicted=pred))
    return out


# Hand-computed: 12 rows, confusion (gold x predicted)
#            S  P  N  ERR
#   S        4  1  0  0
#   P        0  2  1  0
#   N        1  0  2  1     (the error row claimed SUPPORTED: it must still count as wrong)
WORKED = rows_from(
    [(S, S, 4), (S, P, 1), (P, P, 2), (P, N, 1), (N, N, 2), (N, S, 1), (N, "ERROR", 1)]
)


def test_worked_example_confusion_and_counts():
    m = compute(WORKED, n_boot=200)
    assert m.confusion == {
        S: {S: 4, P: 1, N: 0, "ERROR": 0},
        P: {S: 0, P: 2, N: 1, "ERROR": 0},
        N: {S: 1, P: 0, N: 2, "ERROR": 1},
    }
    assert m.n == 12 and m.errors == 1


def test_worked_example_agreement_kappa_f1_balanced():
    m = compute(WORKED, n_boot=200)
    assert m.agreement == pytest.approx(8 / 12)
    # po = 8/12; pe = (5*5 + 3*3 + 4*3) / 144 = 46/144 (ERROR adds no chance agreement)
    assert m.kappa == pytest.approx((96 - 46) / (144 - 46))
    assert m.per_class[S].precision == pytest.approx(0.8) and m.per_class[
        S
    ].recall == pytest.approx(0.8)
    assert m.per_class[P].f1 == pytest.approx(2 / 3)
    assert m.per_class[N].precision == pytest.approx(2 / 3) and m.per_class[
        N
    ].recall == pytest.approx(0.5)
    assert m.per_class[N].f1 == pytest.approx(4 / 7)
    assert m.macro_f1 == pytest.approx((0.8 + 2 / 3 + 4 / 7) / 3)
    # SUPPORTED recall 4/5; rest side: P row 2+1, N row 0+2 of 7 (the ERROR is wrong)
    assert m.balanced_accuracy == pytest.approx((4 / 5 + 5 / 7) / 2)


def test_an_error_is_never_dropped_from_the_denominator():
    clean = rows_from([(S, S, 3), (N, N, 3)])
    with_errors = clean + rows_from([(N, "ERROR", 2)], error_pred=N)
    assert compute(clean, n_boot=50).agreement == 1.0
    m = compute(with_errors, n_boot=50)
    assert m.n == 8 and m.errors == 2
    assert m.agreement == pytest.approx(6 / 8)  # an error that "said" the gold label is still wrong
    assert m.balanced_accuracy == pytest.approx((1.0 + 3 / 5) / 2)


def test_a_judge_that_only_errors_scores_zero_not_undefined():
    m = compute(rows_from([(S, "ERROR", 2), (N, "ERROR", 2)]), n_boot=50)
    assert m.agreement == 0.0 and m.errors == 4 and m.kappa == 0.0
    assert m.per_class[S].precision is None and m.per_class[S].recall == 0.0


def test_missing_prediction_counts_as_error():
    m = compute([Row(gold=S, predicted=None), Row(gold=S, predicted=S)], n_boot=50)
    assert m.errors == 1 and m.agreement == 0.5


def test_class_with_no_examples_is_left_out_of_macro_f1():
    rows = rows_from([(S, S, 3), (N, N, 2), (N, S, 1)])
    m = compute(rows, n_boot=50)
    assert m.per_class[P].n == 0 and m.per_class[P].f1 is None
    assert m.per_class[P].precision is None and m.per_class[P].recall is None
    f1_s = 2 * (3 / 4) * 1.0 / (3 / 4 + 1.0)
    f1_n = 2 * 1.0 * (2 / 3) / (1.0 + 2 / 3)
    assert m.macro_f1 == pytest.approx((f1_s + f1_n) / 2)


def test_predicting_a_class_gold_lacks_costs_f1():
    rows = rows_from([(S, S, 3), (S, P, 1)])
    m = compute(rows, n_boot=50)
    assert m.per_class[P].precision == 0.0 and m.per_class[P].recall is None
    assert m.per_class[P].f1 == 0.0
    assert m.macro_f1 == pytest.approx((2 * 1.0 * 0.75 / 1.75 + 0.0) / 2)


def test_all_one_class_kappa_is_undefined_and_balanced_accuracy_is_one_sided():
    m = compute(rows_from([(S, S, 5)]), n_boot=50)
    assert m.kappa is None  # reported as null / "n/a", never a number
    assert m.agreement == 1.0 and m.balanced_accuracy == 1.0
    m2 = compute(rows_from([(N, N, 3), (N, S, 1)]), n_boot=50)
    assert m2.balanced_accuracy == pytest.approx(3 / 4)
    # Gold all N but the judge varies: chance agreement < 1, kappa defined (and 0 here).
    assert m2.kappa == pytest.approx(0.0)


def test_near_miss_agreement_uses_only_flagged_rows():
    rows = [
        Row(gold=P, predicted=S, near_miss=True),
        Row(gold=N, predicted=N, near_miss=True),
        Row(gold=S, predicted=S),
        Row(gold=S, predicted=S),
    ]
    m = compute(rows, n_boot=100)
    assert m.n_near_miss == 2 and m.near_miss_agreement == 0.5 and m.agreement == 0.75
    assert compute(rows[2:], n_boot=50).near_miss_agreement is None
    assert compute(rows[2:], n_boot=50).ci95["near_miss_agreement"] is None


def test_empty_set_is_all_undefined():
    m = compute([], n_boot=10)
    assert m.n == 0 and m.agreement is None and m.kappa is None and m.ci95["agreement"] is None


def test_bootstrap_is_reproducible_under_a_seed_and_moves_with_it():
    a = bootstrap_interval(WORKED, "agreement", seed=3, n_boot=300)
    b = bootstrap_interval(WORKED, "agreement", seed=3, n_boot=300)
    c = bootstrap_interval(WORKED, "agreement", seed=4, n_boot=300)
    assert a == b and a != c
    assert 0.0 <= a.low <= 8 / 12 <= a.high <= 1.0
    assert compute(WORKED, seed=9, n_boot=200) == compute(WORKED, seed=9, n_boot=200)


def test_bootstrap_interval_is_degenerate_for_a_perfect_judge():
    i = bootstrap_interval(rows_from([(S, S, 4), (N, N, 4)]), "agreement", seed=0, n_boot=100)
    assert i.low == i.high == 1.0


# ---------------------------------------------------------------- properties

row_st = st.builds(
    Row,
    gold=st.sampled_from(LABELS),
    predicted=st.sampled_from(LABELS),
    near_miss=st.booleans(),
    error=st.booleans(),
)


@settings(max_examples=80, deadline=None)
@given(rows=st.lists(row_st, min_size=1, max_size=40))
def test_metric_ranges_and_totals(rows):
    m = compute(rows, n_boot=20)
    assert sum(sum(r.values()) for r in m.confusion.values()) == len(rows)
    assert 0.0 <= m.agreement <= 1.0
    assert m.kappa is None or -1.0 - 1e-9 <= m.kappa <= 1.0 + 1e-9
    assert m.macro_f1 is None or 0.0 <= m.macro_f1 <= 1.0
    assert 0.0 <= m.balanced_accuracy <= 1.0
    assert m.errors == sum(1 for r in rows if r.error)
    assert m.agreement == pytest.approx(sum(r.correct for r in rows) / len(rows))


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(row_st, min_size=1, max_size=30), extra=st.sampled_from(LABELS))
def test_an_added_error_never_raises_agreement(rows, extra):
    before = compute(rows, n_boot=10).agreement
    after = compute([*rows, Row(gold=extra, predicted=extra, error=True)], n_boot=10).agreement
    assert after < before or before == 0.0


@settings(max_examples=60, deadline=None)
@given(golds=st.lists(st.sampled_from(LABELS), min_size=1, max_size=30))
def test_a_perfect_judge_scores_one(golds):
    m = compute([Row(gold=g, predicted=g) for g in golds], n_boot=10)
    assert m.agreement == 1.0 and m.balanced_accuracy == 1.0 and m.macro_f1 == 1.0
    assert m.kappa is None if len(set(golds)) == 1 else m.kappa == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(rows=st.lists(row_st, min_size=1, max_size=30), data=st.data())
def test_row_order_does_not_matter(rows, data):
    shuffled = data.draw(st.permutations(rows))
    a, b = compute(rows, n_boot=10), compute(shuffled, n_boot=10)
    assert (a.agreement, a.kappa, a.macro_f1, a.balanced_accuracy) == pytest.approx(
        (b.agreement, b.kappa, b.macro_f1, b.balanced_accuracy)
    ) or (a.kappa is None and b.kappa is None)
    assert confusion_matrix(rows) == confusion_matrix(shuffled)
