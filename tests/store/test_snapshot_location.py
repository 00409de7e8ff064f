"""With a shared store, a run made on one runner is readable on another, and `runs show` /
`recheck` say plainly that its snapshots are stored on the first runner, not here."""

from __future__ import annotations

import asyncio
import json

from click.testing import CliRunner

from spanproof.cli import cli

# The test server is on loopback, which a live fetch reaches only when the network is named.
LOOPBACK = ["--allow-network", "127.0.0.0/8", "--allow-network", "::1/128"]


def _run_on_runner_a(httpserver, home, db: str):
    from spanproof.agent.run import run_question
    from spanproof.agent.runstore import RunStore
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    from spanproof.web.env import live_web
    from spanproof.web.search import StaticSearch
    from tests.agent.conftest import PAGES

    page = PAGES["https://news.example.org/larkspur-bridge"]
    httpserver.expect_request("/larkspur").respond_with_data(page, content_type="text/html")
    url = httpserver.url_for("/larkspur")
    env = live_web(
        home, ["localhost", "127.0.0.1"], StaticSearch.from_html([(url, page)]),
        allow_networks=["127.0.0.0/8", "::1/128"],
    )  # fmt: skip
    store = RunStore.default(home, db, kind="ask")
    return asyncio.run(run_question("When did the Larkspur Bridge open?", env=env,
                                    verifier=Verifier([make_judge("rules")]), store=store))  # fmt: skip


def test_runs_show_and_recheck_say_when_a_snapshot_is_on_another_runner(
    httpserver, tmp_path, monkeypatch
):
    db = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    home_a, home_b = tmp_path / "runner-a", tmp_path / "runner-b"
    monkeypatch.setenv("SPANPROOF_RUNNER", "runner-a")
    record = _run_on_runner_a(httpserver, home_a, db)
    doc_ids = {s.doc_id for s in record.spans}
    assert record.answer.shown and doc_ids
    runner = CliRunner()

    here = runner.invoke(cli, ["runs", "show", record.run_id, "--db", db, "--home", str(home_a)])
    assert here.exit_code == 0 and "not on this machine" not in here.output

    monkeypatch.setenv("SPANPROOF_RUNNER", "runner-b")
    there = runner.invoke(cli, ["runs", "show", record.run_id, "--db", db, "--home", str(home_b)])
    assert there.exit_code == 0, there.output
    assert "not on this machine" in there.stderr and "runner runner-a" in there.stderr
    assert str(home_a) in there.stderr and all(d in there.stderr for d in doc_ids)

    checked = runner.invoke(cli, ["recheck", record.run_id, "--live", *LOOPBACK, "--json", "--db", db,
                                  "--home", str(home_b)])  # fmt: skip
    assert checked.exit_code == 0, checked.output
    data = json.loads(checked.stdout)
    assert data["checks"] and all(c["quote_on_page"] and c["same_snapshot"] for c in data["checks"])
    assert any("runner runner-a" in note for note in data["snapshot_notes"])
    # That re-fetch stored the page on runner B; a third runner still has none of it.
    again = runner.invoke(cli, ["recheck", record.run_id, "--live", *LOOPBACK, "--json", "--db", db,
                                "--home", str(home_b)])  # fmt: skip
    assert json.loads(again.stdout)["snapshot_notes"] == []
    text = runner.invoke(cli, ["recheck", record.run_id, "--live", *LOOPBACK, "--db", db,
                               "--home", str(tmp_path / "runner-c")])  # fmt: skip
    assert text.exit_code == 0 and "not on this machine" in text.stderr
