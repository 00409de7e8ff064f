"""Judging on every core: worker processes for the judges that compute rather than wait.

The rules judge and the code audit are CPU work in Python, one core per process; a stream of
pairs is cut into chunks and each worker process judges whole chunks. What stays the same as
judging in one process:

- **Verdicts.** A worker runs the same Verifier, judges and audit; its verdict cache is
  prefetched by the parent for the chunk (``get_verdicts``) and its new verdicts are written
  back by the parent in one transaction per chunk (``put_verdicts``), so the cache is shared
  and only the parent writes to it. tests/graders/test_verify_pool.py holds the rows equal
  to the one-process path on real pairs.
- **Order.** Chunks are handed on in input order; at most ``2 * workers`` chunks are out at
  once, so memory holds a few chunks whatever the file's size.

Each worker builds its judges once (the rules judge reads its parameters once per process)
and ignores Ctrl-C and SIGTERM: the parent alone stops the work (killing its workers), writes
what finished, and says so. A
worker that dies (killed, out of memory) is a ``WorkerCrashed`` error naming how far the
stream got; an exception inside a worker (a scripted judge without an entry for a pair)
reaches the parent as itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import select
import signal
import threading
import time
from collections import deque
from collections.abc import AsyncGenerator, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from spanproof.graders.cache import VerdictCache, cache_key_for
from spanproof.graders.judges import make_judge
from spanproof.graders.pool_plan import runs_locally
from spanproof.graders.verify import Verifier
from spanproof.graders.verify_stream import (
    CLEAR_MEMOS_EVERY,
    Counters,
    Judged,
    StreamPair,
    judged,
)

from spanproof.core.memo import clear_text_memos
from spanproof.core.verdict import Verdict

CHUNK = 128


class WorkerCrashed(RuntimeError):
    """A judging worker process died before finishing its chunk."""


# ---------------------------------------------------------------- in a worker process


class _ChunkCache:
    """The verdict cache as a worker sees it: the parent's answers for this chunk, and the
    new verdicts to hand back (the same interface the Verifier uses: get and put)."""

    def __init__(self) -> None:
        self.hits: dict[str, str] = {}
        self.puts: list[tuple[str, str, dict[str, Any]]] = []

    def get(self, key: str) -> Verdict | None:
        text = self.hits.get(key)
        return None if text is None else Verdict.model_validate_json(text)

    def put(self, key: str, verdict: Verdict) -> None:
        if verdict.error is not None:
            return
        text = verdict.model_dump_json()
        self.hits[key] = text  # a pair repeated inside the chunk is a hit, as in one process
        meta = {"judge": verdict.judge, "model_id": verdict.model_id,
                "prompt_sha256": verdict.prompt_sha256}  # fmt: skip
        self.puts.append((key, text, meta))


@dataclass
class _Worker:
    verifier: Verifier
    cache: _ChunkCache | None
    loop: asyncio.AbstractEventLoop
    since_clear: int = 0


_worker: _Worker | None = None


def _start_worker(specs: list[str], policy: str, cached: bool) -> None:
    global _worker
    # Ctrl-C and a CI's SIGTERM go to the whole process group; the parent decides what stops
    # and what is kept (and stops the workers itself).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    cache = _ChunkCache() if cached else None
    judges = [make_judge(s) for s in specs]
    verifier = Verifier(judges, cache=cache, concurrency=1, policy=policy)
    _worker = _Worker(verifier=verifier, cache=cache, loop=asyncio.new_event_loop())


@dataclass
class ChunkResult:
    judged: list[Judged]
    puts: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    counters: Counters = field(default_factory=Counters)


def _judge_chunk(pairs: list[StreamPair], hits: dict[str, str]) -> ChunkResult:
    w = _worker
    assert w is not None, "the worker was not started"
    before = Counters(w.verifier.model_calls, w.verifier.cache_hits,
                      w.verifier.prompt_tokens, w.verifier.completion_tokens)  # fmt: skip
    if w.cache is not None:
        w.cache.hits = dict(hits)
        w.cache.puts = []
    verdicts = w.loop.run_until_complete(w.verifier.verify_many([p.item() for p in pairs]))
    out = ChunkResult(
        judged=[judged(p.id, v) for p, v in zip(pairs, verdicts, strict=True)],
        puts=w.cache.puts if w.cache is not None else [],
        counters=Counters(
            model_calls=w.verifier.model_calls - before.model_calls,
            cache_hits=w.verifier.cache_hits - before.cache_hits,
            prompt_tokens=w.verifier.prompt_tokens - before.prompt_tokens,
            completion_tokens=w.verifier.completion_tokens - before.completion_tokens,
        ),
    )
    w.since_clear += len(pairs)
    if w.since_clear >= CLEAR_MEMOS_EVERY:
        clear_text_memos()
        w.since_clear = 0
    return out


# ---------------------------------------------------------------- in the parent


def _stop(pool: ProcessPoolExecutor, out: deque[Future[ChunkResult]]) -> None:
    """Abandon the chunks still out: stop their workers now rather than wait for them."""
    # A broken pool (a worker died) fails every chunk still out from CPython's manager thread;
    # a chunk cancelled under it makes that thread die with InvalidStateError, printing a
    # traceback after the run's one clear error. Only a pool still whole has chunks to cancel.
    broken = bool(getattr(pool, "_broken", False))
    for f in out if not broken else ():
        f.cancel()
    # the pool's private parts (CPython's, so each may be absent): read with getattr
    processes = list((getattr(pool, "_processes", None) or {}).values())
    # taken before shutdown, which drops the pool's references to both
    manager = getattr(pool, "_executor_manager_thread", None)
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    pool.shutdown(wait=False, cancel_futures=not broken)
    for process in processes:
        if process.is_alive():
            process.kill()  # workers ignore SIGINT and SIGTERM: only the parent stops them
    for process in processes:
        process.join(timeout=5)
    if manager is not None and writer is not None:
        _release(manager, writer.fileno())


def _release(manager: threading.Thread, fd: int) -> None:
    """End the pool's manager thread when a killed worker left it waiting for the rest of a
    result it was sending: the thread would wait forever, and the interpreter waits for that
    thread at exit, so a stopped `verify` would never end. The pipe gets bytes until the thread
    has its message; the message is garbage, which it reads as a broken pool, and it ends."""
    manager.join(timeout=0.5)
    if not manager.is_alive():
        return
    os.set_blocking(fd, False)
    deadline = time.monotonic() + 10
    chunk = bytes(1 << 20)
    while manager.is_alive() and time.monotonic() < deadline:
        # wait until the thread has read some of the pipe, then fill it again
        if select.select([], [fd], [], 0.05)[1]:
            with contextlib.suppress(BlockingIOError):
                os.write(fd, chunk)


def _chunks(pairs: Iterable[StreamPair], size: int) -> Iterator[list[StreamPair]]:
    chunk: list[StreamPair] = []
    for pair in pairs:
        chunk.append(pair)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class PoolJudging:
    """Judge a stream of pairs in ``workers`` processes; ``counters`` add up as chunks return.

    ``judges`` are the parent's own judge objects for ``specs`` (they name the cache keys);
    the workers build theirs from ``specs``."""

    def __init__(
        self,
        specs: list[str],
        judges: list[Any],
        *,
        policy: str,
        cache: VerdictCache | None,
        workers: int,
        chunk: int = CHUNK,
    ) -> None:
        if not runs_locally(specs):
            raise ValueError("worker processes judge only with local judges (rules, blind, "
                             "scripted)")  # fmt: skip
        self.specs, self.judges, self.policy = list(specs), list(judges), policy
        self.cache, self.workers, self.chunk = cache, max(1, workers), max(1, chunk)
        self.counters = Counters()
        self.done = 0  # pairs handed on, in order

    def _prefetch(self, chunk: list[StreamPair]) -> dict[str, str]:
        if self.cache is None:
            return {}
        keys = [cache_key_for(j, *p.item()[:2]) for p in chunk for j in self.judges]
        hits = self.cache.store.get_verdicts(keys)
        self.cache.note_used(hits)
        return hits

    def _store(self, result: ChunkResult) -> None:
        if self.cache is not None and result.puts:
            self.cache.store.put_verdicts(result.puts)
            self.cache.note_used(k for k, _, _ in result.puts)
        c = result.counters
        self.counters.model_calls += c.model_calls
        self.counters.cache_hits += c.cache_hits
        self.counters.prompt_tokens += c.prompt_tokens
        self.counters.completion_tokens += c.completion_tokens

    async def stream(self, pairs: Iterable[StreamPair]) -> AsyncGenerator[Judged, None]:
        # spawn, not fork: the parent holds database connections and an event loop that a
        # forked child must not share
        ctx = multiprocessing.get_context("spawn")
        pool = ProcessPoolExecutor(
            max_workers=self.workers,
            mp_context=ctx,
            initializer=_start_worker,
            initargs=(self.specs, self.policy, self.cache is not None),
        )
        out: deque[Future[ChunkResult]] = deque()
        completed = False
        try:
            for chunk in _chunks(pairs, self.chunk):
                out.append(pool.submit(_judge_chunk, chunk, self._prefetch(chunk)))
                while len(out) >= 2 * self.workers:
                    for j in await self._collect(out.popleft()):
                        yield j
            while out:
                for j in await self._collect(out.popleft()):
                    yield j
            completed = True
        finally:
            if completed:
                pool.shutdown(wait=True)
            else:
                _stop(pool, out)

    async def _collect(self, future: Future[ChunkResult]) -> list[Judged]:
        try:
            result = await asyncio.wrap_future(future)
        except BrokenProcessPool as exc:
            raise WorkerCrashed(
                f"a judging worker process stopped unexpectedly after {self.done} pairs were "
                f"judged ({exc}); if the machine ran out of memory, retry with fewer --workers"
            ) from exc
        self._store(result)
        self.done += len(result.judged)
        return result.judged
