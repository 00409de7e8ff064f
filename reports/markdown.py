"""Terminal and markdown tables for a gate result (the latter fits a CI step summary)."""

from __future__ import annotations

from tabulate import tabulate

from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow

MARK = {
    "pass": "PASS",
    "fail": "FAIL",
    "error": "ERROR",
    "reported": "info",
    "unscored": "unscored",
    "skipped": "skip",
}


def _value(row: CheckRow) -> str:
    if row.value is None:
        return "-"
    if isinstance(row.value, float):
        return f"{row.value:.3f}"
    return str(row.value)


def _vs_baseline(row: CheckRow) -> str:
    d = row.vs_baseline
    if d is None or d.diff is None:
        return "-"
    ci = f" [{d.ci_low:+.3f}, {d.ci_high:+.3f}]" if d.ci_low is not None else ""
    return f"{d.diff:+.3f}{ci} p={d.p_worse:.2g}"


def _sees(row: CheckRow) -> str:
    p = row.power
    if p is None:
        return "-"
    seen = f"{p.min_detectable:.3f}" if p.min_detectable is not None else "none"
    need = f"{p.items_for_target}" if p.items_for_target is not None else "never"
    return f"{seen} (n={need} for {p.target:g})"


# Columns a gate result shows when some row has them: its comparison with a baseline, and the
# smallest drop its set can see (with the items it would need for the target drop).
_EXTRA = {"vs baseline [95% CI] p": _vs_baseline, "sees a drop of": _sees}


def _extras(result: GateResult) -> list[str]:
    present = []
    if any(r.vs_baseline is not None for r in result.checks):
        present.append("vs baseline [95% CI] p")
    if any(r.power is not None for r in result.checks):
        present.append("sees a drop of")
    return present


def table_rows(result: GateResult, width: int | None = 90) -> list[list[str]]:
    out = []
    extras = _extras(result)
    for r in result.checks:
        detail = (
            r.detail if width is None or len(r.detail) <= width else r.detail[: width - 1] + "…"
        )
        cells = [_EXTRA[name](r) for name in extras]
        out.append([MARK[r.status], r.name, _value(r), r.threshold or "-", *cells, detail])
    return out


HEADERS = ["status", "check", "value", "threshold", "detail"]


def headers_for(result: GateResult) -> list[str]:
    return [*HEADERS[:4], *_extras(result), HEADERS[4]]


def verdict_line(result: GateResult) -> str:
    word = "PASSED" if result.passed else ("COULD NOT RUN" if result.exit_code == 2 else "FAILED")
    return (
        f"gate {word} (exit {result.exit_code}) in {result.wall_s:.1f}s; judge {result.judge}, policy "
        f"{result.policy}; model calls {result.model_calls}, cache hits {result.cache_hits}"
        + (
            " (no model calls: every verdict came from the cache)"
            if result.model_calls == 0 and result.cache_hits
            else ""
        )
        + (
            " (" + ", ".join(f"{k} {v}" for k, v in sorted(result.phase_model_calls.items())) + ")"
            if result.model_calls and result.phase_model_calls
            else ""
        )
    )


def expected_offline(result: GateResult) -> str | None:
    """Why the offline default gate fails, said beside its exit 1: the only failing rows are
    the judge calibration thresholds that the word-reading `rules` judge is known to miss.
    None for any other failure (that one is news)."""
    failed = {r.check for r in result.checks if r.status == "fail"}
    if result.exit_code != 1 or result.judge != "rules" or not failed or failed - {"calibration"}:
        return None
    return (
        "This is the expected result offline: the `rules` judge reads words, not meaning, and "
        "agrees with the hand-labelled calibration pairs less often than the thresholds ask; "
        "every other check passed. README, 'The offline judge', has its figures; a model judge "
        "(--judge openai:NAME) is what those thresholds are for."
    )


def statistics_lines(result: GateResult, limit: int = 20) -> list[str]:
    """What the baseline comparison and the repeats add: which run the rows were compared
    with and what regressed; the pairs whose verdict changed between repeats."""
    lines = []
    base = result.artifacts.baseline
    if base:
        regressed = base.regressions
        lines.append(
            f"compared with {base.described}: "
            + (f"{len(regressed)} row(s) regressed: {', '.join(regressed)}" if regressed
               else "no row is significantly worse by more than the "
               f"{base.tolerance:g} tolerance")
        )  # fmt: skip
    rep = result.artifacts.repeats
    if rep:
        unstable = rep.unstable
        lines.append(
            f"{rep.n} repeats: values are means over the repeats; {len(unstable)} unstable "
            "pair(s) (the audited verdict changed between repeats)" + (":" if unstable else "")
        )
        for u in unstable[:limit]:
            label = f" (label {u.label})" if u.label else ""
            lines.append(
                f"  unstable {u.set} {u.id}{label}: {' / '.join(u.verdicts)} - {u.claim[:80]}"
            )
        if len(unstable) > limit:
            lines.append(f"  ... and {len(unstable) - limit} more (--json or --report lists all)")
    return lines


def _detail_width(rows: list[list[str]], headers: list[str], columns: int | None = None) -> int:
    """The detail column (the last) gets what the terminal has left after the others."""
    import shutil

    columns = columns or shutil.get_terminal_size((120, 24)).columns
    # tabulate's "simple" format: a column is at least its header plus two wide, and two
    # spaces separate columns
    widths = [max(len(headers[i]) + 2, *(len(r[i]) for r in rows)) for i in range(len(headers) - 1)]
    used = sum(widths) + 2 * (len(headers) - 1)
    return max(40, columns - used)


def terminal_table(result: GateResult, columns: int | None = None) -> str:
    extra = statistics_lines(result)
    headers = headers_for(result)
    rows = table_rows(result, width=None)
    width = _detail_width(rows, headers, columns)
    rows = [[*r[:-1], r[-1] if len(r[-1]) <= width else r[-1][: width - 1] + "…"] for r in rows]
    note = expected_offline(result)
    return (
        tabulate(rows, headers=headers, tablefmt="simple", disable_numparse=True)
        + "\n\n"
        + ("\n".join(extra) + "\n\n" if extra else "")
        + verdict_line(result)
        + (f"\n{note}" if note else "")
    )


def markdown_summary(result: GateResult) -> str:
    icon = {"PASS": "✅", "FAIL": "❌", "ERROR": "⛔", "info": "ℹ️", "unscored": "➖", "skip": "➖"}
    rows = [[icon.get(r[0], r[0]) + " " + r[0], *r[1:]] for r in table_rows(result, width=None)]
    lines = [
        f"## spanproof gate: {'passed' if result.passed else 'failed'}",
        "",
        verdict_line(result),
        *([expected_offline(result) or ""] if expected_offline(result) else []),
        "",
        tabulate(rows, headers=headers_for(result), tablefmt="github", disable_numparse=True),
        "",
        f"config `{result.config_sha256[:12]}` ({result.config_source}); judges: {', '.join(result.judge_ids) or '-'}",
    ]
    extra = statistics_lines(result, limit=50)
    if extra:
        lines[4:4] = ["```", *extra, "```", ""]
    if result.prompt_hashes:
        lines.append(
            "prompts: "
            + ", ".join(f"{k} `{v[:12]}`" for k, v in sorted(result.prompt_hashes.items()))
        )
    return "\n".join(lines) + "\n"
