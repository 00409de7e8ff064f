"""Gate results as pages: one result's checks and evidence, and two results side by side."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pydantic import BaseModel

from spanproof.gate.artifacts import JudgedItem, MissedItem
from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow

MOVE_EPS = 1e-9


class CheckMove(BaseModel):
    name: str
    a: CheckRow | None
    b: CheckRow | None
    delta: float | None  # b - a, when both values are numbers
    moved: bool  # status changed, value changed, or present in one result only

    @property
    def status_changed(self) -> bool:
        return (self.a.status if self.a else None) != (self.b.status if self.b else None)


class KindMove(BaseModel):
    kind: str
    a: float | None
    b: float | None
    delta: float | None


def _num(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else b - a


def compare_checks(a: GateResult, b: GateResult) -> list[CheckMove]:
    """Every check of either result, in a's order then b's new ones; which moved and by how much."""
    rows_a = {r.name: r for r in a.checks}
    rows_b = {r.name: r for r in b.checks}
    names = list(rows_a) + [n for n in rows_b if n not in rows_a]
    out = []
    for name in names:
        ra, rb = rows_a.get(name), rows_b.get(name)
        va, vb = (_num(ra.value) if ra else None), (_num(rb.value) if rb else None)
        delta = _delta(va, vb)
        moved = (
            ra is None
            or rb is None
            or ra.status != rb.status
            or (delta is not None and abs(delta) > MOVE_EPS)
            or (delta is None and ra.value != rb.value)
        )
        out.append(CheckMove(name=name, a=ra, b=rb, delta=delta, moved=moved))
    return out


def compare_sensitivity(a: GateResult, b: GateResult) -> list[KindMove]:
    ka = a.artifacts.sensitivity.per_kind if a.artifacts.sensitivity else {}
    kb = b.artifacts.sensitivity.per_kind if b.artifacts.sensitivity else {}
    kinds = list(ka) + [k for k in kb if k not in ka]
    return [
        KindMove(kind=k, a=ka.get(k), b=kb.get(k), delta=_delta(ka.get(k), kb.get(k)))
        for k in kinds
    ]


# --- one result ---------------------------------------------------------------------------


class SensitivityKind(BaseModel):
    kind: str
    caught: int
    n: int
    rate: float | None
    missed: list[MissedItem]


def sensitivity_kinds(result: GateResult) -> list[SensitivityKind]:
    sens = result.artifacts.sensitivity
    if sens is None:
        return []
    out = [
        SensitivityKind(
            kind=kind, caught=caught, n=n, rate=(caught / n) if n else None,
            missed=[m for m in sens.missed if m.kind == kind],
        )
        for kind, (caught, n) in sens.counts.items()
    ]  # fmt: skip
    return sorted(out, key=lambda k: (k.rate if k.rate is not None else 2, k.kind))


class Confusion(BaseModel):
    judge: str
    labels: list[str]
    columns: list[str]
    matrix: list[list[int]]
    agreement: float | None
    near_miss: float | None
    has_items: bool


def confusions(result: GateResult) -> list[Confusion]:
    cal = result.artifacts.calibration
    if cal is None:
        return []
    return [
        Confusion(
            judge=judge, labels=cal.labels, columns=cal.columns, matrix=data.matrix,
            agreement=data.agreement, near_miss=data.near_miss, has_items=bool(cal.items.get(judge)),
        )
        for judge, data in cal.judges.items()
    ]  # fmt: skip


def calibration_items(
    result: GateResult, judge: str, gold: str | None = None, verdict: str | None = None
) -> list[JudgedItem]:
    cal = result.artifacts.calibration
    items = cal.items.get(judge, []) if cal else []
    return [
        i
        for i in items
        if (gold is None or i.label == gold) and (verdict is None or i.verdict == verdict)
    ]


def has_calibration_items(result: GateResult, judge: str) -> bool:
    cal = result.artifacts.calibration
    return bool(cal and cal.items.get(judge))


class InjectionRow(BaseModel):
    technique: str
    cases: int
    attacker_claims: int
    hosts_contacted: int
    failed_runs: int
    resisted: bool


def injection_rows(result: GateResult) -> list[InjectionRow]:
    per = result.artifacts.injection.per_technique if result.artifacts.injection else {}
    return [
        InjectionRow(
            technique=tech, **row.model_dump(),
            resisted=not (row.attacker_claims or row.hosts_contacted),
        )
        for tech, row in sorted(per.items())
    ]  # fmt: skip


@lru_cache(maxsize=16)
def _figures_for(gate_id: str, result_json: str) -> tuple[tuple[str, str], ...]:
    from spanproof.reports.html import gate_figures

    return tuple(gate_figures(GateResult.model_validate_json(result_json)))


def figures(result: GateResult) -> list[tuple[str, str]]:
    """The HTML report's plots (data URIs, so the page needs no other host), cached per result."""
    return list(_figures_for(result.gate_id, result.model_dump_json()))
