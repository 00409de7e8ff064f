"""The bench commands: exit codes, JSON shapes, quiet --json, markdown, baseline drift."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from spanproof.cli import cli
from tests.bench.test_sensitivity_calibration import GOOD, LABELLED

ROOT = Path(__file__).resolve().parents[2]


def _write(path: Path, pairs) -> Path:
    path.write_text("".join(p.model_dump_json() + "\n" for p in pairs), encoding="utf-8")
    return path


@pytest.fixture
def runner():
    return (
        CliRunner(mix_stderr=False)
        if "mix_stderr" in CliRunner.__init__.__code__.co_varnames
        else CliRunner()
    )


def test_sensitivity_blind_fails_with_exit_1_and_quiet_json(tmp_path, runner):
    pairs = _write(tmp_path / "good.jsonl", GOOD)
    res = runner.invoke(
        cli, ["sensitivity", "--pairs", str(pairs), "--judge", "blind", "--json", "--no-cache"]
    )
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert data["passed"] is False and data["judge"] == "blind"
    assert set(data) == {
        "judge", "selection", "n_excluded", "n_originals", "n_planted", "sensitivity",
        "specificity", "by_kind", "missed", "thresholds", "passed", "judge_only",
        "caught_only_by_flag", "flag_only_share", "originals_flagged", "set", "n_pairs",
        "fitted_on",
    }  # fmt: skip
    assert (data["set"], data["n_pairs"]) == ("good", len(GOOD)) and data["fitted_on"] is None
    assert data["selection"] == "every SUPPORTED pair" and data["n_excluded"] == 0
    # the canary reads nothing: judge-only it catches no planted failure at all
    assert data["judge_only"]["sensitivity"] == 0.0 and data["judge_only"]["specificity"] == 1.0
    assert data["thresholds"] == {"sensitivity": 0.9, "specificity": 0.8}
    assert res.stderr == ""


def test_sensitivity_table_and_lax_thresholds_pass(tmp_path, runner):
    pairs = _write(tmp_path / "good.jsonl", GOOD)
    args = ["sensitivity", "--pairs", str(pairs), "--judge", "blind", "--home", str(tmp_path / "h")]
    res = runner.invoke(cli, [*args, "--min-sensitivity", "0", "--min-specificity", "0"])
    assert res.exit_code == 0, res.output
    assert "swap_source" in res.stdout and "PASS" in res.stdout
    assert "planted variants" in res.stderr  # progress goes to stderr
    assert (tmp_path / "h" / "spanproof.sqlite").exists()  # verdicts cached in the home's store


def test_sensitivity_plants_on_every_supported_pair_unless_contract_clean(tmp_path, runner):
    from spanproof.core.verdict import Pair

    implied = Pair(
        id="implied",
        claim="The bridge opened in 1998 after 4 years of work.",
        span="The bridge opened after four years of work, the council said.",
        label="SUPPORTED",
    )
    pairs = _write(tmp_path / "mixed.jsonl", [*GOOD, implied])
    args = ["sensitivity", "--pairs", str(pairs), "--judge", "rules", "--json", "--no-cache"]
    every = json.loads(runner.invoke(cli, args).stdout)
    clean = json.loads(runner.invoke(cli, [*args, "--contract-clean"]).stdout)
    n_good = sum(p.label == "SUPPORTED" for p in GOOD)
    assert every["n_originals"] == n_good + 1 and every["n_excluded"] == 0
    assert clean["n_originals"] == n_good and clean["n_excluded"] == 1
    assert clean["selection"].startswith("contract-clean")
    assert clean["n_planted"] < every["n_planted"]
    table = runner.invoke(cli, [*args[:-2], "--no-cache", "--contract-clean"])
    assert "1 SUPPORTED pairs excluded" in table.stdout


def test_sensitivity_rejects_unknown_kind_and_judge(tmp_path, runner):
    pairs = _write(tmp_path / "good.jsonl", GOOD)
    res = runner.invoke(cli, ["sensitivity", "--pairs", str(pairs), "--kind", "nope"])
    assert res.exit_code == 2 and "known:" in res.stderr
    res = runner.invoke(cli, ["sensitivity", "--pairs", str(pairs), "--judge", "gpt"])
    assert res.exit_code == 2 and "is not a judge. Judges are:" in res.stderr


def test_calibrate_blind_fails_gated_set_and_writes_markdown(tmp_path, runner):
    gold = _write(tmp_path / "judge_calibration.jsonl", LABELLED)
    other = _write(tmp_path / "other.jsonl", LABELLED)
    md = tmp_path / "cal.md"
    res = runner.invoke(
        cli,
        [
            "calibrate",
            "--set",
            str(gold),
            "--set",
            str(other),
            "--judge",
            "blind",
            "--json",
            "--markdown",
            str(md),
        ],
    )
    assert res.exit_code == 1, res.output
    data = json.loads(res.stdout)
    assert [(r["set"], r["passed"]) for r in data["judges"]] == [
        ("judge_calibration", False),
        ("other", None),
    ]
    assert "drift" not in data
    assert "| judge_calibration | blind" in md.read_text()
    # The same judge on an ungated set alone does not fail the command.
    res = runner.invoke(cli, ["calibrate", "--set", str(other), "--judge", "blind", "--json"])
    assert res.exit_code == 0


def test_calibrate_baseline_flags_drift(tmp_path, runner):
    gold = _write(tmp_path / "judge_calibration.jsonl", LABELLED)
    baseline = json.loads(
        runner.invoke(cli, ["calibrate", "--set", str(gold), "--judge", "blind", "--json"]).stdout
    )
    # Pretend an earlier run of the same judge agreed perfectly, with a tight interval.
    for r in baseline["judges"]:
        r["agreement"] = 1.0
        r["ci95"]["agreement"] = {"low": 0.95, "high": 1.0}
    path = tmp_path / "baseline.json"
    path.write_text(json.dumps(baseline))
    res = runner.invoke(
        cli,
        [
            "calibrate",
            "--set",
            str(gold),
            "--judge",
            "blind",
            "--baseline",
            str(path),
            "--min-agreement",
            "0",
            "--min-near-miss",
            "0",
        ],
    )
    assert res.exit_code == 1
    assert "DRIFT blind on judge_calibration: agreement 1.000" in res.stdout


def test_shipped_calibration_set_is_well_formed():
    from spanproof.bench.calibration import load_pairs

    pairs = load_pairs(ROOT / "goldens" / "judge_calibration.jsonl")
    assert len(pairs) >= 60
    near = [p for p in pairs if p.near_miss]
    assert 0.4 <= len(near) / len(pairs) <= 0.6
    kinds = {
        "scope_creep", "modality_slip", "right_topic_wrong_claim", "correct_but_unsupported",
        "number_drift", "period_shift", "attribution",
    }  # fmt: skip
    assert {p.kind for p in near} == kinds
    assert all(p.rationale and "\n" not in p.rationale for p in pairs)
    assert {p.label for p in pairs if not p.near_miss} == {"SUPPORTED", "PARTIAL", "NOT_SUPPORTED"}
    wice = ROOT.parent / "shared" / "data" / "wice" / "dev.jsonl"
    if wice.is_file():
        pages = {}
        for line in wice.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            pages[row["meta"]["id"]] = row["evidence"]
        for p in pairs:
            if p.source and "wice_id" in p.source:
                assert all(pages[p.source["wice_id"]][i] in p.span for i in p.source["sentences"])


def test_sensitivity_names_its_set_and_warns_when_the_pairs_trained_the_judge(tmp_path, runner):
    # the WiCE development pairs trained the rules judge, under any name given to it
    wice = str(ROOT / "goldens" / "wice_dev_pairs.jsonl")
    args = ["sensitivity", "--pairs", wice, "--kind", "drift_number", "--home", str(tmp_path / "h")]
    res = runner.invoke(cli, [*args, "--judge", "mine=rules"])
    assert "these pairs trained the rules judge" in res.stderr, res.stderr
    assert "set wice_dev_pairs (349 pairs): planted on 115 SUPPORTED originals" in res.stdout
    assert "judge mine, final verdicts" in res.stdout
    res = runner.invoke(cli, [*args, "--judge", "blind"])  # the blind judge was fitted on nothing
    assert "trained" not in res.stderr


def test_calibrate_markdown_says_when_the_pairs_trained_a_named_rules_judge(tmp_path, runner):
    lines = (ROOT / "goldens" / "wice_dev_pairs.jsonl").read_text().splitlines()[:5]
    pairs = tmp_path / "five.jsonl"
    pairs.write_text("\n".join(lines) + "\n")
    md = tmp_path / "cal.md"
    args = ["calibrate", "--set", str(pairs), "--markdown", str(md), "--home", str(tmp_path / "h")]
    res = runner.invoke(cli, [*args, "--judge", "mine=rules"])
    assert res.exit_code == 0, res.output
    assert "mine on five: warning: these pairs trained the rules judge" in md.read_text()
    runner.invoke(cli, [*args, "--judge", "blind"])
    assert "trained" not in md.read_text()
