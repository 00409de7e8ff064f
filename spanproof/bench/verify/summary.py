"""The summary of a `verify` run, typed: what `verify --json` prints and the table reads.

Both ways of judging (a stream, or every sample in memory) fill the same ``VerifySummary``;
its ``document()`` is the --json object, key for key as it always was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, cast

from pydantic import BaseModel
from spanproof.graders.batch_judge import BatchSummary
from spanproof.graders.rules.fitted import TrainingOverlap
from spanproof.graders.verify_stream import Counters

from spanproof.bench.audit_figures import CodeChanges, FlagFigures
from spanproof.bench.repeats import Spread, UnstablePair
from spanproof.bench.verify.request import VerifyRequest
from spanproof.bench.verify.scan import Scan
from spanproof.core.verdict import Verdict


class Judgement(Protocol):
    """What the agreement figures read of a verdict."""

    @property
    def verdict(self) -> str: ...
    @property
    def judge_verdict(self) -> str | None: ...
    @property
    def error(self) -> str | None: ...
    @property
    def confidence(self) -> float | None: ...


class SideFigures(BaseModel):
    n: int
    agreement: float | None
    macro_f1: float | None
    balanced_accuracy: float | None
    kappa: float | None
    errors: int
    confusion: dict[str, dict[str, int]]  # label -> verdict (ERROR included) -> pairs


class ConfidenceFigures(BaseModel):
    n: int
    without: int  # verdicts without a confidence
    ece: float | None  # expected calibration error


class LabelFigures(BaseModel):
    """Agreement with the labels twice: the final verdicts (after code's proofs) and the
    judges' own; and the stated confidence's calibration when the judges give one."""

    audited: SideFigures
    judge_only: SideFigures
    confidence: ConfidenceFigures | None


def label_metrics(labels: Sequence[str], verdicts: Sequence[Judgement]) -> LabelFigures:
    """Agreement with labels twice — after the audit (what publishes) and the judges' own
    verdicts — computed by bench.calibration, the one metrics module every command uses (an
    error verdict is wrong against every label and stays in every denominator)."""
    from spanproof.bench.calibration import figures

    # figures reads only what Judgement declares: a Verdict, or a streamed pair's figures
    f = figures(labels, cast(Sequence[Verdict], verdicts))
    sides = {
        side: SideFigures(
            n=m.n, agreement=m.agreement, macro_f1=m.macro_f1,
            balanced_accuracy=m.balanced_accuracy, kappa=m.kappa, errors=m.errors,
            confusion=m.confusion,
        )
        for side in ("audited", "judge_only")
        for m in [f[side]]
    }  # fmt: skip
    rel = f["reliability"]
    return LabelFigures(
        audited=sides["audited"],
        judge_only=sides["judge_only"],
        confidence=ConfidenceFigures(n=rel.n, without=rel.n_without, ece=rel.ece)
        if rel is not None
        else None,
    )


class Tokens(BaseModel):
    prompt: int
    completion: int


class HttpTraffic(BaseModel):
    """The HTTP traffic of openai: judges: requests (retries included), retries and re-asks
    counted apart, so "model calls" (pairs asked) is never mistaken for requests made."""

    requests: int
    retries: int
    reasks: int
    batch_requests: int  # requests answered in Batch API jobs (--batch), not over HTTP one by one
    errors: dict[str, int]
    tokens_per_pair: float | None
    notices: list[str]
    # per endpoint: its label and the limiter's report (the window of requests in flight
    # over time, and why it moved)
    concurrency: list[dict[str, Any]]


def http_traffic(live_pairs: int, tokens: int) -> HttpTraffic | None:
    """What the process's model clients did; None when no openai: judge made a client."""
    from spanproof.wire import clients, totals

    if not clients():
        return None
    t = totals()
    return HttpTraffic(
        requests=t.requests,
        retries=t.retries,
        reasks=t.reasks,
        batch_requests=t.batch_requests,
        errors=t.errors,
        tokens_per_pair=round(tokens / live_pairs, 1) if live_pairs else None,
        notices=[n for c in clients() for n in c.notices],
        concurrency=[{"endpoint": c.label, **c.limiter.report().model_dump()} for c in clients()],
    )


class RepeatFigures(BaseModel):
    """--repeat N: the samples, the pairs whose verdict changed between them, and (with
    labels) agreement per sample with its spread."""

    n: int
    unstable: list[UnstablePair]
    agreement: Spread | None = None


class VerifySummary(BaseModel):
    pairs: int
    invalid_lines: list[str]
    judges: list[str]
    policy: str
    model_calls: int
    cache_hits: int
    tokens: Tokens
    http: HttpTraffic | None
    errors: int  # pairs whose verdict (with --repeat, any sample's) is a judge error
    contains_instructions: int
    verdicts: dict[str, int]
    metrics: LabelFigures | None  # None unless every pair has a label
    # what code proved (changing verdicts) and flagged (a person looks), against the labels
    # when the file has them (bench.audit_figures)
    code_changes: CodeChanges
    flags: FlagFigures
    fitted_on: TrainingOverlap | None  # pairs the rules judge was fitted on
    out: str | None
    repeats: RepeatFigures | None = None  # only with --repeat N > 1
    batch: list[BatchSummary] | None = None  # only with --batch

    def document(self) -> dict[str, Any]:
        """The --json object: ``repeats`` and ``batch`` only when the run had them, unstable
        pairs without the set name, a repeat's agreement only with labels."""
        exclude: dict[str, Any] = {
            k: True
            for k, value in (("repeats", self.repeats), ("batch", self.batch))
            if value is None
        }
        if self.repeats is not None:
            exclude["repeats"] = {"unstable": {"__all__": {"set"}}}
            if self.repeats.agreement is None:
                exclude["repeats"]["agreement"] = True
        return self.model_dump(exclude=exclude)


def summarize(
    request: VerifyRequest,
    scan: Scan,
    counters: Counters,
    *,
    errors: int,
    contains_instructions: int,
    verdicts: dict[str, int],
    metrics: LabelFigures | None,
    code_changes: CodeChanges,
    flags: FlagFigures,
) -> VerifySummary:
    """The summary of a run of ``request`` over ``scan``'s pairs that cost ``counters``, with
    the figures its judging counted."""
    tokens = counters.prompt_tokens + counters.completion_tokens
    return VerifySummary(
        pairs=scan.count, invalid_lines=scan.problems, judges=list(request.judges),
        policy=request.policy, model_calls=counters.model_calls, cache_hits=counters.cache_hits,
        tokens=Tokens(prompt=counters.prompt_tokens, completion=counters.completion_tokens),
        http=http_traffic(counters.model_calls, tokens), errors=errors,
        contains_instructions=contains_instructions, verdicts=verdicts, metrics=metrics,
        code_changes=code_changes, flags=flags, fitted_on=scan.overlap,
        out=str(request.out) if request.out else None,
    )  # fmt: skip
