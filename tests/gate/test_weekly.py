"""`report weekly` on a store with zero, one and many runs."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

import pytest
from click.testing import CliRunner
from spanproof.agent.record import AnswerClaim
from spanproof.agent.runstore import RunStore
from spanproof.reports.weekly import build_weekly, parse_since

from spanproof.cli.gate import report
from spanproof.core.verdict import Verdict
from spanproof.gate.store import store_path


def _weekly(home, *extra):
    return CliRunner().invoke(report, ["weekly", "--home", str(home), *extra])


def _stamp(days_ago: float) -> str:
    return (
        (datetime.now(UTC) - timedelta(days=days_ago))
        .replace(microsecond=0)
        .isoformat()
        .replace("+00:00", "Z")
    )


def _variant(record, run_id: str, days_ago: float, dropped: int):
    rec = record.model_copy(deep=True)
    rec.run_id, rec.created_at, rec.status = run_id, _stamp(days_ago), "complete"
    # Three claims whatever the real run drafted, so the arithmetic below is known.
    span_id = rec.spans[0].span_id if rec.spans else "span_0000000000000000"
    rec.answer.claims = [
        AnswerClaim(
            index=i, text=f"claim {i}", draft_text=f"claim {i}", span_ids=[span_id],
            verdict=Verdict(verdict="NOT_SUPPORTED" if i < dropped else "SUPPORTED", judge="rules"),
            status="dropped" if i < dropped else "published",
        )
        for i in range(3)
    ]  # fmt: skip
    return rec


def test_zero_runs(tmp_path):
    result = _weekly(tmp_path)
    assert (
        result.exit_code == 0
        and "0 ask runs" in result.output
        and "No runs between" in result.output
    )
    data = json.loads(_weekly(tmp_path, "--json").output)
    assert data["n_runs"] == 0 and data["runs"] == [] and data["over_time"] == []
    out = tmp_path / "out"
    assert _weekly(tmp_path, "--out", str(out)).exit_code == 0
    assert (out / "weekly.html").is_file() and (out / "weekly.md").is_file()


def test_one_run(tmp_path, real_run):
    rec, _, _ = real_run
    RunStore(store_path(tmp_path)).save(_variant(rec, "run_one", 1, 0))
    data = json.loads(_weekly(tmp_path, "--json").output)
    assert data["n_runs"] == 1 and len(data["over_time"]) == 1
    assert data["runs"][0]["run_id"] == "run_one" and data["runs"][0]["pre_prune"] == 1.0
    assert data["top_drop"] == []
    text = _weekly(tmp_path).output
    assert "No run dropped a claim" in text and "rules" in text
    # an offline run: its local-corpus searches are not a cost, and the report says so
    assert data["totals"]["cost_usd_total"] == 0 and data["totals"]["runs_with_free_parts"] == 1
    assert "searches of the local corpus and calls to offline models cost $0" in text


def test_many_runs_window_trend_versions_and_largest_drops(tmp_path, real_run):
    rec, _, _ = real_run
    n = 3
    store = RunStore(store_path(tmp_path))
    # whole days back from now: five calendar days whatever the time of day the test runs at
    # (fractions of a day put two runs on one day in the early hours: 2.3 and 3.1 days before
    # 05:00 are both the same date)
    for i, days in enumerate([0, 1, 2, 3, 5]):
        store.save(_variant(rec, f"run_{i}", days, dropped=min(i % 3, n)))
    store.save(_variant(rec, "run_old", 20, dropped=n))  # outside the 7-day window
    data = json.loads(_weekly(tmp_path, "--json").output)
    assert data["n_runs"] == 5 and "run_old" not in {r["run_id"] for r in data["runs"]}
    assert len(data["over_time"]) == 5 and [d["day"] for d in data["over_time"]] == sorted(
        d["day"] for d in data["over_time"]
    )
    drops = [r["drop_rate"] for r in data["top_drop"]]
    assert drops == sorted(drops, reverse=True) and all(d > 0 for d in drops)
    assert data["versions"][0]["runs"] == 5 and data["versions"][0]["judges"] == "rules"
    assert data["totals"]["drop_rate"] > 0 and data["totals"]["post_prune"] == 1.0
    wide = json.loads(_weekly(tmp_path, "--json", "--since", "4w").output)
    assert wide["n_runs"] == 6
    out = tmp_path / "out"
    result = _weekly(tmp_path, "--out", str(out))
    assert "Largest drop rates" in result.output and "Groundedness over time" in result.output
    html = (out / "weekly.html").read_text()
    assert "data:image/png;base64," in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html, re.I)
    assert "| day" in (out / "weekly.md").read_text()


def test_since_parsing_and_bad_since_exits_2(tmp_path):
    assert parse_since("2w") == timedelta(weeks=2) and parse_since("24h") == timedelta(hours=24)
    result = _weekly(tmp_path, "--since", "last week")
    assert result.exit_code == 2 and "24h, 7d, 2w" in result.output
    assert build_weekly([], since="1d").n_runs == 0


def _versioned(record, run_id: str, days_ago: float, prompt: str, verdicts: list[str]):
    rec = _variant(record, run_id, days_ago, dropped=0)
    rec.prompt_hashes = {"agent_system": prompt * 64}
    span_id = rec.answer.claims[0].span_ids[0]
    rec.answer.claims = [
        AnswerClaim(index=i, text=f"claim {i}", draft_text=f"claim {i}", span_ids=[span_id],
                    verdict=Verdict(verdict=v, judge="rules"),
                    status={"SUPPORTED": "published", "PARTIAL": "flagged"}.get(v, "dropped"))
        for i, v in enumerate(verdicts)
    ]  # fmt: skip
    return rec


def test_a_figure_flat_through_three_prompt_changes_is_a_warning(tmp_path, real_run):
    rec, _, _ = real_run
    store = RunStore(store_path(tmp_path))
    # four prompt versions; every published claim SUPPORTED, so post-prune stays at 1.000,
    # while the pre-prune rate moves (some drafted claims were dropped)
    for i, (prompt, verdicts) in enumerate([
        ("a", ["SUPPORTED"] * 3), ("b", ["SUPPORTED", "NOT_SUPPORTED", "SUPPORTED"]),
        ("c", ["SUPPORTED"] * 3), ("d", ["SUPPORTED", "SUPPORTED", "NOT_SUPPORTED"]),
    ]):  # fmt: skip
        store.save(_versioned(rec, f"run_{prompt}", 4 - i, prompt, verdicts))
    data = json.loads(_weekly(tmp_path, "--json").output)
    flat = {w["metric"]: w for w in data["warnings"] if w["kind"] == "flat"}
    assert "post_prune" in flat and "pre_prune" not in flat
    assert flat["post_prune"]["message"].startswith(
        "post-prune groundedness stayed at exactly 1.000 across 4 runs and 4 versions "
        "(prompt hash changed 3 times)"
    )
    assert "WARNING [flat] post-prune groundedness" in _weekly(tmp_path).output


def test_no_flat_warning_before_the_figure_lived_through_two_changes(tmp_path, real_run):
    rec, _, _ = real_run
    store = RunStore(store_path(tmp_path))
    for i, prompt in enumerate("ab"):
        store.save(_versioned(rec, f"run_{prompt}", 2 - i, prompt, ["SUPPORTED"] * 3))
        store.save(_versioned(rec, f"run_{prompt}2", 2.5 - i, prompt, ["SUPPORTED"] * 3))
    data = json.loads(_weekly(tmp_path, "--json").output)
    assert data["warnings"] == []


def test_one_run_far_above_the_others_partial_rate_is_a_spike(tmp_path, real_run):
    rec, _, _ = real_run
    store = RunStore(store_path(tmp_path))
    for i in range(6):
        store.save(
            _versioned(rec, f"run_{i}", 1 + i / 10, "a", ["SUPPORTED"] * 3 + ["PARTIAL"] * (i == 0))
        )
    store.save(_versioned(rec, "run_dense", 0.5, "a", ["PARTIAL"] * 4 + ["SUPPORTED"]))
    data = json.loads(_weekly(tmp_path, "--json").output)
    (spike,) = [w for w in data["warnings"] if w["kind"] == "spike"]
    assert spike["runs"] == ["run_dense"] and "4/5 PARTIAL claims" in spike["message"]
    url = rec.span(rec.answer.claims[0].span_ids[0]) or rec.spans[0]
    assert "4 of them cite" in spike["message"] and "over-mined" in spike["message"]
    assert url.url.split("//")[1].split("/")[0] in spike["message"]


def _lines(days, pre, post, runs):
    from spanproof.reports.plots import pre_post_figure

    fig = pre_post_figure(days, pre=pre, post=post, runs=runs, title="t")
    lines = {line.get_label().split(":")[0]: line for line in fig.axes[0].get_lines()}
    return lines["pre-prune"], lines["post-prune"]


def test_the_chart_keeps_both_series_visible_when_they_are_equal():
    pre, post = _lines(["2026-12-01", "2026-12-02"], [1.0, 0.9], [1.0, 0.9], [3, 2])
    # equal values: the two series are drawn apart, in their own style, so neither hides
    assert list(pre.get_ydata()) == list(post.get_ydata())
    assert all(a < b for a, b in zip(pre.get_xdata(), post.get_xdata(), strict=True))
    assert pre.get_linestyle() != post.get_linestyle() and pre.get_marker() != post.get_marker()
    assert pre.get_color() != post.get_color()


def test_runs_of_one_minute_are_one_point_of_the_day_not_a_vertical_line(tmp_path, real_run):
    rec, _, _ = real_run
    store = RunStore(store_path(tmp_path))
    for i in range(6):  # six runs within one minute: three all SUPPORTED, three with one dropped
        store.save(_variant(rec, f"run_{i}", 0.1 + i / 10000, dropped=i % 2))
    data = json.loads(_weekly(tmp_path, "--json").output)
    (day,) = data["over_time"]
    assert day["runs"] == 6 and day["pre_prune"] == pytest.approx(15 / 18)
    pre, post = _lines([day["day"]], [day["pre_prune"]], [day["post_prune"]], [day["runs"]])
    assert len(pre.get_xdata()) == 1 and len(post.get_xdata()) == 1
    out = tmp_path / "out"
    assert _weekly(tmp_path, "--out", str(out)).exit_code == 0
    assert 'id="groundedness-chart"' in (out / "weekly.html").read_text()


def test_flagged_claims_decisions_backlog_and_signatures_are_in_the_report(tmp_path, real_run):
    from spanproof.core.verdict import Flag
    from spanproof.store import open_store

    rec, _, _ = real_run
    store = RunStore(store_path(tmp_path))
    flagged = _variant(rec, "run_flagged", 1, dropped=1)
    flagged.answer.claims[1].verdict.flags = [Flag(kind="number", reason="number not stated: 12")]
    flagged.answer.claims[1].status = "flagged"
    store.save(flagged)
    store.save(_variant(rec, "run_clean", 2, dropped=0))
    store.save(_variant(rec, "run_signed", 3, dropped=0))
    shared = open_store(home=tmp_path)
    shared.add_signature("run_signed", reviewer="ann")
    text = _weekly(tmp_path).output
    assert "Runs waiting for a signature (2: 1 on a decision, 1 ready to sign)" in text
    data = json.loads(_weekly(tmp_path, "--json").output)["review"]
    (claim,) = data["flagged"]
    assert claim["run_id"] == "run_flagged" and claim["citation"] == 1
    assert claim["decision"] is None and data["flagged_undecided"] == 1
    assert data["undecided_claims"] == 1 and data["runs_signed"] == 1
    waiting = {w["run_id"]: w["waiting_on"] for w in data["runs_waiting"]}
    assert waiting == {"run_flagged": ["claim [1] has no decision (needs a look: number not "
                                       "stated: 12)"], "run_clean": []}  # fmt: skip
    shared.add_review("run_flagged", 1, "approve", reviewer="ann")
    data = json.loads(_weekly(tmp_path, "--json").output)["review"]
    assert data["flagged"][0]["decision"] == "approve" and data["flagged_undecided"] == 0
    assert data["approve"] == 1 and data["undecided_claims"] == 0
    text = _weekly(tmp_path).output
    assert "Flagged claims, needs a look (1)" in text and "approve by ann" in text
    assert "Runs waiting for a signature (2: 0 on a decision, 2 ready to sign)" in text
