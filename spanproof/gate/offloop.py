"""The gate's long synchronous work, done off the event loop so a signal still stops the gate.

Ctrl-C and SIGTERM reach the gate through the event loop, which runs their handler only
between two steps of a task. Making the judge reads seconds of tables (pint's units, WordNet,
ISO 3166, the towns) and hashes the installed readers and their dependencies (the rules
judge's version, the replay memo's key); sensitivity plants hundreds of failures before it
judges one. Done on the loop, a gate stopped then kept running until that work ended, and a CI
runner that kills a job a few seconds after SIGTERM found no JUnit, no markdown, no record.
Here such work runs in a daemon thread while the loop waits, free to stop; a stopped gate
records what ran and leaves without waiting for the thread (a daemon thread never holds the
process open). Judging yields to the loop once a pair (``graders.verify``), an agent run once
a tool call (``agent.dispatch``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def in_daemon_thread(work: Callable[[], T], *, name: str) -> T:
    """``work()`` in a daemon thread; cancelling the await leaves the thread to finish alone."""
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()

    def settle(value: T | None, error: BaseException | None) -> None:
        if done.done():  # the gate was stopped and stopped waiting
            return
        if error is not None:
            done.set_exception(error)
        else:
            done.set_result(value)  # type: ignore[arg-type]  # set with the work's own result

    def run() -> None:
        value: T | None = None
        error: BaseException | None = None
        try:
            value = work()
        except BaseException as exc:  # handed to the awaiting task, raised there
            error = exc
        # a closed loop: the gate stopped and nobody waits for this any more
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(settle, value, error)

    threading.Thread(target=run, name=name, daemon=True).start()
    return await done


def warm(judge_spec: str, replayable: bool, *, runs: bool = False) -> None:
    """Everything slow the judge setup computes once per process (each part caches itself).

    ``runs``: the gate answers questions or serves hostile pages; every run's publication reads
    the pages around its spans with the instruction detector, whose sixteen word files and
    confusable-letter table the first run would otherwise load on the loop while every run
    side by side waits.

    The HTTP client a model call sends with (``spanproof.wire.send`` and its own transport,
    ``spanproof.wire.lean``) comes with the verifier, imported here whatever the models are
    (tests/gate/test_offloop_warm.py holds this)."""
    from spanproof.graders.judges import check_judge_spec
    from spanproof.graders.specifics.slot_reader import load_tables

    from spanproof.gate import memo

    check_judge_spec(judge_spec)  # imports the judge registry and every shipped judge
    import spanproof.graders.rules.judge  # noqa: F401  (its version digests the readers)
    import spanproof.graders.verify  # noqa: F401  (the verifier; it reads wire's client)

    load_tables()
    if replayable:
        memo.warm()
    if runs:
        from spanproof.graders.instructions import load_detector

        load_detector()


async def warm_up(cfg: Any) -> None:
    """The judge setup's slow start (tables, digests, the runs' first imports), cached for the
    process."""
    from spanproof.gate.config import AGENT_CHECKS
    from spanproof.gate.memo import replayable

    runs = bool(set(cfg.checks) & {*AGENT_CHECKS, "injection"})
    await in_daemon_thread(
        lambda: warm(cfg.judge, replayable(cfg) is None, runs=runs),
        name="spanproof-gate-setup",
    )
