"""Reviewer decisions outside the viewer: `runs show`, the ledger exports, `report weekly`."""

from __future__ import annotations

import json

from click.testing import CliRunner

from spanproof.cli import cli
from spanproof.store import open_store
from tests.view import homes


def _reviewed_home(tmp_path, decision: str = "cut") -> str:
    run_id = homes.hostile_run(tmp_path)
    open_store(home=tmp_path).add_review(run_id, 0, decision, reviewer="ann", note="off topic")
    return run_id


def test_runs_show_prints_and_exports_reviewer_decisions(tmp_path):
    run_id = _reviewed_home(tmp_path)
    runner = CliRunner()
    shown = runner.invoke(cli, ["runs", "show", run_id, "--home", str(tmp_path)])
    assert shown.exit_code == 0, shown.output
    assert "Reviewer decisions" in shown.output and "ann" in shown.output and "cut" in shown.output
    as_json = runner.invoke(cli, ["runs", "show", run_id, "--json", "--home", str(tmp_path)])
    payload = json.loads(as_json.stdout)
    assert payload["reviews"][0]["decision"] == "cut"
    assert payload["ledger"][0]["reviewer_decision"] == "cut"
    assert payload["ledger"][0]["reviewer"] == "ann"
    out = tmp_path / "brief.md"
    runner.invoke(cli, ["runs", "show", run_id, "--markdown", str(out), "--home", str(tmp_path)])
    assert "cut by ann" in out.read_text() and "(off topic)" in out.read_text()


def test_weekly_report_counts_the_share_of_published_claims_a_reviewer_cut(tmp_path):
    _reviewed_home(tmp_path)
    res = CliRunner().invoke(cli, ["report", "weekly", "--json", "--home", str(tmp_path)])
    assert res.exit_code == 0, res.output
    review = json.loads(res.stdout)["review"]
    counts = {k: review[k] for k in ("published_claims", "reviewed", "approve", "edit", "cut")}
    assert counts == {"published_claims": 1, "reviewed": 1, "approve": 0, "edit": 0, "cut": 1}
    assert review["cut_share"] == 1.0
    text = CliRunner().invoke(cli, ["report", "weekly", "--home", str(tmp_path)]).output
    assert "share of published claims a reviewer cut" in text


def test_an_approval_is_not_counted_as_a_cut(tmp_path):
    _reviewed_home(tmp_path, decision="approve")
    res = CliRunner().invoke(cli, ["report", "weekly", "--json", "--home", str(tmp_path)])
    review = json.loads(res.stdout)["review"]
    assert review["cut"] == 0 and review["cut_share"] == 0.0 and review["approve"] == 1


def test_view_help_has_examples():
    res = CliRunner().invoke(cli, ["view", "--help"])
    assert res.exit_code == 0
    assert "Examples:" in res.output and "spanproof view --host 0.0.0.0 --token auto" in res.output
