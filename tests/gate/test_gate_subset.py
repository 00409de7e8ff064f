"""`spanproof gate --only / --skip`: a quick loop that says what it left out and is never a pass,
never a baseline, and never serves as one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from spanproof.cli import cli
from spanproof.gate.config import CHECK_NAMES, GateConfig, GateConfigError
from spanproof.gate.store import GateStore
from spanproof.gate.subset import SUBSET_EXIT, choose

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "goldens" / "corpus"


def _gate(tmp_path: Path, *args: str, thresholds: str = ""):
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'corpus_dir = "{CORPUS}"\nmax_questions = 2\n{thresholds}')
    return CliRunner().invoke(
        cli, ["gate", "--config", str(cfg), "--home", str(tmp_path / "h"), "--json", *args],
        catch_exceptions=False,
    )  # fmt: skip


def test_a_subset_that_passes_is_not_a_pass_and_says_what_it_left_out(tmp_path, monkeypatch):
    monkeypatch.setenv("SPANPROOF_BRANCH", "feature")
    result = _gate(tmp_path, "--only", "tool_calls", "--only", "schema_validity")
    assert result.exit_code == SUBSET_EXIT, result.output
    out = json.loads(result.stdout)
    assert out["outcome"] == "PASSED A SUBSET" and out["passed"] is False
    left_out = [c for c in CHECK_NAMES if c not in ("tool_calls", "schema_validity")]
    assert out["left_out"] == left_out
    assert out["subset"] == "--only tool_calls --only schema_validity"
    rows = {r["name"]: r for r in out["checks"]}
    for check in left_out:
        row = rows[f"{check}.left_out"]
        assert row["status"] == "NOT TESTED" and "left out by --only" in row["why"]
    ran = [r for r in out["checks"] if r["status"] == "PASS"]
    assert ran and all(r["name"].split(".")[0] in ("tool_calls", "schema_validity") for r in ran)
    assert "left out" in result.stderr and "never a baseline" in result.stderr
    # recorded as not passed: last-passed never picks it
    from spanproof.store import open_store

    (stored,) = GateStore.default(tmp_path / "h").list()
    assert stored.subset is not None and not stored.passed
    assert open_store(home=tmp_path / "h").last_passed_gate("feature") is None
    # nor can it serve as a baseline by its id
    again = _gate(tmp_path, "--baseline", stored.gate_id)
    assert again.exit_code == 2 and "ran a subset" in again.stderr


def test_a_subset_that_fails_still_fails(tmp_path):
    # the first two golden questions are answerable: a floor on answering the unanswerable
    # ones has nothing to measure, which FAILs
    result = _gate(tmp_path, "--skip", "calibration", "--skip", "reviewed", "--skip",
                   "sensitivity", "--skip", "injection", "--skip", "usefulness",
                   thresholds="floors = [\"unanswerable_gaps\"]\n[thresholds]\nunanswerable_gaps = 0.5\n")  # fmt: skip
    out = json.loads(result.stdout)
    rows = {r["name"]: r for r in out["checks"]}
    assert result.exit_code == 1, result.output
    assert out["outcome"] in ("FAILED", "REGRESSED") and out["left_out"] == [
        "calibration", "reviewed", "sensitivity", "injection", "usefulness"]  # fmt: skip
    assert any(r["status"] == "FAIL" for r in rows.values())


def test_a_subset_is_never_saved_as_a_baseline(tmp_path):
    result = _gate(tmp_path, "--only", "tool_calls", "--save-baseline", str(tmp_path / "b.json"))
    assert result.exit_code == 2
    assert "a baseline is a whole gate run" in result.stderr
    assert not (tmp_path / "b.json").exists()
    assert not (tmp_path / "h").exists() or not GateStore.default(tmp_path / "h").list()


@pytest.mark.parametrize(
    ("only", "skip", "message"),
    [
        (["calibraton"], [], "not among this gate's checks"),
        (["calibration"], ["injection"], "not both"),
        ([], list(CHECK_NAMES), "left no check to run"),
    ],
)
def test_a_subset_that_names_nothing_runnable_is_refused(only, skip, message):
    with pytest.raises(GateConfigError, match=message):
        choose(GateConfig(), only, skip)


def test_naming_every_check_is_the_whole_gate():
    cfg, subset = choose(GateConfig(), list(CHECK_NAMES))
    assert subset is None and cfg.checks == list(CHECK_NAMES)
