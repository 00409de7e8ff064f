"""Agreement arithmetic between a judge and gold labels. Pure: rows in, numbers out.

Conventions (they decide what a number means, so they are stated once here):

- An error verdict (the judge failed to answer) is a fourth predicted category,
  ``ERROR``. It is wrong against every gold label and stays in every
  denominator: a judge cannot raise its agreement by failing on hard pairs.
- Per-class precision is None when the judge never predicted that class;
  recall is None when gold has no example of it. For F1 an undefined
  precision or recall counts as 0 (as scikit-learn's ``zero_division=0``).
- Macro-F1 averages over the labels that occur in gold or in the predictions;
  a label absent from both is left out rather than counted as 0 or 1.
- Cohen's kappa is None when it is undefined: chance agreement is 1, which
  happens only when gold and predictions are all one and the same class. It is
  reported as null in JSON and "n/a" in tables, never as 0 or 1.
- Balanced accuracy is SUPPORTED-vs-rest: the mean of the SUPPORTED recall and
  the not-SUPPORTED recall (an ERROR counts as wrong on either side). When gold
  holds only one side it is that side's recall alone.
- Near-miss agreement is agreement over the rows flagged ``near_miss``; None
  when the set has none.
- Bootstrap intervals resample rows with replacement (percentile method,
  ``n_boot`` draws) from a ``numpy`` generator seeded by ``seed``; the same
  rows and seed give the same interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel

from spanproof.core.verdict import LABELS, Label

ERROR = "ERROR"
PREDICTED = (*LABELS, ERROR)
_N_GOLD = len(LABELS)
_N_PRED = len(PREDICTED)


class Row(BaseModel, frozen=True):
    """One judged pair: the human label, the judge's label, and whether the judge failed."""

    gold: Label
    predicted: Label | None = None
    near_miss: bool = False
    error: bool = False

    @property
    def outcome(self) -> str:
        # A missing prediction is an error too: the judge did not answer.
        return ERROR if self.error or self.predicted is None else self.predicted

    @property
    def correct(self) -> bool:
        return self.outcome == self.gold


class ClassScores(BaseModel):
    n: int  # gold examples of the class
    predicted: int
    precision: float | None
    recall: float | None
    f1: float | None


class Interval(BaseModel):
    low: float
    high: float


class Metrics(BaseModel):
    n: int
    n_near_miss: int
    agreement: float | None
    near_miss_agreement: float | None
    kappa: float | None
    macro_f1: float | None
    balanced_accuracy: float | None
    per_class: dict[str, ClassScores]
    confusion: dict[str, dict[str, int]]  # gold -> predicted (incl. ERROR) -> count
    errors: int
    ci95: dict[str, Interval | None]


# ---------------------------------------------------------------- core arithmetic


def _codes(rows: Sequence[Row]) -> tuple[np.ndarray, np.ndarray]:
    gold = np.array([LABELS.index(r.gold) for r in rows], dtype=np.int64)
    pred = np.array([PREDICTED.index(r.outcome) for r in rows], dtype=np.int64)
    return gold, pred


def _matrix(gold: np.ndarray, pred: np.ndarray) -> np.ndarray:
    return np.bincount(gold * _N_PRED + pred, minlength=_N_GOLD * _N_PRED).reshape(_N_GOLD, _N_PRED)


def _agreement(m: np.ndarray) -> float | None:
    n = m.sum()
    return None if n == 0 else float(np.trace(m[:, :_N_GOLD]) / n)


def _kappa(m: np.ndarray) -> float | None:
    n = m.sum()
    if n == 0:
        return None
    po = np.trace(m[:, :_N_GOLD]) / n
    gold_p = m.sum(axis=1) / n
    pred_p = m.sum(axis=0)[:_N_GOLD] / n  # ERROR never matches gold, so adds no chance agreement
    pe = float(gold_p @ pred_p)
    if pe >= 1.0 - 1e-12:
        return None
    return float((po - pe) / (1.0 - pe))


def _per_class(m: np.ndarray) -> dict[str, ClassScores]:
    out: dict[str, ClassScores] = {}
    for k, label in enumerate(LABELS):
        tp = int(m[k, k])
        n_gold = int(m[k].sum())
        n_pred = int(m[:, k].sum())
        precision = tp / n_pred if n_pred else None
        recall = tp / n_gold if n_gold else None
        if n_gold == 0 and n_pred == 0:
            f1 = None
        else:
            p, r = precision or 0.0, recall or 0.0
            f1 = 0.0 if p + r == 0 else 2 * p * r / (p + r)
        out[label] = ClassScores(
            n=n_gold, predicted=n_pred, precision=precision, recall=recall, f1=f1
        )
    return out


def _macro_f1(m: np.ndarray) -> float | None:
    f1s = [c.f1 for c in _per_class(m).values() if c.f1 is not None]
    return float(np.mean(f1s)) if f1s else None


def _balanced_accuracy(m: np.ndarray) -> float | None:
    s = LABELS.index("SUPPORTED")
    pos_n = m[s].sum()
    neg_rows = [k for k in range(_N_GOLD) if k != s]
    neg_n = m[neg_rows].sum()
    rates = []
    if pos_n:
        rates.append(m[s, s] / pos_n)
    if neg_n:
        # Right on the rest side: any non-SUPPORTED label, but not an ERROR.
        not_sup_cols = [k for k in range(_N_GOLD) if k != s]
        rates.append(m[np.ix_(neg_rows, not_sup_cols)].sum() / neg_n)
    return float(np.mean(rates)) if rates else None


_STATS = {
    "agreement": _agreement,
    "kappa": _kappa,
    "macro_f1": _macro_f1,
    "balanced_accuracy": _balanced_accuracy,
}


def scores_from_codes(gold: np.ndarray, pred: np.ndarray) -> dict[str, float | None]:
    """Agreement, macro-F1, balanced accuracy and kappa from label codes (gold: index in
    LABELS; pred: index in PREDICTED) — the same arithmetic as ``compute``, for callers that
    score many candidate labellings (threshold searches) without building rows."""
    m = _matrix(np.asarray(gold, dtype=np.int64), np.asarray(pred, dtype=np.int64))
    return {name: fn(m) for name, fn in _STATS.items()}


def confusion_matrix(rows: Sequence[Row]) -> dict[str, dict[str, int]]:
    m = _matrix(*_codes(rows)) if rows else np.zeros((_N_GOLD, _N_PRED), dtype=np.int64)
    return {g: {p: int(m[i, j]) for j, p in enumerate(PREDICTED)} for i, g in enumerate(LABELS)}


def bootstrap_interval(
    rows: Sequence[Row], stat: str, *, seed: int = 0, n_boot: int = 1000
) -> Interval | None:
    """Percentile 95% interval of `stat` over `n_boot` row resamples; None if undefined."""
    if not rows:
        return None
    gold, pred = _codes(rows)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(rows), size=(n_boot, len(rows)))
    fn = _STATS[stat]
    values = []
    for draw in idx:
        v = fn(_matrix(gold[draw], pred[draw]))
        if v is not None:
            values.append(v)
    if not values:
        return None
    lo, hi = np.percentile(values, [2.5, 97.5])
    return Interval(low=float(lo), high=float(hi))


def compute(rows: Sequence[Row], *, seed: int = 0, n_boot: int = 1000) -> Metrics:
    """Every calibration metric for one judge on one set."""
    rows = list(rows)
    near = [r for r in rows if r.near_miss]
    m = _matrix(*_codes(rows)) if rows else np.zeros((_N_GOLD, _N_PRED), dtype=np.int64)
    near_m = _matrix(*_codes(near)) if near else None
    ci = {stat: bootstrap_interval(rows, stat, seed=seed, n_boot=n_boot) for stat in _STATS}
    # The near-miss interval resamples the near-miss rows on their own (a different seed
    # stream, so it is not a slice of the overall draws).
    ci["near_miss_agreement"] = (
        bootstrap_interval(near, "agreement", seed=seed + 1, n_boot=n_boot) if near else None
    )
    return Metrics(
        n=len(rows),
        n_near_miss=len(near),
        agreement=_agreement(m),
        near_miss_agreement=_agreement(near_m) if near_m is not None else None,
        kappa=_kappa(m),
        macro_f1=_macro_f1(m),
        balanced_accuracy=_balanced_accuracy(m),
        per_class=_per_class(m),
        confusion=confusion_matrix(rows),
        errors=sum(1 for r in rows if r.outcome == ERROR),
        ci95=ci,
    )


# ---------------------------------------------------------------- confidence


class ReliabilityBin(BaseModel):
    low: float
    high: float
    n: int
    confidence: float | None  # mean stated confidence in the bin
    accuracy: float | None  # share of the bin's verdicts that were right


class Reliability(BaseModel):
    """How well a judge's stated confidence matches how often it is right.

    Verdicts are put in ``bins`` equal-width bins of confidence; ECE (expected calibration
    error) is the bin-size-weighted mean of |accuracy - mean confidence|. Only verdicts that
    carry a confidence count; ``n_without`` says how many did not (an LLM endpoint that
    returns no logprobs gives none)."""

    n: int
    n_without: int
    ece: float | None
    bins: list[ReliabilityBin]


def reliability(
    confidences: Sequence[float | None], correct: Sequence[bool], *, bins: int = 10
) -> Reliability:
    pairs = [(c, ok) for c, ok in zip(confidences, correct, strict=True) if c is not None]
    out: list[ReliabilityBin] = []
    ece = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        inside = [(c, ok) for c, ok in pairs if lo <= c < hi or (b == bins - 1 and c == 1.0)]
        conf: float | None = None
        acc: float | None = None
        if inside:
            conf = float(np.mean([c for c, _ in inside]))
            acc = float(np.mean([ok for _, ok in inside]))
            ece += len(inside) / len(pairs) * abs(acc - conf)
        out.append(ReliabilityBin(low=lo, high=hi, n=len(inside), confidence=conf, accuracy=acc))
    return Reliability(
        n=len(pairs),
        n_without=len(confidences) - len(pairs),
        ece=ece if pairs else None,
        bins=out,
    )
