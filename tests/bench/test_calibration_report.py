"""calibrate --report: the reliability diagram of a judge's confidence, ECE, and "none" for a
judge without one; the gate's HTML report draws the same diagram from its artifact."""

from __future__ import annotations

import json

from click.testing import CliRunner
from spanproof.reports.html import gate_figures

from spanproof.bench.metrics import reliability
from spanproof.cli import cli

PAIRS = [
    {"id": "s1", "claim": "Exports rose 4% in 2023.", "span": "Exports rose 4% in 2023, the agency said.", "label": "SUPPORTED"},
    {"id": "n1", "claim": "Whales migrate south every winter.", "span": "Exports rose 4% in 2023, the agency said.", "label": "NOT_SUPPORTED"},
    {"id": "p1", "claim": "Exports rose 4% in 2023 because of demand from Asia.", "span": "Exports rose 4% in 2023, the agency said.", "label": "PARTIAL"},
]  # fmt: skip


def test_calibrate_report_draws_reliability_for_a_judge_with_confidence(tmp_path):
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PAIRS))
    out = tmp_path / "report"
    res = CliRunner().invoke(
        cli,
        ["calibrate", "--set", str(path), "--judge", "rules", "--judge", "blind", "--json",
         "--no-cache", "--home", str(tmp_path / "h"), "--report", str(out)],
    )  # fmt: skip
    data = json.loads(res.stdout)
    rules, blind = data["judges"]
    assert rules["confidence"]["n"] == 3 and rules["confidence"]["ece"] is not None
    assert rules["judge_only"]["agreement"] is not None
    assert blind["confidence"] is None and "no probability" in blind["confidence_note"]
    page = (out / "index.html").read_text()
    assert "Reliability of rules" in page and page.count("data:image/png") >= 3
    assert "blind on set: confidence none" in page


def test_ece_is_zero_when_confidence_matches_and_large_when_it_does_not():
    good = reliability([0.75] * 4, [True, True, True, False])
    assert good.ece == 0.0 and good.n == 4
    bad = reliability([0.95] * 4, [False, False, False, True], bins=10)
    assert abs(bad.ece - 0.70) < 1e-9
    assert reliability([None, None], [True, False]).ece is None


def test_gate_report_draws_the_calibration_reliability_diagram():
    from spanproof.gate.result import GateResult

    rel = reliability([0.9, 0.8, 0.6], [True, True, False]).model_dump()
    result = GateResult(
        passed=False, exit_code=1, checks=[], wall_s=0.0,
        artifacts={"calibration": {"labels": ["SUPPORTED"], "columns": ["SUPPORTED"], "judges": {
            "rules": {"matrix": [[1]], "agreement": 1.0, "near_miss": None, "reliability": rel}}}},
    )  # fmt: skip
    captions = [c for _, c in gate_figures(result)]
    assert any(c.startswith("Reliability of rules's confidence") for c in captions)
