"""What the summary of a streamed `verify` counts, one judged pair at a time."""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from spanproof.graders.verify_stream import Judged

from spanproof.bench.audit_figures import AuditTally
from spanproof.core.verdict import LABELS

Figures = TypeVar("Figures")


@dataclass(frozen=True, slots=True)
class JudgedFigures:
    """What the agreement figures read of a verdict (the error only as present or not)."""

    verdict: str
    judge_verdict: str | None
    error: str | None
    confidence: float | None


class Tally:
    """The summary's counts, built one judged pair at a time. For the agreement metrics each
    pair keeps five small numbers (a label, two verdicts, a confidence, an error flag), not
    its verdict: a few bytes a pair, however large the file."""

    _CODES: dict[str, int] = {label: i for i, label in enumerate(LABELS)}
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

    def metrics(
        self, label_metrics: Callable[[Sequence[str], Sequence[JudgedFigures]], Figures]
    ) -> Figures | None:
        """``label_metrics`` of every pair's label and verdict; None unless every pair has a
        label (and ``keep_for_metrics`` said to keep them)."""
        if not self.keep or not self._labels or len(self._labels) != self.n:
            return None
        labels = [LABELS[c] for c in self._labels]
        figures = [
            JudgedFigures(
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
