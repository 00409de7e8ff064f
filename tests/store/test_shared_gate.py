"""Two CI runners (two homes) share one PostgreSQL store: the second pays for no judge call,
and the weekly report shows both gate runs with where they ran."""

from __future__ import annotations

import json

from click.testing import CliRunner

from spanproof.cli import cli


def test_a_second_runner_sharing_the_database_makes_no_judge_calls(pg_url, tmp_path, monkeypatch):
    cfg = tmp_path / "gate.toml"
    cfg.write_text('checks = ["calibration"]\nrequired = ["calibration"]\n'
                   'floors = ["calibration_agreement", "calibration_near_miss"]\n')  # fmt: skip
    runs = []
    for runner, job in (("runner-a", "101"), ("runner-b", "102")):
        monkeypatch.setenv("SPANPROOF_RUNNER", runner)
        monkeypatch.setenv("CI_JOB_ID", job)
        result = CliRunner().invoke(cli, ["gate", "--config", str(cfg), "--json", "--db", pg_url,
                                          "--home", str(tmp_path / runner)])  # fmt: skip
        assert result.exit_code in (0, 1), result.output
        runs.append(json.loads(result.stdout))
    first, second = runs
    assert first["model_calls"] > 0
    assert second["model_calls"] == 0 and second["cache_hits"] >= first["model_calls"]
    assert [c["value"] for c in second["checks"]] == [c["value"] for c in first["checks"]]

    weekly = CliRunner().invoke(cli, ["report", "weekly", "--json", "--db", pg_url,
                                      "--home", str(tmp_path / "lead")])  # fmt: skip
    assert weekly.exit_code == 0, weekly.output
    gates = {g["gate_id"]: g for g in json.loads(weekly.stdout)["gate_runs"]}
    assert set(gates) == {first["gate_id"], second["gate_id"]}
    a, b = gates[first["gate_id"]], gates[second["gate_id"]]
    assert (a["runner"], a["ci_job"]) == ("runner-a", "CI_JOB_ID=101")
    assert (b["runner"], b["ci_job"], b["model_calls"]) == ("runner-b", "CI_JOB_ID=102", 0)
    assert a["spanproof_version"] and a["sanitiser_version"] and a["prompt_version"] != "-"
    text = CliRunner().invoke(
        cli, ["report", "weekly", "--db", pg_url, "--home", str(tmp_path / "lead")]
    )
    assert first["gate_id"] in text.output and "runner-b" in text.output
    # the gate's own outcome word, as every other output says it
    assert a["outcome"] == first["outcome"]
    assert f"{first['outcome']} (exit {first['exit_code']})" in text.output
