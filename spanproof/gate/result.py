"""What a gate run reports: its rows (``spanproof.gate.rows``), the figures behind its
report (the artifacts) and how it ran."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from spanproof.core.evidence import utc_now_iso
from spanproof.gate.artifacts import GateArtifacts
from spanproof.gate.rows import CheckRow
from spanproof.gate.subset import SUBSET_EXIT, Subset

Outcome = Literal["PASSED", "PASSED A SUBSET", "FAILED", "REGRESSED", "COULD NOT RUN", "STOPPED"]


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
    artifacts: GateArtifacts = Field(default_factory=GateArtifacts)
    # The checks a quick loop (--only / --skip) left out: never a full pass (spanproof/gate/subset.py)
    subset: Subset | None = None

    @property
    def outcome(self) -> Outcome:
        """The gate's one word: a floor broken wins over a regression, which wins over a pass;
        a gate that could not run or was stopped says so."""
        if self.exit_code in (130, 143) or self.artifacts.stopped is not None:
            return "STOPPED"
        if self.exit_code == 2:
            return "COULD NOT RUN"
        if any(r.status == "fail" for r in self.checks):
            return "FAILED"
        if any(r.status == "regressed" for r in self.checks):
            return "REGRESSED"
        if self.exit_code == SUBSET_EXIT and self.subset is not None:
            return "PASSED A SUBSET"
        return "PASSED" if self.exit_code == 0 else "FAILED"

    def public(self) -> dict[str, Any]:
        """The `--json` shape: the outcome and exit code, each row (its status word, role,
        value, threshold or target, distance to target, why it is not a PASS, what broke it),
        the counters, and the baseline comparison with the items that moved."""
        return {
            "outcome": self.outcome,
            "passed": self.passed,
            "exit_code": self.exit_code,
            "checks": [
                {
                    "name": r.name,
                    "status": r.word,
                    "role": r.role,
                    "value": r.value,
                    "threshold": r.threshold,
                    "to_target": r.to_target,
                    "passed": r.passed,
                    "why": r.why,
                    "detail": r.detail,
                    "items": r.items,
                }
                for r in self.checks
            ],
            "wall_s": round(self.wall_s, 3),
            "model_calls": self.model_calls,
            "cache_hits": self.cache_hits,
            "model_calls_by_phase": self.phase_model_calls,
            "config_sha256": self.config_sha256,
            "gate_id": self.gate_id,
            # A quick loop's subset (--only / --skip): what it left out; absent for a full gate.
            **(
                {"left_out": self.subset.left_out, "subset": self.subset.asked}
                if self.subset
                else {}
            ),  # fmt: skip
            # Against a baseline (--baseline) and over repeats (--repeat); absent otherwise.
            **(
                {"baseline": self.artifacts.baseline.model_dump(mode="json")}
                if self.artifacts.baseline
                else {}
            ),
            **(
                {"repeats": self.artifacts.repeats.model_dump(mode="json")}
                if self.artifacts.repeats
                else {}
            ),
            **(
                {"power": {r.name: r.power.model_dump() for r in self.checks if r.power}}
                if any(r.power for r in self.checks)
                else {}
            ),
        }
