"""A self-contained HTML page for `spanproof calibrate --report DIR`: the figures table
(audited and judge-only), the judges compared pair by pair (reports/judge_compare_html.py),
confusion matrices and, for each judge that states a confidence, its reliability diagram with
the expected calibration error."""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING

from spanproof.reports import plots
from spanproof.reports.html import STYLE, _figure, _table
from spanproof.reports.judge_compare_html import comparison_section, coverage_section

if TYPE_CHECKING:
    from spanproof.bench.calibration import CalibrationResult


def _f(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def render(result: CalibrationResult) -> str:
    rows = []
    for r in result.judges:
        rows.append([r.set, r.judge, "after the audit", r.n, _f(r.agreement),
                     _f(r.near_miss_agreement), _f(r.kappa), _f(r.macro_f1),
                     _f(r.balanced_accuracy), r.errors, "-",
                     {True: "PASS", False: "FAIL", None: "-"}[r.passed]])  # fmt: skip
        j = r.judge_only
        if j is not None:
            ece = _f(r.confidence.ece) if r.confidence else "none"
            rows.append([r.set, r.judge, "judge only", r.n, _f(j.agreement),
                         _f(j.near_miss_agreement), _f(j.kappa), _f(j.macro_f1),
                         _f(j.balanced_accuracy), j.errors, ece, "-"])  # fmt: skip
    headers = ["set", "judge", "verdicts", "n", "agreement", "near-miss", "kappa", "macro-F1",
               "bal. acc", "errors", "ECE", "gate"]  # fmt: skip
    figs = []
    notes = []
    for r in result.judges:
        labels = list(r.confusion)
        cols = list(next(iter(r.confusion.values())))
        figs.append(
            _figure(
                plots.confusion_matrix(
                    labels, [[r.confusion[g][p] for p in cols] for g in labels],
                    f"{r.judge} on {r.set} (after the audit)", cols,
                ),
                f"{r.judge} on {r.set}: rows human label, columns audited verdict",
            )
        )  # fmt: skip
        if r.confidence is not None and r.confidence.n:
            figs.append(
                _figure(
                    plots.reliability(
                        [b.model_dump() for b in r.confidence.bins],
                        f"{r.judge} on {r.set}",
                        r.confidence.ece,
                    ),
                    f"Reliability of {r.judge}'s confidence on {r.set}: {r.confidence.n} verdicts",
                )
            )
        else:
            notes.append(f"{r.judge} on {r.set}: confidence {r.confidence_note or 'none'}")
    warnings = [f"{r.judge} on {r.set}: {r.fitted_on.warning()}" for r in result.judges
                if r.fitted_on is not None]  # fmt: skip
    trained = "".join(f"<p class=FAIL>{html.escape(w)}</p>" for w in warnings)
    note_html = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>spanproof judge calibration</title>
<style>{STYLE}</style></head><body>
<h1>Judge calibration</h1>
<p>Each judge twice: <b>after the audit</b> (what publishes; the thresholds apply to these
rows) and <b>judge only</b> (the judge's own verdicts before the code audit: what it read).
ECE is the expected calibration error of the judge's stated confidence in its own verdict.</p>
{coverage_section(result)}
{_table(headers, rows, status_col=None)}
{trained}
{comparison_section(result)}
<h2>Plots</h2>
{"".join(figs)}
{f"<ul>{note_html}</ul>" if notes else ""}
</body></html>
"""


def write_report(result: CalibrationResult, out_dir: str | Path) -> Path:
    from spanproof.core.files import write_atomic

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "index.html"
    write_atomic(path, render(result))
    return path
