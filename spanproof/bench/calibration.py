"""Judge calibration: agreement with human labels, per judge and per set, with drift checks.

A judge is a measuring instrument; this module measures it. Every judge sees the
same pairs through a `Verifier` (so the deterministic audit applies, exactly as
in production) and shares one `VerdictCache`, so re-running a comparison with
nothing changed makes no model calls.

Every figure is reported twice: the final verdicts (the judge's, lowered only by code's
proofs; thresholds apply here) and judge-only (the judge's own label,
``Verdict.judge_verdict``: what the model read), with code's changes and the audit's flags
beside them (rate and precision per kind, ``graders.audit_figures``). A set holding pairs the
``rules`` judge was fitted on says so, with the judge's cross-validated figure. For a judge that states a confidence, the reliability of that confidence is
reported as expected calibration error and a reliability table (plot in the HTML report).

Thresholds (docs/architecture.md: agreement >= 0.90, near-miss agreement >= 0.85) are for
the hand-labelled golden set. They apply to the sets named in `gated` (by file
stem; default ``judge_calibration``). Any other set — e.g. the WiCE development
pairs, whose labels come from crowd annotators of Wikipedia citations and are
mostly PARTIAL — is reported for comparison with ``passed: null``: it informs,
it does not gate, because its labels were not written to the rule the judge is
asked to apply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from pydantic import BaseModel, Field
from spanproof.graders.judges import spec_of
from spanproof.graders.rules.fitted import TrainingOverlap, training_overlap

from spanproof.bench.audit_figures import (
    CodeChanges,
    FlagFigures,
    code_changes,
    flag_figures,
)
from spanproof.bench.coverage import Coverage, covered
from spanproof.bench.judge_compare import JudgeComparison, compare_judges
from spanproof.bench.metrics import (
    ClassScores,
    Interval,
    Metrics,
    Reliability,
    Row,
    compute,
    reliability,
)
from spanproof.bench.pairs import PairSetError, load_pairs  # noqa: F401  (the one pair-file reader, re-exported)
from spanproof.bench.queue_figures import QueueFigures, queue_figures
from spanproof.bench.repeats import Spread, UnstablePair, check_repeats
from spanproof.core.verdict import Judge, Pair, SpanRef, Verdict

if TYPE_CHECKING:
    from spanproof.graders.cache import VerdictCache
    from spanproof.graders.verify import Verifier

DEFAULT_GATED = ("judge_calibration",)
DRIFT_METRICS = ("agreement", "near_miss_agreement", "kappa", "macro_f1", "balanced_accuracy")


def span_ref(pair: Pair) -> SpanRef:
    src = pair.source or {}
    return SpanRef(text=pair.span, url=src.get("url"), retrieved_at=src.get("retrieved_at"))


class CalibrationThresholds(BaseModel):
    agreement: float = 0.90
    near_miss_agreement: float = 0.85


class KindAgreement(BaseModel):
    n: int
    agree: int
    agreement: float
    judged: dict[str, int]  # judged label (or ERROR) -> count


def agreement_by_kind(rows: Sequence[Row], pairs: Sequence[Pair]) -> dict[str, KindAgreement]:
    out: dict[str, KindAgreement] = {}
    for kind in sorted({p.kind or "-" for p in pairs}):
        idx = [i for i, p in enumerate(pairs) if (p.kind or "-") == kind]
        agree = sum(rows[i].correct for i in idx)
        judged: dict[str, int] = {}
        for i in idx:
            judged[rows[i].outcome] = judged.get(rows[i].outcome, 0) + 1
        out[kind] = KindAgreement(
            n=len(idx), agree=agree, agreement=agree / len(idx), judged=judged
        )
    return out


class JudgeOnly(BaseModel):
    agreement: float | None
    near_miss_agreement: float | None
    kappa: float | None
    macro_f1: float | None
    balanced_accuracy: float | None
    confusion: dict[str, dict[str, int]]
    errors: int


def judge_only_of(m: Metrics) -> JudgeOnly:
    """The judge's own figures: the fields of ``Metrics`` that JudgeOnly keeps."""
    return JudgeOnly.model_validate(m.model_dump(include=set(JudgeOnly.model_fields)))


class JudgeSetResult(BaseModel):
    judge: str  # its name (NAME=SPEC), else its spec
    spec: str | None = None  # the spec of a judge given a name (left out of --json otherwise)
    set: str
    n: int
    agreement: float | None
    near_miss_agreement: float | None
    kappa: float | None  # None when undefined (gold and predictions all one class)
    macro_f1: float | None
    balanced_accuracy: float | None
    per_class: dict[str, ClassScores]
    confusion: dict[str, dict[str, int]]
    errors: int
    ci95: dict[str, Interval | None]
    passed: bool | None  # None: the set has no thresholds (informational); audited figures
    # The same figures for the judge's own verdicts, before the code audit: what the judge
    # read, as opposed to what publishes. Thresholds never apply to these.
    judge_only: JudgeOnly | None = None
    # Reliability of the judge's confidence (ECE and bins); None when it gives none, and
    # ``confidence_note`` says why.
    confidence: Reliability | None = None
    confidence_note: str | None = None
    # What code's proofs changed and what its flags asked a person to look at, against the
    # labels (graders.audit_figures); thresholds apply to the final verdicts only.
    code_changes: CodeChanges | None = None
    flags: FlagFigures | None = None
    # The review queue (proofs, then flags, then the judge's confidence): the share of the
    # pairs labelled not SUPPORTED in its first 10% and 20% (spanproof/bench/queue_figures.py).
    review_queue: QueueFigures | None = None
    # Set when the set holds pairs the rules judge was fitted on: its figures there are fitted.
    fitted_on: TrainingOverlap | None = None
    # Agreement per pair kind (e.g. scope_creep, modality_slip): where a judge falls short.
    # Shown in tables; left out of --json so the published schema stays as documented.
    by_kind: dict[str, KindAgreement] = Field(default_factory=dict, exclude=True)
    # The first judge error's text, for the message that says why pairs errored (not in --json).
    first_error: str | None = Field(default=None, exclude=True)
    # With --repeat N: every figure above is the mean over the N samples; the spread of
    # agreement and near-miss agreement across them, and the pairs whose verdict changed.
    repeats: int = 1
    spread: dict[str, Spread] | None = None
    unstable: list[UnstablePair] | None = None


def no_confidence_note(judge: Judge) -> str:
    if spec_of(judge).startswith("openai:"):
        return "none: the endpoint returned no token probabilities (logprobs) with its verdicts"
    return "none: this judge gives no probability with its verdicts"


class DriftFlag(BaseModel):
    judge: str
    set: str
    metric: str
    baseline: float
    current: float | None
    allowed_low: float  # the baseline's 95% interval floor (or the baseline itself if none)


class CalibrationResult(BaseModel):
    judges: list[JudgeSetResult]
    drift: list[DriftFlag] | None = Field(default=None)
    # Each later judge against the first, pair by pair on each set (spanproof/bench/judge_compare.py).
    comparisons: list[JudgeComparison] = Field(default_factory=list)
    # With ``cover``: per set, the pairs every judge covers (kept) and the others (left out)
    coverage: list[Coverage] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(r.passed is not False for r in self.judges) and not self.drift


def judge_passes(result: JudgeSetResult, thresholds: CalibrationThresholds) -> bool:
    if result.agreement is None or result.agreement < thresholds.agreement:
        return False
    # A gated set with no near-miss rows cannot show the drift the near-miss half exists to catch.
    return not (
        result.near_miss_agreement is None
        or result.near_miss_agreement < thresholds.near_miss_agreement
    )


def judged_label(v: Verdict) -> str:
    """The judge's own label: before the audit (the audit records it), else the verdict."""
    return v.judge_verdict or v.verdict


def rows_for(
    pairs: Sequence[Pair], verdicts: Sequence[Verdict], *, judge_only: bool = False
) -> list[Row]:
    """Metric rows: the audited verdicts (what publishes), or with ``judge_only`` the
    judges' own labels before the audit. An error is an error on both sides."""
    return [
        _row(
            p.label, judged_label(v) if judge_only else v.verdict, p.near_miss, v.error is not None
        )
        for p, v in zip(pairs, verdicts, strict=True)
    ]


@lru_cache(maxsize=256)
def _row(gold: str, predicted: str, near_miss: bool, error: bool) -> Row:
    # A row is frozen and there are at most 60 different ones: shared, 100,000 rows (verify
    # on a large file) are a list of references instead of 100,000 models.
    return Row(gold=gold, predicted=predicted, near_miss=near_miss, error=error)


def confidence_reliability(golds: Sequence[str], verdicts: Sequence[Verdict]) -> Reliability | None:
    """How well the judges' stated confidence (in their own label) matches how often that
    label is right; None when no verdict carries a confidence."""
    if not any(v.confidence is not None for v in verdicts):
        return None
    return reliability(
        [v.confidence if v.error is None else None for v in verdicts],
        [v.error is None and judged_label(v) == g for g, v in zip(golds, verdicts, strict=True)],
    )


@lru_cache(maxsize=16)
def _gold(label: str, near_miss: bool) -> Pair:
    # What rows_for reads of a pair (its label, near-miss or not), one shared object per value.
    return Pair(id="gold", claim="", span="", label=label, near_miss=near_miss)


class Figures(TypedDict):
    audited: Metrics
    judge_only: Metrics
    reliability: Reliability | None


def figures(
    labels: Sequence[str],
    verdicts: Sequence[Verdict],
    *,
    near_miss: Sequence[bool] | None = None,
    seed: int = 0,
    n_boot: int = 0,
) -> Figures:
    """Every agreement figure twice — after the audit and judge-only — plus the confidence's
    reliability: the one computation verify, calibrate and the gate share."""
    near = list(near_miss) if near_miss is not None else [False] * len(labels)
    pairs = [_gold(g, n) for g, n in zip(labels, near, strict=True)]
    return {
        "audited": compute(rows_for(pairs, verdicts), seed=seed, n_boot=n_boot),
        "judge_only": compute(rows_for(pairs, verdicts, judge_only=True), seed=seed, n_boot=n_boot),
        "reliability": confidence_reliability(labels, verdicts),
    }


async def judge_set(
    verifier: Verifier,
    pairs: Sequence[Pair],
    progress: Callable[[int, Verdict], None] | None = None,
    *,
    repeat: int = 0,
) -> list[Verdict]:
    """Every pair judged once; ``repeat`` names the sample (spanproof/bench/repeats.py)."""
    items = [(p.claim, span_ref(p), p.id) for p in pairs]
    return await verifier.verify_many(items, progress=progress, repeat=repeat)


async def calibrate(
    sets: dict[str, Sequence[Pair]],
    judges: Sequence[Judge],
    *,
    cache: VerdictCache | None = None,
    gated: Iterable[str] = DEFAULT_GATED,
    thresholds: CalibrationThresholds | None = None,
    seed: int = 0,
    n_boot: int = 1000,
    concurrency: int = 8,
    progress: Callable[[str], None] | None = None,
    repeat: int = 1,
    cover: bool = False,
) -> CalibrationResult:
    """Judge every labelled pair of every set with every judge; one result per (judge, set).

    ``repeat``: judge every pair that many times (spanproof/bench/repeats.py); figures are then means
    over the samples. With two judges or more, each later judge is compared with the first,
    pair by pair (``CalibrationResult.comparisons``). A pair some judge cannot answer (a
    scripted judge's file lacks it) raises UncoveredPairs before anything is judged, unless
    ``cover``: then every set is cut to the pairs every judge covers
    (spanproof/bench/coverage.py) and ``CalibrationResult.coverage`` says what was left out."""
    from spanproof.graders.verify import Verifier

    from spanproof.bench.repeats import pooled, spread, unstable_pairs

    thresholds = thresholds or CalibrationThresholds()
    gated = set(gated)
    results: list[JudgeSetResult] = []
    samples_of: dict[tuple[str, str], list[list[Verdict]]] = {}
    labelled = {name: [p for p in ps if p.label is not None] for name, ps in sets.items()}
    covers: list[Coverage] = []
    for name, ps in labelled.items():
        labelled[name], c = covered(name, ps, judges, cover=cover)
        covers.append(c)
    for judge in judges:
        verifier = Verifier([judge], cache=cache, concurrency=concurrency)
        for set_name, pairs in labelled.items():
            if progress:
                times = f" x {repeat} repeats" if repeat > 1 else ""
                progress(f"{judge.id} on {set_name}: judging {len(pairs)} pairs{times}")
            samples = await judge_samples(verifier, pairs, repeat)
            samples_of[(judge.id, set_name)] = samples
            every_pair, verdicts = pooled(pairs, samples)  # each sample counts once
            rows = rows_for(every_pair, verdicts)
            m = compute(rows, seed=seed, n_boot=n_boot)
            own = compute(rows_for(every_pair, verdicts, judge_only=True), seed=seed, n_boot=0)
            rel = confidence_reliability([p.label for p in every_pair], verdicts)
            result = JudgeSetResult(
                judge=judge.id,
                spec=spec_of(judge) if spec_of(judge) != judge.id else None,
                set=set_name,
                n=m.n,
                agreement=m.agreement,
                near_miss_agreement=m.near_miss_agreement,
                kappa=m.kappa,
                macro_f1=m.macro_f1,
                balanced_accuracy=m.balanced_accuracy,
                per_class=m.per_class,
                confusion=m.confusion,
                errors=m.errors,
                ci95=m.ci95,
                passed=None,
                by_kind=agreement_by_kind(rows, every_pair),
                judge_only=judge_only_of(own),
                confidence=rel,
                confidence_note=None if rel is not None else no_confidence_note(judge),
                code_changes=code_changes([p.label for p in every_pair], verdicts),
                flags=flag_figures([p.label for p in every_pair], verdicts),
                review_queue=queue_figures([p.label for p in every_pair], verdicts),
                fitted_on=training_overlap([spec_of(judge)], [(p.claim, p.span) for p in pairs]),
                first_error=next((v.error for v in verdicts if v.error), None),
            )
            if repeat > 1:
                per = [compute(rows_for(pairs, s), n_boot=0) for s in samples]
                result.repeats = repeat
                result.spread = {
                    "agreement": spread([x.agreement for x in per]),
                    "near_miss_agreement": spread([x.near_miss_agreement for x in per]),
                }
                result.unstable = unstable_pairs(set_name, pairs, samples)
            if set_name in gated:
                result.passed = judge_passes(result, thresholds)
            results.append(result)
        if progress:
            progress(
                f"{judge.id}: {verifier.model_calls} judge calls, {verifier.cache_hits} cache hits"
            )
    comparisons = [
        compare_judges(name, pairs, judges[0].id, samples_of[(judges[0].id, name)], j.id,
                       samples_of[(j.id, name)])
        for j in judges[1:] if j.id != judges[0].id
        for name, pairs in labelled.items() if pairs
    ]  # fmt: skip
    return CalibrationResult(
        judges=results, comparisons=comparisons, coverage=covers if cover else []
    )


def load_result(path: str | Path) -> CalibrationResult:
    try:
        return CalibrationResult.model_validate_json(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PairSetError(
            f"Baseline {str(path)!r} is not a calibration result ({exc.__class__.__name__}). "
            "Create one with `spanproof calibrate ... --json > baseline.json`."
        ) from exc


def compare_baseline(current: CalibrationResult, baseline: CalibrationResult) -> list[DriftFlag]:
    """Flag each metric that fell below the floor of the baseline's 95% interval.

    "Fell by more than its interval": a drop that the baseline's own bootstrap
    interval cannot explain. A metric with no baseline interval is flagged on any
    fall. A metric that became undefined (None) where the baseline had a value
    is flagged too. Only (judge, set) pairs present in both results are compared.
    """
    before = {(r.judge, r.set): r for r in baseline.judges}
    flags: list[DriftFlag] = []
    for now in current.judges:
        old = before.get((now.judge, now.set))
        if old is None:
            continue
        olds, nows = (
            old.model_dump(include=set(DRIFT_METRICS)),
            now.model_dump(include=set(DRIFT_METRICS)),
        )
        for metric in DRIFT_METRICS:
            base, cur = olds[metric], nows[metric]
            if base is None:
                continue
            ci = old.ci95.get(metric)
            floor = ci.low if ci is not None else base
            if cur is None or cur < floor - 1e-12 or (ci is None and cur < base - 1e-12):
                flags.append(
                    DriftFlag(
                        judge=now.judge,
                        set=now.set,
                        metric=metric,
                        baseline=base,
                        current=cur,
                        allowed_low=floor,
                    )
                )
    return flags


def dump_json(result: CalibrationResult) -> str:
    data = result.model_dump(mode="json")
    if result.drift is None:
        data.pop("drift")
    for judge in data["judges"]:
        if judge.get("spec") is None:
            judge.pop("spec")
        if judge.get("repeats", 1) == 1:  # the published schema, unless --repeat was asked for
            for key in ("repeats", "spread", "unstable"):
                judge.pop(key, None)
    if not result.comparisons:
        data.pop("comparisons")
    if not result.coverage:
        data.pop("coverage")
    return json.dumps(data, indent=2)


async def judge_samples(
    verifier: Verifier, pairs: Sequence[Pair], repeats: int = 1
) -> list[list[Verdict]]:
    """``repeats`` samples of every pair's verdict, repeat-major (one list per sample)."""
    return [await judge_set(verifier, pairs, repeat=r) for r in range(check_repeats(repeats))]
