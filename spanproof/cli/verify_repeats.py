"""`verify --repeat N` and `verify --batch`: every pair judged N times, or sent as one Batch
API job, in memory.

Sampling a judge that is not deterministic keeps all N verdicts of every pair (each cached
under its repeat index), lists the pairs whose verdict changes and reports agreement as the
mean over the repeats with its spread. A batch (spanproof.cli.verify_batch) submits every
uncached pair in one request file. Both hold the file's pairs and their verdicts in memory; a
single online or local judgement (the default) streams instead (spanproof.cli.verify_run).
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import click

from spanproof.bench.pairs import PairSetError, read_pair_lines
from spanproof.core.verdict import Pair

LABELS = ("SUPPORTED", "PARTIAL", "NOT_SUPPORTED")


class PairLine:
    """A pair as verify uses it: id, claim, span, label, and where the span came from."""

    def __init__(self, line_no: int, pair: Pair) -> None:
        self.line_no = line_no
        self.id = pair.id
        self.claim = pair.claim
        self.span = pair.span
        self.label: str | None = pair.label
        source = pair.source or {}
        self.url = source.get("url")
        self.retrieved_at = source.get("retrieved_at")


def read_pairs(path: Path) -> tuple[list[PairLine], list[str]]:
    """Every valid pair, and one message per bad line (with its line number): the one pair-file
    reader (spanproof/bench/pairs.py), which caps claims and spans."""
    try:
        good, problems = read_pair_lines(path)
    except PairSetError as exc:
        return [], [str(exc)]
    return [PairLine(n, pair) for n, pair in good], problems


def verify_repeats(
    *,
    pairs_path: Path,
    judges: tuple[str, ...],
    policy: str,
    out_path: Path | None,
    as_json: bool,
    no_cache: bool,
    concurrency: int,
    skip_invalid: bool,
    repeat: int,
    batch: bool,
    batch_poll: float,
    home: str | None,
    base_url: str | None,
    api_key: str | None,
) -> None:
    from spanproof.agent.services import Services

    from spanproof.cli.options import endpoint_settings, run_async
    from spanproof.cli.verify_run import judges_or_exit, refuse_bad_pairs
    from spanproof.cli.verify_summary import _http_summary, _human_summary, label_metrics
    from spanproof.core.files import write_atomic
    from spanproof.core.verdict import SpanRef

    pairs, problems = read_pairs(pairs_path)
    refuse_bad_pairs(pairs_path, problems, len(pairs), skip_invalid=skip_invalid)

    endpoint = endpoint_settings(base_url, api_key, concurrency=concurrency)
    parts = Services(home, endpoint=endpoint, cache_verdicts=not no_cache)
    judge_objs = judges_or_exit(parts, judges)
    verifier = parts.verifier(judge_objs, concurrency=concurrency, policy=policy)
    items = [
        (p.claim, SpanRef(text=p.span, url=p.url, retrieved_at=p.retrieved_at), p.id) for p in pairs
    ]

    show_progress = not as_json and sys.stderr.isatty()
    run = _run_repeats(verifier, items, show_progress, repeat)
    batched: list = []
    if batch:
        from spanproof.cli.verify_batch import batch_then

        run = batch_then(verifier, items, run, home, batch_poll, batched, repeats=repeat)
    samples = run_async(run, what="verification")
    verdicts = samples[0]

    rows = [{"id": p.id, **v.model_dump(mode="json")} for p, v in zip(pairs, verdicts, strict=True)]
    if repeat > 1:
        for i, row in enumerate(rows):
            row["samples"] = [s[i].verdict if s[i].error is None else "ERROR" for s in samples]
    labelled = [(p.label, v) for p, v in zip(pairs, verdicts, strict=True) if p.label]
    metrics = None
    if labelled and len(labelled) == len(pairs):
        golds = [p.label for _ in samples for p in pairs]
        metrics = label_metrics(golds, [v for s in samples for v in s])  # each sample counts once
    counts = Counter(v.verdict for v in verdicts)
    from spanproof.graders.rules.fitted import training_overlap

    from spanproof.bench.audit_figures import code_changes, flag_figures

    labels = [p.label for p in pairs]
    overlap = training_overlap(judges, [(p.claim, p.span) for p in pairs])
    fitted = overlap.model_dump() if overlap else None
    summary = {
        "pairs": len(pairs),
        "invalid_lines": problems,
        "judges": list(judges),
        "policy": policy,
        "model_calls": verifier.model_calls,
        "cache_hits": verifier.cache_hits,
        "tokens": {"prompt": verifier.prompt_tokens, "completion": verifier.completion_tokens},
        "http": _http_summary(
            verifier.model_calls, verifier.prompt_tokens + verifier.completion_tokens
        ),
        "errors": sum(1 for v in verdicts if v.error),
        "contains_instructions": sum(1 for v in verdicts if v.contains_instructions),
        "verdicts": {label: counts.get(label, 0) for label in LABELS},
        "metrics": metrics,
        # what code proved (changing verdicts) and flagged (a person looks), against the
        # labels when the file has them (graders.audit_figures)
        "code_changes": code_changes(labels, verdicts).model_dump(),
        "flags": flag_figures(labels, verdicts).model_dump(),
        "fitted_on": fitted,
        "out": str(out_path) if out_path else None,
    }
    if repeat > 1:
        summary["repeats"] = _repeat_summary(pairs, samples, bool(metrics))
    if batch:
        summary["batch"] = [b.model_dump() for b in batched]

    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    if out_path:
        write_atomic(out_path, lines)
    if as_json:
        if not out_path:
            summary["results"] = rows
        click.echo(json.dumps(summary, ensure_ascii=False))
    else:
        click.echo(_human_summary(summary))
    errors = [v.error for s in samples for v in s if v.error]
    if errors:
        every = len(errors) == len(verdicts)
        click.echo(
            f"error: {len(errors)} of {len(verdicts)} pairs got a judge error, not a verdict "
            f"(first: {errors[0][:200]}); they count as wrong in every figure above. "
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


async def _run_repeats(verifier, items, show_progress: bool, repeat: int):
    """One list of verdicts per repeat (each repeat cached under its own key)."""
    out = [await _run(verifier, items, show_progress)]
    for r in range(1, repeat):
        out.append(await verifier.verify_many(items, repeat=r))
    return out


def _repeat_summary(pairs, samples, labelled: bool) -> dict[str, Any]:
    from spanproof.bench.repeats import spread, unstable_pairs

    unstable = unstable_pairs("pairs", pairs, samples)
    out: dict[str, Any] = {
        "n": len(samples),
        "unstable": [u.model_dump(exclude={"set"}) for u in unstable],
    }
    if labelled:
        out["agreement"] = spread(
            [sum(v.error is None and v.verdict == p.label for p, v in zip(pairs, s, strict=True))
             / len(pairs) for s in samples]
        ).model_dump()  # fmt: skip
    return out


async def _run(verifier, items, show_progress: bool):
    if not show_progress:
        return await verifier.verify_many(items)
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
        task = progress.add_task("verify", total=len(items))
        return await verifier.verify_many(items, progress=lambda _i, _v: progress.advance(task))
