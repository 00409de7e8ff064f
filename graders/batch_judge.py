"""Judging many pairs as one OpenAI Batch API job instead of one open request per pair.

``judge_in_batch(verifier, items, ...)`` sends, for every ``openai:`` judge of the verifier,
the pairs whose verdict is not already in the verdict cache as one batch (spanproof.wire.batch:
submitted once, resumed by a later command, polled with a progress line), and puts a
``BatchedJudge`` in that judge's place: it answers those pairs with the batch's verdicts and
any other pair online, as before. The verifier then does what it does for every verdict:
audits it, caches it (error verdicts are never cached, so a rerun asks again only for those),
and counts it.

Each line's body is the online path's own request (``OpenAIJudge.request_body``) and each
reply is read by the online path's own reader (``OpenAIJudge.read_reply``), so a batch verdict
is the verdict the online path gives for the same reply. The ``custom_id`` is the verdict's
cache key, so a result can only ever answer the pair it was asked for.

Failing closed: a line that came back with an error, or without a result (an expired or
cancelled batch), or whose reply is not a valid verdict, is an error verdict that names why -
never a pass, never dropped. A batch cannot re-ask a malformed reply inside the conversation
the way the online path does; such a pair's error says to run it again without ``--batch``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from spanproof.graders.cache import cache_key_for
from spanproof.graders.judges.context import current_repeat
from spanproof.graders.judges.registry import NamedJudge, unwrap
from spanproof.graders.openai_judge import OpenAIJudge

from spanproof.core.verdict import SpanRef, Verdict
from spanproof.wire.batch import (
    DEFAULT_MAX_OUTPUT_MB,
    BatchJob,
    BatchOutcome,
    BatchProgress,
    BatchRequest,
)
from spanproof.wire.batch_results import BatchResult


class BatchSummary(BaseModel):
    """One judge's batch, for summaries and ``--json``."""

    judge: str
    batch_id: str | None = None  # None: every pair was already cached, nothing submitted
    status: str = "not needed"
    resumed: bool = False
    requests: int = 0
    failed: int = 0
    record: str | None = None


class BatchedJudge:
    """``inner`` with the batch's verdicts: the same id, model, prompt and endpoint (so the
    same cache keys); pairs the batch did not carry go to ``inner`` online."""

    def __init__(self, inner: OpenAIJudge, verdicts: dict[str, Verdict]) -> None:
        self.inner = inner
        self.verdicts = verdicts

    def __getattr__(self, name: str) -> Any:
        # everything but judge() is the wrapped judge's (the cache keys on its members)
        return getattr(self.inner, name)

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        key = cache_key_for(self.inner, claim, span, current_repeat.get())
        verdict = self.verdicts.get(key)
        if verdict is None:
            return await self.inner.judge(claim, span)
        return verdict.model_copy(deep=True)


def verdict_from(judge: OpenAIJudge, result: BatchResult) -> Verdict:
    """The verdict of one batch result, read as the online path reads a reply."""
    from openai.types.chat import ChatCompletion
    from pydantic import ValidationError

    if result.error is not None:
        return _error(judge, result.error)
    try:
        resp = ChatCompletion.model_validate(result.body)
    except ValidationError as exc:
        return _error(judge, f"bad_response: the batch's reply is not a chat completion "
                             f"({str(exc)[:200]})")  # fmt: skip
    if not resp.choices:
        return _error(judge, "bad_response: the batch's reply held no choices")
    usage = {"prompt_tokens": 0, "completion_tokens": 0}
    verdict, problem = judge.read_reply(resp, usage, judge.model_id)
    if verdict is None:
        err = _error(
            judge,
            f"malformed output in the batch's reply ({problem}); a batch cannot re-ask: run "
            "this pair again without --batch",
            resp.model,
        )
        err.usage = usage
        return err
    return verdict


def _error(judge: OpenAIJudge, message: str, model_id: str | None = None) -> Verdict:
    return Verdict(verdict="NOT_SUPPORTED", judge=judge.id, model_id=model_id or judge.model_id,
                   prompt_sha256=judge.prompt_sha256, error=message)  # fmt: skip


def progress_line(p: BatchProgress) -> str:
    minutes, seconds = divmod(int(p.elapsed_s), 60)
    counts = f"{p.completed + p.failed}/{p.total} done" if p.total else "counting requests"
    failed = f", {p.failed} failed" if p.failed else ""
    return (
        f"batch {p.batch_id}{' (resumed)' if p.resumed else ''}: {p.status}, {counts}{failed}, "
        f"{minutes}m{seconds:02d}s"
    )


async def judge_in_batch(
    verifier: Any,
    items: Sequence[tuple],
    *,
    state_dir: Path,
    poll_s: float = 30.0,
    say: Callable[[str], None] | None = None,
    repeats: int = 1,
    max_output_mb: float = DEFAULT_MAX_OUTPUT_MB,
) -> tuple[list[BatchSummary], list[BatchJob]]:
    """Batch every ``openai:`` judge's uncached pairs of ``items`` ((claim, span[, id])) and
    put its BatchedJudge in the verifier; with ``repeats`` (``--repeat N``) each pair is asked
    N times, each sample its own request under its own cache key. ``max_output_mb``: the cap
    on each job's result files. The judge's client counts the job's requests and tokens.
    Returns one summary per openai: judge, and the jobs whose records the caller forgets
    (``job.forget()``) once the verdicts are stored."""
    say = say or (lambda _m: None)
    summaries, jobs = [], []
    for i, given in enumerate(verifier.judges):
        judge = unwrap(given)  # a named judge is batched as the judge it names
        if not isinstance(judge, OpenAIJudge):
            continue
        pending: dict[str, tuple[str, SpanRef]] = {}
        for repeat in range(repeats):
            for item in items:
                claim, span = item[0], item[1]
                key = cache_key_for(judge, claim, span, repeat)
                if key in pending or (verifier.cache is not None and verifier.cache.get(key)):
                    continue
                pending[key] = (claim, span)
        if not pending:
            summaries.append(BatchSummary(judge=given.id))
            continue
        requests = [BatchRequest(custom_id=key, body=judge.request_body(claim, span))
                    for key, (claim, span) in pending.items()]  # fmt: skip
        seen: set[tuple] = set()

        def show(p: BatchProgress, seen: set[tuple] = seen) -> None:
            now = (p.status, p.completed, p.failed)
            if now not in seen:  # a new status or count, not every poll
                seen.add(now)
                say(progress_line(p))

        job = BatchJob(requests, endpoint=judge.client.settings, model=judge.model,
                       state_dir=state_dir, poll_s=poll_s, max_output_mb=max_output_mb,
                       counters=judge.client.counters, progress=show, notice=say)  # fmt: skip
        outcome: BatchOutcome = await job.run()
        verdicts = {key: verdict_from(judge, outcome.results[key]) for key in pending}
        batched = BatchedJudge(judge, verdicts)
        verifier.judges[i] = NamedJudge(given.id, batched) if given is not judge else batched
        errors = sum(1 for v in verdicts.values() if v.error)
        say(
            f"batch {outcome.batch_id} {outcome.status}: {len(pending)} requests, "
            f"{len(pending) - errors} verdicts, {errors} errors"
        )
        summaries.append(BatchSummary(
            judge=given.id, batch_id=outcome.batch_id, status=outcome.status,
            resumed=outcome.resumed, requests=len(pending), failed=errors,
            record=outcome.record_path,
        ))  # fmt: skip
        jobs.append(job)
    return summaries, jobs
