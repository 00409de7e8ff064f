"""A gate run compared with its baseline, row by row: the models the result records
(``spanproof.gate.baseline`` computes them)."""

from __future__ import annotations

from pydantic import BaseModel

from spanproof.bench.paired_stats import PairedDifference


class RowComparison(BaseModel):
    row: str
    compared: PairedDifference | None = None
    items_compared: int = 0
    trials_compared: int = 0  # this run's trials over the compared items (repeats count)
    items_new: int = 0  # in this run, not in the baseline
    items_gone: int = 0  # in the baseline, not in this run
    regressed: bool = False
    # False: too few clusters to ever be significant in this family (Tarone), never tested.
    testable: bool = True
    # The baseline measured this set but shares none of its items: the comparison that was
    # asked for cannot be made (the row could not run), never a silent pass.
    no_overlap: bool = False
    note: str = ""  # why the row was not compared


class BaselineReport(BaseModel):
    ref: str
    described: str
    gate_id: str
    tolerance: float
    alpha: float
    rows: list[RowComparison]

    @property
    def regressions(self) -> list[str]:
        return [r.row for r in self.rows if r.regressed]
