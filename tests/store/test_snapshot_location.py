"""With a shared store, a run made on one runner is readable on another, and `runs show` /
`recheck` say plainly that its snapshots are stored on the first runner, not here."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from spanproof.cli import cli

QUESTION = "Who did the Odessa Jackalopes hire as head coach in May 2019?"


def test_runs_show_and_recheck_say_when_a_snapshot_is_on_another_runner(tmp_path, monkeypatch):
    db = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    home_a, home_b = tmp_path / "runner-a", tmp_path / "runner-b"
    runner = CliRunner()
    monkeypatch.setenv("SPANPROOF_RUNNER", "runner-a")
    asked = runner.invoke(cli, ["ask", QUESTION, "--json", "--db", db, "--home", str(home_a)])
    assert asked.exit_code == 0, asked.output
    record = json.loads(asked.stdout)
    doc_ids = {s["doc_id"] for s in record["spans"]}
    assert doc_ids

    here = runner.invoke(cli, ["runs", "show", record["run_id"], "--db", db, "--home", str(home_a)])
    assert here.exit_code == 0 and "not on this machine" not in here.output

    # Runner B has the same corpus index (copied, to spare the suite a second build) but
    # none of runner A's snapshots.
    shutil.copytree(home_a / "indexes", home_b / "indexes")
    monkeypatch.setenv("SPANPROOF_RUNNER", "runner-b")
    there = runner.invoke(
        cli, ["runs", "show", record["run_id"], "--db", db, "--home", str(home_b)]
    )
    assert there.exit_code == 0, there.output
    assert "not on this machine" in there.stderr and "runner runner-a" in there.stderr
    assert str(home_a) in there.stderr and all(d in there.stderr for d in doc_ids)

    checked = runner.invoke(cli, ["recheck", record["run_id"], "--json", "--db", db,
                                  "--home", str(home_b)])  # fmt: skip
    assert checked.exit_code == 0, checked.output
    data = json.loads(checked.stdout)
    assert data["checks"] and all(c["quote_on_page"] and c["same_snapshot"] for c in data["checks"])
    assert any("runner runner-a" in note for note in data["snapshot_notes"])
