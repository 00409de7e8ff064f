"""`verify` on a pair file of any size: read twice, judge as a stream, write as it goes.

1. **Scan**: every line is checked (graders.pairs, one line at a time) and counted; a bad
   line stops the command before any judging unless --skip-invalid, as it always did.
2. **Judge**: the good pairs are read again and judged as a stream
   (graders.verify_stream in this process, graders.verify_pool on every core for local
   judges), results in input order.
3. **Write**: each verdict row goes out as soon as it is in order: into --out's temporary
   file (renamed over --out at the end), or, for --json without --out, into a spool file
   that follows the summary on stdout. Only a few figures per pair stay in memory, for the
   summary and the agreement metrics.

A run that stops half way (Ctrl-C, --deadline, a worker that died) keeps what finished: the
rows judged so far in ``<out>.partial``, and the verdicts in the cache, so a rerun answers
them from it and judges only the rest.
"""

from __future__ import annotations

import contextlib
import math
import tempfile
from array import array
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import click
from spanproof.graders.verify_stream import Judged, StreamPair

from spanproof.bench.audit_figures import AuditTally
from spanproof.bench.pairs import iter_pair_lines

LABELS = ("SUPPORTED", "PARTIAL", "NOT_SUPPORTED")
# Below this many pairs starting worker processes costs more than it saves.
POOL_MIN_PAIRS = 1000


@dataclass
class Scan:
    """Pass one: how many good pairs, what is wrong with the others, all labelled or not."""

    count: int = 0
    problems: list[str] = field(default_factory=list)
    labelled: int = 0

    @property
    def all_labelled(self) -> bool:
        return self.count > 0 and self.labelled == self.count


def scan_pairs(path: Path) -> Scan:
    scan = Scan()
    for _, pair, problem in iter_pair_lines(path):
        if problem is not None:
            scan.problems.append(problem)
        elif pair is not None:
            scan.count += 1
            scan.labelled += pair.label is not None
    return scan


def stream_pairs(path: Path) -> Iterator[tuple[StreamPair, str | None]]:
    """Pass two: each good pair as the judges see it, with its label (for the metrics)."""
    for _, pair, _problem in iter_pair_lines(path):
        if pair is None:
            continue
        source = pair.source or {}
        yield (
            StreamPair(
                pair.id, pair.claim, pair.span, source.get("url"), source.get("retrieved_at")
            ),  # fmt: skip
            pair.label,
        )


def refuse_bad_pairs(path: Path, problems: list[str], good: int, *, skip_invalid: bool) -> None:
    """Name the file's bad lines (at most 50) and stop (exit 2) unless --skip-invalid, and stop
    when no good pair is left: nothing is judged from a file that was not read as written."""
    import sys

    for p in problems[:50]:
        click.echo(f"{path}: {p}", err=True)
    if len(problems) > 50:
        click.echo(f"... and {len(problems) - 50} more bad lines", err=True)
    if problems and not skip_invalid:
        click.echo(f"error: {len(problems)} bad line(s) in {path}; fix them or pass "
                   "--skip-invalid. No pair was judged.", err=True)  # fmt: skip
        sys.exit(2)
    if not good:
        click.echo(f"error: no valid pairs in {path}; each line is a JSON object with non-empty "
                   '"claim" and "span" strings', err=True)  # fmt: skip
        sys.exit(2)


def judges_or_exit(parts: Any, specs: tuple[str, ...] | list[str]) -> list[Any]:
    """The judges for the specs, or exit 2 with the spec error (an unknown judge, a bad model)."""
    import sys

    from spanproof.core.specs import SpecError

    try:
        return parts.judges(specs)
    except SpecError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


# ---------------------------------------------------------------- what the summary counts


@dataclass(frozen=True, slots=True)
class _Figures:
    """What graders.calibration.figures reads of a verdict (the error only as present or not)."""

    verdict: str
    judge_verdict: str | None
    error: str | None
    confidence: float | None


class Tally:
    """The summary's counts, built one judged pair at a time. For the agreement metrics each
    pair keeps five small numbers (a label, two verdicts, a confidence, an error flag), not
    its verdict: a few bytes a pair, however large the file."""

    _CODES = {label: i for i, label in enumerate(LABELS)}
    _NONE = len(LABELS)

    def __init__(self, *, keep_for_metrics: bool) -> None:
        self.n = 0
        self.counts: Counter[str] = Counter()
        self.errors = 0
        self.first_error: str | None = None
        self.contains_instructions = 0
        self.keep = keep_for_metrics
        self._labels = bytearray()
        self._verdicts = bytearray()
        self._judge_verdicts = bytearray()
        self._failed = bytearray()
        self._confidence = array("d")
        self.audit = AuditTally()

    def add(self, j: Judged, label: str | None) -> None:
        self.n += 1
        self.audit.add(label, j.verdict, j.judge_verdict, j.error is not None, j.proof_kinds,
                       j.flag_kinds)  # fmt: skip
        self.counts[j.verdict] += 1
        if j.error:
            self.errors += 1
            self.first_error = self.first_error or j.error
        self.contains_instructions += j.contains_instructions
        if self.keep and label is not None:
            code = self._CODES
            self._labels.append(code[label])
            self._verdicts.append(code[j.verdict])
            self._judge_verdicts.append(code.get(j.judge_verdict or "", self._NONE))
            self._failed.append(j.error is not None)
            self._confidence.append(math.nan if j.confidence is None else j.confidence)

    def metrics(self, label_metrics: Callable[[list[str], list], dict]) -> dict[str, Any] | None:
        if not self.keep or not self._labels or len(self._labels) != self.n:
            return None
        labels = [LABELS[c] for c in self._labels]
        figures = [
            _Figures(
                LABELS[v],
                LABELS[jv] if jv != self._NONE else None,
                "judge error" if failed else None,
                None if math.isnan(conf) else conf,
            )
            for v, jv, failed, conf in zip(
                self._verdicts, self._judge_verdicts, self._failed, self._confidence, strict=True
            )
        ]
        return label_metrics(labels, figures)

    def verdicts(self) -> dict[str, int]:
        return {label: self.counts.get(label, 0) for label in LABELS}


# ---------------------------------------------------------------- where the rows go


class Rows:
    """Where verdict rows go: --out (atomically), a spool for --json, or nowhere."""

    def __init__(self, out_path: Path | None, *, spool: bool) -> None:
        from spanproof.core.files import AtomicWriter

        self.out_path = out_path
        self.written = 0
        self._out = AtomicWriter(out_path) if out_path else None
        self._spool: TextIO | None = (
            tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")  # noqa: SIM115 (close())
            if spool and not out_path
            else None
        )

    def add(self, row: str) -> None:
        if self._out is not None:
            self._out.write(row + "\n")
        elif self._spool is not None:
            self._spool.write(row + "\n")
        self.written += 1

    def commit(self) -> None:
        if self._out is not None:
            self._out.commit()

    def stop(self) -> Path | None:
        """The run stopped: keep what was written as ``<out>.partial``; None without --out."""
        if self._out is None:
            return None
        if not self.written:
            self._out.abandon()
            return None
        assert self.out_path is not None
        return self._out.abandon(keep_as=self.out_path.with_name(self.out_path.name + ".partial"))

    def echo_json(self, summary: dict[str, Any]) -> None:
        """``summary`` with the spooled rows as its last key, ``results``: the same document
        as ``json.dumps({**summary, "results": rows})``, written a row at a time."""
        import json

        head = json.dumps(summary, ensure_ascii=False)
        if self._spool is None:
            click.echo(head)
            return
        click.echo(head[:-1] + ', "results": [', nl=False)
        self._spool.seek(0)
        for i, line in enumerate(self._spool):
            click.echo((", " if i else "") + line.rstrip("\n"), nl=False)
        click.echo("]}")

    def close(self) -> None:
        if self._spool is not None:
            with contextlib.suppress(OSError):
                self._spool.close()


# ---------------------------------------------------------------- judging the file


async def judge_file(
    path: Path,
    judging: Callable[[Iterator[StreamPair]], Any],
    rows: Rows,
    tally: Tally,
    advance: Callable[[], None] | None = None,
) -> None:
    """Judge every good pair of ``path`` through ``judging`` (an async iterator of Judged in
    input order), writing each row and counting it as it comes."""
    from collections import deque

    labels: deque[str | None] = deque()

    def pairs() -> Iterator[StreamPair]:
        for pair, label in stream_pairs(path):
            labels.append(label)
            yield pair

    async with contextlib.aclosing(judging(pairs())) as results:
        async for j in results:
            rows.add(j.row)
            tally.add(j, labels.popleft())
            if advance is not None:
                advance()
