"""A reviewer's cut in the viewer becomes a labelled pair in the repository, and the next gate
measures it (a real headless Chromium, real loopback server, real offline run)."""

from __future__ import annotations

import json

from click.testing import CliRunner
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from spanproof.agent.runstore import RunStore, default_runstore_path

from spanproof.cli import cli
from spanproof.gate.result import GateResult
from spanproof.store import open_store
from tests.view import homes
from tests.view.conftest import LiveServer, free_port
from tests.view.test_browser import _follow, _supported, _text


def test_a_cut_in_the_viewer_becomes_a_reviewed_pair_the_next_gate_measures(
    tmp_path_factory, browser
):
    from spanproof.view.settings import ViewSettings

    home = tmp_path_factory.mktemp("reviewed-home")
    run_id = homes.ask_run(home)
    record = RunStore(default_runstore_path(home)).get(run_id)
    shown = [c for c in record.answer.claims if c.status != "dropped"]
    assert len(shown) >= 2, "the offline ask run needs two shown claims"
    cut, other = shown[0], shown[1]
    with LiveServer(ViewSettings(home=home, port=free_port(), reviewer="rev-two")) as server:
        # Cut a published claim, saying the span supports only part of it.
        browser.get(f"{server.url}/runs/{run_id}/claims/{cut.index}")
        form = browser.find_element(By.ID, "review-form")
        name = form.find_element(By.NAME, "reviewer")  # the browser may remember another name
        name.clear()
        name.send_keys("rev-two")
        Select(form.find_element(By.ID, "cut-reason")).select_by_value("PARTIAL")
        form.find_element(By.NAME, "note").send_keys("the span gives only part of this")
        _follow(browser, form.find_element(By.ID, "btn-cut"))
        assert "Stored: cut" in _text(browser, "#review-done")
        assert "PARTIAL" in _text(browser, "#claim-reviews")

        # An edit the verifier refuses, kept for the bench because the reviewer stands by it.
        span = record.span(other.supporting_span_id)
        bad = other.text.rstrip(". ") + " in 1850."
        assert not _supported(bad, span), "precondition: the verifier must refuse the edit"
        browser.get(f"{server.url}/runs/{run_id}/claims/{other.index}")
        form = browser.find_element(By.ID, "review-form")
        area = form.find_element(By.ID, "edited-text")
        area.clear()
        area.send_keys(bad)
        _follow(browser, form.find_element(By.ID, "btn-edit"))
        assert "did not support the edited claim" in _text(browser, "#review-refused")
        keep = browser.find_element(By.ID, "keep-refused-form")
        keep.find_element(By.ID, "refused-note").send_keys("the page's caption gives the year")
        _follow(browser, keep.find_element(By.ID, "btn-keep-refused"))
        assert "Stored: refused" in _text(browser, "#review-done")
        # kept for the bench, never in force: what is published did not change
        assert "not reviewed" in _text(browser, "#decision-in-force")

    out = tmp_path_factory.mktemp("repo") / "reviewed_pairs.jsonl"
    res = CliRunner().invoke(cli, ["goldens", "add-from-reviews", "--home", str(home),
                                   "--out", str(out), "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert len(json.loads(res.stdout)["added"]) == 2
    pairs = {p["kind"]: p for p in map(json.loads, out.read_text().splitlines())}
    assert (
        pairs["reviewer_cut"]["claim"] == cut.text and pairs["reviewer_cut"]["label"] == "PARTIAL"
    )
    assert pairs["reviewer_cut"]["source"]["review"]["reviewer"] == "rev-two"
    assert pairs["refused_edit"]["claim"] == bad and pairs["refused_edit"]["label"] == "SUPPORTED"

    # The next gate judges both pairs in its own row.
    cfg = out.parent / "gate.toml"
    cfg.write_text(f'checks = ["reviewed"]\nrequired = ["reviewed"]\nreviewed_set = "{out}"\n')
    gated = CliRunner().invoke(cli, ["gate", "--config", str(cfg), "--home", str(home), "--json"])
    # two reviewed pairs cannot see a drop: the row reports (so this gate tested nothing, exit 2)
    assert gated.exit_code == 2, gated.output
    gate_id = json.loads(gated.stdout)["gate_id"]
    row = next(c for c in json.loads(gated.stdout)["checks"] if c["name"] == "reviewed.agreement")
    assert row["status"] == "NOT TESTED" and "2 reviewed pairs" in row["detail"]
    assert "the reviewed set has 2 pair(s)" in row["why"]
    stored = GateResult.model_validate_json(open_store(home=home).gate_run(gate_id).result)
    measured = {i.id for i in stored.artifacts.outcomes.sets["reviewed"].items}
    assert measured == {p["id"] for p in pairs.values()}
