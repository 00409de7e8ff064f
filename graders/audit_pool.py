"""The audit of a model judge's verdicts on every core: its costly part in worker processes.

A model judge waits on its server; the code audit of each verdict it returns is CPU work in
Python (graders.audit: the slot reader, the flags, the instruction detector), milliseconds a
pair. On the event loop that drives the model calls it is the bottleneck of a large run: the
loop cannot send the next requests while it audits. What the audit reads from a pair whatever
the verdict (``graders.findings.pair_findings``) is therefore computed in worker processes, started
as soon as the pair is (while its model call is in flight); the loop then only applies it to
the judge's verdict (the quote check and the lowering, microseconds). The verdicts are the
same: the same function computes the same findings, in another process
(tests/graders/test_audit_pool.py holds them equal on real pairs).

Workers are forked from a fork server that imported the audit and loaded its tables once
(``graders.audit_preload``), so starting a worker costs a fork, not an interpreter that
imports and loads the tables again; where there is no fork server (not POSIX) they are
spawned (graders.audit_fork_server; ``verify`` starts the fork server ahead, before its own
imports). Each worker still makes sure of its tables when it starts
(``slot_reader.load_tables``, free once loaded), empties its per-text memos every
``CLEAR_MEMOS_EVERY`` pairs as verify's judging workers do, and ignores Ctrl-C and SIGTERM:
the parent stops them. A worker that dies is a ``WorkerCrashed`` error, never a verdict
without its audit.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import threading
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any

from spanproof.graders.audit_fork_server import (
    WORKER_NICENESS,
    end_fork_server,
    lower_fork_server,
    own_niceness,
    worker_context,
)
from spanproof.graders.findings_model import PairFindings
from spanproof.graders.verify_pool import WorkerCrashed, _stop
from spanproof.graders.verify_stream import CLEAR_MEMOS_EVERY

from spanproof.core.memo import clear_text_memos

_since_clear = 0


def load_everything() -> None:
    """What every pair's audit reads, loaded before the first pair rather than inside it.
    Imported here, in the workers (and their fork server), never by the process that runs
    the pool: it only sends pairs and reads back their findings."""
    import spanproof.graders.findings  # noqa: F401 - the readers, before the first pair
    from spanproof.graders.instructions import load_detector
    from spanproof.graders.specifics.slot_reader import load_tables

    load_tables()
    load_detector()


def _start_worker(niceness: int | None = None) -> None:
    """``niceness``: the workers' own, the parent's plus ``WORKER_NICENESS`` (a worker forked
    from the fork server has that server's already, see ``lower_fork_server``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):  # not on every platform
        now = os.nice(0)
        wanted = now + WORKER_NICENESS if niceness is None else niceness
        if wanted > now:
            os.nice(wanted - now)
    load_everything()  # loaded in the fork server already: then nothing to do


def _started() -> None:
    """A task that only makes the pool start a worker (its initializer does the work)."""


def _pair_findings(claim: str, span_text: str) -> PairFindings:
    # imported in the worker, where it runs (a lookup once loaded), never in the pool's parent
    from spanproof.graders.findings import pair_findings

    global _since_clear
    found = pair_findings(claim, span_text)
    _since_clear += 1
    if _since_clear >= CLEAR_MEMOS_EVERY:
        clear_text_memos()
        _since_clear = 0
    return found


def _chunk_findings(pairs: list[tuple[str, str]]) -> list[PairFindings]:
    return [_pair_findings(claim, span_text) for claim, span_text in pairs]


# Pairs asked for in one turn of the event loop travel to a worker together, this many to a
# work item: each work item is pickled, queued, read back and handed to the loop by the
# executor's threads in this process, about half a millisecond of its CPU each, on the
# process whose loop sends the model calls. A pair's audit then waits for its chunk's, a few
# milliseconds, while its model call takes a hundred times that.
CHUNK = 8


def _read_outcome(work: asyncio.Future[Any]) -> None:
    """Mark a work item's (or the workers' start's) failure as read: the run reports a dead
    worker once, not once per pair that was in flight."""
    if not work.cancelled():
        work.exception()


def _hand_out(
    pairs: list[asyncio.Future[PairFindings]], work: asyncio.Future[list[PairFindings]]
) -> None:
    """A chunk's findings (or its failure) to each of its pairs."""
    if work.cancelled():
        return
    failed = work.exception()
    found = [] if failed is not None else work.result()
    for i, mine in enumerate(pairs):
        if mine.done():
            continue
        if failed is not None:
            mine.set_exception(failed)
        else:
            mine.set_result(found[i])


class AuditPool:
    """``workers`` processes computing ``pair_findings``; ``await findings(claim, span)``."""

    def __init__(self, workers: int) -> None:
        self._context = worker_context()
        base = own_niceness()
        self._pool = ProcessPoolExecutor(
            max_workers=max(1, workers),
            mp_context=self._context,
            initializer=_start_worker,
            initargs=(None if base is None else min(19, base + WORKER_NICENESS),),
        )
        self.done = 0
        # The workers are started now, from a thread of their own: starting one waits for
        # the fork server to load the tables (a second), which on the event loop would hold
        # every model call back. The calls go out meanwhile; only the audits wait (findings).
        self._ready: Future[None] = Future()
        self._asked: list[tuple[str, str, asyncio.Future[PairFindings]]] = []
        threading.Thread(
            target=self._start, args=(max(1, workers),), name="audit-workers", daemon=True
        ).start()

    def _start(self, workers: int) -> None:
        try:
            if self._context.get_start_method() == "forkserver":
                lower_fork_server()
            # one task each: a pool starts a worker per task while none is idle
            for _ in range(workers):
                self._pool.submit(_started)
        except BaseException as exc:  # given to every findings() call: none goes unaudited
            self._ready.set_exception(exc)
        else:
            self._ready.set_result(None)

    async def findings(self, claim: str, span_text: str) -> PairFindings:
        try:
            if not self._ready.done():
                ready = asyncio.wrap_future(self._ready)
                # read whoever waits: a pair stopped while the workers start leaves the shield's
                # inner future to fail alone (a fork server killed: EOFError), which asyncio
                # would print as "Future exception was never retrieved" after verify's error
                ready.add_done_callback(_read_outcome)
                await asyncio.shield(ready)
            self._ready.result()  # raises what stopped the workers from starting
            loop = asyncio.get_running_loop()
            mine: asyncio.Future[PairFindings] = loop.create_future()
            # its outcome is read whoever waits for it: a pair stopped half way leaves it
            mine.add_done_callback(_read_outcome)
            if not self._asked:
                loop.call_soon(self._send)  # what this turn of the loop asked for, together
            self._asked.append((claim, span_text, mine))
            if len(self._asked) >= CHUNK:
                self._send()
            # shielded: a pair stopped half way must not cancel its work item, because a pool
            # that breaks later sets an exception on every item it holds, and on a cancelled
            # one CPython's executor thread dies with InvalidStateError (a traceback on the
            # user's terminal)
            found = await asyncio.shield(mine)
        except (BrokenProcessPool, EOFError, ConnectionError) as exc:
            # a worker died (the pool is broken), or the fork server the pool starts workers
            # from did (its socket reads end of file): the same stop for the user
            why = str(exc) or f"{type(exc).__name__}: the workers' fork server is gone"
            raise WorkerCrashed(
                f"an audit worker process stopped unexpectedly after {self.done} pairs were "
                f"audited ({why}); if the machine ran out of memory, retry with fewer --workers"
            ) from exc
        self.done += 1
        return found

    def _send(self) -> None:
        """The pairs asked for since the last send, as work items of up to ``CHUNK`` pairs."""
        asked, self._asked = self._asked, []
        for i in range(0, len(asked), CHUNK):
            chunk = asked[i : i + CHUNK]
            try:
                work = asyncio.wrap_future(
                    self._pool.submit(_chunk_findings, [(c, s) for c, s, _ in chunk])
                )
            except BaseException as exc:  # a broken or closed pool: each pair's error
                for _, _, mine in chunk:
                    if not mine.done():
                        mine.set_exception(exc)
                continue
            work.add_done_callback(partial(_hand_out, [mine for _, _, mine in chunk]))

    def close(self, *, finished: bool = True) -> None:
        """Wait for the workers to end (``finished``), or stop them now."""
        if finished:
            self._pool.shutdown(wait=True)
        else:
            _stop(self._pool, deque())
        if self._context.get_start_method() == "forkserver":
            end_fork_server()
