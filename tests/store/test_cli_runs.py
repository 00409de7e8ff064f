"""`runs list` shows the user's own runs by default and pages through the rest; the weekly
report lists every run of its window with its full id."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta

from click.testing import CliRunner
from spanproof.agent.record import RunConfig, RunRecord
from spanproof.agent.runstore import RunStore

from spanproof.cli import cli


def _fill(home, asks: int, gates: int) -> tuple[list[str], list[str]]:
    ids: dict[str, list[str]] = {"ask": [], "gate": []}
    for kind, n in (("ask", asks), ("gate", gates)):
        store = RunStore.default(home, kind=kind)
        for i in range(n):
            created = datetime.now(UTC) - timedelta(hours=i + (0 if kind == "ask" else 0.5))
            rec = RunRecord(run_id=str(uuid.uuid4()), question=f"{kind} question {i}",
                            created_at=created.isoformat().replace("+00:00", "Z"),
                            config=RunConfig(policy="extractive"), status="complete")  # fmt: skip
            store.save(rec)
            ids[kind].append(rec.run_id)
    return ids["ask"], ids["gate"]


def test_runs_list_shows_the_users_own_runs_by_default_not_the_gates(tmp_path):
    asks, gates = _fill(tmp_path, asks=3, gates=30)
    runner = CliRunner()
    mine = runner.invoke(cli, ["runs", "list", "--home", str(tmp_path)])
    assert mine.exit_code == 0
    assert all(i in mine.output for i in asks) and not any(i in mine.output for i in gates)
    assert "runs 1-3 of 3 (ask)" in mine.output
    page = runner.invoke(cli, ["runs", "list", "--kind", "gate", "--home", str(tmp_path)])
    assert sum(i in page.output for i in gates) == 20
    assert "runs 1-20 of 30 (gate); next page: --offset 20" in page.output
    rest = runner.invoke(cli, ["runs", "list", "--kind", "gate", "--offset", "20", "--json",
                               "--home", str(tmp_path)])  # fmt: skip
    data = json.loads(rest.stdout)
    assert data["total"] == 30 and data["next_offset"] is None
    assert {r["run_id"] for r in data["items"]} == set(gates[20:])
    everything = json.loads(runner.invoke(cli, ["runs", "list", "--kind", "all", "--limit", "100",
                                                "--json", "--home", str(tmp_path)]).stdout)  # fmt: skip
    assert everything["total"] == 33 and {r["kind"] for r in everything["items"]} == {"ask", "gate"}


def test_weekly_report_is_over_ask_runs_by_default_and_every_kind_with_kind_all(tmp_path):
    asks, gates = _fill(tmp_path, asks=11, gates=70)
    runner = CliRunner()
    text = runner.invoke(cli, ["report", "weekly", "--home", str(tmp_path)])
    assert text.exit_code == 0, text.output
    assert all(run_id in text.output for run_id in asks)
    assert not any(run_id in text.output for run_id in gates)
    assert "11 ask runs (left out: 70 gate; see them with --kind)" in text.output
    data = json.loads(runner.invoke(cli, ["report", "weekly", "--json", "--home",
                                          str(tmp_path)]).stdout)  # fmt: skip
    assert data["kind"] == "ask" and data["n_runs"] == 11 and data["other_kinds"] == {"gate": 70}
    assert data["totals"]["runs"] == 11 and data["runners"][0]["runs"] == 11
    gate = json.loads(runner.invoke(cli, ["report", "weekly", "--kind", "gate", "--json",
                                          "--home", str(tmp_path)]).stdout)  # fmt: skip
    assert {r["run_id"] for r in gate["runs"]} == set(gates) and gate["other_kinds"] == {"ask": 11}
    every = runner.invoke(cli, ["report", "weekly", "--kind", "all", "--home", str(tmp_path)])
    assert all(run_id in every.output for run_id in asks + gates)
    assert "Cost and latency per run (all 81, oldest first)" in every.output
    bad = runner.invoke(cli, ["report", "weekly", "--kind", "gates", "--home", str(tmp_path)])
    assert bad.exit_code == 2 and "'gates' is not one of" in bad.output


def test_weekly_html_caps_the_per_run_table_and_the_json_keeps_every_run(tmp_path):
    asks, _ = _fill(tmp_path, asks=60, gates=0)
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["report", "weekly", "--out", str(out), "--home", str(tmp_path)])
    assert res.exit_code == 0, res.output
    page = (out / "weekly.html").read_text()
    # the newest 50 of 60 (created an hour apart, asks[0] the newest)
    assert all(i in page for i in asks[:50]) and not any(i in page for i in asks[50:])
    assert "the newest 50 of 60" in page and "weekly.json and --json have every run" in page
    assert len(json.loads((out / "weekly.json").read_text())["runs"]) == 60
    assert "the newest 50 of 60" in (out / "weekly.md").read_text()


def test_store_info_and_prune_from_the_command_line(tmp_path):
    _fill(tmp_path, asks=2, gates=1)
    runner = CliRunner()
    info = runner.invoke(cli, ["store", "info", "--json", "--home", str(tmp_path)])
    assert info.exit_code == 0, info.output
    data = json.loads(info.stdout)
    assert data["backend"] == "sqlite" and data["runs_by_kind"]["ask"] == 2
    assert {t["name"]: t["rows"] for t in data["tables"]}["runs"] == 3
    text = runner.invoke(cli, ["store", "info", "--home", str(tmp_path)])
    assert "schema revision" in text.output and "ask 2, gate 1" in text.output
    dry = runner.invoke(
        cli, ["store", "prune", "--older-than", "90d", "--dry-run", "--home", str(tmp_path)]
    )
    assert dry.exit_code == 0 and "would delete 0 runs" in dry.output
    bad = runner.invoke(
        cli, ["store", "prune", "--older-than", "ninety days", "--home", str(tmp_path)]
    )
    assert bad.exit_code == 2 and "24h, 7d, 2w" in bad.output


def test_an_unusable_database_url_is_a_clear_error_with_exit_2(tmp_path):
    runner = CliRunner()
    other = runner.invoke(
        cli, ["runs", "list", "--db", "mysql://x@127.0.0.1/db", "--home", str(tmp_path)]
    )
    assert other.exit_code == 2 and "unsupported database" in other.output
    down = runner.invoke(cli, ["runs", "list", "--db", "postgresql://spanproof:secret@127.0.0.1:1/db",
                               "--home", str(tmp_path)])  # fmt: skip
    assert down.exit_code == 2 and "cannot use the database" in down.output
    assert "secret" not in down.output and "spanproof:***@127.0.0.1:1/db" in down.output
