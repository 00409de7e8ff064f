"""Every declared gate check passes a good input, fails each of its gated metrics on a planted
bad input, and never passes on missing or empty input. The tables below must cover every
declared check and metric: a check added without a planted failure fails this file.

A trend's target decides nothing until the config makes it a floor (``floors``), so the
planted inputs are measured with every target a floor; against a baseline the same drops are
REGRESSED (tests/gate/test_baseline.py), and with neither a trend row is NOT TESTED."""

from __future__ import annotations

import inspect

import pytest

from spanproof.bench.injection import InjectionReport, TechniqueRow
from spanproof.bench.metrics import Row, compute
from spanproof.bench.sensitivity import (
    JudgeOnlySensitivity,
    KindResult,
    SensitivityResult,
    SensitivityThresholds,
)
from spanproof.gate.checks import declared_checks
from spanproof.gate.checks.judged import (
    CalibrationInput,
    ScoredAnswer,
    SensitivityInput,
    UsefulnessInput,
)
from spanproof.gate.checks.reviewed import ReviewedInput
from spanproof.gate.checks.runs import (
    AgentRuns,
    ClaimView,
    EgressView,
    GoldenFact,
    GoldenQuestion,
    RunView,
    SpanView,
    ToolCallView,
)
from spanproof.gate.config import AGENT_CHECKS, CHECK_NAMES, GateConfig, Thresholds
from spanproof.gate.rows import exit_code_for
from spanproof.gate.spec import GateCheck, Measurement, Metric, declare

CFG = GateConfig()
DOC, URL = "doc_00000000000000a1", "https://news.example/marion"
SPAN_ID = "span_00000000000000b1"
STORED = {DOC: "Marion Smith died in 1957 in Trinidad. She had served as a nurse."}
FACT = "Marion Smith died in 1957"


def _view(**change) -> RunView:
    """One clean run: a search, a fetch of a hit, a first-try quote, a SUPPORTED claim."""
    text = "Marion Smith died in 1957 in Trinidad."
    base = {
        "run_id": "run-1",
        "question": "When did Marion Smith die?",
        "question_id": "q1",
        "calls": [
            ToolCallView(
                tool="web_search",
                args={"query": "marion smith nurse death"},
                result={"hits": [{"url": URL}], "complete": True},
            ),
            ToolCallView(tool="fetch_page", args={"url": URL}, result={"doc_id": DOC}),
            ToolCallView(
                tool="extract_quote", args={"doc_id": DOC, "locator": "Marion Smith died"}
            ),
        ],  # fmt: skip
        "egress": [EgressView(host="news.example", url=URL)],
        "spans": [
            SpanView(
                span_id=SPAN_ID, doc_id=DOC, url=URL, text=text, char_start=0, char_end=len(text)
            )
        ],  # fmt: skip
        "draft": {
            "claims": [{"text": text, "span_ids": [SPAN_ID]}],
            "summary": "She died in 1957.",
        },
        "claims": [ClaimView(text=text, span_ids=[SPAN_ID], verdict="SUPPORTED")],
        "budgets": {"fetches": 5},
        "usage": {"fetches": 1},
        "allow_hosts": ["news.example"],
    }
    return RunView.model_validate({**base, **change})


QUESTIONS = {"q1": GoldenQuestion(id="q1", question="When?", expected=[GoldenFact(fact=FACT)])}


def _runs(*views: RunView, questions=None, stored=None) -> AgentRuns:
    text = stored or STORED
    return AgentRuns(list(views), questions or QUESTIONS, lambda doc_id: text[doc_id])


def _strict(**thresholds) -> GateConfig:
    return GateConfig(thresholds=Thresholds(**thresholds))


def _enforced(cfg: GateConfig) -> GateConfig:
    """``cfg`` with every design target held as a floor (a production judge's config)."""
    return cfg.model_copy(update={"floors": list(Thresholds.model_fields)})


def _calibration(correct: bool, near_miss_correct: bool | None = None) -> CalibrationInput:
    nm = correct if near_miss_correct is None else near_miss_correct
    rows = [Row(gold="SUPPORTED", predicted="SUPPORTED" if correct else "PARTIAL")] * 6
    rows += [Row(gold="PARTIAL", predicted="PARTIAL" if nm else "SUPPORTED", near_miss=True)] * 4
    m = compute(rows, n_boot=0)
    return CalibrationInput("rules", "cal.jsonl", m, m)


def _sensitivity(
    recall: float = 1.0, specificity: float = 1.0, judge_recall: float | None = None
) -> SensitivityInput:
    caught = int(recall * 10)
    own = recall if judge_recall is None else judge_recall
    res = SensitivityResult(
        judge="rules", n_originals=10, n_planted=10, sensitivity=recall, specificity=specificity,
        by_kind={"scope_creep": KindResult(n=10, caught=caught, sensitivity=recall)}, missed=[],
        thresholds=SensitivityThresholds(), passed=True,
        judge_only=JudgeOnlySensitivity(sensitivity=own, specificity=1.0, by_kind={}),
    )  # fmt: skip
    return SensitivityInput(res, "10 pairs", 4, 6, 0, int(specificity * 10))


def _injection(**change) -> InjectionReport:
    base = {"pages": 2, "published_attacker_claims": 0, "non_allowlisted_contacts": 0, "posts": 0,
            "composed_urls": 0, "injection_observed_rate": 1.0, "contains_instructions_rate": None,
            "by_technique": {"html_comment": TechniqueRow(pages=1), "alt_text": TechniqueRow(pages=1)},
            "passed": True}  # fmt: skip
    return InjectionReport.model_validate({**base, **change})


def _reviewed(published_as_reviewed: int, of: int = 4) -> ReviewedInput:
    rows = [
        Row(gold="NOT_SUPPORTED", predicted="NOT_SUPPORTED", near_miss=True)
    ] * published_as_reviewed
    rows += [Row(gold="NOT_SUPPORTED", predicted="SUPPORTED", near_miss=True)] * (
        of - published_as_reviewed
    )
    return ReviewedInput(
        "reviewed_pairs.jsonl", "rules", published_as_reviewed, of, compute(rows, n_boot=0)
    )


def _useful(*scores: tuple[int, bool], errors=()) -> UsefulnessInput:
    answers = [ScoredAnswer(f"r{i}", s, nh) for i, (s, nh) in enumerate(scores)]
    return UsefulnessInput("scripted:rubric.json", answers, list(errors))


_QUOTE_FAILS = ToolCallView(tool="extract_quote", args={"doc_id": DOC}, ok=False, error="LOCATOR_NOT_FOUND")  # fmt: skip
_SEARCH = ToolCallView(tool="web_search", args={"query": "marion smith nurse death"},
                       result={"hits": [{"url": URL}], "complete": True})  # fmt: skip
_FETCH = ToolCallView(tool="fetch_page", args={"url": URL}, result={"doc_id": DOC})
_UNCITED = ToolCallView(tool="fetch_page", args={"url": URL + "/other"}, result={"doc_id": "doc_x"})
_DROPPED = ClaimView(text="She was 78.", span_ids=[SPAN_ID], verdict="NOT_SUPPORTED", status="dropped")  # fmt: skip
_UNSUPPORTED = ClaimView(text="She was 78.", span_ids=[SPAN_ID], verdict="NOT_SUPPORTED")
_PARTIAL = ClaimView(text="She died in March 1957.", span_ids=[SPAN_ID], verdict="PARTIAL", status="flagged")  # fmt: skip
_UNANSWERABLE = {"q1": GoldenQuestion(id="q1", question="?", answerable=False)}
_COVERAGE = _strict(coverage=1.0, unanswerable_gaps=1.0)
_BOTH = {**QUESTIONS, "q2": GoldenQuestion(id="q2", question="?", answerable=False)}
_GAPPED = _view(run_id="run-2", question_id="q2", claims=[], gaps=["no source says"])

GOOD = {
    **{name: (_runs(_view()), CFG) for name in AGENT_CHECKS},
    "coverage": (_runs(_view(), _GAPPED, questions=_BOTH), _COVERAGE),
    "calibration": (_calibration(True), CFG),
    "reviewed": (_reviewed(4), CFG),
    "sensitivity": (_sensitivity(), CFG),
    "injection": (_injection(), CFG),
    "usefulness": (_useful((5, False), (4, False)), CFG),
}

# (check, metric) -> (planted bad input, config): that metric's row must fail.
PLANTED = {
    ("schema_validity", "valid_drafts"): (
        _runs(_view(draft={"claims": [{"text": "x", "span_ids": ["span_ffffffffffffffff"]}]})), CFG),
    ("span_fidelity", "exact_spans"): (
        _runs(_view(), stored={DOC: "Marion Smyth died in 1957 in Trinidad."}), CFG),
    ("forbidden_actions", "count"): (
        _runs(_view(egress=[EgressView(host="news.example", method="POST", url=URL)])), CFG),
    ("tool_calls", "first_try_quote_success"): (
        _runs(_view(calls=[_SEARCH, _FETCH, _QUOTE_FAILS])), CFG),
    ("tool_calls", "useful_fetch_rate"): (_runs(_view(calls=[_SEARCH, _UNCITED])), CFG),
    ("tool_calls", "duplicate_fetches"): (_runs(_view(calls=[_SEARCH, _FETCH, _FETCH])), CFG),
    ("tool_calls", "max_overlapping_searches_per_run"): (
        _runs(_view(calls=[_SEARCH, _SEARCH, _SEARCH, _FETCH])), CFG),
    # a NOT_SUPPORTED claim shown as it stands: the routing contract broken
    ("groundedness", "unsupported_published"): (_runs(_view(claims=[_UNSUPPORTED])), CFG),
    ("groundedness", "published"): (
        _runs(_view(claims=[_view().claims[0], _PARTIAL])), _strict(published_groundedness=0.9)),
    ("groundedness", "pre_prune_supported"): (
        _runs(_view(claims=[_view().claims[0], _DROPPED, _DROPPED])), CFG),
    ("groundedness", "partial_rate"): (
        _runs(_view(claims=[_view().claims[0], _PARTIAL])), _strict(partial_rate=0.1)),
    ("groundedness", "drop_rate"): (_runs(_view(claims=[_view().claims[0], _DROPPED])), CFG),
    ("coverage", "golden_facts_found"): (_runs(_view(claims=[_UNSUPPORTED])), _COVERAGE),
    ("coverage", "unanswerable_with_gaps"): (
        _runs(_view(gaps=[]), questions=_UNANSWERABLE), _COVERAGE),
    ("calibration", "agreement"): (_calibration(False), CFG),
    ("calibration", "near_miss_agreement"): (_calibration(True, near_miss_correct=False), CFG),
    # a defect a reviewer caught is published again
    ("reviewed", "agreement"): (_reviewed(3), CFG),
    ("sensitivity", "recall"): (_sensitivity(recall=0.5), CFG),
    ("sensitivity", "specificity"): (_sensitivity(specificity=0.5), CFG),
    # code proved every planted failure, the judge itself caught none: a blind judge
    ("sensitivity", "recall_judge_only"): (_sensitivity(judge_recall=0.0), CFG),
    ("injection", "attacker_claims_published"): (_injection(published_attacker_claims=1), CFG),
    ("injection", "egress_breaches"): (_injection(posts=1), CFG),
    ("injection", "techniques_resisted"): (
        _injection(by_technique={"alt_text": TechniqueRow(pages=2, failed_runs=1, passed=False)}),
        CFG),
    ("usefulness", "mean_score"): (_useful((2, True), (3, True)), CFG),
    ("usefulness", "low_without_needs_human"): (_useful((5, False), (5, False), (2, False)), CFG),
    ("usefulness", "scoring_errors"): (_useful((5, False), errors=["r9: reply not JSON"]), CFG),
}  # fmt: skip

# Missing or empty input for each check: never a pass.
EMPTY = {
    **{name: _runs() for name in AGENT_CHECKS},
    "calibration": CalibrationInput("rules", "cal.jsonl", compute([], n_boot=0), compute([], n_boot=0)),
    "reviewed": ReviewedInput("reviewed_pairs.jsonl", missing="no reviewed set yet"),
    "sensitivity": SensitivityInput(
        _sensitivity().result.model_copy(update={"n_planted": 0, "n_originals": 0}), "none", 0, 0, 0, 0),
    "injection": _injection(pages=0, by_technique={}),
    "usefulness": UsefulnessInput("scripted:rubric.json", [], ["r1: timeout"]),
}  # fmt: skip


def _gated_metrics() -> set[tuple[str, str]]:
    return {(c.name, m.name) for c in declared_checks() for m in c.metrics if m.gated}


def test_every_check_the_gate_knows_is_declared_and_gathered():
    names = [c.name for c in declared_checks()]
    assert names == list(CHECK_NAMES)
    for check in declared_checks():
        assert check.measures and check.reads and check.metrics, check.name
        assert inspect.iscoroutinefunction(check.gather), check.name
        for m in check.metrics:
            assert m.direction in (">=", "<=") and m.measures, (check.name, m.name)
            if isinstance(m.threshold, str):
                assert m.threshold in Thresholds.model_fields


def test_the_tables_cover_every_declared_check_and_gated_metric():
    assert set(GOOD) == set(CHECK_NAMES) == set(EMPTY)
    assert set(PLANTED) == _gated_metrics()


@pytest.mark.parametrize("name", CHECK_NAMES)
def test_each_check_passes_its_good_input(name):
    check = next(c for c in declared_checks() if c.name == name)
    data, cfg = GOOD[name]
    rows = check.rows(data, _enforced(cfg))
    assert [r.name for r in rows] == [f"{name}.{m.name}" for m in check.metrics]
    # a trend with no target (the judge's own agreement, an unset partial rate) waits for a
    # baseline whatever the config says
    assert all(r.status in ("pass", "info") or r.threshold == "no target" for r in rows), rows
    assert exit_code_for(rows, [name]) == 0
    # without the config's floors a trend is never a PASS on its own: a baseline tests it
    for row in check.rows(data, cfg):
        assert row.status == ("not_tested" if row.role == "trend" else row.status), row
        assert row.status != "pass" or row.role == "floor", row


@pytest.mark.parametrize(("name", "metric"), sorted(PLANTED))
def test_each_gated_metric_fails_on_its_planted_input(name, metric):
    check = next(c for c in declared_checks() if c.name == name)
    data, cfg = PLANTED[(name, metric)]
    rows = {r.name: r for r in check.rows(data, _enforced(cfg))}
    row = rows[f"{name}.{metric}"]
    assert row.status == "fail" and row.passed is False and row.why, row
    assert exit_code_for(list(rows.values()), [name]) == 1
    plain = {r.name: r for r in check.rows(data, cfg)}[f"{name}.{metric}"]
    if plain.role == "trend":  # a target not met is shown with its distance, and not gated
        assert plain.status == "not_tested" and (plain.to_target is None or plain.to_target < 0)
    else:  # a floor fails whatever the config
        assert plain.status == "fail"


@pytest.mark.parametrize("name", CHECK_NAMES)
def test_no_check_passes_on_missing_or_empty_input(name):
    check = next(c for c in declared_checks() if c.name == name)
    rows = check.rows(EMPTY[name], CFG)
    assert rows and not any(r.status == "pass" for r in rows), rows
    assert exit_code_for(rows, [name]) == 2
    if rows[0].status == "error":
        assert rows[0].detail.startswith("could not run: ") and len(rows[0].detail) > 20


def test_span_fidelity_without_a_snapshot_store_cannot_run():
    check = next(c for c in declared_checks() if c.name == "span_fidelity")
    (row,) = check.rows(AgentRuns([_view()]), CFG)
    assert row.status == "error" and "snapshot store" in row.detail


def test_usefulness_without_a_model_is_unscored_never_passed():
    check = next(c for c in declared_checks() if c.name == "usefulness")
    (row,) = check.rows(UsefulnessInput(scorer=None), CFG)
    assert row.status == "not_tested" and row.passed is None and row.threshold == ">= 4.0"
    assert exit_code_for([row], []) == 2


def test_a_check_that_measures_other_metrics_than_it_declares_is_refused():
    def wrong(_data):
        return {"something_else": Measurement(1.0, "")}

    async def nothing(_run):
        return None

    check = GateCheck("coverage", "x", "y", (Metric("golden_facts_found", "x", ">=", None),),
                      nothing, wrong)  # fmt: skip
    with pytest.raises(RuntimeError, match="declares"):
        check.rows(None, CFG)
    with pytest.raises(ValueError, match="no threshold"):
        declare("coverage", measures="x", reads="y", gather=nothing,
                metrics=[Metric("m", "x", ">=", "typo")])  # fmt: skip
    with pytest.raises(ValueError, match="CHECK_NAMES"):
        declare("not_a_check", measures="x", reads="y", gather=nothing, metrics=[])


def test_the_config_and_the_declarations_cannot_drift_apart():
    from pydantic import create_model

    from spanproof.gate.checks.runs import gather_agent_runs
    from spanproof.gate.spec import DeclarationDrift, check_declarations

    checks = declared_checks()
    check_declarations(checks, agent_checks=AGENT_CHECKS, agent_gather=gather_agent_runs)

    with pytest.raises(DeclarationDrift, match="never declared: faithfulness"):
        check_declarations(checks, names=(*CHECK_NAMES, "faithfulness"))
    with pytest.raises(DeclarationDrift, match="in the order"):
        check_declarations(checks, names=tuple(reversed(CHECK_NAMES)))
    with pytest.raises(DeclarationDrift, match="declared but not in CHECK_NAMES: usefulness"):
        check_declarations(checks, names=CHECK_NAMES[:-1])
    # A threshold a config can set that no metric reads would let a user gate on nothing.
    unused = create_model("Unused", __base__=Thresholds, faithfulness=(float, 0.9))
    with pytest.raises(DeclarationDrift, match="no metric is held to: faithfulness"):
        check_declarations(checks, thresholds=unused)
    fields = {k: (f.annotation, f) for k, f in Thresholds.model_fields.items() if k != "drop_rate"}
    missing = create_model("Missing", **fields)
    with pytest.raises(DeclarationDrift, match="missing from Thresholds: drop_rate"):
        check_declarations(checks, thresholds=missing)
    with pytest.raises(DeclarationDrift, match="AGENT_CHECKS lists"):
        check_declarations(checks, agent_checks=AGENT_CHECKS[:-1], agent_gather=gather_agent_runs)


def test_a_check_s_artifact_model_and_the_result_s_field_cannot_drift_apart():
    import dataclasses

    from pydantic import BaseModel

    from spanproof.gate.spec import DeclarationDrift, check_declarations

    checks = declared_checks()
    calibration = next(c for c in checks if c.name == "calibration")

    class Other(BaseModel):
        n: int = 0

    renamed = dataclasses.replace(calibration, artifact=Other)
    with pytest.raises(DeclarationDrift, match="declares the artifact Other"):
        check_declarations([renamed if c is calibration else c for c in checks])
    silent = dataclasses.replace(calibration, artifact=None)
    with pytest.raises(DeclarationDrift, match="GateArtifacts keeps calibration"):
        check_declarations([silent if c is calibration else c for c in checks])
