"""Grader sensitivity: plant known failures on good pairs and count how often a judge says no.

Sensitivity is the share of planted pairs a judge does not call SUPPORTED
(caught), overall and per kind; every figure is given for the final verdicts (the
judge's, lowered only by code's proofs; the thresholds apply here) and judge-only (the
judge's own verdicts). Beside them, what the audit's flags add: planted pairs whose final
verdict is SUPPORTED but which carry a flag are "caught only by a flag" — a person would
look, the agent would not publish them as they stand, but the verdict did not catch them,
so they never count as caught. Specificity is the share of the untouched
SUPPORTED originals it does call SUPPORTED, so a judge that always says
NOT_SUPPORTED cannot look good (originals that pass with a flag are counted apart). An
error verdict counts against the judge on both sides: it is neither a catch nor a correct
pass, and it never leaves a denominator.

Judging goes through a `Verifier` (the same audit as production) with the
shared `VerdictCache`, so a rerun with nothing changed makes no model calls.

Which originals to plant on. WiCE annotators labelled a claim SUPPORTED when
the cited text *implies* it, so many WiCE SUPPORTED claims name a number, date
or entity the span never states. The product's check 4 (the audit's
``specifics``) flags every such claim by design, so those pairs are not
"good pairs" under the product's contract: planting on them measures the
annotators' tolerance, not the judge. ``contract_clean`` keeps the SUPPORTED
pairs whose claim specifics all appear in the span, decided by
``graders.specifics.compare`` exactly as the audit calls it: no judge is
involved, so the selection cannot be tuned to a judge. The gate plants on the
hand-labelled SUPPORTED pairs of the calibration set plus the contract-clean
WiCE SUPPORTED pairs; ``spanproof sensitivity`` plants on every SUPPORTED
pair unless asked for ``--contract-clean``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from pydantic import BaseModel
from spanproof.graders.judges import spec_of
from spanproof.graders.rules.fitted import TrainingOverlap, training_overlap
from spanproof.planted_failures import PlantedPair, mutators

from spanproof.bench.calibration import judge_set
from spanproof.core.verdict import Judge, Pair, Verdict

if TYPE_CHECKING:
    from spanproof.graders.cache import VerdictCache


class SensitivityThresholds(BaseModel):
    sensitivity: float = 0.90
    specificity: float = 0.80


class KindResult(BaseModel):
    n: int
    caught: int
    sensitivity: float | None
    flag_only: int = 0  # final verdict SUPPORTED, but flagged: a person would look


class Missed(BaseModel):
    id: str
    kind: str
    claim: str
    verdict: str  # the judge's verdict, or "ERROR"


class JudgeOnlySensitivity(BaseModel):
    """The same counts from the judge's own verdicts, before the code audit: what the judge
    reads. The blind canary's is 0 by construction; its audited figure is what code alone
    catches. Thresholds never apply here."""

    sensitivity: float | None
    specificity: float | None
    by_kind: dict[str, KindResult]


class SensitivityResult(BaseModel):
    judge: str
    # which set the figures come from (the pair file's stem) and how many pairs it held: the
    # same judge has other figures on other sets (the gate plants on another selection)
    set: str = ""
    n_pairs: int = 0
    selection: str = "every SUPPORTED pair"
    n_excluded: int = 0  # SUPPORTED pairs not planted on (see `contract_clean`)
    n_originals: int
    n_planted: int
    sensitivity: float | None
    specificity: float | None
    by_kind: dict[str, KindResult]
    missed: list[Missed]
    thresholds: SensitivityThresholds
    passed: bool  # on the final verdicts
    judge_only: JudgeOnlySensitivity
    # planted pairs the final verdict passed but a flag would hold back, and their share
    caught_only_by_flag: int = 0
    flag_only_share: float | None = None
    originals_flagged: int = 0  # untouched originals passed SUPPORTED with a flag
    # Set when the originals trained the rules judge: its figures on them are fitted
    fitted_on: TrainingOverlap | None = None


CONTRACT_CLEAN = "contract-clean SUPPORTED pairs (claim specifics all in the span)"


def contract_clean(pairs: Iterable[Pair]) -> list[Pair]:
    """The SUPPORTED pairs whose claim's numbers, dates and named entities all appear in the span.

    Decided by ``graders.specifics.compare(claim, span)`` with the audit's own arguments
    (docs/architecture.md, check 4): a pair it finds a mismatch on would be flagged by the product whatever
    the judge said, so it is no good pair to plant failures on. Judge-independent.
    """
    from spanproof.graders.specifics import compare

    return [p for p in pairs if p.label == "SUPPORTED" and not compare(p.claim, p.span)]


def plant_on(
    pairs: Sequence[Pair],
    originals: Sequence[Pair],
    *,
    seed: int = 0,
    kinds: Iterable[str] | None = None,
    failures: list[str] | None = None,
) -> list[PlantedPair]:
    """Plant on `originals` only, with the whole set as the mutators' pool, so a planted pair
    is the one `plant(pairs)` makes whichever originals were selected.

    A mutator that raises on one pair is a bug in that mutator, not a reason to lose the
    whole set: the pair is left unplanted for that kind and the failure is appended to
    `failures` (when given) so the caller reports it.
    """
    from spanproof.planted_failures.registry import plant

    def report(kind: str, pair: Pair, exc: Exception) -> None:
        if failures is not None:  # reported, never silent
            failures.append(f"{kind} on {pair.id}: {type(exc).__name__}: {exc}")

    return plant(pairs, seed=seed, kinds=kinds, originals=originals, on_error=report)


def _caught(v: Verdict) -> bool:
    return v.error is None and v.verdict != "SUPPORTED"


def _flag_only(v: Verdict) -> bool:
    return v.error is None and v.verdict == "SUPPORTED" and v.flagged


def _caught_by_judge(v: Verdict) -> bool:
    return v.error is None and (v.judge_verdict or v.verdict) != "SUPPORTED"


def _passed_by_judge(v: Verdict) -> bool:
    return v.error is None and (v.judge_verdict or v.verdict) == "SUPPORTED"


def _judge_only(
    planted: Sequence[PlantedPair],
    planted_verdicts: Sequence[Verdict],
    original_verdicts: Sequence[Verdict],
) -> JudgeOnlySensitivity:
    by_kind = {}
    for kind in mutators():
        idx = [i for i, p in enumerate(planted) if p.kind == kind]
        caught = sum(_caught_by_judge(planted_verdicts[i]) for i in idx)
        by_kind[kind] = KindResult(n=len(idx), caught=caught, sensitivity=_ratio(caught, len(idx)))
    return JudgeOnlySensitivity(
        sensitivity=_ratio(sum(map(_caught_by_judge, planted_verdicts)), len(planted)),
        specificity=_ratio(sum(map(_passed_by_judge, original_verdicts)), len(original_verdicts)),
        by_kind=by_kind,
    )


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
    for kind in mutators():
        idx = [i for i, p in enumerate(planted) if p.kind == kind]
        caught = sum(_caught(planted_verdicts[i]) for i in idx)
        by_kind[kind] = KindResult(
            n=len(idx),
            caught=caught,
            sensitivity=_ratio(caught, len(idx)),
            flag_only=sum(_flag_only(planted_verdicts[i]) for i in idx),
        )
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
        judge_only=_judge_only(planted, planted_verdicts, original_verdicts),
        caught_only_by_flag=(flag_only := sum(map(_flag_only, planted_verdicts))),
        flag_only_share=_ratio(flag_only, len(planted)),
        originals_flagged=sum(map(_flag_only, original_verdicts)),
    )


async def run_sensitivity(
    pairs: Sequence[Pair],
    judge: Judge,
    *,
    seed: int = 0,
    kinds: Iterable[str] | None = None,
    cache: VerdictCache | None = None,
    thresholds: SensitivityThresholds | None = None,
    concurrency: int = 8,
    progress: Callable[[str], None] | None = None,
    only_contract_clean: bool = False,
    set_name: str = "",
) -> SensitivityResult:
    """Plant every applicable mutator on every SUPPORTED pair (or, with `only_contract_clean`,
    on the `contract_clean` ones); judge originals and variants. The result names the set
    (``set_name``), its size, and whether its originals trained the judge."""
    from spanproof.graders.verify import Verifier

    supported = [p for p in pairs if p.label == "SUPPORTED"]
    originals = contract_clean(pairs) if only_contract_clean else supported
    failures: list[str] = []
    planted = plant_on(pairs, originals, seed=seed, kinds=kinds, failures=failures)
    if progress and failures:
        progress(f"{len(failures)} mutation(s) raised and were not planted: {failures[:3]}")
    if progress:
        excluded = len(supported) - len(originals)
        progress(
            f"{len(originals)} SUPPORTED originals, {len(planted)} planted variants"
            + (
                f" ({excluded} SUPPORTED pairs excluded: specifics absent from the span)"
                if excluded
                else ""
            )
        )
    verifier = Verifier([judge], cache=cache, concurrency=concurrency)
    original_verdicts = await judge_set(verifier, originals)
    planted_verdicts = await judge_set(verifier, [p.as_pair() for p in planted])
    if progress:
        progress(
            f"{judge.id}: {verifier.model_calls} judge calls, {verifier.cache_hits} cache hits"
        )
    result = score(judge.id, originals, original_verdicts, planted, planted_verdicts, thresholds)
    if only_contract_clean:
        result.selection = CONTRACT_CLEAN
        result.n_excluded = len(supported) - len(originals)
    result.set, result.n_pairs = set_name, len(pairs)
    result.fitted_on = training_overlap([spec_of(judge)], [(p.claim, p.span) for p in originals])
    return result
