"""`gate --baseline`: rows compared pair by pair with an earlier run, each row's power, and every
way a baseline can fail to exist (exit 2, never a comparison with nothing)."""

from __future__ import annotations

import json
import uuid

import pytest
from click.testing import CliRunner

from spanproof.bench import outcomes as gate_outcomes
from spanproof.bench.outcomes import GateOutcomes, OutcomeItem, OutcomeSet
from spanproof.cli.gate import gate
from spanproof.gate.artifacts import GateArtifacts
from spanproof.gate.baseline import (
    Baseline,
    BaselineError,
    apply,
    load_file,
    resolve,
    save_file,
)
from spanproof.gate.config import GateConfig
from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow
from spanproof.gate.store import GateStore
from spanproof.store import open_store

# A gate that judges only the calibration set, with thresholds the rules judge clears: the
# exit code then says what the baseline adds.
LENIENT = """
checks = ["calibration"]
required = ["calibration"]
[thresholds]
calibration_agreement = 0.5
calibration_near_miss = 0.5
"""


def _set(outcome: str, flags: list[int], clusters: list[str] | None = None, **kw) -> OutcomeSet:
    clusters = clusters or [f"c{i}" for i in range(len(flags))]
    return OutcomeSet(source="test", items=[
        OutcomeItem(key=f"k{i}", id=f"p{i}", cluster=clusters[i], counts={outcome: (f, 1)}, **kw)
        for i, f in enumerate(flags)
    ])  # fmt: skip


def _result(cal: OutcomeSet) -> GateResult:
    """A measured trend row, not yet tested: what the gate hands to the baseline."""
    outcomes = GateOutcomes(sets={"calibration": cal})
    value = gate_outcomes.figure(outcomes, gate_outcomes.FIXED_ROWS[0])
    row = CheckRow(name="calibration.agreement", check="calibration", role="trend", value=value,
                   threshold=">= 0.500", status="not_tested")  # fmt: skip
    return GateResult(passed=False, exit_code=2, checks=[row], wall_s=0.0, gate_id=str(uuid.uuid4()),
                      artifacts={"outcomes": outcomes.model_dump(mode="json")})  # fmt: skip


def _baseline(cal: OutcomeSet) -> Baseline:
    return Baseline(ref="t", described="the test baseline", gate_id="base",
                    outcomes=GateOutcomes(sets={"calibration": cal}))  # fmt: skip


CFG = GateConfig(checks=["calibration"], required=["calibration"])


def test_a_significant_drop_beyond_the_tolerance_fails_a_row_that_passes_its_threshold():
    before = [1] * 80 + [0] * 20
    after = [0] * 12 + [1] * 68 + [0] * 20  # 12 pairs lost, none gained: 0.80 -> 0.68
    result = _result(_set("correct", after))
    apply(result, CFG, _baseline(_set("correct", before)), ["calibration"])
    (row,) = result.checks
    assert row.status == "regressed" and result.exit_code == 1 and not result.passed
    assert row.vs_baseline.diff == pytest.approx(-0.12)
    assert row.vs_baseline.p_worse == pytest.approx(0.5**12)  # exact McNemar, 12 vs 0
    assert row.vs_baseline.test == "exact McNemar"
    assert "REGRESSED" in row.detail and "12 items worse, 0 better" in row.why
    compared = result.artifacts.baseline.rows[0]
    assert compared.regressed is True
    # the items that moved are named, worst first: exactly the 12 lost pairs
    assert [m.id for m in compared.moved] == sorted(f"p{i}" for i in range(12))
    assert all(m.before == (1, 1) and m.after == (0, 1) for m in compared.moved)


def test_noise_and_small_drops_do_not_fail_a_row():
    before = [1] * 80 + [0] * 20
    noisy = [0] * 3 + [1] * 77 + [1] * 2 + [0] * 18  # 3 lost, 2 gained
    result = _result(_set("correct", noisy))
    apply(result, CFG, _baseline(_set("correct", before)), ["calibration"])
    assert result.checks[0].status == "pass" and result.exit_code == 0
    # significant but within the tolerance: 4 of 400 lost is a drop of 0.01 < 0.02
    big_before = [1] * 400
    big_after = [0] * 4 + [1] * 396
    loose = GateConfig(checks=["calibration"], required=["calibration"],
                       regression={"tolerance": 0.02, "alpha": 0.1})  # fmt: skip
    result = _result(_set("correct", big_after))
    apply(result, loose, _baseline(_set("correct", big_before)), ["calibration"])
    assert result.checks[0].vs_baseline.p_worse < 0.1 and result.checks[0].status == "pass"


def test_pairs_of_one_page_count_as_one_cluster():
    # The 12 lost pairs all come from two pages: two moved clusters cannot be significant.
    before = [1] * 80 + [0] * 20
    after = [0] * 12 + [1] * 68 + [0] * 20
    clusters = ["pageA"] * 6 + ["pageB"] * 6 + [f"c{i}" for i in range(88)]
    result = _result(_set("correct", after, clusters))
    apply(result, CFG, _baseline(_set("correct", before, clusters)), ["calibration"])
    assert result.checks[0].status != "regressed"
    assert result.checks[0].vs_baseline.p_worse == pytest.approx(0.25)


def test_a_baseline_that_shares_no_item_cannot_be_compared():
    before = _set("correct", [1] * 50)
    after = OutcomeSet(source="t", items=[i.model_copy(update={"key": "new" + i.key})
                                          for i in _set("correct", [1] * 50).items])  # fmt: skip
    result = _result(after)
    apply(result, CFG, _baseline(before), ["calibration"])
    assert result.checks[0].status == "error" and result.exit_code == 2
    assert "none of its 50 items is in the baseline" in result.checks[0].why
    # a baseline that measured nothing this run measures: one error row, exit 2
    result = _result(_set("correct", [1] * 50))
    other = Baseline(ref="t", described="the test baseline", gate_id="b", outcomes=GateOutcomes(
        sets={"groundedness": _set("supported", [1, 1])}))  # fmt: skip
    apply(result, CFG, other, ["calibration"])
    assert result.exit_code == 2 and result.checks[-1].name == "baseline.run"


def test_every_row_with_outcomes_states_what_it_can_see():
    result = _result(_set("correct", [1] * 80 + [0] * 19))
    apply(result, CFG, None, ["calibration"])
    power = result.checks[0].power
    assert power is not None and power.n_items == 99
    # 99 independent pairs, a repeatable judge: about 0.06 at 5% one-sided, 80% power
    assert 0.05 < power.min_detectable < 0.08
    assert power.items_for_target > 99  # 99 pairs cannot see the 5-point drop
    assert "sees a drop of >=" in result.checks[0].detail


def test_sensitivity_per_kind_rows_and_tarone_leave_out_tiny_kinds():
    planted = OutcomeSet(source="t", items=[
        OutcomeItem(key=f"k{i}", id=f"p{i}", cluster=f"c{i}", kind="big" if i < 60 else "tiny",
                    near_miss=True, counts={"caught": (1, 1)})
        for i in range(63)
    ])  # fmt: skip
    outcomes = GateOutcomes(sets={"sensitivity_planted": planted})
    row = CheckRow(name="sensitivity.recall", check="sensitivity", role="trend", value=1.0,
                   threshold=">= 0.9", status="not_tested")  # fmt: skip
    result = GateResult(passed=True, exit_code=0, checks=[row], wall_s=0, gate_id="g",
                        artifacts={"outcomes": outcomes.model_dump(mode="json")})  # fmt: skip
    worse = planted.model_copy(deep=True)
    for item in worse.items[:10]:
        item.counts["caught"] = (0, 1)
    result.artifacts.outcomes = GateOutcomes(sets={"sensitivity_planted": worse})
    cfg = GateConfig(checks=["sensitivity"], required=["sensitivity"])
    apply(result, cfg, Baseline(ref="t", described="b", gate_id="b", outcomes=outcomes),
          ["sensitivity"])  # fmt: skip
    rows = {r.name: r for r in result.checks}
    assert rows["sensitivity.recall[big]"].status == "regressed"
    assert rows["sensitivity.recall"].status == "regressed"
    tiny = rows["sensitivity.recall[tiny]"]
    assert tiny.power is None and "cannot make any drop significant" in tiny.detail
    assert result.exit_code == 1


# ---------------------------------------------------------------- resolving a REF


def _stored_gate(home, *, passed: bool, branch: str | None, minute: int = 0,
                 outcomes: bool = True) -> GateResult:  # fmt: skip
    res = _result(_set("correct", [1] * 10))
    res.passed, res.exit_code = passed, 0 if passed else 1
    res.git_branch, res.started_at = branch, f"2026-01-01T10:{minute:02d}:00Z"
    if not outcomes:
        res.artifacts = GateArtifacts()
    GateStore.default(home).save(res)
    return res


def test_last_passed_finds_the_newest_passing_run_of_this_branch(tmp_path):
    _stored_gate(tmp_path, passed=True, branch="feature", minute=1)
    first = _stored_gate(tmp_path, passed=True, branch="feature", minute=2)
    _stored_gate(tmp_path, passed=False, branch="feature", minute=3)
    _stored_gate(tmp_path, passed=True, branch="main", minute=4)
    store = open_store(home=tmp_path)
    assert resolve("last-passed", store=store, branch="feature").gate_id == first.gate_id
    with pytest.raises(BaselineError, match="no gate run on branch 'other' has passed"):
        resolve("last-passed", store=store, branch="other")
    with pytest.raises(BaselineError, match="needs the git branch"):
        resolve("last-passed", store=store, branch=None)
    # a gate id, or a unique prefix of one
    assert resolve(first.gate_id[:8], store=store, branch=None).gate_id == first.gate_id
    with pytest.raises(BaselineError, match="no gate run 'zzz'"):
        resolve("zzz", store=store, branch=None)


def test_a_gate_run_without_outcomes_is_no_baseline(tmp_path):
    old = _stored_gate(tmp_path, passed=True, branch="main", outcomes=False)
    with pytest.raises(BaselineError, match="keeps no per-item outcomes"):
        resolve(old.gate_id, store=open_store(home=tmp_path), branch=None)


def test_baseline_file_round_trip_and_damage(tmp_path):
    res = _result(_set("correct", [1, 0, 1]))
    path = save_file(res, tmp_path / "base.json", branch="main")
    data = json.loads(path.read_text())
    assert data["format"] == "spanproof-gate-baseline" and data["version"] == 1
    assert data["figures"]["calibration.agreement"] == pytest.approx(2 / 3)
    loaded = load_file(path)
    assert loaded.outcomes == res.artifacts.outcomes
    assert resolve(str(path), store=None, branch=None).gate_id == res.gate_id
    data["version"] = 2
    (tmp_path / "v2.json").write_text(json.dumps(data))
    with pytest.raises(BaselineError, match="version 2 gate baseline"):
        load_file(tmp_path / "v2.json")
    (tmp_path / "cut.json").write_text(path.read_text()[:200])
    with pytest.raises(BaselineError, match="cannot be read"):
        load_file(tmp_path / "cut.json")
    (tmp_path / "other.json").write_text('{"checks": []}')
    with pytest.raises(BaselineError, match="not a gate baseline"):
        load_file(tmp_path / "other.json")
    with pytest.raises(BaselineError, match="does not exist"):
        resolve(str(tmp_path / "missing.json"), store=None, branch=None)


# ---------------------------------------------------------------- the command


def _gate(*args):
    result = CliRunner().invoke(gate, list(args))
    return result, (
        json.loads(result.stdout) if "--json" in args and result.stdout.strip() else None
    )


def test_gate_against_a_baseline_file_fails_only_on_a_real_drop(tmp_path):
    cfg = tmp_path / "gate.toml"
    cfg.write_text(LENIENT)
    home = str(tmp_path / "h")
    base = tmp_path / "base.json"
    plain, data = _gate(
        "--config", str(cfg), "--home", home, "--json", "--save-baseline", str(base)
    )
    # a gate of trends alone with nothing to compare them with has tested nothing: exit 2,
    # never a pass (the baseline it saves is what the next runs are held to)
    assert plain.exit_code == 2 and data["outcome"] == "COULD NOT RUN", plain.output
    assert {c["status"] for c in data["checks"]} == {"NOT TESTED", "INFO"}
    assert data["power"]["calibration.agreement"]["min_detectable"] > 0.05
    assert base.is_file()

    same, data = _gate("--config", str(cfg), "--home", home, "--json", "--baseline", str(base))
    assert same.exit_code == 0, same.output
    assert data["model_calls"] == 0  # every verdict from the cache
    rows = {r["row"]: r for r in data["baseline"]["rows"]}
    assert rows["calibration.agreement"]["compared"]["diff"] == 0

    # The baseline says the judge got 15 more pairs right then: this run is worse.
    stored = json.loads(base.read_text())
    wrong = [i for i in stored["outcomes"]["sets"]["calibration"]["items"]
             if i["counts"]["correct"][0] == 0][:15]  # fmt: skip
    assert len(wrong) == 15
    for item in wrong:
        item["counts"]["correct"] = [1, 1]
        item["counts"]["correct_judge_only"] = [1, 1]
    _refigure(stored)  # a file whose figures disagree with its counts is refused
    better = tmp_path / "better.json"
    better.write_text(json.dumps(stored))
    worse, data = _gate("--config", str(cfg), "--home", home, "--json", "--baseline", str(better))
    assert worse.exit_code == 1, worse.output
    checks = {c["name"]: c for c in data["checks"]}
    assert (
        checks["calibration.agreement"]["status"] == "REGRESSED" and data["outcome"] == "REGRESSED"
    )
    assert "15 items worse" in checks["calibration.agreement"]["why"]
    moved = {r["row"]: r["moved"] for r in data["baseline"]["rows"]}["calibration.agreement"]
    assert sorted(m["id"] for m in moved) == sorted(i["id"] for i in wrong)
    table, _ = _gate("--config", str(cfg), "--home", home, "--baseline", str(better))
    assert "vs baseline [95% CI] p" in table.stdout
    assert "REGRESSED calibration.agreement: significantly worse" in table.stdout
    assert f"- {wrong[0]['id']}" in table.stdout


def _refigure(stored: dict) -> None:
    """The figures of an edited baseline file, recomputed from its counts."""
    outcomes = GateOutcomes.model_validate(stored["outcomes"])
    stored["figures"] = {
        s.row: gate_outcomes.figure(outcomes, s) for s in gate_outcomes.row_specs(outcomes)
    }


def test_gate_baseline_refs_that_name_nothing_exit_2_before_any_work(tmp_path, monkeypatch):
    cfg = tmp_path / "gate.toml"
    cfg.write_text(LENIENT)
    home = str(tmp_path / "h")
    monkeypatch.setenv("SPANPROOF_BRANCH", "my-branch")
    res, _ = _gate("--config", str(cfg), "--home", home, "--baseline", "last-passed")
    assert res.exit_code == 2 and "no gate run on branch 'my-branch' has passed" in res.stderr
    res, _ = _gate("--config", str(cfg), "--home", home, "--baseline", "0badc0de")
    assert res.exit_code == 2 and "no gate run '0badc0de'" in res.stderr
    res, _ = _gate("--config", str(cfg), "--home", home, "--baseline", str(tmp_path / "none.json"))
    assert res.exit_code == 2 and "does not exist" in res.stderr
    assert open_store(home=home).count("gate_runs") == 0  # nothing ran, nothing recorded
    # the config key works the same way
    cfg.write_text(LENIENT.replace("[thresholds]", 'baseline = "last-passed"\n[thresholds]'))
    res, _ = _gate("--config", str(cfg), "--home", home)
    assert res.exit_code == 2 and "has passed" in res.stderr
    # once a run passed on this branch, last-passed is that run (a gate of trends alone passes
    # only against a baseline: the first run saves one, the second is held to it)
    cfg.write_text(LENIENT)
    base = tmp_path / "base.json"
    first, _ = _gate("--config", str(cfg), "--home", home, "--save-baseline", str(base))
    assert first.exit_code == 2, first.output  # nothing to compare with: tested nothing
    ok, data = _gate("--config", str(cfg), "--home", home, "--json", "--baseline", str(base))
    assert ok.exit_code == 0, ok.output
    again, data2 = _gate(
        "--config", str(cfg), "--home", home, "--json", "--baseline", "last-passed"
    )
    assert again.exit_code == 0 and data2["baseline"]["gate_id"] == data["gate_id"]
