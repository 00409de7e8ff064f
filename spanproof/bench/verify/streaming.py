"""`verify` judging a pair file as a stream: each pair read back from the scan's spool, judged
in this process or in worker processes (local judges on a large file; a model judge's calls
stay here and the audit of its verdicts goes to worker processes), its row written and
counted as soon as the rows before it are; memory holds a window of pairs.

A run that stops half way (Ctrl-C, SIGTERM, --deadline, a worker that died) keeps what
finished: the rows judged so far in ``<out>.partial``, their verdicts in the cache (a rerun
answers them from it and judges only the rest), and says so with a ``Stopped`` event.
"""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections import deque
from collections.abc import AsyncGenerator, Callable, Iterable, Iterator
from functools import partial

from spanproof.agent.services import Services
from spanproof.graders.audit_pool import AuditPool
from spanproof.graders.pool_plan import audits_in_workers, runs_locally, workers_for
from spanproof.graders.verify_pool import PoolJudging, WorkerCrashed
from spanproof.graders.verify_stream import Judged, StreamPair, counters_of, stream_in_process

from spanproof.bench.verify.events import (
    EventSink,
    JudgingEnded,
    JudgingStarted,
    PairJudged,
    Stopped,
)
from spanproof.bench.verify.outcome import VerifyOutcome
from spanproof.bench.verify.request import Runner, VerifyFailed, VerifyRequest
from spanproof.bench.verify.rows import Rows
from spanproof.bench.verify.scan import LabelledPair, Scan
from spanproof.bench.verify.summary import label_metrics, summarize
from spanproof.bench.verify.tally import Tally
from spanproof.core.verdict import Judge

# in input order; an async generator, closed when the judging stops half way
Judging = Callable[[Iterable[StreamPair]], AsyncGenerator[Judged, None]]


def verify_streamed(
    request: VerifyRequest,
    scan: Scan,
    parts: Services,
    judges: list[Judge],
    emit: EventSink,
    runner: Runner,
) -> VerifyOutcome:
    local = runs_locally(request.judges)
    workers = workers_for(request.workers, scan.count)
    # Local judges: whole pairs are judged in worker processes. Model judges: their calls stay
    # on this event loop (they wait, they do not compute) and the audit's costly part goes to
    # worker processes, computed while each pair's call is in flight.
    auditors = AuditPool(workers) if audits_in_workers(local, workers) else None
    verifier = parts.verifier(judges, concurrency=request.concurrency, policy=request.policy,
                              findings=auditors)  # fmt: skip
    pool = None
    judging: Judging
    if workers > 1 and local:
        pool = PoolJudging(list(request.judges), judges, policy=request.policy,
                           cache=parts.cache, workers=workers)  # fmt: skip
        judging = pool.stream
    else:
        judging = partial(stream_in_process, verifier, window=max(64, 4 * request.concurrency))

    rows = Rows(request.out, keep=request.keep_rows)
    tally = Tally(keep_for_metrics=scan.all_labelled)
    if scan.all_labelled:
        _import_meanwhile(FIGURES_MODULE)
    finished = False
    try:
        runner(judge_stream(scan.pairs, judging, rows, tally, emit, total=scan.count))
        finished = True
    except WorkerCrashed as exc:
        raise VerifyFailed(str(exc), stopped=_stop(rows, tally, scan.count, request.cache)) from exc
    except BaseException:
        emit(_stop(rows, tally, scan.count, request.cache))
        raise
    finally:
        if auditors is not None:
            auditors.close(finished=finished)
    rows.commit()

    summary = summarize(
        request, scan, pool.counters if pool is not None else counters_of(verifier),
        errors=tally.errors, contains_instructions=tally.contains_instructions,
        verdicts=tally.verdicts(), metrics=tally.metrics(label_metrics),
        code_changes=tally.audit.changes(), flags=tally.audit.flags(),
    )  # fmt: skip
    return VerifyOutcome(summary, rows, judge_errors=tally.errors, first_error=tally.first_error)


# What the agreement figures of a labelled file are computed with (summary.label_metrics): its
# import (the bench's metrics, the rules judge's fitted parameters, numpy) is a fifth of a
# second of CPU that, left to the summary, came after the last verdict.
FIGURES_MODULE = "spanproof.bench.calibration"


def _import_meanwhile(module: str) -> None:
    """Import ``module`` in a thread of its own while the pairs are judged, so that the
    summary finds it imported. Best effort: an import that fails here fails again, with its
    error, where the summary imports it."""

    def load() -> None:
        with contextlib.suppress(Exception):
            importlib.import_module(module)

    threading.Thread(target=load, name="import-figures", daemon=True).start()


def _stop(rows: Rows, tally: Tally, total: int, cached: bool) -> Stopped:
    """What a run that stopped half way kept: the rows written so far, and the verdicts cached
    unless the run was told not to cache."""
    kept = rows.stop()
    rows.close()
    return Stopped(judged=tally.n, total=total, kept=kept, cached=cached)


async def judge_stream(
    pairs: Iterable[LabelledPair],
    judging: Judging,
    rows: Rows,
    tally: Tally,
    emit: EventSink,
    *,
    total: int,
) -> None:
    """Judge every pair through ``judging`` (Judged in input order), writing each row and
    counting it as it comes."""
    labels: deque[str | None] = deque()

    def stream() -> Iterator[StreamPair]:
        for labelled in pairs:
            labels.append(labelled.label)
            yield labelled.pair

    emit(JudgingStarted(total=total))
    try:
        async with contextlib.aclosing(judging(stream())) as results:
            async for judged in results:
                rows.add(judged.row)
                tally.add(judged, labels.popleft())
                emit(PairJudged())
    finally:
        emit(JudgingEnded())
