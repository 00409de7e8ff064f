"""How many worker processes a run of ``verify`` uses, and for what: one small module, read
both by the run itself (bench.verify.streaming) and by the command before it has imported
anything else (graders.audit_fork_server.start_ahead), so both decide alike."""

from __future__ import annotations

import os
from collections.abc import Iterable

# A file of this many pairs or more is judged (or its audit run) on every core by default:
# below it, starting worker processes costs more than it saves.
POOL_MIN_PAIRS = 1000


def runs_locally(specs: Iterable[str]) -> bool:
    """Do all these judges compute here, with no model server (they gain from more cores)?"""
    from spanproof.graders.judges import check_judge_spec

    return all(check_judge_spec(s)[1].local for s in specs)


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def workers_for(asked: int | None, pairs: int) -> int:
    """The worker processes of a run of ``pairs`` pairs: what was asked for, else one per core
    for ``POOL_MIN_PAIRS`` pairs or more, else none but this process (1)."""
    if asked is not None:
        return asked
    return default_workers() if pairs >= POOL_MIN_PAIRS else 1


def audits_in_workers(local: bool, workers: int) -> bool:
    """Does the run audit a model judge's verdicts in worker processes (graders.audit_pool)?
    ``local``: all its judges run locally (``runs_locally``); they judge whole pairs in their
    own workers instead (graders.verify_pool)."""
    return workers > 1 and not local
