"""What a gate run keeps beside its rows, as typed models: each check's part (named in the
check's ``@declare(..., artifact=...)``), the per-item outcomes a baseline compares, and how
the run went. Reports, the viewer and baselines read these models, never string keys.

They sit below the checks (which fill them) and the run and result (which hold them), so
none of those imports another in a circle.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    model_serializer,
    model_validator,
)
from spanproof.agent.prices import RunCost
from spanproof.graders.batch_judge import BatchSummary

from spanproof.bench.audit_figures import CodeChanges, FlagFigures
from spanproof.bench.metrics import Reliability
from spanproof.bench.outcomes import GateOutcomes, OutcomeSet
from spanproof.bench.repeats import RepeatsNote
from spanproof.gate.comparison import BaselineReport
from spanproof.gate.estimate import SpendEstimate
from spanproof.wire.client import WireCounters

# ---------------------------------------------------------------- each check's part


class JudgedItem(BaseModel):
    """One judged pair as the gate result keeps it: the viewer lists the pairs behind a figure."""

    id: str
    kind: str = ""
    near_miss: bool = False
    claim: str
    span: str
    label: str | None = None
    verdict: str  # the final verdict, or "ERROR"
    unsupported_element: str | None = None
    quote_used: str | None = None
    fired: list[str] = Field(default_factory=list)
    judge_verdict: str | None = None
    proofs: list[str] = Field(default_factory=list)
    flags: list[str] = Field(default_factory=list)
    error: str | None = None


class MissedItem(JudgedItem):
    """A planted failure the grader let through, with the good pair it was planted on."""

    original_id: str


class JudgeOnlyAgreement(BaseModel):
    agreement: float | None = None
    near_miss: float | None = None


class JudgeCalibration(BaseModel):
    """One judge's calibration figures: the confusion matrix (gold label by row, verdict by
    column) after the audit, the judge's own agreement before it, and what code changed."""

    matrix: list[list[int]]
    agreement: float | None = None
    near_miss: float | None = None
    judge_only: JudgeOnlyAgreement = Field(default_factory=JudgeOnlyAgreement)
    reliability: Reliability | None = None
    code_changes: CodeChanges | None = None
    flags: FlagFigures | None = None


class CalibrationArtifact(BaseModel):
    """The calibration check's part: per judge, its figures, and each pair with its gold
    label and verdict (so the viewer can list the pairs behind any cell)."""

    labels: list[str] = Field(default_factory=list)
    columns: list[str] = Field(default_factory=list)
    judges: dict[str, JudgeCalibration] = Field(default_factory=dict)
    items: dict[str, list[JudgedItem]] = Field(default_factory=dict)


class ReviewedArtifact(BaseModel):
    """The reviewed check's part: each reviewed pair with the reviewer's label and the
    grader's verdict, per judge."""

    items: dict[str, list[JudgedItem]] = Field(default_factory=dict)


class SensitivityJudgeOnly(BaseModel):
    per_kind: dict[str, float] = Field(default_factory=dict)
    sensitivity: float | None = None
    specificity: float | None = None


class SensitivityArtifact(BaseModel):
    """The sensitivity check's part: caught per planted kind (final verdicts and the judge's
    own), specificity, how the good pairs were chosen, and the planted pairs missed."""

    judge: str = ""
    per_kind: dict[str, float] = Field(default_factory=dict)
    counts: dict[str, tuple[int, int]] = Field(default_factory=dict)  # kind -> (caught, planted)
    flag_only: dict[str, int] = Field(default_factory=dict)
    specificity: float | None = None
    judge_only: SensitivityJudgeOnly = Field(default_factory=SensitivityJudgeOnly)
    selection: str = ""
    excluded: int = 0
    mutator_failures: list[str] = Field(default_factory=list)
    missed: list[MissedItem] = Field(default_factory=list)


class TechniqueOutcome(BaseModel):
    cases: int
    attacker_claims: int
    hosts_contacted: int  # off-list hosts, non-GET requests and composed URLs
    failed_runs: int


class InjectionArtifact(BaseModel):
    """The injection check's part: what each technique's pages got through."""

    per_technique: dict[str, TechniqueOutcome] = Field(default_factory=dict)
    # page (fixture id, as `spanproof injection` names it) -> what it got through
    failing_pages: dict[str, str] = Field(default_factory=dict)


class UsefulnessArtifact(BaseModel):
    """The usefulness check's part: the rubric score of each answer, by run id."""

    scores: dict[str, int] = Field(default_factory=dict)
    errors: list[str] = Field(default_factory=list)


class RunGroundedness(BaseModel):
    """One golden question's run: its claims drafted, published and dropped, and the shares."""

    run_id: str
    question_id: str | None = None
    pre_prune: float | None = None
    post_prune: float | None = None
    drafted: int
    published: int
    dropped: int


class GroundednessArtifact(BaseModel):
    """The groundedness check's part: pre- and post-prune groundedness per run."""

    runs: list[RunGroundedness] = Field(default_factory=list)


class CostArtifact(BaseModel):
    """Each agent run's cost at the configured prices (the report's cost table)."""

    runs: list[RunCost] = Field(default_factory=list)


# ---------------------------------------------------------------- the run as a whole


class ModelTraffic(WireCounters):
    """Every model client of the gate's process: counters summed, and each endpoint described."""

    endpoints: list[str] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list)


class StopNote(BaseModel):
    reason: Literal["interrupt", "terminate", "deadline"]
    message: str


class ReplayNote(BaseModel):
    phases: dict[str, str]  # phase -> the gate run that computed it
    why: str


class NotRecorded(BaseModel):
    reason: str
    kept_in: str | None = None  # where the result was kept instead (None: nowhere)
    message: str = ""


class GateArtifacts(BaseModel):
    """What a gate run keeps beside its rows: the data behind the report's plots and tables,
    the per-item outcomes a baseline compares, and how the run went. Each check's part is the
    model declared beside that check (``spanproof/gate/checks/``); a part the run did not
    produce is None and left out of the JSON."""

    groundedness: GroundednessArtifact | None = None
    cost: CostArtifact | None = None
    calibration: CalibrationArtifact | None = None
    reviewed: ReviewedArtifact | None = None
    sensitivity: SensitivityArtifact | None = None
    injection: InjectionArtifact | None = None
    usefulness: UsefulnessArtifact | None = None
    judge_batch: list[BatchSummary] | None = None
    # per-item outcomes of every measured set (what ``--baseline`` compares, pair by pair)
    outcomes: GateOutcomes | None = None
    repeats: RepeatsNote | None = None
    baseline: BaselineReport | None = None
    model_traffic: ModelTraffic | None = None
    # the most a gate with models may spend, said before its agent runs (gate/estimate.py)
    cost_estimate: SpendEstimate | None = None
    stopped: StopNote | None = None
    replayed: ReplayNote | None = None
    # sha256 of each phase of the replay memo this run computed or replayed (spanproof/gate/
    # memo.py): a memo phase is replayed only when it agrees with the run that computed it
    memo: dict[str, str] | None = None
    # why a memo of this gate was found and not replayed (it disagrees with that run)
    memo_refused: str | None = None
    errors: list[str] | None = None  # tracebacks of the phases that failed
    not_recorded: NotRecorded | None = None

    # A part nobody declared is refused (a live object must never reach the stored result);
    # results recorded before the parts were typed said "interrupted" beside "stopped".
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _older_results(cls, data: Any) -> Any:
        if isinstance(data, dict) and "interrupted" in data:
            data = {k: v for k, v in data.items() if k != "interrupted"}
        return data

    @model_serializer(mode="wrap")
    def _without_absent_parts(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return {k: v for k, v in handler(self).items() if v is not None}

    def record_set(self, name: str, outcome_set: OutcomeSet) -> None:
        """Keep one measured set's per-item outcomes."""
        if self.outcomes is None:
            self.outcomes = GateOutcomes()
        self.outcomes.sets[name] = outcome_set
