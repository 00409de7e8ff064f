"""The audit of a model judge's verdicts on every core: its costly part in worker processes.

A model judge waits on its server; the code audit of each verdict it returns is CPU work in
Python (graders.audit: the slot reader, the flags, the instruction detector), milliseconds a
pair. On the event loop that drives the model calls it is the bottleneck of a large run: the
loop cannot send the next requests while it audits. What the audit reads from a pair whatever
the verdict (``graders.audit.pair_findings``) is therefore computed in worker processes, started
as soon as the pair is (while its model call is in flight); the loop then only applies it to
the judge's verdict (the quote check and the lowering, microseconds). The verdicts are the
same: the same function computes the same findings, in another process
(tests/graders/test_audit_pool.py holds them equal on real pairs).

Workers load the audit's tables once when they start (``slot_reader.load_tables``), empty
their per-text memos every ``CLEAR_MEMOS_EVERY`` pairs as verify's judging workers do, and
ignore Ctrl-C and SIGTERM: the parent stops them. A worker that dies is a ``WorkerCrashed``
error, never a verdict without its audit.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from spanproof.graders.audit import PairFindings, pair_findings
from spanproof.graders.instructions import load_detector
from spanproof.graders.specifics.slot_reader import load_tables
from spanproof.graders.verify_pool import WorkerCrashed, _stop
from spanproof.graders.verify_stream import CLEAR_MEMOS_EVERY

from spanproof.core.memo import clear_text_memos

_since_clear = 0


# How much lower the audit workers' scheduling priority is than the parent's: on a machine
# with few cores they would otherwise take the CPU from the event loop that sends the model
# calls (and from a model server on the same machine), whose replies then come late.
WORKER_NICENESS = 5


def _start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with contextlib.suppress(OSError, AttributeError):  # not on every platform
        os.nice(WORKER_NICENESS)
    load_tables()
    load_detector()  # before the first pair, not inside it


def _pair_findings(claim: str, span_text: str) -> PairFindings:
    global _since_clear
    found = pair_findings(claim, span_text)
    _since_clear += 1
    if _since_clear >= CLEAR_MEMOS_EVERY:
        clear_text_memos()
        _since_clear = 0
    return found


class AuditPool:
    """``workers`` processes computing ``pair_findings``; ``await findings(claim, span)``."""

    def __init__(self, workers: int) -> None:
        # spawn, not fork: the parent holds database connections and an event loop
        self._pool = ProcessPoolExecutor(
            max_workers=max(1, workers),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_start_worker,
        )
        self.done = 0

    async def findings(self, claim: str, span_text: str) -> PairFindings:
        try:
            found = await asyncio.wrap_future(self._pool.submit(_pair_findings, claim, span_text))
        except BrokenProcessPool as exc:
            raise WorkerCrashed(
                f"an audit worker process stopped unexpectedly after {self.done} pairs were "
                f"audited ({exc}); if the machine ran out of memory, retry with fewer --workers"
            ) from exc
        self.done += 1
        return found

    def close(self, *, finished: bool = True) -> None:
        """Wait for the workers to end (``finished``), or stop them now."""
        if finished:
            self._pool.shutdown(wait=True)
        else:
            _stop(self._pool, deque())
