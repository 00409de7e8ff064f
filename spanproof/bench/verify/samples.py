"""`verify --repeat N` and `verify --batch`: every pair judged N times, or sent as one Batch
API job first, in memory.

Sampling a judge that is not deterministic keeps all N verdicts of every pair (each cached
under its repeat index), lists the pairs whose verdict changes and reports agreement as the
mean over the repeats with its spread. The verdict written for a pair (its row, the counts,
what code changed and flagged) is its least favourable sample - NOT_SUPPORTED < PARTIAL <
SUPPORTED, any error sample an error - and a row whose samples differ says ``unstable``.

A batch submits every uncached pair of the openai: judges in one request file
(graders.batch_judge), then the usual verification (audit, cache, summary) runs over its
verdicts. Both hold the file's pairs and their verdicts in memory; a single judgement streams
instead (bench.verify.streaming).
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from spanproof.agent.services import Services
from spanproof.graders.audit import weakest
from spanproof.graders.batch_judge import BatchSummary
from spanproof.graders.errors import JudgeConfigError
from spanproof.graders.judges import unwrap
from spanproof.graders.openai_judge import OpenAIJudge
from spanproof.graders.verify import Item, Verifier
from spanproof.graders.verify_stream import counters_of

from spanproof.bench.audit_figures import code_changes, flag_figures
from spanproof.bench.repeats import outcome, spread, unstable_pairs
from spanproof.bench.verify.events import (
    EventSink,
    JudgingEnded,
    JudgingStarted,
    Notice,
    PairJudged,
)
from spanproof.bench.verify.outcome import VerifyOutcome
from spanproof.bench.verify.request import Runner, VerifyFailed, VerifyRequest
from spanproof.bench.verify.rows import Rows
from spanproof.bench.verify.scan import LabelledPair, Scan
from spanproof.bench.verify.summary import RepeatFigures, label_metrics, summarize
from spanproof.core.verdict import LABELS, Judge, Verdict

Samples = list[list[Verdict]]  # one list of verdicts (in pair order) per repeat


def verify_sampled(
    request: VerifyRequest,
    scan: Scan,
    parts: Services,
    judges: list[Judge],
    emit: EventSink,
    runner: Runner,
) -> VerifyOutcome:
    pairs = list(scan.pairs)
    verifier = parts.verifier(judges, concurrency=request.concurrency, policy=request.policy)
    items: list[Item] = [p.pair.item() for p in pairs]
    batches: list[BatchSummary] | None = None
    if request.batch:
        if not any(isinstance(unwrap(j), OpenAIJudge) for j in verifier.judges):
            ids = ", ".join(j.id for j in verifier.judges)
            raise VerifyFailed(f"--batch sends the requests of openai: judges, and no judge here "
                               f"is one ({ids}); add --judge openai:MODEL or drop --batch")  # fmt: skip
        batches, samples = runner(
            _batch_then_judge(verifier, items, request, state_dir=parts.home_dir, emit=emit)
        )
    else:
        samples = runner(_judge_samples(verifier, items, request.repeat, emit))
    # a pair's verdict is its least favourable sample (an error sample makes it an error): a
    # judge that said SUPPORTED once and NOT_SUPPORTED twice has not supported the claim
    verdicts = [weakest([s[i] for s in samples]) for i in range(len(pairs))]

    rows = Rows(request.out, keep=request.keep_rows)
    for i, (p, v) in enumerate(zip(pairs, verdicts, strict=True)):
        row = {"id": p.id, **v.model_dump(mode="json")}
        if request.repeat > 1:
            row["samples"] = [outcome(s[i]) for s in samples]
            row["unstable"] = len(set(row["samples"])) > 1
        rows.add(json.dumps(row, ensure_ascii=False))
    rows.commit()

    labels = [p.label for p in pairs]
    metrics = None
    if scan.all_labelled:
        golds = [label for _ in samples for label in labels if label is not None]  # all labelled
        metrics = label_metrics(golds, [v for s in samples for v in s])  # each sample counts once
    counts: Counter[str] = Counter(v.verdict for v in verdicts)
    summary = summarize(
        request, scan, counters_of(verifier),
        errors=sum(1 for v in verdicts if v.error),
        contains_instructions=sum(1 for v in verdicts if v.contains_instructions),
        verdicts={label: counts.get(label, 0) for label in LABELS}, metrics=metrics,
        code_changes=code_changes(labels, verdicts), flags=flag_figures(labels, verdicts),
    )  # fmt: skip
    if request.repeat > 1:
        summary.repeats = _repeat_figures(pairs, samples, labelled=metrics is not None)
    summary.batch = batches
    errors = [v.error for s in samples for v in s if v.error]
    return VerifyOutcome(summary, rows, judge_errors=len(errors),
                         first_error=errors[0] if errors else None)  # fmt: skip


def _repeat_figures(
    pairs: Sequence[LabelledPair], samples: Samples, *, labelled: bool
) -> RepeatFigures:
    agreement = None
    if labelled:
        agreement = spread(
            [sum(v.error is None and v.verdict == p.label for p, v in zip(pairs, s, strict=True))
             / len(pairs) for s in samples]
        )  # fmt: skip
    return RepeatFigures(n=len(samples), unstable=unstable_pairs("pairs", pairs, samples),
                         agreement=agreement)  # fmt: skip


async def _judge_samples(
    verifier: Verifier, items: Sequence[Item], repeats: int, emit: EventSink
) -> Samples:
    """One list of verdicts per repeat (each repeat cached under its own key); progress
    events for the first."""
    emit(JudgingStarted(total=len(items)))
    try:
        first = await verifier.verify_many(items, progress=lambda _i, _v: emit(PairJudged()))
    finally:
        emit(JudgingEnded())
    samples = [first]
    for r in range(1, repeats):
        samples.append(await verifier.verify_many(items, repeat=r))
    return samples


async def _batch_then_judge(
    verifier: Verifier,
    items: Sequence[Item],
    request: VerifyRequest,
    *,
    state_dir: Path,
    emit: EventSink,
) -> tuple[list[BatchSummary], Samples]:
    """The batch, then the verification over its verdicts (``_judge_samples``), then the
    batch's record is forgotten (its verdicts are stored)."""
    from spanproof.graders.batch_judge import judge_in_batch

    from spanproof.wire.batch_results import BatchError

    try:
        found, jobs = await judge_in_batch(
            verifier, items, state_dir=state_dir, poll_s=request.batch_poll_s,
            say=lambda message: emit(Notice(message=message)), repeats=request.repeat,
            max_output_mb=request.batch_max_output_mb,
        )  # fmt: skip
    except BatchError as exc:
        # the batch could not run: every verdict would be missing, as with a judge that
        # cannot work as configured (exit 2, with the cause)
        raise JudgeConfigError(str(exc)) from exc
    except (asyncio.CancelledError, KeyboardInterrupt):
        emit(Notice(message="note: a submitted batch keeps running on the server; the same "
                            "command run again collects it (its id is kept in "
                            f"{state_dir / 'batches'})"))  # fmt: skip
        raise
    samples = await _judge_samples(verifier, items, request.repeat, emit)
    for job in jobs:
        job.forget()
    return found, samples
