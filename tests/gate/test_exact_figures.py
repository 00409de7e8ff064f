"""Figures are rounded once, for reading: JUnit's properties and grade's JSON keep the value
as computed, while its messages and tables write three decimals."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from spanproof.reports.junit import junit_xml

from spanproof.bench.grade_metrics import ratio
from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow


def test_junit_keeps_the_exact_value_beside_the_rounded_message():
    row = CheckRow(name="calibration.agreement", check="calibration", role="trend",
                   value=0.8996, threshold=">= 0.900", to_target=-0.0004, status="pass")  # fmt: skip
    result = GateResult(passed=True, exit_code=0, checks=[row], wall_s=1.0, gate_id="g")
    case = ET.fromstring(junit_xml(result)).find(".//testcase")
    assert case is not None
    props = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert props["value"] == "0.8996" and props["to_target"] == "-0.0004"
    assert props["status"] == "PASS" and props["role"] == "trend"
    assert "value=0.900" in (case.findtext("system-out") or "")


def test_grade_ratios_are_exact_until_shown():
    assert ratio(2, 3) == 2 / 3 and ratio(1, 0) == 0.0


def test_grade_writes_three_decimals_and_its_json_the_exact_ratio(tmp_path):
    import json

    from click.testing import CliRunner

    from spanproof.cli import cli

    report = tmp_path / "r.md"
    report.write_text(
        "The Blanda Station is an underground plant located about 230 meters under ground [1]. "
        "The station has three turbines. The station is run by a national company.\n\n"
        "[1]: https://reference.wice.example/blanda-power-station-nat-33b7b079\n"
    )
    home = ["--home", str(tmp_path / "h")]
    shown = CliRunner().invoke(cli, ["grade", str(report), *home])
    as_json = CliRunner().invoke(cli, ["grade", str(report), "--json", *home])
    metrics = json.loads(as_json.stdout)["judges"][0]["metrics"]
    assert metrics["claims"] == 3 and metrics["uncited_claims"] == 2
    assert metrics["citation_recall"] == 1 / 3  # not 0.3333
    recall = next(line for line in shown.stdout.splitlines() if "citation recall (SUPP" in line)
    assert recall.split()[-1] == "0.333"
