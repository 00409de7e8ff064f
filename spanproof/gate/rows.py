"""One row of a gate run: a thresholded measurement, how rows are built from values and
thresholds, and the exit code a set of rows gives.

A check that cannot run is an ``error`` row, never a made-up value; the gate exits 2 when
such a check is required, 1 when any row fails, else 0.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from spanproof.bench.paired_stats import PairedDifference, Power

Status = Literal["pass", "fail", "error", "reported", "unscored", "skipped"]

# Why a gate was stopped before its checks finished: the exit code it records and what the
# rows that did not finish say.
STOP_REASONS: dict[str, tuple[int, str]] = {
    "interrupt": (130, "interrupted (Ctrl-C)"),
    "terminate": (143, "stopped by SIGTERM"),
    "deadline": (2, "the gate's deadline was reached"),
}


class CheckRow(BaseModel):
    """One thresholded measurement; ``passed`` is None when nothing is gated on it."""

    name: str  # "<check>.<metric>", e.g. "tool_calls.first_try_quote_success"
    check: str
    value: float | int | str | None = None
    threshold: str | None = None  # ">= 0.85", "<= 0", "reported", "none"
    passed: bool | None = None
    status: Status
    detail: str = ""
    seconds: float = 0.0
    # Against a baseline run (``gate --baseline``): the paired difference on the shared items.
    vs_baseline: PairedDifference | None = None
    # What the row's set can see: the smallest drop it catches against a baseline.
    power: Power | None = None


def format_value(value: float | int | None) -> str:
    if value is None:
        return "n/a"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def gated_row(
    check: str,
    metric: str,
    value: float | int | None,
    op: Literal[">=", "<="],
    threshold: float | int | None,
    detail: str,
) -> CheckRow:
    """A row compared with its threshold; a None threshold only reports; a None value fails."""
    name = f"{check}.{metric}"
    if threshold is None:
        return CheckRow(
            name=name,
            check=check,
            value=value,
            threshold="reported",
            status="reported",
            detail=detail,
        )
    thr = f"{op} {format_value(threshold)}"
    if value is None:
        return CheckRow(
            name=name, check=check, value=None, threshold=thr, passed=False, status="fail",
            detail=f"nothing to measure: {detail}",
        )  # fmt: skip
    ok = value >= threshold - 1e-12 if op == ">=" else value <= threshold + 1e-12
    return CheckRow(
        name=name,
        check=check,
        value=value,
        threshold=thr,
        passed=ok,
        status="pass" if ok else "fail",
        detail=detail,
    )


def error_row(check: str, reason: str, metric: str = "run") -> CheckRow:
    return CheckRow(
        name=f"{check}.{metric}", check=check, threshold="could not run", passed=False, status="error",
        detail=f"could not run: {reason}",
    )  # fmt: skip


def exit_code_for(rows: list[CheckRow], required: list[str]) -> int:
    """2 when a required check could not run, or when nothing was measured against a threshold
    at all (no rows, or every row an error / skipped / reported): a gate that checked nothing
    has not passed. Else 1 when any row failed, else 0."""
    if any(r.status == "error" and r.check in required for r in rows):
        return 2
    if not any(r.status in ("pass", "fail") for r in rows):
        return 2
    return 1 if any(r.status == "fail" for r in rows) else 0
