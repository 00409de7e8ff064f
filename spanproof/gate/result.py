"""What a gate run reports: one CheckRow per thresholded metric, the GateResult, the exit code.

A check that cannot run is an ``error`` row, never a made-up value; the gate
exits 2 when such a check is required, 1 when any row fails, else 0.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, JsonValue

from spanproof.bench.paired_stats import PairedDifference, Power
from spanproof.core.evidence import utc_now_iso

Status = Literal["pass", "fail", "error", "reported", "unscored", "skipped"]

# Why a gate was stopped before its checks finished: the exit code it records and what the
# rows that did not finish say.
STOP_REASONS: dict[str, tuple[int, str]] = {
    "interrupt": (130, "interrupted (Ctrl-C)"),
    "terminate": (143, "stopped by SIGTERM"),
    "deadline": (2, "the gate's deadline was reached"),
}

# ---------------------------------------------------------------------------
# Result models


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


class GateResult(BaseModel):
    passed: bool
    exit_code: int
    checks: list[CheckRow]
    wall_s: float
    model_calls: int = 0
    cache_hits: int = 0
    started_at: str = Field(default_factory=utc_now_iso)
    gate_id: str = ""
    config_source: str = ""
    config_sha256: str = ""
    judge: str = ""
    policy: str = ""
    model: str | None = None
    judge_ids: list[str] = Field(default_factory=list)
    prompt_hashes: dict[str, str] = Field(default_factory=dict)
    phase_seconds: dict[str, float] = Field(default_factory=dict)
    phase_model_calls: dict[str, int] = Field(default_factory=dict)
    run_ids: list[str] = Field(default_factory=list)
    # The git branch gated (CI variables, else the checkout's branch): `--baseline last-passed`
    # looks for the newest passing run of it.
    git_branch: str | None = None
    ledgers: dict[str, str] = Field(default_factory=dict)  # run_id -> ledger path
    # Data behind the report plots; plain JSON (validated as such) so that saving the result
    # never meets a live object and the report never needs one.
    artifacts: dict[str, JsonValue] = Field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """The `--json` shape: passed, checks[name,value,threshold,passed,detail], wall_s, counters."""
        return {
            "passed": self.passed,
            "exit_code": self.exit_code,
            "checks": [
                {
                    k: r.model_dump()[k]
                    for k in ("name", "value", "threshold", "passed", "detail", "status")
                }
                for r in self.checks
            ],
            "wall_s": round(self.wall_s, 3),
            "model_calls": self.model_calls,
            "cache_hits": self.cache_hits,
            "model_calls_by_phase": self.phase_model_calls,
            "config_sha256": self.config_sha256,
            "gate_id": self.gate_id,
            # Against a baseline (--baseline) and over repeats (--repeat); absent otherwise.
            **({"baseline": self.artifacts["baseline"]} if "baseline" in self.artifacts else {}),
            **({"repeats": self.artifacts["repeats"]} if "repeats" in self.artifacts else {}),
            **(
                {"power": {r.name: r.power.model_dump() for r in self.checks if r.power}}
                if any(r.power for r in self.checks)
                else {}
            ),
        }


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
