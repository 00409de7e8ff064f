"""One row of a gate run, what kind of figure it is, and the one status it ends with.

Every row is one of three roles (docs/gate-baseline.md):

- a **floor**: a contract that holds absolutely (span fidelity, schema validity, forbidden
  actions, unsupported claims published, injection; and any target the config lists in
  ``floors``). It PASSes or FAILs against its threshold, baseline or not;
- a **trend**: a measured figure that must not get significantly worse than the baseline
  (calibration, sensitivity, specificity, groundedness, tool use, coverage, reviewed pairs).
  Against a baseline it PASSes, is REGRESSED (significantly worse beyond the tolerance) or
  is NOT TESTED (too few items or clusters to see a drop, no paired outcomes, no baseline) —
  never PASS without a test. Its design target is shown with the distance to it and never
  decides the status unless the config makes it a floor;
- **info**: reported, never gated.

A check that cannot run is an ERROR row, never a made-up value. The exit code: 2 when a
required check could not run or nothing was tested at all; 1 when a row FAILed or
REGRESSED; else 0.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from spanproof.bench.paired_stats import PairedDifference, Power
from spanproof.core.figures import format_value

Status = Literal["pass", "fail", "regressed", "not_tested", "info", "error"]
Role = Literal["floor", "trend", "info"]

# The one word each status has, in every output (terminal, markdown, JUnit, HTML, JSON, viewer).
STATUS_WORDS: dict[str, str] = {
    "pass": "PASS",
    "fail": "FAIL",
    "regressed": "REGRESSED",
    "not_tested": "NOT TESTED",
    "info": "INFO",
    "error": "ERROR",
}
# Results recorded before statuses had one meaning each.
_OLDER_STATUSES = {"reported": "info", "unscored": "not_tested", "skipped": "not_tested"}

# Why a gate was stopped before its checks finished: the exit code it records and what the
# rows that did not finish say.
STOP_REASONS: dict[str, tuple[int, str]] = {
    "interrupt": (130, "interrupted (Ctrl-C)"),
    "terminate": (143, "stopped by SIGTERM"),
    "deadline": (2, "the gate's deadline was reached"),
}


class CheckRow(BaseModel):
    """One measurement and its status (module doc)."""

    name: str  # "<check>.<metric>", e.g. "tool_calls.first_try_quote_success"
    check: str
    role: Role = "floor"
    value: float | int | str | None = None
    # A floor's threshold (">= 1.000"); a trend's design target; "reported" for info.
    threshold: str | None = None
    # How far the value is from the target, in the direction that matters: negative is short
    # of it ("-0.193" when agreement is 0.707 against >= 0.900). None: no target, no value.
    to_target: float | None = None
    passed: bool | None = None  # None when nothing is gated on the row
    status: Status
    # Why the row is not a PASS, in one line (what failed, what regressed, why it was not
    # tested, why it could not run); empty for PASS and INFO. ``detail`` says what was measured.
    why: str = ""
    detail: str = ""
    # What broke a floor (a span id, a hostile page, a published claim), one line each.
    items: list[str] = Field(default_factory=list)
    seconds: float = 0.0
    # Against a baseline run (``gate --baseline``): the paired difference on the shared items.
    vs_baseline: PairedDifference | None = None
    # What the row's set can see: the smallest drop it catches against a baseline.
    power: Power | None = None

    @model_validator(mode="before")
    @classmethod
    def _older_results(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("status") in _OLDER_STATUSES:
            data = {**data, "status": _OLDER_STATUSES[data["status"]]}
        return data

    @property
    def word(self) -> str:
        return STATUS_WORDS[self.status]


def _met(value: float | int, op: Literal[">=", "<="], threshold: float | int) -> bool:
    return value >= threshold - 1e-12 if op == ">=" else value <= threshold + 1e-12


def _distance(value: Any, op: Literal[">=", "<="], target: float | int | None) -> float | None:
    if target is None or not isinstance(value, int | float):
        return None
    return round(float(value - target if op == ">=" else target - value), 6)


def gated_row(
    check: str,
    metric: str,
    value: float | int | None,
    op: Literal[">=", "<="],
    threshold: float | int | None,
    detail: str,
    *,
    role: Role = "floor",
    enforced: bool = False,
    items: list[str] | None = None,
) -> CheckRow:
    """A row of the given role (module doc). A floor (or a trend whose target the config
    ``enforced`` as a floor) is held to its threshold, and a None value fails it; a trend is
    NOT TESTED until a baseline compares it; a None threshold, or the info role, only reports."""
    name = f"{check}.{metric}"
    if role == "info" or (threshold is None and role == "floor"):
        return CheckRow(name=name, check=check, role="info", value=value, threshold="reported",
                        status="info", detail=detail)  # fmt: skip
    thr = "no target" if threshold is None else f"{op} {format_value(threshold)}"
    base = CheckRow(
        name=name, check=check, role=role, value=value, threshold=thr,
        to_target=_distance(value, op, threshold), status="not_tested", detail=detail,
        items=items or [],
    )  # fmt: skip
    if threshold is None or (role == "trend" and not enforced):
        return base
    if value is None:
        return base.model_copy(
            update={"status": "fail", "passed": False, "why": f"nothing to measure: {detail}"}
        )
    ok = _met(value, op, threshold)
    floor = "its floor" if role == "floor" else "its target, a floor by the config's `floors`"
    side = "under" if op == ">=" else "over"
    why = "" if ok else f"{format_value(value)} is {side} {floor} ({thr})"
    return base.model_copy(
        update={
            "status": "pass" if ok else "fail",
            "passed": ok,
            "why": why,
            "items": [] if ok else base.items,
        }  # fmt: skip
    )


def error_row(check: str, reason: str, metric: str = "run") -> CheckRow:
    return CheckRow(
        name=f"{check}.{metric}", check=check, threshold="could not run", passed=False, status="error",
        why=f"could not run: {reason}", detail=f"could not run: {reason}",
    )  # fmt: skip


def exit_code_for(rows: list[CheckRow], required: list[str]) -> int:
    """2 when a required check could not run, or when nothing was tested at all (no rows, or
    no row PASSed, FAILed or REGRESSED): a gate that checked nothing has not passed. Else 1
    when any row FAILed or REGRESSED, else 0."""
    if any(r.status == "error" and r.check in required for r in rows):
        return 2
    if not any(r.status in ("pass", "fail", "regressed") for r in rows):
        return 2
    return 1 if any(r.status in ("fail", "regressed") for r in rows) else 0
