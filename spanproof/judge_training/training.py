"""Fitting, cross-validating and ablating the offline judge (scikit-learn; imported here only).

Every figure this module reports is cross-validated over the page-grouped folds of
``spanproof.judge_training.data``: a fold's pairs are judged by a model fitted without that
fold, with thresholds chosen without it too (nested: an inner grouped CV over the training
folds picks them). The shipped parameters are the same procedure fitted on every row.

Figures are reported judge-only (the model's own label) and final ("audited" here: the label
after ``graders.audit.audit``, which lowers it only by a proof), with ``graders.metrics``.
``nested_cross_validate`` chooses the signals inside each fold as well (backward
elimination on the other folds), so its figure does not rest on a selection made on the
rows it measures.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from spanproof.graders.audit import audit
from spanproof.graders.quoting import best_window
from spanproof.graders.rules.lexical import coverage, shared_words
from spanproof.graders.rules.model import Params, Thresholds
from spanproof.graders.rules.signals import SIGNALS, measure

from spanproof.bench.metrics import scores_from_codes
from spanproof.core.verdict import LABELS, SpanRef, Verdict
from spanproof.judge_training.data import N_FOLDS, Row, data_sha256, training_rows

# Settings of the fit, fixed here and written into params.json. WICE_SHARE: the WiCE rows
# together weigh this share of the training set (they are the real claims; the synthetic
# rows teach near-misses by construction). C: inverse L2 strength of the regression.
WICE_SHARE = 0.5
C = 1.0
GRID = [round(0.2 + 0.025 * i, 3) for i in range(25)]  # 0.2 .. 0.8
# Candidate minimum-evidence floors (share of the claim's content words the span holds below
# which the judge never says SUPPORTED), chosen like the thresholds: inside each fold.
FLOOR_GRID = [0.0, 0.2, 0.25, 0.3, 0.34, 0.375, 0.4, 0.45, 0.5]
SHARED_GRID = [0, 1, 2, 3]  # and the number of the claim's content words it must hold


@dataclass
class Features:
    rows: list[Row]
    names: list[str]
    X: np.ndarray
    y: np.ndarray  # label index (LABELS order)
    audited: np.ndarray  # [row, judged label index] -> label index after the audit
    wice: np.ndarray  # bool: the row is a WiCE pair
    folds: np.ndarray

    @property
    def origins(self) -> np.ndarray:
        return np.array([r.origin for r in self.rows])

    @property
    def coverage(self) -> np.ndarray:
        """The share of each claim's content words its span holds (the minimum-evidence
        floor reads it whichever signals a model uses)."""
        return self.X[:, self.names.index("coverage")]

    @cached_property
    def shared(self) -> np.ndarray:
        """How many of each claim's content words its span holds."""
        return np.array([shared_words(r.claim, r.span) for r in self.rows])


def _every(rows: Sequence[Row], what: str, progress: Callable[[str], None] | None):
    """The rows, saying how far ``what`` has got about every tenth of the way (the whole pass
    takes minutes on two cores, and a silent minute reads as a hang)."""
    import time

    step = max(1, len(rows) // 10)
    t0 = time.perf_counter()
    for i, r in enumerate(rows):
        if progress and i and i % step == 0:
            progress(f"  {what}: {i}/{len(rows)} pairs ({time.perf_counter() - t0:.0f} s)")
        yield i, r


def _audit_table(rows: Sequence[Row], progress: Callable[[str], None] | None = None) -> np.ndarray:
    """What the audit makes of each possible judge label, per row (it depends on the pair
    and the label only, so it is computed once)."""
    out = np.zeros((len(rows), len(LABELS)), dtype=np.int64)
    for i, r in _every(rows, "auditing", progress):
        quote = best_window(r.claim, r.span) or None
        for j, label in enumerate(LABELS):
            v = audit(r.claim, SpanRef(text=r.span), Verdict(verdict=label, quote_used=quote))
            out[i, j] = LABELS.index(v.verdict)
    return out


def features(
    rows: Sequence[Row] | None = None,
    names: Sequence[str] | None = None,
    progress: Callable[[str], None] | None = None,
) -> Features:
    rows = list(rows if rows is not None else training_rows())
    names = list(names or [s.name for s in SIGNALS])
    if progress:
        progress(f"measuring {len(names)} signals on {len(rows)} training pairs")
    X = np.array(
        [measure(r.claim, r.span, names) for _, r in _every(rows, "measuring", progress)],
        dtype=float,
    )
    if progress:
        progress("auditing each pair under each verdict the judge could give")
    return Features(
        rows=rows,
        names=names,
        X=X,
        y=np.array([LABELS.index(r.label) for r in rows]),
        audited=_audit_table(rows, progress),
        wice=np.array([r.origin == "wice" for r in rows]),
        folds=np.array([r.fold for r in rows]),
    )


def features_sha256(f: Features) -> str:
    """sha256 of what the code measures on the training rows: each signal's values (rounded to
    6 decimals, so the last bit of a float sum does not count) and the audit's table. Equal
    hashes mean a refit would see the data the shipped parameters were fitted on."""
    h = hashlib.sha256()
    h.update(json.dumps(f.names).encode())
    h.update(np.ascontiguousarray(np.round(f.X, 6) + 0.0).tobytes())
    h.update(np.ascontiguousarray(f.audited, dtype=np.int64).tobytes())
    return h.hexdigest()


def _weights(origins: np.ndarray, share: float = WICE_SHARE) -> np.ndarray:
    """WiCE rows weigh ``share`` of the whole; the rest is split equally between the kinds of
    synthetic pair, so a rare kind (a quantifier inflated) counts as much as a common one."""
    kinds = sorted(set(origins) - {"wice"})
    w = np.zeros(len(origins))
    n_w = int((origins == "wice").sum())
    if n_w:
        w[origins == "wice"] = (share if kinds else 1.0) / n_w
    for k in kinds:
        mask = origins == k
        w[mask] = (1 - share if n_w else 1.0) / len(kinds) / mask.sum()
    return w * len(origins)


def fit(X: np.ndarray, y: np.ndarray, origins: np.ndarray, *, tol: float = 1e-8) -> dict:
    """Standardise, then multinomial logistic regression; returns the raw parameters. A looser
    ``tol`` serves choosing signals, where hundreds of fits are compared, never a shipped fit."""
    from sklearn.linear_model import LogisticRegression

    means = X.mean(axis=0)
    scales = X.std(axis=0)
    scales[scales == 0] = 1.0
    Z = (X - means) / scales
    # newton-cg converges to the optimum in a few steps: the parameters do not depend on an
    # iteration budget, so they reproduce to the digits written.
    model = LogisticRegression(C=C, solver="newton-cg", max_iter=200, tol=tol)
    model.fit(Z, y, sample_weight=_weights(origins))
    coef = np.zeros((len(LABELS), X.shape[1]))
    intercept = np.zeros(len(LABELS))
    for k, cls in enumerate(model.classes_):
        coef[cls], intercept[cls] = model.coef_[k], model.intercept_[k]
    return {"means": means, "scales": scales, "coef": coef, "intercept": intercept}


def proba(raw: dict, X: np.ndarray) -> np.ndarray:
    Z = (X - raw["means"]) / raw["scales"]
    logits = Z @ raw["coef"].T + raw["intercept"]
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    return e / e.sum(axis=1, keepdims=True)


def decisions(P: np.ndarray, t: Thresholds, coverage: np.ndarray, shared: np.ndarray) -> np.ndarray:
    """graders.rules.model.decide, row by row."""
    s, ns = LABELS.index("SUPPORTED"), LABELS.index("NOT_SUPPORTED")
    out = np.full(len(P), LABELS.index("PARTIAL"))
    out[P[:, ns] >= t.not_supported] = ns
    evidence = (coverage >= t.min_coverage) & ((shared >= t.min_shared) | (coverage >= 1.0))
    out[(P[:, s] >= t.supported) & (P[:, s] >= P[:, ns]) & evidence] = s
    return out


def _metrics(gold: np.ndarray, pred: np.ndarray) -> dict[str, float | None]:
    return scores_from_codes(gold, pred)


def objective(f: Features, idx: np.ndarray, pred: np.ndarray) -> float:
    """What thresholds are chosen for, on development rows only: the mean of the WiCE pairs'
    audited balanced accuracy and macro-F1, and the synthetic pairs' audited agreement."""
    audited = f.audited[idx, pred]
    parts = []
    w = f.wice[idx]
    if w.any():
        m = _metrics(f.y[idx][w], audited[w])
        parts += [m["balanced_accuracy"] or 0.0, m["macro_f1"] or 0.0]
    if (~w).any():
        parts.append(float(np.mean(f.y[idx][~w] == audited[~w])))
    return float(np.mean(parts))


def choose_thresholds(
    f: Features, idx: np.ndarray, P: np.ndarray, grid: Sequence[float] = GRID
) -> Thresholds:
    """The verdict thresholds, then the minimum-evidence floor, that score best on ``idx``
    (out-of-fold probabilities ``P``); ties keep the lower value."""
    cov, shared = f.coverage[idx], f.shared[idx]
    best, best_t = -1.0, None
    for ts in grid:
        for tn in grid:
            t = Thresholds(supported=ts, not_supported=tn)
            score = objective(f, idx, decisions(P, t, cov, shared))
            if score > best + 1e-12:
                best, best_t = score, t
    base = best_t
    for floor in FLOOR_GRID:
        for k in SHARED_GRID:
            t = base.model_copy(update={"min_coverage": floor, "min_shared": k})
            score = objective(f, idx, decisions(P, t, cov, shared))
            if score > best + 1e-12:
                best, best_t = score, t
    return best_t


def _oof(f: Features, train_idx: np.ndarray, cols: list[int], tol: float = 1e-8) -> np.ndarray:
    """Out-of-fold probabilities for ``train_idx`` by an inner CV over its own folds."""
    P = np.zeros((len(train_idx), len(LABELS)))
    folds = f.folds[train_idx]
    for k in sorted(set(folds)):
        inner_tr, inner_te = train_idx[folds != k], np.flatnonzero(folds == k)
        raw = fit(f.X[np.ix_(inner_tr, cols)], f.y[inner_tr], f.origins[inner_tr], tol=tol)
        P[inner_te] = proba(raw, f.X[np.ix_(train_idx[inner_te], cols)])
    return P


@dataclass
class CVResult:
    names: list[str]
    proba: np.ndarray  # out-of-fold probabilities, every row
    judged: np.ndarray  # out-of-fold judge labels
    audited: np.ndarray  # after the audit
    thresholds: list[Thresholds]  # chosen per outer fold


def cross_validate(f: Features, names: Sequence[str] | None = None) -> CVResult:
    names = list(names or f.names)
    cols = [f.names.index(n) for n in names]
    P = np.zeros((len(f.rows), len(LABELS)))
    judged = np.zeros(len(f.rows), dtype=np.int64)
    chosen = []
    for k in range(N_FOLDS):
        tr, te = np.flatnonzero(f.folds != k), np.flatnonzero(f.folds == k)
        t = choose_thresholds(f, tr, _oof(f, tr, cols))
        raw = fit(f.X[np.ix_(tr, cols)], f.y[tr], f.origins[tr])
        P[te] = proba(raw, f.X[np.ix_(te, cols)])
        judged[te] = decisions(P[te], t, f.coverage[te], f.shared[te])
        chosen.append(t)
    audited = f.audited[np.arange(len(f.rows)), judged]
    return CVResult(names, P, judged, audited, chosen)


def summary(f: Features, cv: CVResult) -> dict:
    """CV figures on the WiCE pairs (judge-only and audited) and on the synthetic pairs."""
    w = f.wice
    out = {}
    for name, pred in (("judge_only", cv.judged), ("audited", cv.audited)):
        m = _metrics(f.y[w], pred[w])
        out[name] = {
            "wice_balanced_accuracy": round(m["balanced_accuracy"], 4),
            "wice_macro_f1": round(m["macro_f1"], 4),
            "wice_agreement": round(m["agreement"], 4),
            "synthetic_agreement": round(float(np.mean(f.y[~w] == pred[~w])), 4),
        }
    return out


def train(f: Features, candidates: Sequence[str] | None = None, progress=None) -> Params:
    """The shipped parameters: the signals ``select_signals`` keeps among ``candidates``
    (default: every signal of ``f``) on every row, thresholds from a grouped CV over every
    row, then one fit; with the labelled pairs it was fitted on and the held-out figures of
    this whole procedure on them (``nested_cross_validate``: signals and thresholds chosen
    inside each fold, ``FittedOn``)."""
    from spanproof.graders.rules.fitted import pair_key
    from spanproof.graders.rules.model import FittedOn

    from spanproof.judge_training.data import WICE_PAIRS

    candidates = list(candidates or f.names)
    all_idx = np.arange(len(f.rows))
    if progress:
        progress(f"choosing signals among {len(candidates)} candidates on every row")
    names, _ = select_signals(f, all_idx, candidates, progress)
    cols = _cols(f, names)
    t = choose_thresholds(f, all_idx, _oof(f, all_idx, cols))
    raw = fit(f.X[:, cols], f.y, f.origins)

    def r(xs) -> list:
        return [float(f"{x:.6g}") for x in xs]

    counts: dict[str, int] = {}
    for row in f.rows:
        key = f"{row.origin} {row.label}"
        counts[key] = counts.get(key, 0) + 1
    if progress:
        progress("held-out figures of the procedure: the same selection inside each fold")
    nested = nested_cross_validate(f, candidates, progress=progress)
    w = f.wice
    m = _metrics(f.y[w], nested.cv.audited[w])
    fitted = FittedOn(
        pairs_file="goldens/wice_dev_pairs.jsonl",
        pairs_sha256=hashlib.sha256(WICE_PAIRS.read_bytes()).hexdigest(),
        pair_keys=sorted(pair_key(row.claim, row.span) for row in f.rows if row.origin == "wice"),
        cv={
            "balanced_accuracy": round(float(m["balanced_accuracy"] or 0.0), 4),
            "agreement": round(float(m["agreement"] or 0.0), 4),
            "macro_f1": round(float(m["macro_f1"] or 0.0), 4),
        },
        cv_how=(
            f"final verdicts, grouped {N_FOLDS}-fold cross-validation by source article, "
            "signals and thresholds chosen inside each fold"
        ),
    )
    return Params(
        signals=names,
        means=r(raw["means"]),
        scales=r(raw["scales"]),
        coef=[r(row) for row in raw["coef"]],
        intercept=r(raw["intercept"]),
        thresholds=t,
        data_sha256=data_sha256(f.rows),
        features_sha256=features_sha256(f),
        training={
            "rows": len(f.rows),
            "counts": dict(sorted(counts.items())),
            "folds": N_FOLDS,
            "wice_share": WICE_SHARE,
            "C": C,
            "threshold_grid": [GRID[0], GRID[-1], GRID[1] - GRID[0]],
            "min_coverage_grid": FLOOR_GRID,
            "min_shared_grid": SHARED_GRID,
            "candidates": candidates,
            "signals_chosen_per_fold": nested.selected,
        },
        fitted_on=fitted,
    )


def dump(params: Params) -> str:
    """The params file's bytes: fixed key order, fixed float precision, one trailing newline."""
    return json.dumps(params.model_dump(mode="json"), indent=1, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------- ablation


def cv_objective(f: Features, cv: CVResult) -> float:
    """The thresholds' objective, on every row's out-of-fold audited verdict."""
    return objective(f, np.arange(len(f.rows)), cv.judged)


@dataclass
class Contribution:
    signal: str
    objective_without: float
    contribution: float  # objective with every signal minus objective without this one
    wice_balanced_accuracy: float  # audited, without the signal
    wice_macro_f1: float
    synthetic_agreement: float


def ablate(f: Features, names: Sequence[str], progress=None) -> tuple[float, list[Contribution]]:
    """Leave-one-out over ``names``: each signal's cross-validated contribution."""
    base = cv_objective(f, cross_validate(f, names))
    out = []
    for n in names:
        c = _contribution(f, n, [m for m in names if m != n], base, removed=True)
        out.append(c)
        if progress:
            progress(
                f"without {n}: objective {c.objective_without:.4f} "
                f"(contribution {c.contribution:+.4f})"
            )
    return base, out


def _contribution(
    f: Features, signal: str, names: Sequence[str], base: float, *, removed: bool
) -> Contribution:
    """The held-out figures with ``names``, as ``signal``'s contribution against ``base``
    (``removed``: ``names`` lacks the signal; else ``names`` adds it)."""
    cv = cross_validate(f, names)
    s = summary(f, cv)["audited"]
    score = cv_objective(f, cv)
    return Contribution(
        signal=signal,
        objective_without=round(score if removed else base, 4),
        contribution=round(base - score if removed else score - base, 4),
        wice_balanced_accuracy=s["wice_balanced_accuracy"],
        wice_macro_f1=s["wice_macro_f1"],
        synthetic_agreement=s["synthetic_agreement"],
    )


def select(f: Features, names: Sequence[str], progress=None) -> list[str]:
    """Backward elimination: drop the signal whose removal helps most on held-out folds,
    until every remaining signal's contribution is positive."""
    names = list(names)
    while len(names) > 1:
        _, contribs = ablate(f, names, progress)
        worst = min(contribs, key=lambda c: (c.contribution, c.signal))
        if worst.contribution > 0:
            break
        if progress:
            progress(f"removing {worst.signal} (contribution {worst.contribution:+.4f})")
        names.remove(worst.signal)
    return names


# ---------------------------------------------------------------- nested selection


def _cols(f: Features, names: Sequence[str]) -> list[int]:
    return [f.names.index(n) for n in names]


SELECT_TOL = 1e-4  # fits while choosing signals: the ranking, not the digits, matters
SELECT_GRID = GRID[::2]  # thresholds while choosing signals: 0.2 .. 0.8 by 0.05


def inner_score(f: Features, idx: np.ndarray, names: Sequence[str]) -> float:
    """How a signal set does on ``idx`` alone: out-of-fold probabilities by a CV over idx's own
    folds, thresholds chosen on them, the objective of the result. Used to choose signals
    inside a fold, so nothing outside ``idx`` is read."""
    cols = _cols(f, names)
    P = _oof(f, idx, cols, tol=SELECT_TOL)
    t = choose_thresholds(f, idx, P, SELECT_GRID)
    return objective(f, idx, decisions(P, t, f.coverage[idx], f.shared[idx]))


def select_signals(
    f: Features, idx: np.ndarray, candidates: Sequence[str], progress=None
) -> tuple[list[str], float]:
    """Backward elimination on ``idx`` (``inner_score``): remove the signal whose removal
    scores best, as long as removing it does not score worse — a signal stays only when it
    helps. Returns the kept signals and their score."""
    names = list(candidates)
    base = inner_score(f, idx, names)
    while len(names) > 1:
        scores = {n: inner_score(f, idx, [m for m in names if m != n]) for n in names}
        drop = max(sorted(scores), key=lambda n: scores[n])
        if scores[drop] < base - 1e-12:
            break
        names.remove(drop)
        base = scores[drop]
        if progress:
            progress(f"  removed {drop}: {base:.4f} with {len(names)} signals")
    return names, base


@dataclass
class NestedCV:
    cv: CVResult
    selected: list[list[str]]  # the signals chosen inside each outer fold


def nested_cross_validate(
    f: Features, candidates: Sequence[str], *, select: bool = True, progress=None
) -> NestedCV:
    """Every figure out of fold with the signals *and* the thresholds chosen inside each outer
    fold (``select_signals`` on the other folds; with ``select=False`` the candidates are
    used as they are)."""
    P = np.zeros((len(f.rows), len(LABELS)))
    judged = np.zeros(len(f.rows), dtype=np.int64)
    chosen, selected = [], []
    for k in range(N_FOLDS):
        tr, te = np.flatnonzero(f.folds != k), np.flatnonzero(f.folds == k)
        if progress:
            progress(f"outer fold {k + 1}/{N_FOLDS}: choosing signals on the other folds")
        names = select_signals(f, tr, candidates, progress)[0] if select else list(candidates)
        cols = _cols(f, names)
        t = choose_thresholds(f, tr, _oof(f, tr, cols))
        raw = fit(f.X[np.ix_(tr, cols)], f.y[tr], f.origins[tr])
        P[te] = proba(raw, f.X[np.ix_(te, cols)])
        judged[te] = decisions(P[te], t, f.coverage[te], f.shared[te])
        chosen.append(t)
        selected.append(names)
        if progress:
            progress(f"outer fold {k + 1}: {len(names)} signals: {', '.join(names)}")
    audited = f.audited[np.arange(len(f.rows)), judged]
    return NestedCV(CVResult(list(candidates), P, judged, audited, chosen), selected)


def nested_report(f: Features, shipped: Sequence[str], progress=None) -> dict:
    """Everything ``spanproof judge cv --nested`` prints: the shipped signals (thresholds
    chosen inside each fold), and the selection run inside each fold from the simple set
    (the audit's findings and coverage), from every candidate signal, and from every candidate
    but the slot reader's proofs (what reading them gains)."""
    from spanproof.graders.rules.signals import PROOFS, SIGNALS, SIMPLE

    configs: dict[str, dict] = {}

    def add(name: str, cv: CVResult, selected: list[list[str]] | None = None) -> None:
        s = summary(f, cv)
        configs[name] = {
            "judge_only": s["judge_only"],
            "final": s["audited"],
            "objective": round(cv_objective(f, cv), 4),
            "selected": selected,
        }

    if progress:
        progress("shipped signals, thresholds chosen inside each fold")
    add("shipped", cross_validate(f, list(shipped)))
    n = nested_cross_validate(f, list(SIMPLE), progress=progress)
    add("simple, nested", n.cv, n.selected)
    n = nested_cross_validate(f, [s.name for s in SIGNALS], progress=progress)
    add("all candidates, nested", n.cv, n.selected)
    but = [s.name for s in SIGNALS if s.name not in PROOFS]
    n = nested_cross_validate(f, but, progress=progress)
    add("all but the proofs, nested", n.cv, n.selected)
    return {"nested": True, "configurations": configs}


# ---------------------------------------------------------------- held-out sensitivity


@dataclass
class FoldModel:
    names: list[str]
    raw: dict
    thresholds: Thresholds

    def judge(self, claim: str, span: str) -> tuple[str, str, float]:
        """(judge-only label, audited label, confidence) for one pair."""
        from spanproof.graders.instructions import find_instructions

        if find_instructions(span):
            return "NOT_SUPPORTED", "NOT_SUPPORTED", 1.0
        p = proba(self.raw, np.array([measure(claim, span, self.names)]))
        cov = np.array([coverage(claim, span)[0]])
        label = LABELS[
            int(decisions(p, self.thresholds, cov, np.array([shared_words(claim, span)]))[0])
        ]
        v = audit(
            claim,
            SpanRef(text=span),
            Verdict(verdict=label, quote_used=best_window(claim, span) or None),
        )
        return label, v.verdict, float(p[0, LABELS.index(label)])


def fold_models(f: Features, names: Sequence[str], exclude_origin: str | None = None):
    """One model per outer fold, fitted (thresholds included) without that fold's rows."""
    names = list(names)
    cols = [f.names.index(n) for n in names]
    out = []
    for k in range(N_FOLDS):
        keep = f.folds != k
        if exclude_origin:
            keep &= f.origins != exclude_origin
        tr = np.flatnonzero(keep)
        t = choose_thresholds(f, tr, _oof(f, tr, cols))
        out.append(FoldModel(names, fit(f.X[np.ix_(tr, cols)], f.y[tr], f.origins[tr]), t))
    return out


def cv_sensitivity(
    f: Features, models: list[FoldModel], kinds: Sequence[str] | None = None, seed: int = 0
) -> dict:
    """Planted failures on every WiCE SUPPORTED pair, each judged by the model of the fold
    that held its page out; specificity on the untouched originals, the same way."""
    from spanproof.bench.pairs import load_pairs
    from spanproof.bench.sensitivity import plant_on
    from spanproof.judge_training.data import WICE_PAIRS

    pairs = load_pairs(WICE_PAIRS)
    fold_of = {r.id: r.fold for r in f.rows if r.origin == "wice"}
    originals = [p for p in pairs if p.label == "SUPPORTED"]
    planted = plant_on(pairs, originals, seed=seed, kinds=kinds)
    spec = {"judge_only": 0, "audited": 0}
    for p in originals:
        judged, audited, _ = models[fold_of[p.id]].judge(p.claim, p.span)
        spec["judge_only"] += judged == "SUPPORTED"
        spec["audited"] += audited == "SUPPORTED"
    by_kind: dict[str, dict[str, int]] = {}
    for p in planted:
        judged, audited, _ = models[fold_of[p.original_id]].judge(p.claim, p.span)
        k = by_kind.setdefault(p.kind, {"n": 0, "judge_only": 0, "audited": 0})
        k["n"] += 1
        k["judge_only"] += judged != "SUPPORTED"
        k["audited"] += audited != "SUPPORTED"
    n = len(planted)
    return {
        "originals": len(originals),
        "planted": n,
        "specificity": {k: round(v / len(originals), 4) for k, v in spec.items()},
        "sensitivity": {
            side: round(sum(k[side] for k in by_kind.values()) / n, 4) if n else None
            for side in ("judge_only", "audited")
        },
        "by_kind": {
            kind: {
                "n": k["n"],
                "judge_only": round(k["judge_only"] / k["n"], 4),
                "audited": round(k["audited"] / k["n"], 4),
            }
            for kind, k in sorted(by_kind.items())
        },
    }


def add_one(f: Features, names: Sequence[str], candidates: Sequence[str], progress=None):
    """Each candidate added to ``names`` alone: what it would contribute."""
    base = cv_objective(f, cross_validate(f, names))
    out = []
    for n in candidates:
        c = _contribution(f, n, [*names, n], base, removed=False)
        out.append(c)
        if progress:
            progress(f"with {n}: objective {base + c.contribution:.4f} ({c.contribution:+.4f})")
    return out


def cv_report(
    f: Features, names: Sequence[str], *, held_out_kinds: bool = False, progress=None
) -> dict:
    """Everything ``spanproof judge cv`` prints: held-out figures only."""
    from spanproof.bench.metrics import reliability

    names = list(names)
    if progress:
        progress("cross-validating (5 folds, thresholds chosen inside each)")
    cv = cross_validate(f, names)
    w = f.wice
    conf = cv.proba[np.arange(len(f.rows)), cv.judged]
    wice = {"n": int(w.sum())}
    for side, pred in (("judge_only", cv.judged), ("audited", cv.audited)):
        m = _metrics(f.y[w], pred[w])
        # confidence is the judge's probability of its own label
        rel = reliability(list(conf[w]), list(cv.judged[w] == f.y[w]))
        wice[side] = {
            "balanced_accuracy": round(m["balanced_accuracy"], 4),
            "macro_f1": round(m["macro_f1"], 4),
            "agreement": round(m["agreement"], 4),
            "ece": round(rel.ece, 4) if side == "judge_only" and rel.ece is not None else None,
        }
    synthetic = {
        side: round(float(np.mean(f.y[~w] == pred[~w])), 4)
        for side, pred in (("judge_only", cv.judged), ("audited", cv.audited))
    }
    if progress:
        progress("planted failures on held-out WiCE SUPPORTED pairs")
    report = {
        "signals": names,
        "thresholds": [
            [t.supported, t.not_supported, t.min_coverage, t.min_shared] for t in cv.thresholds
        ],
        "wice": wice,
        "synthetic": synthetic,
        "sensitivity": cv_sensitivity(f, fold_models(f, names)),
    }
    if held_out_kinds:
        from spanproof.judge_training.data import MUTATOR_KINDS

        report["held_out_kinds"] = {}
        for kind in MUTATOR_KINDS:
            if progress:
                progress(f"{kind}: refitting without its synthetic pairs")
            models = fold_models(f, names, exclude_origin=f"synthetic:{kind}")
            report["held_out_kinds"][kind] = cv_sensitivity(f, models, kinds=[kind])["by_kind"].get(
                kind, {"n": 0, "judge_only": None, "audited": None}
            )
    return report
