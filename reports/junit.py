"""JUnit XML for the gate: one testcase per check row, so CI systems show them natively."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

from spanproof.core.files import write_atomic
from spanproof.gate.result import GateResult


def junit_xml(result: GateResult) -> str:
    rows = result.checks
    failures = sum(r.status == "fail" for r in rows)
    errors = sum(r.status == "error" for r in rows)
    skipped = sum(r.status in ("unscored", "skipped") for r in rows)
    suite = ET.Element(
        "testsuite",
        name="spanproof-gate",
        tests=str(len(rows)),
        failures=str(failures),
        errors=str(errors),
        skipped=str(skipped),
        time=f"{result.wall_s:.3f}",
        timestamp=result.started_at,
    )
    props = ET.SubElement(suite, "properties")
    said = {
        "config_sha256": result.config_sha256,
        "judge": result.judge,
        "policy": result.policy,
        "model": result.model,
        "gate_id": result.gate_id,
    }
    for key, value in said.items():
        ET.SubElement(props, "property", name=key, value=str(value or ""))
    for row in rows:
        case = ET.SubElement(
            suite,
            "testcase",
            classname=f"gate.{row.check}",
            name=row.name,
            time=f"{row.seconds:.3f}",
        )
        message = f"value={row.value} threshold={row.threshold}: {row.detail}"
        if row.status == "fail":
            ET.SubElement(case, "failure", message=message, type="ThresholdFailed").text = message
        elif row.status == "error":
            ET.SubElement(case, "error", message=row.detail, type="CouldNotRun").text = row.detail
        elif row.status in ("unscored", "skipped"):
            ET.SubElement(case, "skipped", message=row.detail)
        else:
            ET.SubElement(case, "system-out").text = message
    suites = ET.Element(
        "testsuites", tests=str(len(rows)), failures=str(failures), errors=str(errors)
    )
    suites.append(suite)
    ET.indent(suites)
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n"
    )


def write_junit(result: GateResult, path: str | Path) -> Path:
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(out, junit_xml(result))
    return out
