"""`verify_pairs`: judge a file of (claim, span) pairs with one or more judges, in one call.

1. **Refuse** an --out that is the pair file itself.
2. **Scan** the file once (bench.verify.scan): every line checked, the good pairs kept aside;
   bad lines are named (a ``BadLines`` event) and stop the run before any judge is asked,
   unless ``skip_invalid``.
3. **Judge** with the judges the specs name, through the verdict cache (agent.services):
   as a stream (bench.verify.streaming), or every sample in memory for --repeat and --batch
   (bench.verify.samples). The caller's ``runner`` runs the judging (the CLI's adds Ctrl-C,
   SIGTERM and --deadline); progress and notices are events, never printed here.
4. **Hand back** the summary, the rows when kept, and the judge errors (``VerifyOutcome``).

It sits in the bench because it reads pair files and measures against labels (the bench's
pair reader, agreement, audit and repeat figures), and takes its judges, verifier and cache
from ``Services``, the agent layer's one assembly of the parts.
"""

from __future__ import annotations

import asyncio

from spanproof.agent.services import Services

from spanproof.bench.verify.events import BadLines, EventSink, ignore
from spanproof.bench.verify.outcome import VerifyOutcome
from spanproof.bench.verify.request import Runner, VerifyFailed, VerifyRequest
from spanproof.bench.verify.samples import verify_sampled
from spanproof.bench.verify.scan import Scan, scan_pairs
from spanproof.bench.verify.streaming import verify_streamed
from spanproof.core.files import OutputPathError, refuse_overwriting_inputs
from spanproof.core.specs import SpecError


def verify_pairs(
    request: VerifyRequest, *, on_event: EventSink = ignore, runner: Runner = asyncio.run
) -> VerifyOutcome:
    """Raises VerifyFailed when the run cannot start or go on. Whatever else stops it (the
    runner's exit on Ctrl-C, a judge that cannot work as configured) propagates; a streamed
    run says first what it kept, with a ``Stopped`` event."""
    try:
        refuse_overwriting_inputs(request.out, [request.pairs], option="--out")
    except OutputPathError as exc:
        raise VerifyFailed(str(exc)) from exc
    scan = scan_pairs(request.pairs, request.judges)
    try:
        _refuse_bad_lines(request, scan, on_event)
        # verify records no run: the cache keys it used need not be kept (the gate keeps them)
        parts = Services(request.home, endpoint=request.endpoint, cache_verdicts=request.cache,
                         track_used=False)  # fmt: skip
        try:
            judges = parts.judges(request.judges)
        except SpecError as exc:
            raise VerifyFailed(str(exc)) from exc
        # every sample of every pair, or the batch's whole request file, in memory; a single
        # online or local judgement streams
        judge_all = verify_sampled if request.repeat > 1 or request.batch else verify_streamed
        return judge_all(request, scan, parts, judges, on_event, runner)
    finally:
        scan.close()


def _refuse_bad_lines(request: VerifyRequest, scan: Scan, on_event: EventSink) -> None:
    """Name the file's bad lines and stop unless ``skip_invalid``, and stop when no good pair
    is left: nothing is judged from a file that was not read as written."""
    if scan.problems:
        on_event(BadLines(path=request.pairs, problems=scan.problems))
    if scan.problems and not request.skip_invalid:
        raise VerifyFailed(f"{len(scan.problems)} bad line(s) in {request.pairs}; fix them or "
                           "pass --skip-invalid. No pair was judged.")  # fmt: skip
    if not scan.count:
        raise VerifyFailed(f"no valid pairs in {request.pairs}; each line is a JSON object with "
                           'non-empty "claim" and "span" strings')  # fmt: skip
