"""The judge comparison of `spanproof calibrate --report`: the pairs compared (with --cover,
the pairs kept and left out), the paired differences headline first (balanced accuracy on
SUPPORTED vs rest when a judge is binary, else three-way agreement) and the pairs whose
verdicts differ. HTML fragments for reports/calibration_html.py."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

from spanproof.reports.html import _table

if TYPE_CHECKING:
    from spanproof.bench.calibration import CalibrationResult
    from spanproof.bench.judge_compare import JudgeComparison
    from spanproof.bench.paired_stats import PairedDifference

DIFFERING_SHOWN = 100  # the rest are in --json


def _f(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def _row(figure: str, verdicts: str, d: PairedDifference | None) -> list[object]:
    if d is None or d.diff is None:
        return [figure, verdicts, "n/a", "n/a", "n/a", "n/a", "n/a", "no pairs"]
    ci = "n/a" if d.ci_low is None else f"[{d.ci_low:+.3f}, {d.ci_high:+.3f}]"
    return [figure, verdicts, d.n_items, _f(d.baseline), _f(d.current), f"{d.diff:+.3f}", ci,
            f"{d.test}, p = {d.p_two_sided:.2g}"]  # fmt: skip


def coverage_section(result: CalibrationResult) -> str:
    if not result.coverage:
        return ""
    parts = ["<h2>Pairs compared</h2>"]
    for c in result.coverage:
        parts.append(f"<p>{html.escape(c.summary())}.</p>")
        if c.left_out:
            rows = [[p.id, ", ".join(p.missing_from)] for p in c.left_out]
            parts.append(f"<details><summary>{len(c.left_out)} pairs left out of {html.escape(c.set)}"
                         "</summary>" + _table(["pair", "no verdict from"], rows) + "</details>")  # fmt: skip
    return "".join(parts)


def _one(c: JudgeComparison) -> str:
    binary = [name for name, b in ((c.a, c.a_binary), (c.b, c.b_binary)) if b]
    rows = []
    for verdicts, b in (("final", c.binary), ("judge-only", c.binary_judge_only)):
        if b is not None:
            rows.append(
                _row("balanced accuracy (SUPPORTED vs rest)", verdicts, b.balanced_accuracy)
            )
            rows.append(_row(f"TPR ({b.n_supported} SUPPORTED pairs)", verdicts, b.tpr))
            rows.append(_row(f"TNR ({b.n_rest} other pairs)", verdicts, b.tnr))
    agreement = [_row("agreement (three-way)", "final", c.agreement),
                 _row("agreement (three-way)", "judge-only", c.agreement_judge_only)]  # fmt: skip
    if c.near_miss is not None:
        agreement.append(_row("near-miss agreement", "final", c.near_miss))
    if c.headline == "agreement":
        rows = agreement + rows
        why = "Neither judge is binary: the headline is three-way agreement."
    else:
        rows = rows + agreement
        why = (f"{' and '.join(binary)} never said PARTIAL on this set (binary): the headline is "
               "SUPPORTED-vs-rest balanced accuracy, since three-way agreement counts every "
               "PARTIAL pair against a judge that does not say it.")  # fmt: skip
    headers = ["figure", "verdicts", "pairs", c.a, c.b, f"{c.b} minus {c.a}", "95% CI", "test"]
    shown = c.differing[:DIFFERING_SHOWN]
    diff_rows = [[d.id, d.kind, d.label or "-", d.a, d.b, d.claim] for d in shown]
    more = len(c.differing) - len(shown)
    return (
        f"<h3>{html.escape(c.b)} minus {html.escape(c.a)} on {html.escape(c.set)} "
        f"({c.n} pairs)</h3><p>{html.escape(why)} Intervals are clustered by source page; "
        "tests are paired (exact McNemar when no two pairs share a page).</p>"
        + _table(headers, rows)
        + f"<h4>Pairs where the verdicts differ ({len(c.differing)})</h4>"
        + (_table(["pair", "kind", "label", c.a, c.b, "claim"], diff_rows) if shown else
           "<p>None: the two judges gave the same verdict on every pair.</p>")
        + (f"<p>... and {more} more (<code>--json</code> lists all).</p>" if more > 0 else "")
    )  # fmt: skip


def comparison_section(result: CalibrationResult) -> str:
    if not result.comparisons:
        return ""
    return "<h2>Judges compared, pair by pair</h2>" + "".join(map(_one, result.comparisons))
