"""`spanproof verify`: judge (claim, span) pairs from a JSONL file with one or more judges."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from spanproof.graders.verify_pool import default_workers
from spanproof.graders.verify_stream import counters_of

from spanproof.bench.pairs import PairSetError, iter_pair_lines  # noqa: F401  (the one reader)
from spanproof.cli.options import (
    HOME_HELP,
    endpoint_options,
    endpoint_settings,
    home_option,
    model_options,
    run_async,
)
from spanproof.cli.verify_run import (
    POOL_MIN_PAIRS,
    Rows,
    Scan,
    Tally,
    judge_file,
    judges_or_exit,
    refuse_bad_pairs,
    scan_pairs,
)
from spanproof.cli.verify_summary import _http_summary, _human_summary, label_metrics

# ---------------------------------------------------------------- command


@click.command(
    "verify",
    epilog="""\b
Input: JSONL, one pair per line: {"id", "claim", "span", "label"?, "source"?: {"url"?,
"retrieved_at"?}}. Spans over 4000 characters, invalid JSON and lines without claim/span are
reported with their line numbers; the command stops before any model call unless
--skip-invalid is given.

\b
Output: a readable summary on stdout. Per-pair verdicts (the input id plus the verdict
fields, with judge_verdict = the judge's own label, proofs = what code established against
it, with offsets, flags = what a person should look at, and confidence when the judge gives
one) go to --out as JSONL, or inside the --json document. With labels present, agreement,
macro-F1, SUPPORTED-vs-rest balanced accuracy and kappa are shown twice: final (the judge's
verdict lowered only by code's proofs) and judge-only (what the judge read); then what code's
proofs changed (and how often rightly), and the flag rate and flag precision per kind. For a
judge that gives a confidence, its expected calibration error. A file holding pairs the rules
judge was fitted on says so, with its cross-validated figure. Verdicts are cached under
--home (verdicts.sqlite): a second identical run makes zero model calls.

\b
Files of any size: pairs are read and verdict rows written as a stream (memory holds a
window of pairs, not the file). Local judges (rules, blind, scripted) judge in one worker
process per core once a file has 1000 pairs or more (--workers to choose); the rows are the
same as in one process. A run stopped half way (Ctrl-C, --deadline) keeps the rows judged so
far in OUT.partial and their verdicts in the cache.

\b
Exit status: 0 ok; 1 some or all judge calls gave an error instead of a verdict (counted
in the summary, named on stderr); 2 could not run: bad input or options, an endpoint that
cannot be reached or keeps failing (the circuit breaker), the deadline.

\b
Examples:
  spanproof verify --pairs goldens/wice_dev_pairs.jsonl --judge rules
  spanproof verify --pairs pairs.jsonl --judge rules --judge openai:gpt-4o-mini --out v.jsonl
  spanproof verify --pairs big.jsonl --judge rules --workers 2 --json --out big-verdicts.jsonl
  OPENAI_BASE_URL=http://localhost:8000/v1 OPENAI_API_KEY=local \\
    spanproof verify --pairs pairs.jsonl --judge openai:qwen2.5-7b-instruct --json
  spanproof verify --pairs big.jsonl --judge openai:gpt-4o-mini --batch --out v.jsonl

\b
--batch: the pairs not in the cache go as one OpenAI Batch API job; the command waits,
printing its status, and stores its verdicts in the cache like any other. Interrupted
(Ctrl-C, --deadline), the same command run again collects the same batch instead of
submitting a new one. A pair whose line failed, or that an expired or cancelled batch never
ran, is a judge error (exit 1; a rerun submits only those); a batch the server refuses, or a
server without the Batch API, exits 2. A batch cannot re-ask a malformed reply: such a
pair's error says to run it again without --batch.
""",
)
@click.option(
    "--pairs",
    "pairs_path",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="JSONL file of (claim, span) pairs.",
)
@click.option(
    "--judge",
    "judges",
    multiple=True,
    envvar="SPANPROOF_JUDGE",
    default=("rules",),
    show_default=True,
    help="Judge spec: rules, blind, openai:<model>, scripted:<path>. Repeat for a panel.",
)
@click.option(
    "--policy",
    default="all-must-support",
    show_default=True,
    type=click.Choice(["all-must-support"]),
    help="How a panel of judges combines: the weakest verdict wins.",
)
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write per-pair verdicts here (JSONL) instead of stdout.",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON summary object (with results when --out is not given); no progress bar.",
)
@click.option("--no-cache", is_flag=True, help="Neither read nor write the verdict cache.")
@click.option(
    "--concurrency",
    default=8,
    show_default=True,
    type=click.IntRange(1, 256),
    help="Judge calls in flight at once.",
)
@click.option(
    "--skip-invalid", is_flag=True, help="Skip bad input lines (reported) instead of stopping."
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=None,
    help="Processes judging at once with local judges (rules, blind, scripted). Default: one "
    f"per core for {POOL_MIN_PAIRS} pairs or more, else 1.",
)
@click.option(
    "--repeat",
    type=click.IntRange(1, 20),
    default=1,
    show_default=True,
    help="Judge every pair N times (judges that are not deterministic): each pair's verdicts "
    "are all kept (cached by repeat), pairs whose verdict changes are listed as unstable, and "
    "agreement with labels is the mean over the repeats with its spread.",
)
@click.option(
    "--batch",
    is_flag=True,
    help="Send the openai: judges' pairs that are not cached as one OpenAI Batch API job "
    "(/v1/files + /v1/batches): half the price on OpenAI, no connection held open. Waits for "
    "it with a progress line; run the same command again after Ctrl-C to collect the same "
    "batch (its id is kept under --home).",
)
@click.option(
    "--batch-poll",
    default=30.0,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Most seconds between two looks at a batch's status.",
)
@home_option(HOME_HELP + " The verdict cache lives here.")
@endpoint_options
@model_options(concurrency=False)
def verify(
    pairs_path: Path,
    judges: tuple[str, ...],
    policy: str,
    out_path: Path | None,
    as_json: bool,
    no_cache: bool,
    concurrency: int,
    skip_invalid: bool,
    workers: int | None,
    repeat: int,
    batch: bool,
    batch_poll: float,
    home: str | None,
    base_url: str | None,
    api_key: str | None,
) -> None:
    """Judge (claim, span) pairs with one or more judges; every verdict is audited by code.

    Prints a summary (agreement with the file's labels, verdict counts, judge errors); the
    per-pair verdicts go to --out FILE (JSONL) or, with --json, into the JSON document.

    \b
    Examples:
      spanproof verify --pairs goldens/wice_dev_pairs.jsonl --judge rules
      spanproof verify --pairs goldens/judge_calibration.jsonl --judge rules --out out/verdicts.jsonl
      spanproof verify --pairs my_pairs.jsonl --judge openai:gpt-4o-mini --judge rules --json
      spanproof verify --pairs goldens/judge_calibration.jsonl --judge openai:gpt-4o-mini --repeat 3
    """
    from spanproof.agent.services import Services
    from spanproof.graders.verify_pool import WorkerCrashed, runs_locally

    from spanproof.core.files import OutputPathError, refuse_overwriting_inputs

    try:
        refuse_overwriting_inputs(out_path, [pairs_path], option="--out")
    except OutputPathError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    if repeat > 1 or batch:
        # every sample of every pair, or the batch's whole request file, in memory
        # (spanproof.cli.verify_repeats); a single online or local judgement streams
        from spanproof.cli.verify_repeats import verify_repeats

        verify_repeats(pairs_path=pairs_path, judges=judges, policy=policy, out_path=out_path,
                       as_json=as_json, no_cache=no_cache, concurrency=concurrency,
                       skip_invalid=skip_invalid, repeat=repeat, batch=batch,
                       batch_poll=batch_poll, home=home, base_url=base_url,
                       api_key=api_key)  # fmt: skip
    try:
        scan = scan_pairs(pairs_path)
    except PairSetError as exc:
        scan = Scan(problems=[str(exc)])
    problems = scan.problems
    refuse_bad_pairs(pairs_path, problems, scan.count, skip_invalid=skip_invalid)

    endpoint = endpoint_settings(base_url, api_key, concurrency=concurrency)
    # verify records no run: the keys it used need not be kept (the gate keeps them)
    parts = Services(home, endpoint=endpoint, cache_verdicts=not no_cache, track_used=False)
    judge_objs = judges_or_exit(parts, judges)
    local = runs_locally(judges)
    if workers and workers > 1 and not local:
        click.echo(
            "error: --workers applies to local judges (rules, blind, scripted); a model "
            "judge's calls already run side by side in one process (--concurrency).",
            err=True,
        )
        sys.exit(2)
    if workers is None:
        workers = default_workers() if local and scan.count >= POOL_MIN_PAIRS else 1
    verifier = parts.verifier(judge_objs, concurrency=concurrency, policy=policy)
    pool = None
    if workers > 1:
        from spanproof.graders.verify_pool import PoolJudging

        pool = PoolJudging(
            list(judges), judge_objs, policy=policy, cache=parts.cache, workers=workers
        )

    rows = Rows(out_path, spool=as_json)
    tally = Tally(keep_for_metrics=scan.all_labelled)
    show_progress = not as_json and sys.stderr.isatty()
    finished = False
    try:
        run_async(
            _run(pairs_path, verifier, pool, rows, tally, scan.count, concurrency, show_progress),
            what="verification",
        )
        finished = True
    except WorkerCrashed as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    finally:
        if not finished:
            _say_stopped(rows, tally.n, scan.count)
    rows.commit()

    counters = pool.counters if pool is not None else counters_of(verifier)
    from spanproof.graders.rules.fitted import training_overlap

    from spanproof.cli.verify_run import stream_pairs

    overlap = training_overlap(judges, ((p.claim, p.span) for p, _ in stream_pairs(pairs_path)))
    fitted = overlap.model_dump() if overlap else None
    summary = {
        "pairs": scan.count,
        "invalid_lines": problems,
        "judges": list(judges),
        "policy": policy,
        "model_calls": counters.model_calls,
        "cache_hits": counters.cache_hits,
        "tokens": {"prompt": counters.prompt_tokens, "completion": counters.completion_tokens},
        # HTTP traffic of openai: judges: requests (retries included), retries and re-asks
        # counted apart, so "model calls" (pairs asked) is never mistaken for requests made.
        "http": _http_summary(
            counters.model_calls, counters.prompt_tokens + counters.completion_tokens
        ),
        "errors": tally.errors,
        "contains_instructions": tally.contains_instructions,
        "verdicts": tally.verdicts(),
        "metrics": tally.metrics(label_metrics),
        # what code proved (changing verdicts) and flagged (a person looks), against the
        # labels when the file has them (graders.audit_figures)
        "code_changes": tally.audit.changes().model_dump(),
        "flags": tally.audit.flags().model_dump(),
        "fitted_on": fitted,
        "out": str(out_path) if out_path else None,
    }
    if as_json:
        rows.echo_json(summary)
    else:
        click.echo(_human_summary(summary))
    rows.close()
    if tally.errors:
        every = tally.errors == tally.n
        click.echo(
            f"error: {tally.errors} of {tally.n} pairs got a judge error, not a verdict "
            f"(first: {(tally.first_error or '')[:200]}); they count as wrong in every figure "
            "above. "
            + (
                "No pair got a verdict: check the judge spec and its replies (--json shows "
                "each pair's error)."
                if every
                else "Rerun to retry them (answered pairs come from the cache)."
            ),
            err=True,
        )
        sys.exit(1)
    sys.exit(0)


def _say_stopped(rows: Rows, judged: int, total: int) -> None:
    """What a run that stopped half way kept: the rows written so far, the cached verdicts."""
    kept = rows.stop()
    rows.close()
    if not judged:
        return
    where = f"their rows are in {kept}; " if kept else ""
    click.echo(
        f"verify stopped after {judged} of {total} pairs: {where}rerun to finish (pairs "
        "already judged are answered from the verdict cache).",
        err=True,
    )


async def _run(
    pairs_path: Path,
    verifier,
    pool,
    rows: Rows,
    tally: Tally,
    total: int,
    concurrency: int,
    show_progress: bool,
) -> None:
    from functools import partial

    from spanproof.graders.verify_stream import stream_in_process

    if pool is not None:
        judging = pool.stream
    else:
        judging = partial(stream_in_process, verifier, window=max(64, 4 * concurrency))
    if not show_progress:
        await judge_file(pairs_path, judging, rows, tally)
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("verifying"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as progress:
        task = progress.add_task("verify", total=total)
        await judge_file(pairs_path, judging, rows, tally, lambda: progress.advance(task))
