"""Terminal and markdown tables for a gate result (the latter fits a CI step summary)."""

from __future__ import annotations

from spanproof.graders.gate_result import CheckRow, GateResult
from tabulate import tabulate

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


def table_rows(result: GateResult, width: int | None = 90) -> list[list[str]]:
    out = []
    for r in result.checks:
        detail = (
            r.detail if width is None or len(r.detail) <= width else r.detail[: width - 1] + "…"
        )
        out.append([MARK[r.status], r.name, _value(r), r.threshold or "-", detail])
    return out


HEADERS = ["status", "check", "value", "threshold", "detail"]


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


def terminal_table(result: GateResult) -> str:
    return (
        tabulate(table_rows(result), headers=HEADERS, tablefmt="simple", disable_numparse=True)
        + "\n\n"
        + verdict_line(result)
    )


def markdown_summary(result: GateResult) -> str:
    icon = {"PASS": "✅", "FAIL": "❌", "ERROR": "⛔", "info": "ℹ️", "unscored": "➖", "skip": "➖"}
    rows = [[icon.get(r[0], r[0]) + " " + r[0], *r[1:]] for r in table_rows(result, width=None)]
    lines = [
        f"## spanproof gate: {'passed' if result.passed else 'failed'}",
        "",
        verdict_line(result),
        "",
        tabulate(rows, headers=HEADERS, tablefmt="github", disable_numparse=True),
        "",
        f"config `{result.config_sha256[:12]}` ({result.config_source}); judges: {', '.join(result.judge_ids) or '-'}",
    ]
    if result.prompt_hashes:
        lines.append(
            "prompts: "
            + ", ".join(f"{k} `{v[:12]}`" for k, v in sorted(result.prompt_hashes.items()))
        )
    return "\n".join(lines) + "\n"
