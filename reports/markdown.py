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


def _detail_width(rows: list[list[str]], columns: int | None = None) -> int:
    """The detail column gets what the terminal has left after the other columns."""
    import shutil

    columns = columns or shutil.get_terminal_size((120, 24)).columns
    # tabulate's "simple" format: a column is at least its header plus two wide, and two
    # spaces separate columns
    widths = [max(len(HEADERS[i]) + 2, *(len(r[i]) for r in rows)) for i in range(len(HEADERS) - 1)]
    used = sum(widths) + 2 * (len(HEADERS) - 1)
    return max(40, columns - used)


def terminal_table(result: GateResult, columns: int | None = None) -> str:
    rows = table_rows(result, width=None)
    width = _detail_width(rows, columns)
    rows = [[*r[:-1], r[-1] if len(r[-1]) <= width else r[-1][: width - 1] + "…"] for r in rows]
    note = expected_offline(result)
    return (
        tabulate(rows, headers=HEADERS, tablefmt="simple", disable_numparse=True)
        + "\n\n"
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
