"""JUnit XML for the gate: one testcase per check row, so CI systems show them natively."""

from __future__ import annotations

from pathlib import Path
from xml.etree import ElementTree as ET

from spanproof.reports.markdown import moved_items

from spanproof.core.figures import format_value
from spanproof.core.files import write_atomic
from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow

# Each status's element and failure type: a CI system tells a broken floor from a regression
# from a check that could not run, by the type alone.
FAILURE_TYPES = {"fail": "FloorBroken", "regressed": "Regressed"}


def _message(result: GateResult, row: CheckRow, limit: int = 10) -> str:
    head = f"{row.word}: value={format_value(_number(row.value))} {row.threshold or ''}"
    lines = [head.strip(), row.why or row.detail]
    items = [m.line() for m in moved_items(result, row)] if row.status == "regressed" else row.items
    lines += [f"- {i}" for i in items[:limit]]
    if len(items) > limit:
        lines.append(f"... and {len(items) - limit} more (--json or --report lists all)")
    return "\n".join(lines)


def _number(value: object) -> float | int | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _exact_figures(case: ET.Element, row: CheckRow) -> None:
    """The row's figures as computed, for a CI system that reads or plots them: the messages
    round for reading (0.8996 reads 0.900 beside '>= 0.900'), these do not."""
    figures: dict[str, object] = {"status": row.word, "role": row.role, "value": row.value}
    if row.to_target is not None:
        figures["to_target"] = row.to_target
    vs = row.vs_baseline
    if vs is not None:
        figures.update(baseline=vs.baseline, diff=vs.diff, p_worse=vs.p_worse)
    props = ET.SubElement(case, "properties")
    for key, value in figures.items():
        text = repr(value) if isinstance(value, float) else "" if value is None else str(value)
        ET.SubElement(props, "property", name=key, value=text)


def junit_xml(result: GateResult) -> str:
    rows = result.checks
    failures = sum(r.status in FAILURE_TYPES for r in rows)
    errors = sum(r.status == "error" for r in rows)
    skipped = sum(r.status == "not_tested" for r in rows)
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
        "outcome": result.outcome,
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
        _exact_figures(case, row)
        message = _message(result, row)
        first = message.splitlines()[0] + ": " + (row.why or row.detail)
        if row.status in FAILURE_TYPES:
            ET.SubElement(
                case, "failure", message=first, type=FAILURE_TYPES[row.status]
            ).text = message
        elif row.status == "error":
            ET.SubElement(
                case, "error", message=row.why or row.detail, type="CouldNotRun"
            ).text = message
        elif row.status == "not_tested":
            ET.SubElement(case, "skipped", message=row.why or row.detail)
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
