"""A gate run compared with its baseline, row by row: the models the result records
(``spanproof.gate.baseline`` computes them)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from spanproof.bench.paired_stats import PairedDifference


class MovedItem(BaseModel):
    """One item whose outcome got worse against the baseline: what a person fixes."""

    id: str
    kind: str = ""
    near_miss: bool = False
    outcome: str  # the count that moved, e.g. "correct", "caught"
    before: tuple[int, int]  # (successes, trials) in the baseline
    after: tuple[int, int]  # and in this run
    before_verdicts: list[str] = Field(default_factory=list)
    after_verdicts: list[str] = Field(default_factory=list)
    claim: str = ""
    span: str = ""

    def line(self) -> str:
        was = "/".join(self.before_verdicts) or f"{self.before[0]}/{self.before[1]}"
        now = "/".join(self.after_verdicts) or f"{self.after[0]}/{self.after[1]}"
        tags = ", ".join(t for t in (self.kind, "near miss" if self.near_miss else "") if t)
        head = f"{self.id}" + (f" ({tags})" if tags else "")
        text = f"{head}: {self.outcome} {self.before[0]}/{self.before[1]} -> "
        text += f"{self.after[0]}/{self.after[1]} (was {was}, now {now})"
        if self.claim:
            text += f"; claim: {self.claim[:90]}"
        if self.span:
            text += f"; span: {self.span[:60]}…"
        return text


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
    moved: list[MovedItem] = Field(default_factory=list)  # items worse than in the baseline
    improved: int = 0  # items better than in the baseline


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
