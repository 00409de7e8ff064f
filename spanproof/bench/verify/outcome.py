"""What a finished `verify` run hands back: its summary, its rows when kept, its judge errors."""

from __future__ import annotations

from collections.abc import Iterator

from spanproof.bench.verify.rows import Rows
from spanproof.bench.verify.summary import VerifySummary


class VerifyOutcome:
    """``judge_errors``: verdicts that are a judge's error instead of a verdict (every sample
    counted with --repeat), ``first_error`` the first of them. ``close()`` drops the kept rows."""

    def __init__(
        self, summary: VerifySummary, rows: Rows, *, judge_errors: int, first_error: str | None
    ) -> None:
        self.summary = summary
        self.judge_errors = judge_errors
        self.first_error = first_error
        self._rows = rows

    def results(self) -> Iterator[str] | None:
        """The verdict rows (JSON texts, in input order) when the request kept them, else None."""
        return self._rows.results() if self._rows.kept else None

    def close(self) -> None:
        self._rows.close()
