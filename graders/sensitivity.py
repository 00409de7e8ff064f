"""Grader sensitivity: plant known failures on good pairs and count how often a judge says no.

Sensitivity is the share of planted pairs a judge does not call SUPPORTED
(caught), overall and per kind. Specificity is the share of the untouched
SUPPORTED originals it does call SUPPORTED, so a judge that always says
NOT_SUPPORTED cannot look good. An error verdict counts against the judge on
both sides: it is neither a catch nor a correct pass, and it never leaves a
denominator.

Judging goes through a `Verifier` (the same audit as production) with the
shared `VerdictCache`, so a rerun with nothing changed makes no model calls.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from pydantic import BaseModel

from graders.calibration import judge_set
from graders.verdict import Pair, Verdict
from planted_failures import MUTATORS, PlantedPair, plant


class SensitivityThresholds(BaseModel):
    sensitivity: float = 0.90
    specificity: float = 0.80


class KindResult(BaseModel):
    n: int
    caught: int
    sensitivity: float | None


class Missed(BaseModel):
    id: str
    kind: str
    claim: str
    verdict: str  # the judge's verdict, or "ERROR"


class SensitivityResult(BaseModel):
    judge: str
    n_originals: int
    n_planted: int
    sensitivity: float | None
    specificity: float | None
    by_kind: dict[str, KindResult]
    missed: list[Missed]
    thresholds: SensitivityThresholds
    passed: bool


def _caught(v: Verdict) -> bool:
    return v.error is None and v.verdict != "SUPPORTED"


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def score(
    judge_id: str,
    originals: Sequence[Pair],
    original_verdicts: Sequence[Verdict],
    planted: Sequence[PlantedPair],
    planted_verdicts: Sequence[Verdict],
    thresholds: SensitivityThresholds | None = None,
) -> SensitivityResult:
    """Pure scoring of verdicts already obtained (separate from judging, so it is testable)."""
    thresholds = thresholds or SensitivityThresholds()
    by_kind: dict[str, KindResult] = {}
    missed: list[Missed] = []
    for kind in MUTATORS:
        idx = [i for i, p in enumerate(planted) if p.kind == kind]
        caught = sum(_caught(planted_verdicts[i]) for i in idx)
        by_kind[kind] = KindResult(n=len(idx), caught=caught, sensitivity=_ratio(caught, len(idx)))
    for p, v in zip(planted, planted_verdicts, strict=True):
        if not _caught(v):
            missed.append(
                Missed(
                    id=p.id, kind=p.kind, claim=p.claim, verdict="ERROR" if v.error else v.verdict
                )
            )
    n_caught = sum(_caught(v) for v in planted_verdicts)
    n_pass = sum(v.supported for v in original_verdicts)
    sens = _ratio(n_caught, len(planted))
    spec = _ratio(n_pass, len(originals))
    # No planted pairs or no originals means nothing was shown: that is a fail, not a pass.
    passed = (
        sens is not None
        and spec is not None
        and sens >= thresholds.sensitivity
        and spec >= thresholds.specificity
    )
    return SensitivityResult(
        judge=judge_id,
        n_originals=len(originals),
        n_planted=len(planted),
        sensitivity=sens,
        specificity=spec,
        by_kind=by_kind,
        missed=missed,
        thresholds=thresholds,
        passed=passed,
    )


async def run_sensitivity(
    pairs: Sequence[Pair],
    judge,
    *,
    seed: int = 0,
    kinds: Iterable[str] | None = None,
    cache=None,
    thresholds: SensitivityThresholds | None = None,
    concurrency: int = 8,
    progress: Callable[[str], None] | None = None,
) -> SensitivityResult:
    """Plant every applicable mutator on every SUPPORTED pair; judge originals and variants."""
    from graders.verify import Verifier

    originals = [p for p in pairs if p.label == "SUPPORTED"]
    planted = plant(pairs, seed=seed, kinds=kinds)
    if progress:
        progress(f"{len(originals)} SUPPORTED originals, {len(planted)} planted variants")
    verifier = Verifier([judge], cache=cache, concurrency=concurrency)
    original_verdicts = await judge_set(verifier, originals)
    planted_verdicts = await judge_set(verifier, [p.as_pair() for p in planted])
    if progress:
        progress(
            f"{judge.id}: {verifier.model_calls} judge calls, {verifier.cache_hits} cache hits"
        )
    return score(judge.id, originals, original_verdicts, planted, planted_verdicts, thresholds)
