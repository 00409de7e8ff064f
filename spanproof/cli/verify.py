"""`spanproof verify`: judge (claim, span) pairs from a JSONL file with one or more judges."""

from __future__ import annotations

import sys
from functools import partial
from pathlib import Path

import click
from spanproof.graders.pool_plan import POOL_MIN_PAIRS

from spanproof.cli.options import (
    HOME_HELP,
    SCRIPTED_FORMAT_HELP,
    endpoint_options,
    endpoint_settings,
    err,
    home_option,
    judge_specs,
    local_judges,
    model_options,
    run_async,
)
from spanproof.wire.batch import DEFAULT_MAX_OUTPUT_MB


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
window of pairs, not the file). Once a file has 1000 pairs or more, every core works (--workers
to choose): local judges (those declared local, e.g. rules) judge in one worker process per core; a model
judge's calls stay in this process and the code audit of its verdicts runs in the worker
processes while the calls are in flight. The rows are the same as in one process. A run stopped half way (Ctrl-C, --deadline) keeps the rows judged so
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
(Ctrl-C, SIGTERM, --deadline), even before the server's reply to the create came back, the
same command run again collects the same batch instead of submitting a new one. Only the
API's terminal statuses (completed, failed, expired, cancelled) end the wait; another status
is waited through with a note. The result files stream under --batch-max-output. A pair
whose line failed, that an expired or cancelled batch never ran, or that the batch answered
twice with different replies, is a judge error (exit 1; a rerun submits only those); a
batch the server refuses, a server without the Batch API, or result files over the cap,
exit 2. A batch cannot re-ask a malformed reply: such a pair's error says to run it again
without --batch.

\b
--repeat N: the verdict written for a pair is its least favourable sample (NOT_SUPPORTED <
PARTIAL < SUPPORTED; an error sample makes it an error), with the samples and "unstable".

"""
    + SCRIPTED_FORMAT_HELP,
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
    help=f"Judge spec: {judge_specs()}. Repeat for a panel.",
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
    help=f"Worker processes: judging with local judges ({local_judges()}), auditing a "
    f"model judge's verdicts. Default: one per core for {POOL_MIN_PAIRS} pairs or more, else 1.",
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
@click.option(
    "--batch-max-output",
    "batch_max_output_mb",
    default=DEFAULT_MAX_OUTPUT_MB,
    show_default=True,
    type=click.FloatRange(min=0, min_open=True),
    metavar="MB",
    help="Most megabytes a batch's result files may take (read as they stream); past it the "
    "command stops with exit 2 and the batch stays recorded for a rerun with a higher cap.",
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
    batch_max_output_mb: float,
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
    from spanproof.graders.audit_fork_server import end_fork_server, start_ahead

    # before the imports below (what judging needs, half a second): the fork server the audit
    # workers come from loads the audit meanwhile, on a core they leave idle
    ahead = repeat == 1 and not batch and start_ahead(judges, workers, pairs_path)
    from spanproof.bench.verify import VerifyFailed, VerifyRequest, verify_pairs
    from spanproof.cli.verify_output import (
        Terminal,
        echo_document,
        human_summary,
        judge_errors_message,
    )

    request = VerifyRequest(
        pairs=pairs_path, judges=judges, policy=policy, out=out_path, keep_rows=as_json,
        cache=not no_cache, concurrency=concurrency, skip_invalid=skip_invalid, workers=workers,
        repeat=repeat, batch=batch, batch_poll_s=batch_poll,
        batch_max_output_mb=batch_max_output_mb, home=home,
        endpoint=endpoint_settings(base_url, api_key, concurrency=concurrency),
    )  # fmt: skip
    terminal = Terminal(progress=not as_json and sys.stderr.isatty())
    try:
        outcome = verify_pairs(
            request, on_event=terminal, runner=partial(run_async, what="verification")
        )
    except VerifyFailed as exc:
        err(f"error: {exc}")
        if exc.stopped is not None:
            terminal(exc.stopped)
        sys.exit(2)
    finally:
        if ahead:  # ended with the audit's pool; here when the run stopped before it had one
            end_fork_server()
    summary = outcome.summary
    try:
        if as_json:
            echo_document(summary, outcome.results())
        else:
            click.echo(human_summary(summary))
    finally:
        outcome.close()
    if outcome.judge_errors:
        err(judge_errors_message(outcome))
        sys.exit(1)
    sys.exit(0)
