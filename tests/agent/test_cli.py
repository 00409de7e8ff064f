"""`spanproof ask / runs / recheck` on the shipped offline corpus (replayed, loopback-free)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from spanproof.agent.runstore import RunStore, default_runstore_path

from spanproof.cli import cli
from spanproof.web.snapshots import SnapshotStore

QUESTION = "Who did the Odessa Jackalopes hire as head coach in May 2019?"


@pytest.fixture(scope="module")
def asked(tmp_path_factory):
    home = tmp_path_factory.mktemp("cli_home")
    md = home / "brief.md"
    result = CliRunner().invoke(
        cli, ["ask", QUESTION, "--json", "--home", str(home), "--markdown", str(md)]
    )
    assert result.exit_code == 0, result.output
    return home, json.loads(result.stdout), md


def test_ask_json_publishes_a_supported_claim_quoted_verbatim(asked):
    home, record, _ = asked
    assert record["status"] == "complete" and record["config"]["policy"] == "extractive"
    published = [c for c in record["answer"]["claims"] if c["status"] == "published"]
    assert published and all(c["verdict"]["verdict"] == "SUPPORTED" for c in published)
    spans = {s["span_id"]: s for s in record["spans"]}
    snapshots = SnapshotStore(home / "snapshots")
    for claim in published:
        for sid in claim["span_ids"]:
            s = spans[sid]
            assert snapshots.text(s["doc_id"])[s["char_start"] : s["char_end"]] == s["text"]
    assert any("Todd Watson" in spans[c["span_ids"][0]]["text"] for c in published)
    for key in ("run_id", "question", "metrics", "trace", "ledger", "prompt_hashes"):
        assert key in record
    assert {"summary", "gaps", "claims"} <= set(record["answer"])
    assert record["metrics"]["published_groundedness"] == 1.0


def test_stored_record_recomputes_the_same_metrics(asked):
    from spanproof.agent.publish import compute_metrics

    home, record, _ = asked
    stored = RunStore(default_runstore_path(home)).get(record["run_id"])
    assert compute_metrics(stored) == stored.metrics
    assert stored.metrics.model_dump(mode="json") == record["metrics"]


def test_markdown_brief_holds_answer_and_ledger(asked):
    _, record, md = asked
    text = md.read_text()
    assert (
        text.startswith(f"# {QUESTION}") and "## Claim ledger" in text and record["run_id"] in text
    )


def test_runs_list_and_show(asked):
    home, record, _ = asked
    runner = CliRunner()
    listed = runner.invoke(cli, ["runs", "list", "--home", str(home)])
    assert record["run_id"] in listed.output and "complete" in listed.output
    shown = runner.invoke(cli, ["runs", "show", record["run_id"], "--home", str(home)])
    assert shown.exit_code == 0
    assert (
        "[1]" in shown.output
        and "Extractive baseline" in shown.output
        and "verdict" in shown.output
    )
    as_json = runner.invoke(cli, ["runs", "show", record["run_id"], "--json", "--home", str(home)])
    assert json.loads(as_json.output)["run_id"] == record["run_id"]
    missing = runner.invoke(cli, ["runs", "show", "run_nope", "--home", str(home)])
    assert missing.exit_code == 2 and "runs list" in missing.output


def test_recheck_confirms_quotes_and_flags_a_tampered_one(asked):
    home, record, _ = asked
    runner = CliRunner()
    ok = runner.invoke(cli, ["recheck", record["run_id"], "--json", "--home", str(home)])
    assert ok.exit_code == 0, ok.output
    checks = json.loads(ok.output)["checks"]
    assert checks and all(
        c["quote_on_page"] and c["resolves"] and c["same_snapshot"] for c in checks
    )
    # Plant a quote that is not on the page: recheck must say so and fail.
    store = RunStore(default_runstore_path(home))
    rec = store.get(record["run_id"])
    rec.run_id = "run_tampered"
    rec.spans[0].text = rec.spans[0].text + " and won the championship"
    store.save(rec)
    bad = runner.invoke(cli, ["recheck", "run_tampered", "--json", "--home", str(home)])
    assert bad.exit_code == 1
    flags = [c["flag"] for c in json.loads(bad.output)["checks"]]
    assert "quote no longer on the page" in flags


def test_llm_policy_without_a_model_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["ask", "q", "--policy", "llm", "--home", str(tmp_path)])
    assert result.exit_code == 2 and "--model" in result.output


def test_ask_with_an_openai_compatible_model_over_the_wire(httpserver, tmp_path):
    from tests.agent.test_llm_wire import FakeEndpoint

    fake = FakeEndpoint(
        hit="jackalopes-hire-todd-watson",
        locator="The Odessa Jackalopes, proud members",
        claim="The Odessa Jackalopes announced that they have hired Todd Watson to be the "
        "program's sixth head coach.",
        plan="1. Who did the Odessa Jackalopes hire as head coach?",
    )
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_handler(fake)
    result = CliRunner().invoke(
        cli,
        ["ask", QUESTION, "--model", "openai:wire-model", "--base-url", httpserver.url_for("/v1"),
         "--api-key", "local", "--json", "--home", str(tmp_path)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["config"]["policy"] == "llm" and record["config"]["convergence"] == "llm"
    published = [c for c in record["answer"]["claims"] if c["status"] == "published"]
    assert [c["verdict"]["verdict"] for c in published] == ["SUPPORTED"]
    assert "Todd Watson" in published[0]["text"]
    assert record["metrics"]["cost"]["research_usd"] > 0


def test_two_part_question_quotes_a_sentence_shorter_than_the_locator_minimum(asked):
    home, _, _ = asked
    q = "When did former congresswoman Liz Patterson die, and how old was she?"
    result = CliRunner().invoke(cli, ["ask", q, "--json", "--home", str(home)])
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["subquestions"] == [
        "When did former congresswoman Liz Patterson die?",
        "how old was she (Liz Patterson)?",
    ]
    shown = {c["text"]: c for c in record["answer"]["claims"] if c["status"] == "published"}
    assert "She was 78." in shown and any("died Saturday" in t for t in shown)
    span = next(s for s in record["spans"] if s["span_id"] == shown["She was 78."]["span_ids"][0])
    text = SnapshotStore(home / "snapshots").text(span["doc_id"])
    assert text[span["char_start"] : span["char_end"]] == "She was 78."
    assert record["answer"]["gaps"] == []


def test_recheck_live_flags_a_page_that_changed(httpserver, tmp_path):
    import asyncio

    from spanproof.agent.run import run_question
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    from spanproof.web.env import live_web
    from spanproof.web.search import StaticSearch
    from tests.agent.conftest import PAGES

    page = PAGES["https://news.example.org/larkspur-bridge"]
    httpserver.expect_request("/larkspur").respond_with_data(page, content_type="text/html")
    url = httpserver.url_for("/larkspur")
    env = live_web(
        tmp_path, ["localhost", "127.0.0.1"], StaticSearch.from_html([(url, page)]),
        allow_networks=["127.0.0.0/8", "::1/128"],
    )  # fmt: skip
    store = RunStore(default_runstore_path(tmp_path))
    rec = asyncio.run(run_question("When did the Larkspur Bridge open?", env=env,
                                   verifier=Verifier([make_judge("rules")]), store=store))  # fmt: skip
    assert rec.answer.shown
    runner = CliRunner()
    live = ["--live", "--allow-network", "127.0.0.0/8", "--allow-network", "::1/128"]
    # Without naming the loopback network, a live recheck reaches nothing on it.
    refused = runner.invoke(
        cli, ["recheck", rec.run_id, "--live", "--json", "--home", str(tmp_path)]
    )
    assert refused.exit_code == 1 and len(httpserver.log) == 1  # only the run's own fetch
    same = runner.invoke(cli, ["recheck", rec.run_id, *live, "--json", "--home", str(tmp_path)])
    assert same.exit_code == 0, same.output
    httpserver.clear()
    changed = page.replace("opened to traffic on 14 March 2021", "opened in spring")
    httpserver.expect_request("/larkspur").respond_with_data(changed, content_type="text/html")
    rot = runner.invoke(cli, ["recheck", rec.run_id, *live, "--json", "--home", str(tmp_path)])
    assert rot.exit_code == 1
    checks = json.loads(rot.output)["checks"]
    assert any(
        c["flag"] == "quote no longer on the page" and c["same_snapshot"] is False for c in checks
    )
    httpserver.clear()
    gone = runner.invoke(cli, ["recheck", rec.run_id, *live, "--json", "--home", str(tmp_path)])
    assert gone.exit_code == 1
    assert all(c["resolves"] is False or c["flag"] for c in json.loads(gone.output)["checks"])


def test_an_empty_question_is_a_usage_error(tmp_path):
    result = CliRunner().invoke(cli, ["ask", "  ", "--home", str(tmp_path)])
    assert result.exit_code == 2 and "QUESTION is empty" in result.output


def test_an_unanswered_question_prints_no_empty_citation_table(capsys):
    from spanproof.agent.record import RunConfig, RunRecord

    from spanproof.cli.agent import NO_CITATIONS, render_answer

    record = RunRecord(run_id="r", question="Q?", config=RunConfig(policy="extractive"))
    for rich_ok in (False, True):
        render_answer(record, rich_ok=rich_ok)
        out = capsys.readouterr().out
        assert NO_CITATIONS in out and "retrieved" not in out  # no header over nothing


def test_recheck_names_a_failed_fetch_once_however_many_spans_cite_the_page(tmp_path):
    # two claims cite one page; offline hosts do not resolve, so the live fetch fails: the
    # reason is one finding for the URL, printed once, and each span's row says it failed
    runner = CliRunner()
    q = "How far below the surface is the Blanda Power Station located?"
    asked = runner.invoke(cli, ["ask", q, "--json", "--home", str(tmp_path)])
    assert asked.exit_code == 0, asked.output
    record = json.loads(asked.stdout)
    cited = [s for c in record["answer"]["claims"] for s in c["span_ids"]]
    assert len(cited) == 2 and len({s["url"] for s in record["spans"]}) == 1
    done = runner.invoke(cli, ["recheck", record["run_id"], "--live", "--home", str(tmp_path)])
    assert done.exit_code == 1
    lines = done.stdout.splitlines()
    assert sum("fetch failed (below)" in line for line in lines) == 2
    reasons = [line for line in lines if line.startswith("fetch failed: ")]
    assert len(reasons) == 1 and record["spans"][0]["url"] in reasons[0]
