"""The fitted combination of signals: parameters as data, inference in plain Python.

``params.json`` (next to this file) holds a multinomial logistic regression over the signals
it names — their means and scales for standardising, one weight row and intercept per label
— the verdict thresholds chosen on development folds, and the sha256 of the training data
it was fitted on. ``spanproof judge train`` writes it (scikit-learn does the fitting);
judging needs only this module, so no fitting library is imported to answer a pair.

Decision: SUPPORTED when P(SUPPORTED) >= ``thresholds.supported`` and P(SUPPORTED) >=
P(NOT_SUPPORTED) (a pair the model finds more likely contradicted than supported is never
SUPPORTED) and the span holds the minimum evidence — at least ``thresholds.min_coverage`` of
the claim's content words, and at least ``thresholds.min_shared`` of them unless it holds them
all (topic overlap on one shared word is not support, however the other signals weigh); else NOT_SUPPORTED when P(NOT_SUPPORTED) >= ``thresholds.not_supported``;
else PARTIAL. The confidence reported with the verdict is the model's probability of the label
it chose.
"""

from __future__ import annotations

import math
from functools import cache
from importlib import resources

from pydantic import BaseModel, Field, ValidationError
from spanproof.graders.errors import JudgeConfigError

from spanproof.core.verdict import LABELS, Label

PARAMS_FILE = "params.json"


class Thresholds(BaseModel):
    supported: float = Field(ge=0.0, le=1.0)
    not_supported: float = Field(ge=0.0, le=1.0)
    # the minimum evidence for SUPPORTED (0: no floor): this share of the claim's content
    # words in the span, and this many of them unless the span holds them all
    min_coverage: float = Field(default=0.0, ge=0.0, le=1.0)
    min_shared: int = Field(default=0, ge=0)


class FittedOn(BaseModel):
    """The labelled pairs the judge was fitted on, so that a figure measured on them says so
    (``graders.rules.fitted``): each pair's key (sha256 of claim and span, 16 hex digits), the
    pair file's sha256, and the judge's cross-validated figures on those pairs."""

    pairs_file: str
    pairs_sha256: str
    pair_keys: list[str]
    cv: dict[str, float]  # balanced_accuracy, agreement, macro_f1 of the final verdicts
    cv_how: str


class Params(BaseModel):
    """What ``spanproof judge train`` writes; the judge reads nothing else."""

    format: int = 1
    signals: list[str]
    labels: list[Label] = list(LABELS)
    means: list[float]
    scales: list[float]
    coef: list[list[float]]  # one row per label, one column per signal
    intercept: list[float]
    thresholds: Thresholds
    data_sha256: str  # sha256 of the training rows (spanproof.judge_training.data.data_sha256)
    # sha256 of what the code measured on those rows when it was fitted: every candidate
    # signal and the audit's verdict under each label (spanproof.judge_training.training.
    # features_sha256). The audit and the signals change with the code; parameters fitted on
    # values the code no longer computes are stale, and this is how a test sees it in seconds
    # rather than a refit's minutes.
    features_sha256: str | None = None
    training: dict = Field(default_factory=dict)  # counts, settings and CV figures, for readers
    fitted_on: FittedOn | None = None  # the labelled pairs among the training rows

    def probabilities(self, x: list[float]) -> dict[Label, float]:
        z = [(v - m) / s for v, m, s in zip(x, self.means, self.scales, strict=True)]
        logits = [
            b + sum(w * v for w, v in zip(row, z, strict=True))
            for row, b in zip(self.coef, self.intercept, strict=True)
        ]
        top = max(logits)
        exps = [math.exp(v - top) for v in logits]
        total = sum(exps)
        return {label: e / total for label, e in zip(self.labels, exps, strict=True)}

    def decide(self, probs: dict[Label, float], coverage: float, shared: int) -> Label:
        return decide(probs, self.thresholds, coverage, shared)

    def without(self, signal: str) -> Params:
        """The same model with one signal's weights taken out: what a signal carries is what
        changes when it is gone (tests/graders/test_rules_model.py, scripts/load_bearing_cases.py)."""
        k = self.signals.index(signal)
        coef = [[0.0 if j == k else w for j, w in enumerate(row)] for row in self.coef]
        return self.model_copy(update={"coef": coef})


def has_minimum_evidence(t: Thresholds, coverage: float, shared: int) -> bool:
    return coverage >= t.min_coverage and (shared >= t.min_shared or coverage >= 1.0)


def decide(
    probs: dict[Label, float], thresholds: Thresholds, coverage: float, shared: int
) -> Label:
    """``coverage`` and ``shared``: the share and the number of the claim's content words the
    span contains (graders.rules.lexical.coverage / shared_words)."""
    if (
        probs["SUPPORTED"] >= thresholds.supported
        and probs["SUPPORTED"] >= probs["NOT_SUPPORTED"]
        and has_minimum_evidence(thresholds, coverage, shared)
    ):
        return "SUPPORTED"
    if probs["NOT_SUPPORTED"] >= thresholds.not_supported:
        return "NOT_SUPPORTED"
    return "PARTIAL"


def params_text() -> str:
    return resources.files("spanproof.graders.rules").joinpath(PARAMS_FILE).read_text("utf-8")


@cache
def load_params() -> Params:
    try:
        return Params.model_validate_json(params_text())
    except (OSError, ValidationError) as exc:
        # A damaged install must stop the judge, never fall back to a guess.
        first = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
        raise JudgeConfigError(
            f"the rules judge's parameters ({PARAMS_FILE} in spanproof.graders.rules) cannot be "
            f"read: {first}. Reinstall spanproof (in a checkout: git checkout graders/rules/{PARAMS_FILE})."
        ) from exc
