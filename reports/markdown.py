"""A gate result as text: the terminal's screen and the markdown summary (a CI step summary).

Both say the same things in the same words (``spanproof.gate.rows.STATUS_WORDS``): what was
checked against what, the design targets this judge misses and why, one table row per
figure, and then, for every row that is not a PASS, why — with what broke a floor or the
items that moved against the baseline. Nothing a reader needs to act on is cut to fit a
terminal: the reasons sit below the table, whole.
"""

from __future__ import annotations

from collections.abc import Iterable

from tabulate import tabulate

from spanproof.core.specs import SpecError, parse_named_spec
from spanproof.gate.comparison import MovedItem
from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow

# How many items a terminal lists under one row; --json, --markdown and --report list all.
TERMINAL_ITEMS = 10
HEADERS = ["status", "check", "value", "threshold / target", "to target", "vs baseline [95% CI] p"]


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


def _to_target(row: CheckRow) -> str:
    if row.to_target is None or row.role != "trend":
        return "-"
    return "met" if row.to_target >= -1e-12 else f"{row.to_target:+.3f}"


def table_rows(result: GateResult) -> list[list[str]]:
    return [
        [r.word, r.name, _value(r), r.threshold or "-", _to_target(r), _vs_baseline(r)]
        for r in result.checks
    ]


def moved_items(result: GateResult, row: CheckRow) -> list[MovedItem]:
    report = result.artifacts.baseline
    if report is None:
        return []
    return next((c.moved for c in report.rows if c.row == row.name), [])


def reasons(result: GateResult, limit: int | None = TERMINAL_ITEMS) -> list[str]:
    """For every row that is not a PASS or INFO: its status, name and why; under a FAIL what
    broke it, under a REGRESSED row the items that moved (``limit`` of each; None: all). Rows
    NOT TESTED for one reason share one line."""
    lines: list[str] = []
    untested: dict[str, list[str]] = {}
    for row in result.checks:
        if row.status in ("pass", "info"):
            continue
        if row.status == "not_tested":
            untested.setdefault(row.why or row.detail, []).append(row.name)
            continue
        lines.append(f"{row.word} {row.name}: {row.why or row.detail}")
        listed: list[str] = list(row.items)
        if row.status == "regressed":
            moved = moved_items(result, row)
            if moved:
                lines.append(f"  {len(moved)} item(s) moved the wrong way:")
            listed = [m.line() for m in moved]
        lines += _capped(listed, limit)
    for why, names in untested.items():
        lines.append(f"NOT TESTED {', '.join(names)}: {why}")
    return lines


def _capped(items: list[str], limit: int | None) -> list[str]:
    shown = items if limit is None else items[:limit]
    out = [f"  - {item}" for item in shown]
    if len(items) > len(shown):
        out.append(f"  ... and {len(items) - len(shown)} more (--json, --markdown or --report "
                   "list them all)")  # fmt: skip
    return out


def _judge_summary(spec: str) -> str:
    from spanproof.graders.judges import judge_kind

    try:
        return judge_kind(parse_named_spec(spec).spec.kind).summary
    except SpecError:
        return spec


def header_lines(result: GateResult) -> list[str]:
    """What the gate checked, against what, and the design targets this judge misses."""
    floors = [r for r in result.checks if r.role == "floor" and r.status != "info"]
    trends = [r for r in result.checks if r.role == "trend"]

    def tally(rows: Iterable[CheckRow]) -> str:
        words: dict[str, int] = {}
        for r in rows:
            words[r.word] = words.get(r.word, 0) + 1
        return ", ".join(f"{n} {w}" for w, n in words.items()) or "none"

    base = result.artifacts.baseline
    against = f"against {base.described}" if base else "with no baseline (trends not tested)"
    lines = [
        f"spanproof gate {result.gate_id}: judge {result.judge}, policy {result.policy}",
        f"  floors (contracts that hold absolutely): {tally(floors)}",
        f"  trends (no significant drop {against}): {tally(trends)}",
    ]
    short = [r for r in trends if r.to_target is not None and r.to_target < -1e-12]
    if short:
        lines.append(
            f"  design targets this judge does not meet (shown, not gated: a team makes them "
            f"floors in its config once its judge can meet them; judge {result.judge}: "
            f"{_judge_summary(result.judge)}):"
        )
        lines += [
            f"    {r.name} {_value(r)}, target {r.threshold}, {r.to_target:+.3f}" for r in short
        ]
    return lines


def _scope(result: GateResult) -> str:
    """What a PASSED covers when no trend was tested: the floors alone."""
    tested = any(r.role == "trend" and r.status in ("pass", "regressed") for r in result.checks)
    trends = any(r.role == "trend" for r in result.checks)
    return " (floors only: no trend was tested)" if trends and not tested else ""


def verdict_line(result: GateResult) -> str:
    scope = _scope(result) if result.outcome == "PASSED" else ""
    return (
        f"gate {result.outcome}{scope} (exit {result.exit_code}) in {result.wall_s:.1f}s; judge "
        f"{result.judge}, policy {result.policy}; model calls {result.model_calls}, cache hits "
        f"{result.cache_hits}"
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
        + f"; gate id {result.gate_id} (`spanproof runs gates` lists the ids for --baseline)"
    )


def statistics_lines(result: GateResult, limit: int | None = 20) -> list[str]:
    """What the repeats add: the pairs whose verdict changed between repeats."""
    lines = []
    rep = result.artifacts.repeats
    if rep:
        unstable = rep.unstable
        lines.append(
            f"{rep.n} repeats: values are means over the repeats; {len(unstable)} unstable "
            "pair(s) (the audited verdict changed between repeats)" + (":" if unstable else "")
        )
        lines += _capped(
            [
                f"unstable {u.set} {u.id}" + (f" (label {u.label})" if u.label else "")
                + f": {' / '.join(u.verdicts)} - {u.claim[:80]}"
                for u in unstable
            ],
            limit,
        )  # fmt: skip
    return lines


def terminal_table(result: GateResult) -> str:
    sections = [
        "\n".join(header_lines(result)),
        tabulate(table_rows(result), headers=HEADERS, tablefmt="simple", disable_numparse=True),
        "\n".join(reasons(result)),
        "\n".join(statistics_lines(result)),
        verdict_line(result),
    ]
    return "\n\n".join(s for s in sections if s)


ICON = {
    "PASS": "✅",
    "FAIL": "❌",
    "REGRESSED": "📉",
    "NOT TESTED": "➖",
    "INFO": "ℹ️",
    "ERROR": "⛔",
}


def markdown_summary(result: GateResult) -> str:
    rows = [[f"{ICON[r[0]]} {r[0]}", *r[1:]] for r in table_rows(result)]
    why = reasons(result, limit=None)
    lines = [
        f"## spanproof gate: {result.outcome}",
        "",
        verdict_line(result),
        "",
        "```",
        *header_lines(result),
        "```",
        "",
        tabulate(rows, headers=HEADERS, tablefmt="github", disable_numparse=True),
        "",
    ]
    if why:
        lines += ["<details open><summary>Why each row is not a PASS</summary>", "", "```",
                  *why, "```", "", "</details>", ""]  # fmt: skip
    extra = statistics_lines(result, limit=None)
    if extra:
        lines += ["```", *extra, "```", ""]
    lines.append(
        f"config `{result.config_sha256[:12]}` ({result.config_source}); judges: "
        f"{', '.join(result.judge_ids) or '-'}"
    )
    if result.prompt_hashes:
        lines.append(
            "prompts: "
            + ", ".join(f"{k} `{v[:12]}`" for k, v in sorted(result.prompt_hashes.items()))
        )
    return "\n".join(lines) + "\n"
