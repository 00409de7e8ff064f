"""Judging a stream of pairs in bounded memory, results in input order.

``verify`` on a file of any size holds only a window of pairs at a time: pairs are read as
they are needed, each result is handed on (to be written) as soon as every pair before it
has one, and nothing per pair is kept but a few figures for the summary. Two ways to judge
the stream, with the same verdicts:

- in this process (``stream_in_process``): the Verifier as everywhere else, at most
  ``window`` pairs in flight, for judges that wait on a model server;
- in worker processes (``graders.verify_pool``): for judges that compute on the CPU (rules,
  blind, scripted), so that every core judges.

Each judged pair comes out as a ``Judged``: the output row as JSON text (what ``verify``
writes for it) and the few fields the summary counts.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncGenerator, Iterable
from dataclasses import dataclass

from spanproof.graders.verify import Verifier

from spanproof.core.memo import clear_text_memos
from spanproof.core.verdict import SpanRef, Verdict

# Memos of text analysis are emptied after this many pairs (a worker's chunk): a long stream
# of distinct spans fills them to their bounds (hundreds of megabytes) while pairs that share
# a span are usually next to each other in a file. Measured on distinct WiCE windows, a worker
# grew 41 MB emptying them every 512 pairs and 21 MB every 128, and judged no slower.
CLEAR_MEMOS_EVERY = 128


@dataclass(frozen=True, slots=True)
class StreamPair:
    """What a judge may see of one pair, and its id (no label: judges never see it)."""

    id: str
    claim: str
    span: str
    url: str | None = None
    retrieved_at: str | None = None

    def item(self) -> tuple[str, SpanRef, str]:
        return (self.claim, SpanRef(text=self.span, url=self.url, retrieved_at=self.retrieved_at),
                self.id)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Judged:
    """One judged pair: its output row (JSON) and what the summary and the metrics read."""

    row: str
    verdict: str
    judge_verdict: str | None
    confidence: float | None
    error: str | None
    contains_instructions: bool
    # the kinds of code's proofs and of the flags, for the audit's figures (graders.audit_figures)
    proof_kinds: tuple[str, ...] = ()
    flag_kinds: tuple[str, ...] = ()


def verdict_row(pair_id: str, verdict: Verdict) -> str:
    """The output line of one pair: its id, then every verdict field."""
    return json.dumps({"id": pair_id, **verdict.model_dump(mode="json")}, ensure_ascii=False)


def judged(pair_id: str, verdict: Verdict) -> Judged:
    return Judged(
        row=verdict_row(pair_id, verdict),
        verdict=verdict.verdict,
        judge_verdict=verdict.judge_verdict,
        confidence=verdict.confidence,
        error=verdict.error,
        contains_instructions=verdict.contains_instructions,
        proof_kinds=tuple(p.kind for p in verdict.proofs),
        flag_kinds=tuple(f.kind for f in verdict.flags),
    )


@dataclass
class Counters:
    """What the judging cost: judge calls made, answers from the cache, tokens."""

    model_calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0


async def stream_in_process(
    verifier: Verifier, pairs: Iterable[StreamPair], *, window: int
) -> AsyncGenerator[Judged, None]:
    """Judge ``pairs`` with ``verifier``, at most ``window`` in flight; yield in input order.

    A slow pair holds back only the output, not the judging: the pairs behind it in the
    window go on being judged. An interrupt cancels what is in flight."""
    pending: deque[tuple[str, asyncio.Task[Verdict]]] = deque()
    done = 0
    try:
        for pair in pairs:
            claim, span, pair_id = pair.item()
            task = asyncio.ensure_future(verifier.verify(claim, span, pair_id=pair_id))
            pending.append((pair.id, task))
            while len(pending) >= window:
                yield await _next(pending)
                done += 1
                if done % CLEAR_MEMOS_EVERY == 0:
                    clear_text_memos()
        while pending:
            yield await _next(pending)
    finally:
        for _, task in pending:
            task.cancel()


async def _next(pending: deque[tuple[str, asyncio.Task[Verdict]]]) -> Judged:
    pair_id, task = pending[0]
    verdict = await task
    pending.popleft()
    return judged(pair_id, verdict)


def counters_of(verifier: Verifier) -> Counters:
    return Counters(
        model_calls=verifier.model_calls,
        cache_hits=verifier.cache_hits,
        prompt_tokens=verifier.prompt_tokens,
        completion_tokens=verifier.completion_tokens,
    )
