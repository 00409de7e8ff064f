"""What `verify` prints: its events on stderr (bad lines, a progress bar, batch notices, what
a stopped run kept), the readable summary, the --json document and the judge-error line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING

import click

from spanproof.bench.verify import (
    BadLines,
    JudgingEnded,
    JudgingStarted,
    Notice,
    PairJudged,
    Stopped,
    VerifyEvent,
    VerifyOutcome,
    VerifySummary,
)
from spanproof.cli.options import err
from spanproof.core.verdict import LABELS

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

SHOWN_BAD_LINES = 50


class Terminal:
    """The events on stderr; ``progress``: a bar while judging (on a terminal, without --json)."""

    def __init__(self, *, progress: bool) -> None:
        self.progress = progress
        self._bar: tuple[Progress, TaskID] | None = None  # the bar and its one task

    def __call__(self, event: VerifyEvent) -> None:
        match event:
            case BadLines(path=path, problems=problems):
                for p in problems[:SHOWN_BAD_LINES]:
                    err(f"{path}: {p}")
                if len(problems) > SHOWN_BAD_LINES:
                    err(f"... and {len(problems) - SHOWN_BAD_LINES} more bad lines")
            case JudgingStarted(total=total) if self.progress:
                self._start_bar(total)
            case PairJudged() if self._bar is not None:
                bar, task = self._bar
                bar.advance(task)
            case JudgingEnded() if self._bar is not None:
                self._bar[0].stop()
                self._bar = None
            case Notice(message=message):
                err(message)
            case Stopped(judged=judged, total=total, kept=kept, cached=cached) if judged:
                where = f"their rows are in {kept}; " if kept else ""
                again = ("pairs already judged are answered from the verdict cache" if cached
                         else "with --no-cache every pair is judged again")  # fmt: skip
                err(
                    f"verify stopped after {judged} of {total} pairs: {where}rerun to finish ({again})."
                )

    def _start_bar(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        bar = Progress(
            TextColumn("verifying"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
        )
        bar.start()
        self._bar = (bar, bar.add_task("verify", total=total))


def echo_document(summary: VerifySummary, results: Iterator[str] | None) -> None:
    """The summary as one JSON object, with the kept rows as its last key, ``results``: the
    same document as ``json.dumps({**summary, "results": rows})``, written a row at a time."""
    head = json.dumps(summary.document(), ensure_ascii=False)
    if results is None:
        click.echo(head)
        return
    click.echo(head[:-1] + ', "results": [', nl=False)
    for i, row in enumerate(results):
        click.echo((", " if i else "") + row, nl=False)
    click.echo("]}")


def judge_errors_message(outcome: VerifyOutcome) -> str:
    pairs = outcome.summary.pairs
    every = outcome.judge_errors == pairs
    return (
        f"error: {outcome.judge_errors} of {pairs} pairs got a judge error, not a verdict "
        f"(first: {(outcome.first_error or '')[:200]}); they count as wrong in every figure "
        "above. "
        + (
            "No pair got a verdict: check the judge spec and its replies (--json shows each "
            "pair's error)."
            if every
            else "Rerun to retry them (answered pairs come from the cache)."
        )
    )


def human_summary(s: VerifySummary) -> str:
    from tabulate import tabulate

    out = [
        f"{s.pairs} pairs judged by {' + '.join(s.judges)}"
        + (f" ({s.policy})" if len(s.judges) > 1 else ""),
        f"model calls: {s.model_calls}   cache hits: {s.cache_hits}   "
        f"tokens: {s.tokens.prompt} in / {s.tokens.completion} out   "
        f"judge errors: {s.errors}   spans with instructions: {s.contains_instructions}",
        "verdicts: " + ", ".join(f"{k} {v}" for k, v in s.verdicts.items()),
    ]
    if s.invalid_lines:
        out.append(f"skipped {len(s.invalid_lines)} invalid line(s)")
    for b in s.batch or []:
        out.append(
            f"batch for {b.judge}: "
            + (f"{b.batch_id} {b.status}{' (resumed)' if b.resumed else ''}, "
               f"{b.requests} requests, {b.failed} without a verdict"
               if b.batch_id else "nothing to submit (every pair was cached)")
        )  # fmt: skip
    m = s.metrics
    if s.fitted_on:
        out.append(s.fitted_on.warning())
    if m:
        rows = [
            [name, x.agreement, x.macro_f1, x.balanced_accuracy, x.kappa, x.errors]
            for x, name in ((m.audited, "final (after proofs)"), (m.judge_only, "judge only"))
        ]
        rep_n = s.repeats.n if s.repeats else None
        out.append(
            f"against labels (n={m.audited.n}"
            + (f": {s.pairs} pairs x {rep_n} repeats" if rep_n else "")
            + "):"
        )
        out.append(
            tabulate(
                rows,
                headers=[
                    "verdicts",
                    "agreement",
                    "macro-F1",
                    "bal. acc (S vs rest)",
                    "kappa",
                    "errors",
                ],
                tablefmt="simple",
                floatfmt=".3f",
                missingval="n/a",
            )  # fmt: skip
        )
        conf = m.confidence
        if conf:
            out.append(
                f"confidence: expected calibration error {conf.ece:.3f} over {conf.n} verdicts"
                + (f" ({conf.without} without a confidence)" if conf.without else "")
            )
        else:
            out.append("confidence: none (the judge gives no probability with its verdicts)")
        cols = [*LABELS, "ERROR"]
        table = [[g, *(m.audited.confusion[g][p] for p in cols)] for g in LABELS]
        out.append("final verdicts (after proofs), rows gold, columns verdict:")
        out.append(tabulate(table, headers=["label \\ verdict", *cols], tablefmt="simple"))
    from spanproof.bench.audit_figures import describe as audit_lines

    out += audit_lines(s.code_changes, s.flags)
    rep = s.repeats
    if rep:
        from spanproof.bench.repeats import describe

        if rep.agreement is not None:
            out.append(f"agreement of the final verdicts: {describe(rep.agreement)}")
        out.append(f"{rep.n} repeats: {len(rep.unstable)} unstable pair(s) (the verdict "
                   "changed between repeats)")  # fmt: skip
        for u in rep.unstable[:20]:
            out.append(f"  unstable {u.id}: {' / '.join(u.verdicts)} - {u.claim[:80]}")
    if not s.out:
        out.append("per-pair verdicts: pass --out FILE (JSONL) or --json")
    if s.out:
        out.append(f"verdicts written to {s.out}")
    return "\n".join(out)
