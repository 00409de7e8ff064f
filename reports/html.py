"""A self-contained HTML gate report: tables, inline PNG plots, links to each run's ledger.

Nothing in the page refers to another host: styles are inline, plots are data
URIs, and ledgers are copied next to the report and linked relatively.
"""

from __future__ import annotations

import html
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

from spanproof.reports import plots
from spanproof.reports.markdown import HEADERS, header_lines, reasons, table_rows, verdict_line

from spanproof.core.files import write_atomic
from spanproof.gate.result import GateResult

STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2rem;color:#222;max-width:1100px}
img{max-width:100%;height:auto}
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.3rem .6rem;text-align:left;vertical-align:top}
th{background:#f4f4f4} .PASS{color:#1e8449;font-weight:600} .FAIL{color:#c0392b;font-weight:700}
.REGRESSED{color:#ca6f1e;font-weight:700} .ERROR{color:#7d3c98;font-weight:700}
.INFO{color:#1f618d} .NOT_TESTED{color:#777;font-style:italic} pre{white-space:pre-wrap}
.banner{padding:.6rem 1rem;border-radius:6px;font-weight:600}
.ok{background:#e9f7ef} .bad{background:#fdedec} figure{display:inline-block;margin:.5rem}
figcaption{font-size:.8rem;color:#555} code{background:#f4f4f4;padding:0 .2rem}
"""


def _table(headers: list[str], rows: list[list[Any]], status_col: int | None = None) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = f' class="{html.escape(str(cell).replace(" ", "_"))}"' if i == status_col else ""
            cells.append(f"<td{cls}>{html.escape(str(cell))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _fmt(value: object) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def _figure(uri: str, caption: str) -> str:
    return f'<figure><img alt="{html.escape(caption)}" src="{uri}"><figcaption>{html.escape(caption)}</figcaption></figure>'


def _plots(result: GateResult) -> list[str]:
    return [_figure(uri, caption) for uri, caption in gate_figures(result)]


def gate_figures(result: GateResult) -> list[tuple[str, str]]:
    """The report's plots as (PNG data URI, caption), from the result's artifacts alone."""
    art = result.artifacts
    th = {r.name: r.threshold for r in result.checks}
    out: list[tuple[str, str]] = []
    cal = art.calibration
    for judge_id, data in (cal.judges if cal else {}).items():
        assert cal is not None
        out.append(
            (
                plots.confusion_matrix(
                    cal.labels, data.matrix, f"calibration: {judge_id}", cal.columns
                ),
                f"Calibration confusion matrix for {judge_id} after the audit (agreement "
                f"{_fmt(data.agreement)}; judge-only {_fmt(data.judge_only.agreement)})",
            )
        )
        rel = data.reliability
        if rel and rel.n:
            out.append(
                (
                    plots.reliability(
                        [b.model_dump() for b in rel.bins], f"confidence: {judge_id}", rel.ece
                    ),
                    f"Reliability of {judge_id}'s confidence on the calibration set "
                    f"(expected calibration error {_fmt(rel.ece)}, {rel.n} verdicts)",
                )
            )
    sens = art.sensitivity
    if sens and sens.per_kind:
        thr = _threshold_number(th.get("sensitivity.recall"))
        out.append(
            (
                plots.hbars(
                    sens.per_kind, f"sensitivity per planted kind ({sens.judge})", "caught", thr
                ),
                "Share of planted failures the judge caught, per kind"
                + (f"; planted on {sens.selection}" if sens.selection else ""),
            )
        )
    runs = art.groundedness.runs if art.groundedness else []
    if runs:
        out.append(
            (
                plots.paired_bars(
                    [r.question_id or r.run_id[-8:] for r in runs],
                    {
                        "pre-prune SUPPORTED": [r.pre_prune for r in runs],
                        "published (post-prune)": [r.post_prune for r in runs],
                    },
                    "groundedness per run, pre vs post prune",
                    "share SUPPORTED",
                ),
                "Groundedness before and after pruning, per golden question",
            )
        )
    inj = art.injection.per_technique if art.injection else {}
    if inj:
        resisted = {
            k: 1 - (v.attacker_claims > 0 or v.hosts_contacted > 0) * 1.0 for k, v in inj.items()
        }
        out.append(
            (
                plots.hbars(
                    resisted,
                    "injection: resisted per technique",
                    "1 = no attacker claim, no attacker host",
                ),
                "Per-technique injection results",
            )
        )
    return out


def _threshold_number(text: str | None) -> float | None:
    try:
        return float((text or "").split()[-1])
    except (ValueError, IndexError):
        return None


def _cost_table(result: GateResult) -> str:
    runs = result.artifacts.cost.runs if result.artifacts.cost else []
    if not runs:
        return "<p>No agent runs.</p>"
    total = sum(r.cost_usd for r in runs)
    rows = [
        [r.question_id or "-", r.run_id, r.tokens, r.searches, f"{r.cost_usd:.4f}",
         f"{r.phase_s:.2f}", "-" if r.verify_share_of_time is None else f"{r.verify_share_of_time:.2f}"]
        for r in runs
    ]  # fmt: skip
    free_note = (" Searches of the local corpus and calls to offline models cost $0."
                 if any(r.cost_free for r in runs) else "")  # fmt: skip
    head = f"<p>Total ${total:.4f} over {len(runs)} runs (price table from the gate config; verifier tokens are not recorded, so verification's share is shown as time).{free_note}</p>"
    return head + _table(
        ["question", "run", "tokens", "searches", "cost $", "phase s", "verify share of time"], rows
    )


def _ledger_links(result: GateResult, out_dir: Path) -> str:
    if not result.ledgers:
        return "<p>No run ledgers recorded.</p>"
    dest = out_dir / "ledgers"
    items = []
    for run_id, path in sorted(result.ledgers.items()):
        src = Path(path)
        if src.is_file():
            dest.mkdir(parents=True, exist_ok=True)
            target = dest / f"{run_id}{src.suffix or '.txt'}"
            shutil.copyfile(src, target)
            href = "ledgers/" + quote(target.name)
            items.append(f'<li><a href="{html.escape(href)}">{html.escape(run_id)}</a></li>')
        else:
            items.append(
                f"<li>{html.escape(run_id)} (ledger missing: {html.escape(str(path))})</li>"
            )
    return "<ul>" + "".join(items) + "</ul>"


def render_html(result: GateResult, out_dir: Path) -> str:
    rows = table_rows(result)
    banner = "ok" if result.passed else "bad"
    why = reasons(result, limit=None)
    phases = [
        [k, f"{v:.2f}"] for k, v in sorted(result.phase_seconds.items(), key=lambda kv: -kv[1])
    ]
    meta = [
        ["config", f"{result.config_sha256[:16]} ({result.config_source})"],
        ["judges", ", ".join(result.judge_ids) or "-"],
        ["policy / model", f"{result.policy} / {result.model or '-'}"],
        *[[f"prompt {k}", v[:16]] for k, v in sorted(result.prompt_hashes.items())],
        ["started", result.started_at],
    ]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>spanproof gate report</title>
<style>{STYLE}</style></head><body>
<h1>spanproof gate report</h1>
<p class="banner {banner}">{html.escape(verdict_line(result))}</p>
<pre>{html.escape(chr(10).join(header_lines(result)))}</pre>
<h2>Checks</h2>
{_table(HEADERS, rows, status_col=0)}
<h2>Why each row is not a PASS</h2>
{f"<pre>{html.escape(chr(10).join(why))}</pre>" if why else "<p>Every row passed or is information.</p>"}
<h2>Plots</h2>
{"".join(_plots(result)) or "<p>No plot data (the checks behind them did not run).</p>"}
<h2>Cost and latency per run</h2>
{_cost_table(result)}
<h2>Time per phase (s)</h2>
{_table(["phase", "seconds"], phases)}
<h2>Versions</h2>
{_table(["what", "value"], meta)}
<h2>Run ledgers</h2>
{_ledger_links(result, out_dir)}
</body></html>
"""


def write_report(result: GateResult, out_dir: str | Path) -> dict[str, Path]:
    """Write index.html, summary.md and result.json into ``out_dir``; returns their paths."""
    from spanproof.reports.markdown import markdown_summary

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "html": out / "index.html",
        "markdown": out / "summary.md",
        "json": out / "result.json",
    }
    write_atomic(paths["html"], render_html(result, out))
    write_atomic(paths["markdown"], markdown_summary(result))
    write_atomic(paths["json"], result.model_dump_json(indent=2))
    return paths
