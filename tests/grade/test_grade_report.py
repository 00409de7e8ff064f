"""Grading reports end to end: unreachable sources, exact span offsets, metrics, planting."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from spanproof.bench.grade_metrics import compute_metrics
from spanproof.bench.grade_models import GradedClaim
from spanproof.bench.grade_passages import PassageIndex
from spanproof.bench.grade_report import grade_report
from spanproof.bench.grade_sources import cited_hosts, make_fetcher
from spanproof.bench.report_input import parse_report, parse_text
from spanproof.core.verdict import Verdict
from spanproof.web.corpus import ReplayTransport
from spanproof.web.env import default_corpus_dir
from spanproof.web.snapshots import SnapshotStore

REPORTS = Path(__file__).resolve().parents[2] / "goldens" / "reports"
BRIEFING = REPORTS / "briefing.md"
ANSWER = REPORTS / "agent_answer.json"

PAGE = (
    "<html><head><title>Acme results</title></head><body>"
    "<p>Acme Corp reported results for 2023. Revenue grew 12% in 2023 to $4.1 billion. "
    "Operating margin fell to 8% from 10%.</p><p>The company hired 300 engineers in Paris.</p>"
    "</body></html>"
)


async def _grade(report, tmp_path, *, transport=None, judges=("rules",), plant=False):
    store = SnapshotStore(tmp_path / "snapshots")
    # The test servers are on loopback, which a live grade reaches only when named.
    fetcher = make_fetcher(
        store, cited_hosts(report.cited_urls), transport=transport,
        allow_networks=["127.0.0.0/8", "::1/128"],
    )  # fmt: skip
    try:
        result = await grade_report(
            report, fetcher=fetcher, store=store, judges=list(judges), plant=plant
        )
    finally:
        await fetcher.aclose()
    return result, store


def _offline():
    return ReplayTransport(default_corpus_dir())


async def test_unreachable_sources_are_counted_not_dropped(httpserver, tmp_path):
    httpserver.expect_request("/acme").respond_with_data(PAGE, content_type="text/html")
    httpserver.expect_request("/gone").respond_with_data(
        "missing", status=404, content_type="text/html"
    )
    # Redirect to another host (127.0.0.1 is not the cited host "localhost:<port>").
    away = f"http://127.0.0.1:{httpserver.port}/acme"
    httpserver.expect_request("/moved").respond_with_data(
        "", status=302, headers={"Location": away}
    )
    md = (
        f"Revenue grew 12% in 2023 [1]. Acme doubled its dividend [2]. Margin fell to 8% [3].\n\n"
        f"[1]: {httpserver.url_for('/acme')}\n[2]: {httpserver.url_for('/gone')}\n"
        f"[3]: {httpserver.url_for('/moved')}\n"
    )
    result, _ = await _grade(parse_text(md, "md"), tmp_path, judges=("presence", "rules"))
    for grade in result.judges:
        labels = [e.label for e in grade.claims]
        assert labels[1:] == ["UNREACHABLE", "UNREACHABLE"]
        assert grade.metrics.citations == 3 and grade.metrics.unreachable == 2
        assert grade.metrics.unreachable_rate == pytest.approx(2 / 3, abs=1e-3)
        assert grade.metrics.citation_recall == pytest.approx(1 / 3, abs=1e-3)  # never dropped
    rules = result.judges[1].claims
    assert "HTTP 404" in rules[1].reason
    assert "URL_NOT_ALLOWED" in rules[2].reason and "127.0.0.1" in rules[2].reason
    # the redirect target off the allowlist was refused before any contact
    refused = [
        e for e in result.egress if e.decision == "refused" and e.host.startswith("127.0.0.1")
    ]
    assert refused and all(e.status is None for e in refused)
    assert rules[0].label == "SUPPORTED"


@pytest.mark.parametrize("path", [BRIEFING, ANSWER])
async def test_every_verdict_points_at_exact_snapshot_characters(path, tmp_path):
    result, store = await _grade(parse_report(path), tmp_path, transport=_offline())
    judged = [e for e in result.judges[0].claims if isinstance(e.verdict, Verdict) and e.url]
    assert judged
    for e in judged:
        assert e.span is not None and e.passages_judged >= 1
        assert len(e.span.text) <= 900
        assert store.text(e.span.doc_id)[e.span.char_start : e.span.char_end] == e.span.text
        if e.verdict.quote_used:
            assert " ".join(e.verdict.quote_used.split()) in " ".join(e.span.text.split())


@pytest.mark.parametrize("path", [BRIEFING, ANSWER])
async def test_example_reports_show_every_outcome(path, tmp_path):
    result, _ = await _grade(parse_report(path), tmp_path, transport=_offline())
    grade = result.judges[0]
    labels = {e.label for e in grade.claims if e.url}
    assert {"SUPPORTED", "NOT_SUPPORTED"} <= labels
    assert grade.metrics.paragraph_level_citations >= 1 and grade.metrics.shared_citations >= 1
    assert grade.metrics.laundering >= 1
    # headline figures count SUPPORTED only; PARTIAL is its own column
    m = grade.metrics
    assert 0 < m.citation_recall <= m.citation_recall_with_partial < 1
    assert m.citation_precision <= m.citation_precision_with_partial
    assert m.partial_citation_rate == pytest.approx(
        m.citation_precision_with_partial - m.citation_precision, abs=1e-3
    )


async def test_presence_passes_a_planted_bad_report_that_rules_catches(tmp_path):
    result, _ = await _grade(
        parse_report(BRIEFING),
        tmp_path,
        transport=_offline(),
        judges=("presence", "rules", "blind"),
        plant=True,
    )
    planted = result.planted
    assert planted is not None and len(planted.variants) >= 8
    # the report's two structural kinds, and the planted-failure registry's claim kinds under
    # their registry names (grade plants through the same registry as sensitivity)
    from spanproof.planted_failures import mutators

    kinds = {v.kind for v in planted.variants}
    assert {
        "swap_citation",
        "append_claim",
        "drift_number",
        "wrong_period",
        "negation_flip",
    } <= kinds
    assert kinds - {"swap_citation", "append_claim"} <= set(mutators())
    assert planted.sensitivity["presence"] == 0.0
    assert planted.sensitivity["rules"] >= 0.75
    # A negation is a flag of the audit, never a proof: the blind judge's verdict passes it,
    # a person would be asked to look; the rules judge reads the flag as a signal of its own.
    assert planted.sensitivity_by_kind["negation_flip"]["blind"] == 0.0
    assert planted.flag_only["blind"] > 0.0
    assert planted.sensitivity_by_kind["negation_flip"]["rules"] >= 0.66
    # One planted-bad report, graded whole: presence still scores 100%.
    swap = next(v for v in planted.variants if v.kind == "swap_citation")
    bad = parse_report(BRIEFING)
    sentences = [
        s.model_copy(
            update={"citations": [c.model_copy(update={"url": swap.after}) for c in s.citations]}
        )
        if s.index == swap.sentence_index
        else s
        for s in bad.sentences
    ]
    bad = bad.model_copy(update={"sentences": sentences})
    graded, _ = await _grade(
        bad, tmp_path / "bad", transport=_offline(), judges=("presence", "rules")
    )
    presence, rules = graded.judges
    assert presence.metrics.citation_recall == 1.0
    swapped = [e for e in rules.claims if e.sentence_index == swap.sentence_index]
    assert swapped and all(e.label != "SUPPORTED" for e in swapped)


def _entry(cid, url, occurrence, label):
    verdict = "UNREACHABLE" if label == "UNREACHABLE" else Verdict(verdict=label)
    return GradedClaim(
        id=cid, text=f"claim {cid}", sentence="s", sentence_index=0, citations=[url] if url else [],
        url=url, occurrence=occurrence, scope="paragraph", verdict=verdict,
    )  # fmt: skip


def test_metrics_arithmetic_and_laundering_signal():
    entries = [
        _entry("1", "https://a.example/", "c1", "SUPPORTED"),
        _entry("2", "https://a.example/", "c1", "NOT_SUPPORTED"),  # shares c1 with 1: laundering
        _entry("3", "https://b.example/", "c2", "PARTIAL"),
        _entry("3", "https://c.example/", "c3", "UNREACHABLE"),
        _entry("4", None, None, "NOT_SUPPORTED"),
    ]
    m = compute_metrics(entries)
    assert (m.claims, m.citations, m.uncited_claims) == (4, 4, 1)
    assert m.citation_recall == 0.25 and m.citation_recall_with_partial == 0.5
    assert m.citation_precision == 0.25 and m.citation_precision_with_partial == 0.5
    assert m.unreachable == 1 and m.unreachable_rate == 0.25
    assert m.shared_citations == 1 and m.laundering == 1
    assert m.laundered[0].unsupported == ["claim 2"]
    # all supported: no laundering even though the marker is shared
    clean = compute_metrics(
        [
            _entry("1", "https://a.example/", "c1", "SUPPORTED"),
            _entry("2", "https://a.example/", "c1", "SUPPORTED"),
        ]
    )
    assert clean.laundering == 0 and clean.citation_recall == 1.0


def test_passages_are_sentence_windows_ranked_by_overlap():
    text = (
        "Intro line\n\nCats sleep a lot. Revenue grew 12% in 2023. Dogs bark.\n\n"
        + "Filler sentence here. " * 80
    )
    index = PassageIndex(text)
    assert all(e - s <= 900 for s, e in index.windows)
    best = index.best("Revenue grew 12% in 2023", 3)
    s, e = best[0]
    assert "Revenue grew 12% in 2023." in text[s:e]


def test_cli_json_shape_and_side_by_side_judges(tmp_path):
    from spanproof.cli import cli

    runner = CliRunner()
    res = runner.invoke(
        cli,
        [
            "grade",
            str(ANSWER),
            "--judge",
            "presence",
            "--judge",
            "rules",
            "--json",
            "--home",
            str(tmp_path),
        ],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["report"].endswith("agent_answer.json")
    assert [j["judge"] for j in data["judges"]] == ["presence", "rules"]
    for judge in data["judges"]:
        assert judge["metrics"]["citation_recall"] < 1.0
        for c in judge["claims"]:
            assert {"text", "sentence", "citations", "verdict", "url", "span"} <= set(c)
            assert c["verdict"] == "UNREACHABLE" or "verdict" in c["verdict"]
    rules_spans = [c["span"] for c in data["judges"][1]["claims"] if c["span"]]
    assert rules_spans and all(
        {"doc_id", "char_start", "char_end", "text"} <= set(s) for s in rules_spans
    )
    md = tmp_path / "out.md"
    table = runner.invoke(
        cli, ["grade", str(BRIEFING), "--markdown", str(md), "--home", str(tmp_path)]
    )
    assert (
        table.exit_code == 0 and "citation recall" in table.stdout and "| metric" in md.read_text()
    )


def test_cli_malformed_report_names_the_line(tmp_path):
    from spanproof.cli import cli

    bad = tmp_path / "bad.md"
    bad.write_text("Fine sentence [1].\n\nBroken [^9] footnote.\n\n[1]: https://a.example/\n")
    res = CliRunner().invoke(cli, ["grade", str(bad), "--home", str(tmp_path)])
    assert res.exit_code == 2 and "line 3" in res.output and "[^9]" in res.output


async def test_redirect_to_another_cited_host_is_still_unreachable(httpserver, tmp_path):
    other = f"http://127.0.0.1:{httpserver.port}/acme"
    httpserver.expect_request("/acme").respond_with_data(PAGE, content_type="text/html")
    httpserver.expect_request("/hop").respond_with_data("", status=301, headers={"Location": other})
    md = f"Revenue grew 12% in 2023 [1]. Margin fell to 8% [2].\n\n[1]: {httpserver.url_for('/hop')}\n[2]: {other}\n"
    result, _ = await _grade(parse_text(md, "md"), tmp_path)
    first, second = result.judges[0].claims
    assert first.label == "UNREACHABLE" and "REDIRECTED_AWAY" in first.reason
    assert second.label == "SUPPORTED"


async def test_the_claim_table_is_in_review_order(tmp_path):
    from spanproof.graders.review_queue import review_key

    from spanproof.cli.grade import render_tables

    result, _ = await _grade(parse_report(BRIEFING), tmp_path, transport=_offline())
    claims = {c.id: c for c in result.judges[0].claims}
    lines = render_tables(result).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("-------")) + 1
    shown = [line.split()[0] for line in lines[start : start + len(claims)]]
    assert sorted(shown) == sorted(claims)
    verdicts = [claims[i].verdict for i in shown]
    keys = [review_key(None if isinstance(v, str) else v) for v in verdicts]
    assert keys == sorted(keys) and keys[0] < keys[-1]  # flagged NOT_SUPPORTED before SUPPORTED
