"""The fork server the audit's worker processes are forked from (graders.audit_pool): what it
preloads, at which priority it runs, how it ends, and how a command starts it ahead.

A light module on purpose (the standard library and graders.pool_plan): ``verify`` calls
``start_ahead`` before it imports what it judges with, so the fork server imports the audit and
loads its tables (a second of CPU) on a core the command's own imports leave idle, instead of
after them, beside the first model calls. The pool then finds it running.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Iterable
from pathlib import Path

from spanproof.graders.pool_plan import (
    POOL_MIN_PAIRS,
    audits_in_workers,
    runs_locally,
    workers_for,
)

# How much lower the audit workers' scheduling priority is than the parent's: on a machine
# with few cores they would otherwise take the CPU from the event loop that sends the model
# calls (and from a model server on the same machine), whose replies then come late.
WORKER_NICENESS = 5

# Imported by the fork server before it forks the first worker: see that module.
PRELOAD = "spanproof.graders.audit_preload"


def worker_context() -> multiprocessing.context.BaseContext:
    """Fork server where there is one, else spawn; never a plain fork of this process, which
    holds database connections, an event loop and threads."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    # Takes effect when the fork server starts; one already running keeps what it loaded,
    # and the workers then load the tables themselves (audit_pool._start_worker).
    ctx.set_forkserver_preload([PRELOAD])
    return ctx


def own_niceness() -> int | None:
    try:
        return os.nice(0)
    except (OSError, AttributeError):  # not on every platform
        return None


def lower_fork_server() -> None:
    """Start the fork server (if it is not running) and give it the workers' lower priority:
    it loads the audit's modules and tables (a second of CPU) just as the first model call is
    out, and at the parent's priority it took the CPU that call's reply needed to be read (on
    a machine of two cores, or a local model server's to answer it): the first reply, which
    the limiter reads as the server's latency with nothing queued, came four times late, and
    the window opened at 2. Lowered from here (the fork server's own code is CPython's);
    where this cannot be done the fork server runs at the parent's priority, as before."""
    from multiprocessing import forkserver

    base = own_niceness()
    ensure = getattr(forkserver, "ensure_running", None)
    if base is None or not callable(ensure):
        return
    ensure()
    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if isinstance(pid, int):
        with contextlib.suppress(OSError, AttributeError):
            os.setpriority(os.PRIO_PROCESS, pid, min(19, base + WORKER_NICENESS))


def end_fork_server() -> None:
    """End the fork server once its workers are gone. Left running, it would outlive the
    pool until this process exits, and neither its CPU nor its workers' would be counted in
    this process's children's (what ``time`` and ``getrusage`` report): ended and waited
    for here, they are. A later pool starts a new one. The fork server is CPython's private
    part: read with getattr, and left alone where it is absent."""
    from multiprocessing import forkserver

    stop = getattr(getattr(forkserver, "_forkserver", None), "_stop", None)
    if callable(stop):
        with contextlib.suppress(OSError, ChildProcessError):
            stop()


def _has_lines(path: Path, n: int) -> bool:
    """Does the file hold at least ``n`` lines with something on them? Reads no further."""
    seen = 0
    with path.open("rb") as f:
        for line in f:
            seen += bool(line.strip())
            if seen >= n:
                return True
    return False


def start_ahead(specs: Iterable[str], workers: int | None, pairs: Path) -> bool:
    """Start the audit workers' fork server now when the run will audit a model judge's
    verdicts in worker processes (graders.pool_plan decides, the pairs counted by their lines
    here, by the valid ones in the run). True when started. Best effort: a spec that names no
    judge or a file that cannot be read starts nothing here, and the run says what is wrong;
    a guess the run does not confirm (lines that are not pairs) leaves the fork server to the
    command, which ends it when the run stops (spanproof.cli.verify)."""
    try:
        count = POOL_MIN_PAIRS if workers is None and _has_lines(pairs, POOL_MIN_PAIRS) else 0
        if not audits_in_workers(runs_locally(specs), workers_for(workers, count)):
            return False
        if worker_context().get_start_method() != "forkserver":
            return False
        lower_fork_server()
    except Exception:  # noqa: BLE001 - the run itself reports a bad spec or file, and starts its pool
        return False
    return True
