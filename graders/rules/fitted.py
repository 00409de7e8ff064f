"""Which of a pair file's pairs the ``rules`` judge was fitted on.

A judge's agreement on the pairs it was fitted on is not a measurement: the WiCE development
pairs trained the shipped ``rules`` judge, so ``verify`` or ``calibrate`` on them prints what
the fit learned, not how the judge does on claims it has not seen. ``params.json`` keeps a key
for each labelled training pair (``FittedOn.pair_keys``: sha256 of claim and span), so any
file holding them — the whole set, a subset, the pairs in another order — is recognised, and
the warning gives the judge's cross-validated figure on those pairs instead.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from pydantic import BaseModel
from spanproof.graders.rules.model import load_params

from spanproof.core.specs import ModelSpec, SpecError, parse_named_spec


def pair_key(claim: str, span: str) -> str:
    return hashlib.sha256(f"{claim}\0{span}".encode()).hexdigest()[:16]


class TrainingOverlap(BaseModel):
    pairs: int  # pairs in the file
    trained: int  # of them, pairs the rules judge was fitted on
    pairs_file: str
    cv: dict[str, float]
    cv_how: str

    def warning(self) -> str:
        share = (
            "these pairs"
            if self.trained == self.pairs
            else (f"{self.trained} of these {self.pairs} pairs")
        )
        cv = ", ".join(f"{k.replace('_', ' ')} {v:.3f}" for k, v in self.cv.items())
        return (
            f"warning: {share} trained the rules judge ({self.pairs_file}); its figures on them "
            f"are fitted, not measured. The cross-validated figure is {cv} ({self.cv_how})."
        )


def _is_rules(spec: str) -> bool:
    """Whether a judge spec (``rules``, or a name given to it: ``mine=rules``) is the rules judge."""
    try:
        return parse_named_spec(spec).spec == ModelSpec(kind="rules")
    except SpecError:
        return False


class OverlapCount:
    """``training_overlap`` one pair at a time, for a pair file read in one pass."""

    def __init__(self, judges: Iterable[str]) -> None:
        self.pairs = self.trained = 0
        fitted = load_params().fitted_on if any(map(_is_rules, judges)) else None
        self._fitted = fitted
        self._keys = set(fitted.pair_keys) if fitted is not None else set()

    def add(self, claim: str, span: str) -> None:
        if self._fitted is None:
            return
        self.pairs += 1
        self.trained += pair_key(claim, span) in self._keys

    def overlap(self) -> TrainingOverlap | None:
        fitted = self._fitted
        if fitted is None or not self.trained:
            return None
        return TrainingOverlap(
            pairs=self.pairs,
            trained=self.trained,
            pairs_file=fitted.pairs_file,
            cv=fitted.cv,
            cv_how=fitted.cv_how,
        )


def training_overlap(
    judges: Iterable[str], pairs: Iterable[tuple[str, str]]
) -> TrainingOverlap | None:
    """The overlap when a ``rules`` judge is among ``judges`` and was fitted on any of
    ``pairs`` ((claim, span) tuples); None otherwise."""
    count = OverlapCount(judges)
    for claim, span in pairs:  # a file of any size: one pair at a time
        count.add(claim, span)
    return count.overlap()
