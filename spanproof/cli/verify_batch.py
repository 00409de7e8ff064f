"""`spanproof verify --batch`: the openai: judges' uncached pairs as one Batch API job first,
then the usual verification (audit, cache, summary) over the batch's verdicts."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Coroutine
from typing import Any

from spanproof.cli.options import err


def batch_then(
    verifier: Any,
    items: list,
    then: Coroutine,
    home: str | None,
    poll_s: float,
    summaries: list,
    *,
    repeats: int = 1,
) -> Coroutine:
    """A coroutine that runs the batch, then ``then`` (the verification), then forgets the
    batch's record (its verdicts are stored). Exit 2 at once when no judge can be batched."""
    from spanproof.graders.openai_judge import OpenAIJudge

    from spanproof.store.home import resolve_home

    if not any(isinstance(j, OpenAIJudge) for j in verifier.judges):
        then.close()
        ids = ", ".join(j.id for j in verifier.judges)
        err(f"error: --batch sends the requests of openai: judges, and no judge here is one "
            f"({ids}); add --judge openai:MODEL or drop --batch")  # fmt: skip
        sys.exit(2)
    state_dir = resolve_home(home)

    async def run():
        from spanproof.graders.batch_judge import judge_in_batch
        from spanproof.graders.errors import JudgeConfigError

        from spanproof.wire.batch import BatchError

        try:
            found, jobs = await judge_in_batch(verifier, items, state_dir=state_dir,
                                               poll_s=poll_s, say=err, repeats=repeats)  # fmt: skip
        except BatchError as exc:
            then.close()
            # the batch could not run: every verdict would be missing, as with a judge
            # that cannot work as configured (exit 2, with the cause)
            raise JudgeConfigError(str(exc)) from exc
        except BaseException as exc:
            then.close()
            if isinstance(exc, asyncio.CancelledError | KeyboardInterrupt):
                err(f"note: a submitted batch keeps running on the server; the same command run "
                    f"again collects it (its id is kept in {state_dir / 'batches'})")  # fmt: skip
            raise
        summaries.extend(found)
        verdicts = await then
        for job in jobs:
            job.forget()
        return verdicts

    return run()
