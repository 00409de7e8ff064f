"""The weekly report, built from the run store alone (records, never live objects).

One kind of run at a time: the team's own `ask` runs by default, or the gate's (or the
injection suite's, or `grade`'s) on their own (``kind``), so a gate's forty agent runs never
move the team's figures; the report says how many runs of the other kinds the window holds.
Pre- vs post-prune groundedness per day (plot and table), flagged claims, reviewer
decisions, the review backlog and the runs signed or waiting (reports/weekly_review.py), drop
and PARTIAL rates, cost and latency per run (every run in the JSON; the newest
``RUNS_SHOWN`` in HTML and markdown, so the page stays readable), the same
figures per runner / CI job and per prompt/model version (so a shared store
shows which machine or which prompt moved a number), the gate runs with their
provenance, and the runs with the largest drop rates. The window is selected in
SQL by the store; an empty store gives an empty report that says so, not an error.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd
from pydantic import BaseModel, Field
from spanproof.agent.prices import Prices
from spanproof.reports.weekly_review import ReviewPart, review_part
from tabulate import tabulate

from spanproof.bench.run_view import view_from_record
from spanproof.core.files import write_atomic
from spanproof.gate.checks.runs import groundedness_stats
from spanproof.gate.result import GateResult
from spanproof.store.models import RUN_KINDS, GateRunRow, Review, Signature
from spanproof.store.timeutil import parse_age

RUNS_SHOWN = 50  # per-run rows in HTML and markdown (the newest); the JSON has every run
KINDS = (*RUN_KINDS, "all")


def parse_since(text: str) -> timedelta:
    """'7d', '24h', '2w' -> timedelta; anything else (or more than 200 years) raises
    ValueError with the accepted forms."""
    return parse_age(text, "--since")


def _ts(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        dt = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)


def run_row(record: Any, prices: Prices) -> dict[str, Any]:
    """One run's row: the same groundedness arithmetic and run cost as the gate."""
    from spanproof.agent.prices import run_cost

    g = groundedness_stats([view_from_record(record)])
    m = record.metrics
    cost_row = run_cost(record, prices)
    prov = record.provenance or {}
    phases = dict(m.wall_ms_by_phase)
    started, finished = _ts(record.created_at), _ts(record.finished_at)
    wall_s = sum(phases.values()) / 1000 if phases else None
    if wall_s is None and started and finished:
        wall_s = (finished - started).total_seconds()
    verify_s = phases.get("verify", 0) / 1000 if phases else None
    return {
        "run_id": record.run_id,
        "kind": record.kind,
        "created_at": started,
        "question": record.question[:60],
        "status": record.status,
        "runner": prov.get("runner") or "-",
        "host": prov.get("host") or "-",
        "ci_job": prov.get("ci_job") or "-",
        "policy": record.config.policy,
        "model": record.config.model or "-",
        "judges": "+".join(record.config.judges) or "-",
        "prompts": ",".join(f"{k}:{v[:10]}" for k, v in sorted(record.prompt_hashes.items()))
        or "-",
        # The judge's own version: its prompt hash (for `rules`, the hash of its code).
        "judge_versions": ",".join(
            sorted({(pv.verdict.prompt_sha256 or "-")[:16] for pv in record.verdicts})
        )
        or "-",
        "drafted": g["drafted"],
        "published": g["published"],
        "pre_prune": g["pre_prune"],
        "post_prune": g["post_prune"],
        "partial_rate": g["partial_rate"],
        "drop_rate": g["drop_rate"],
        "tokens": cost_row.tokens,
        "cost_usd": cost_row.cost_usd,
        "cost_free": bool(cost_row.cost_free),  # local corpus searches / offline models
        "verifier_calls": m.cost.verifier_model_calls,
        "wall_s": wall_s,
        "verify_share_of_time": (verify_s / wall_s) if wall_s and verify_s is not None else None,
    }


class WeeklyReport(BaseModel):
    generated_at: str
    since: str
    period_start: str
    period_end: str
    kind: str = "ask"  # the kind of run the figures are over, or "all"
    n_runs: int
    # Runs of the other kinds in the window, left out of every figure (`--kind` shows them).
    other_kinds: dict[str, int] = Field(default_factory=dict)
    totals: dict[str, Any] = Field(default_factory=dict)
    over_time: list[dict[str, Any]] = Field(default_factory=list)  # one row per day
    runs: list[dict[str, Any]] = Field(default_factory=list)
    versions: list[dict[str, Any]] = Field(default_factory=list)
    runners: list[dict[str, Any]] = Field(default_factory=list)  # per runner and CI job
    top_drop: list[dict[str, Any]] = Field(default_factory=list)
    gate_runs: list[dict[str, Any]] = Field(default_factory=list)
    # Flagged claims, reviewer decisions in force on the period's published claims (the human
    # check on the grader), the review backlog and the runs signed or waiting.
    review: ReviewPart | None = None
    # A figure flat through prompt / model / judge changes (probably blind), a PARTIAL spike
    # (reports/weekly_warnings.py).
    warnings: list[dict[str, Any]] = Field(default_factory=list)


def _records_frame(records: list[Any], prices: Prices) -> pd.DataFrame:
    rows = [run_row(r, prices) for r in records]
    return pd.DataFrame(rows)


def _jsonable(df: pd.DataFrame) -> list[dict[str, Any]]:
    if df.empty:
        return []
    rows: list[dict[str, Any]] = json.loads(df.to_json(orient="records", date_format="iso"))
    return rows


def _gate_row(g: GateRunRow) -> dict[str, Any]:
    result = GateResult.model_validate_json(g.result)
    return {
        "gate_id": g.gate_id,
        "started_at": result.started_at,
        "passed": g.passed,
        "outcome": result.outcome,  # the gate's own word: PASSED, FAILED, REGRESSED, ...
        "exit_code": g.exit_code,
        "judge": g.judge,
        "model": g.model or "-",
        "failed": ", ".join(
            r.name for r in result.checks if r.status in ("fail", "regressed", "error")
        )
        or "-",
        "wall_s": round(result.wall_s, 1),
        "model_calls": result.model_calls,
        "cache_hits": result.cache_hits,
        "runs": len(result.run_ids),
        "runner": g.runner,
        "host": g.host,
        "ci_job": g.ci_job or "-",
        "git_commit": g.git_commit or "-",
        "spanproof_version": g.spanproof_version,
        "sanitiser_version": g.sanitiser_version,
        "prompt_version": g.prompt_version or "-",
    }


def window(since: str, now: datetime | None = None) -> tuple[datetime, datetime]:
    """(start, end) of the report window; ValueError for a --since that cannot be read."""
    now = now or datetime.now(UTC)
    return now - parse_since(since), now


def build_weekly(
    records: list[Any],
    gate_runs: list[GateRunRow] | None = None,
    *,
    since: str = "7d",
    now: datetime | None = None,
    prices: Prices | None = None,
    reviews: Mapping[str, Sequence[Review]] | None = None,
    signatures: Mapping[str, Sequence[Signature]] | None = None,
    kind: str = "ask",
    other_kinds: Mapping[str, int] | None = None,
) -> WeeklyReport:
    """The report over the ``kind`` runs of ``records`` and the ``gate_runs`` created in the
    window (the store selects them in SQL; anything outside the window passed here is left
    out). Runs of other kinds are only counted, with ``other_kinds`` (what the caller left
    out without parsing)."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind of run {kind!r}; use one of {', '.join(KINDS)}")
    start, now = window(since, now)
    prices = prices or Prices()
    others = Counter(other_kinds or {})
    if kind != "all":
        others.update(r.kind for r in records if r.kind != kind)
        records = [r for r in records if r.kind == kind]
    df = _records_frame(records, prices)
    if not df.empty:
        df = df[(df["created_at"] >= start) & (df["created_at"] <= now)].sort_values("created_at")
    report = WeeklyReport(
        generated_at=now.isoformat(timespec="seconds"),
        since=since,
        period_start=start.isoformat(timespec="seconds"),
        period_end=now.isoformat(timespec="seconds"),
        kind=kind,
        n_runs=len(df),
        other_kinds=dict(sorted(others.items())),
    )
    naive_start, naive_now = start.replace(tzinfo=None), now.replace(tzinfo=None)
    gates = [g for g in (gate_runs or []) if naive_start <= _naive(g.started_at) <= naive_now]
    report.gate_runs = [_gate_row(g) for g in gates]
    report.warnings = _warnings(df, records, gates)
    if df.empty:
        return report
    in_window = set(df["run_id"])
    ordered = sorted((r for r in records if r.run_id in in_window), key=lambda r: r.created_at)
    report.review = review_part(ordered, reviews or {}, signatures or {})
    claims = df["drafted"].sum()
    published = df["published"].sum()
    # Rates pooled over claims (not a mean of per-run rates, which would weight a one-claim run like a ten-claim one).
    report.totals = {
        "runs": int(len(df)),
        "claims_drafted": int(claims),
        "claims_published": int(published),
        "pre_prune": _pooled(df, "pre_prune", "drafted"),
        "post_prune": _pooled(df, "post_prune", "published"),
        "partial_rate": _pooled(df, "partial_rate", "drafted"),
        "drop_rate": _pooled(df, "drop_rate", "drafted"),
        "cost_usd_total": float(df["cost_usd"].sum()),
        "cost_usd_per_run": float(df["cost_usd"].mean()),
        "runs_with_free_parts": int(df["cost_free"].sum()),
        "wall_s_median": None if df["wall_s"].isna().all() else float(df["wall_s"].median()),
    }
    day = df.assign(day=df["created_at"].dt.strftime("%Y-%m-%d"))
    over = []
    for d, part in day.groupby("day", sort=True):
        over.append(
            {
                "day": d,
                "runs": int(len(part)),
                "pre_prune": _pooled(part, "pre_prune", "drafted"),
                "post_prune": _pooled(part, "post_prune", "published"),
                "partial_rate": _pooled(part, "partial_rate", "drafted"),
                "drop_rate": _pooled(part, "drop_rate", "drafted"),
                "cost_usd": float(part["cost_usd"].sum()),
            }
        )
    report.over_time = over
    report.versions = _jsonable(
        _grouped(df, ["judges", "judge_versions", "prompts", "policy", "model"]).sort_values(
            "last_seen", ascending=False
        )
    )
    report.runners = _jsonable(_grouped(df, ["runner", "ci_job"]).sort_values("last_seen"))
    report.runs = _jsonable(df)
    top = (
        df[df["drop_rate"].fillna(0) > 0]
        .sort_values(["drop_rate", "drafted"], ascending=[False, False])
        .head(5)
    )
    report.top_drop = _jsonable(
        top[["run_id", "created_at", "question", "drafted", "drop_rate", "partial_rate"]]
    )
    return report


def _warnings(
    df: pd.DataFrame, records: list[Any], gates: list[GateRunRow]
) -> list[dict[str, Any]]:
    from spanproof.reports.weekly_warnings import flat_gates, flat_runs, partial_spikes

    gate_values = []
    for g in gates:
        result = GateResult.model_validate_json(g.result)
        gate_values.append({"gate_id": g.gate_id, "judge": g.judge, "model": g.model,
                            "prompt_version": g.prompt_version,
                            "values": {r.name: r.value for r in result.checks}})  # fmt: skip
    found = flat_runs(df) + flat_gates(gate_values)
    if not df.empty:
        found += partial_spikes(df, {r.run_id: r for r in records})
    return [w.model_dump() for w in found]


def _naive(dt: datetime) -> datetime:
    return dt.astimezone(UTC).replace(tzinfo=None) if dt.tzinfo else dt


def _grouped(df: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Runs, pooled pre- and post-prune groundedness, PARTIAL and drop rates, cost per group."""
    rows = []
    for key, part in df.groupby(keys, dropna=False, sort=True):
        rows.append(
            {
                **dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True)),
                "runs": int(len(part)),
                "pre_prune": _pooled(part, "pre_prune", "drafted"),
                "post_prune": _pooled(part, "post_prune", "published"),
                "partial_rate": _pooled(part, "partial_rate", "drafted"),
                "drop_rate": _pooled(part, "drop_rate", "drafted"),
                "cost_usd": float(part["cost_usd"].sum()),
                "first_seen": part["created_at"].min(),
                "last_seen": part["created_at"].max(),
            }
        )
    return pd.DataFrame(rows)


def _pooled(df: pd.DataFrame, rate: str, weight: str) -> float | None:
    part = df.dropna(subset=[rate])
    total = part[weight].sum()
    if not total:
        return None
    return float((part[rate] * part[weight]).sum() / total)


def _f(v: Any, digits: int = 3) -> str:
    if v is None or (isinstance(v, float) and pd.isna(v)):
        return "-"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _tables(report: WeeklyReport, fmt: str, cap: int | None = None) -> list[tuple[str, str]]:
    """(title, table) of each section; ``cap`` keeps the newest rows of the long lists (the
    per-run table, the flagged claims), saying how many the JSON holds."""
    out: list[tuple[str, str]] = []
    if report.warnings:
        out.append(
            (
                f"Warnings ({len(report.warnings)})",
                "\n".join(f"WARNING [{w['kind']}] {w['message']}" for w in report.warnings),
            )
        )
    if report.n_runs == 0:
        out.append(("Runs", f"No runs between {report.period_start} and {report.period_end}."))
    else:
        t = report.totals
        out.append(
            (
                "Totals",
                tabulate(
                    [[t["runs"], t["claims_drafted"], t["claims_published"], _f(t["pre_prune"]), _f(t["post_prune"]),
                      _f(t["partial_rate"]), _f(t["drop_rate"]), _f(t["cost_usd_total"], 4), _f(t["wall_s_median"], 3)]],
                    headers=["runs", "drafted", "published", "pre-prune", "post-prune", "PARTIAL", "drop", "cost $",
                             "median s"],
                    tablefmt=fmt,
                    disable_numparse=True,
                )
                + (f"\n\nIn {t['runs_with_free_parts']} run(s), searches of the local corpus and "
                   "calls to offline models cost $0 (not priced)."
                   if t.get("runs_with_free_parts") else ""),
            )
        )  # fmt: skip
        if report.review is not None:
            out += _review_tables(report.review, fmt, cap)
        out.append(
            (
                "Groundedness over time",
                tabulate(
                    [[d["day"], d["runs"], _f(d["pre_prune"]), _f(d["post_prune"]), _f(d["partial_rate"]),
                      _f(d["drop_rate"]), _f(d["cost_usd"], 4)] for d in report.over_time],
                    headers=["day", "runs", "pre-prune", "post-prune", "PARTIAL", "drop", "cost $"],
                    tablefmt=fmt,
                    disable_numparse=True,
                ),
            )
        )  # fmt: skip
        runs = report.runs if cap is None else report.runs[-cap:]
        title = (
            f"Cost and latency per run (all {len(runs)}, oldest first)"
            if len(runs) == len(report.runs)
            else f"Cost and latency per run (the newest {len(runs)} of {len(report.runs)}, oldest first; "
            "weekly.json and --json have every run)"
        )
        out.append(
            (
                title,
                tabulate(
                    [[r["run_id"], r["kind"], r["created_at"][:16], r["runner"], r["drafted"], _f(r["pre_prune"]),
                      _f(r["post_prune"]), _f(r["drop_rate"]), _f(r["cost_usd"], 4), _f(r["wall_s"], 3),
                      _f(r["verify_share_of_time"], 2)]
                     for r in runs],
                    headers=["run", "kind", "created", "runner", "claims", "pre", "post", "drop", "cost $", "phase s",
                             "verify share"],
                    tablefmt=fmt,
                    disable_numparse=True,
                ),
            )
        )  # fmt: skip
        out.append(
            (
                "By runner and CI job",
                tabulate(
                    [[v["runner"], v["ci_job"], v["runs"], _f(v["pre_prune"]), _f(v["post_prune"]), _f(v["partial_rate"]),
                      _f(v["drop_rate"]), _f(v["cost_usd"], 4), v["first_seen"][:16], v["last_seen"][:16]]
                     for v in report.runners],
                    headers=["runner", "CI job", "runs", "pre-prune", "post-prune", "PARTIAL", "drop", "cost $", "first",
                             "last"],
                    tablefmt=fmt,
                    disable_numparse=True,
                ),
            )
        )  # fmt: skip
        out.append(
            (
                "By judge, prompt and model version: pre- vs post-prune groundedness",
                tabulate(
                    [[v["judges"], v["judge_versions"], v["prompts"], v["policy"], v["model"], v["runs"],
                      _f(v["pre_prune"]), _f(v["post_prune"]), v["first_seen"][:16], v["last_seen"][:16]]
                     for v in report.versions],
                    headers=["judges", "judge version", "prompts", "policy", "model", "runs", "pre-prune",
                             "post-prune", "first", "last"],
                    tablefmt=fmt,
                    disable_numparse=True,
                ),
            )
        )  # fmt: skip
        if not report.top_drop:
            out.append(("Largest drop rates", "No run dropped a claim in this period."))
        else:
            rows = [[r["run_id"], r["question"], r["drafted"], _f(r["drop_rate"]), _f(r["partial_rate"])]
                    for r in report.top_drop]  # fmt: skip
            headers = ["run", "question", "claims", "drop", "PARTIAL"]
            table = tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True)
            out.append(("Largest drop rates", table))
    if report.gate_runs:
        out.append(
            (
                f"Gate runs ({len(report.gate_runs)})",
                tabulate(
                    [[g["gate_id"], g["started_at"], f"{g['outcome']} (exit {g['exit_code']})", g["judge"],
                      g["failed"], g["wall_s"], g["model_calls"], g["runner"], g["ci_job"], g["git_commit"][:12],
                      g["spanproof_version"], g["sanitiser_version"], g["prompt_version"]]
                     for g in report.gate_runs],
                    headers=["gate", "started", "outcome", "judge", "not passing", "wall s", "judge calls", "runner",
                             "CI job", "commit", "spanproof", "sanitiser", "prompts"],
                    tablefmt=fmt,
                    disable_numparse=True,
                ),
            )
        )  # fmt: skip
    return out


def _review_tables(rv: ReviewPart, fmt: str, cap: int | None) -> list[tuple[str, str]]:
    out = [
        (
            "Human review (share of published claims a reviewer cut)",
            tabulate(
                [[rv.published_claims, rv.reviewed, rv.approve, rv.edit, rv.cut, _f(rv.cut_share)]],
                headers=["published", "reviewed", "approved", "edited", "cut", "cut share"],
                tablefmt=fmt,
                disable_numparse=True,
            ),
        ),
        (
            "Review backlog and sign-off",
            tabulate(
                [[len(rv.flagged), rv.flagged_undecided, rv.undecided_claims, rv.runs_signed,
                  len(rv.runs_waiting)]],
                headers=["flagged claims", "flagged, undecided", "claims awaiting a decision",
                         "runs signed", "runs waiting"],
                tablefmt=fmt,
                disable_numparse=True,
            ),
        ),
    ]  # fmt: skip
    if rv.flagged:
        flagged = rv.flagged if cap is None else rv.flagged[-cap:]
        more = (
            "" if len(flagged) == len(rv.flagged) else f": the newest {len(flagged)} (JSON has all)"
        )
        out.append((
            f"Flagged claims, needs a look ({len(rv.flagged)}{more})",
            tabulate(
                [[f.run_id, f"[{f.citation}]", f.claim[:100], "; ".join(f.flags)[:160], f.status,
                  f"{f.decision} by {f.reviewer}" if f.decision else "waiting"] for f in flagged],
                headers=["run", "claim", "text", "needs a look", "status", "decision"],
                tablefmt=fmt,
                disable_numparse=True,
            ),
        ))  # fmt: skip
    blocked = [w for w in rv.runs_waiting if w.waiting_on]
    ready = len(rv.runs_waiting) - len(blocked)
    if rv.runs_waiting:
        # the runs a reviewer must decide something on are listed; the runs ready to sign are
        # counted (the JSON lists every one)
        shown = blocked if cap is None else blocked[-cap:]
        more = "" if len(shown) == len(blocked) else f", the newest {len(shown)} shown"
        table = tabulate(
            [[w.run_id, w.created_at[:16], w.question, "; ".join(w.waiting_on)] for w in shown],
            headers=["run", "created", "question", "waiting on"],
            tablefmt=fmt,
            disable_numparse=True,
        ) if shown else "No run waits on a decision."  # fmt: skip
        out.append((
            f"Runs waiting for a signature ({len(rv.runs_waiting)}: {len(blocked)} on a decision"
            f"{more}, {ready} ready to sign)",
            table,
        ))  # fmt: skip
    return out


def _headline(report: WeeklyReport) -> str:
    what = "runs of every kind" if report.kind == "all" else f"{report.kind} runs"
    head = f"{report.period_start} .. {report.period_end}: {report.n_runs} {what}"
    if report.other_kinds:
        left = ", ".join(f"{n} {k}" for k, n in report.other_kinds.items())
        head += f" (left out: {left}; see them with --kind)"
    return head


def weekly_text(report: WeeklyReport, fmt: str = "simple", cap: int | None = None) -> str:
    parts = [f"Weekly report {_headline(report)}"]
    for title, table in _tables(report, fmt, cap):
        parts.append(f"\n{title}\n{table}" if fmt == "simple" else f"\n### {title}\n\n{table}")
    return "\n".join(parts) + "\n"


def weekly_markdown(report: WeeklyReport) -> str:
    return "## spanproof weekly report\n\n" + weekly_text(report, fmt="github", cap=RUNS_SHOWN)


def weekly_plot(report: WeeklyReport) -> str | None:
    """Pre- vs post-prune groundedness per day, pooled over the day's claims (one point per day,
    so a burst of runs in one minute is one point, not a vertical line)."""
    if not report.over_time:
        return None
    from spanproof.reports import plots

    days = report.over_time
    return plots.pre_post_by_day(
        [d["day"] for d in days],
        pre=[d["pre_prune"] for d in days],
        post=[d["post_prune"] for d in days],
        runs=[d["runs"] for d in days],
        title=f"groundedness per day, {_headline(report).split(': ', 1)[1].split(' (')[0]}",
    )


def weekly_html(report: WeeklyReport) -> str:
    from spanproof.reports.html import STYLE

    body = []
    for title, table in _tables(report, "html", RUNS_SHOWN):
        body.append(
            f"<h2>{html.escape(title)}</h2>{table if table.startswith('<table') else html.escape(table)}"
        )
    plot = weekly_plot(report)
    img = (
        f'<img id="groundedness-chart" alt="pre- vs post-prune groundedness per day" src="{plot}">'
        if plot
        else ""
    )
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>spanproof weekly report</title>'
        f"<style>{STYLE}</style></head><body><h1>spanproof weekly report</h1>"
        f"<p>{html.escape(_headline(report))}</p>"
        f"{img}{''.join(body)}</body></html>\n"
    )


def write_weekly(report: WeeklyReport, out_dir: str | Path) -> dict[str, Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {
        "markdown": out / "weekly.md",
        "html": out / "weekly.html",
        "json": out / "weekly.json",
    }
    write_atomic(paths["markdown"], weekly_markdown(report))
    write_atomic(paths["html"], weekly_html(report))
    write_atomic(paths["json"], report.model_dump_json(indent=2))
    return paths
