"""Warnings of the weekly report: a metric that never moves, and a PARTIAL rate that spikes.

- **Flat.** A judged figure that stays exactly the same while the prompt, the model or the
  judge changed underneath it is more likely blind than stable: a judge that says SUPPORTED to
  everything keeps post-prune groundedness at 1.000 through any change. The report warns when
  a figure's value (pooled over each version's runs) is identical across at least
  ``MIN_VERSIONS`` versions in the window — a version being one combination of judge (and its
  own version), prompt hashes and model — and names what changed. Gate runs are read the same
  way for their judged rows.
- **Spike.** One run whose PARTIAL rate is far above the rest of the window usually over-mined
  one dense source (the plausible citation that says something else shows up only here). The
  report warns when a run's PARTIAL count is improbable under the pooled rate of the window's
  other runs (an exact binomial tail below ``ALPHA`` over the number of runs looked at, so
  looking at many runs does not make one look unusual) and names the source most of its
  PARTIAL claims cite.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Literal
from urllib.parse import urlsplit

import pandas as pd
from pydantic import BaseModel, Field

from spanproof.bench.paired_stats import binomial_tail

MIN_VERSIONS = 3  # the figure stayed put through at least two changes
ALPHA = 0.05
MIN_PARTIAL = 3  # fewer PARTIAL claims than this is never called a spike

RUN_METRICS = {
    "post_prune": "post-prune groundedness",
    "pre_prune": "pre-prune SUPPORTED rate",
    "partial_rate": "PARTIAL rate",
    "drop_rate": "drop rate",
}
# The gate rows whose value depends on the judge (deterministic checks such as span fidelity
# are meant to stay put and are not read).
GATE_METRICS = (
    "groundedness.published",
    "groundedness.pre_prune_supported",
    "calibration.agreement",
    "calibration.near_miss_agreement",
    "calibration.agreement_judge_only",
    "sensitivity.recall",
    "sensitivity.specificity",
    "sensitivity.recall_judge_only",
    "reviewed.agreement",
)
VERSION_PARTS = {"judges": "judge", "judge_versions": "judge version", "prompts": "prompt hash",
                 "model": "model"}  # fmt: skip


class WeeklyWarning(BaseModel):
    kind: Literal["flat", "spike"]
    metric: str
    message: str
    runs: list[str] = Field(default_factory=list)


def _changes(versions: list[dict[str, Any]], parts: dict[str, str]) -> dict[str, int]:
    """How many times each part of the version changed from one version to the next."""
    out = dict.fromkeys(parts.values(), 0)
    for before, after in zip(versions, versions[1:], strict=False):
        for key, name in parts.items():
            if before.get(key) != after.get(key):
                out[name] += 1
    return out


def _said(changes: dict[str, int]) -> str:
    parts = [f"{name} changed {n} time{'s' if n > 1 else ''}" for name, n in changes.items() if n]
    return ", ".join(parts)


def flat_runs(df: pd.DataFrame) -> list[WeeklyWarning]:
    """Run figures identical across >= MIN_VERSIONS versions (df: one row per run)."""
    if df.empty:
        return []
    keys = list(VERSION_PARTS)
    ordered = df.sort_values("created_at")
    firsts = ordered.drop_duplicates(subset=keys, keep="first")[keys].to_dict("records")
    versions = [{str(k): v for k, v in row.items()} for row in firsts]
    if len(versions) < MIN_VERSIONS:
        return []
    said = _said(_changes(versions, VERSION_PARTS))
    out = []
    weight = {"post_prune": "published"}
    for metric, name in RUN_METRICS.items():
        pooled = []
        for _, part in ordered.groupby(keys, dropna=False, sort=False):
            part = part.dropna(subset=[metric])
            w = part[weight.get(metric, "drafted")]
            if w.sum():
                pooled.append(float((part[metric] * w).sum() / w.sum()))
        if len(pooled) >= MIN_VERSIONS and max(pooled) - min(pooled) <= 1e-9:
            out.append(WeeklyWarning(
                kind="flat", metric=metric, runs=list(ordered["run_id"]),
                message=f"{name} stayed at exactly {pooled[0]:.3f} across {len(ordered)} runs "
                f"and {len(pooled)} versions ({said}): a figure that never moves is probably "
                "blind - check that it still fails on a planted bad input "
                "(`spanproof gate --judge blind` must fail)",
            ))  # fmt: skip
    return out


def flat_gates(gates: list[dict[str, Any]]) -> list[WeeklyWarning]:
    """Judged gate rows identical across >= MIN_VERSIONS (judge, model, prompts) versions.
    ``gates``: oldest first, each {gate_id, judge, model, prompt_version, values: {row: value}}."""
    parts = {"judge": "judge", "model": "model", "prompt_version": "prompt hash"}
    seen: dict[tuple[Any, ...], dict[str, Any]] = {}
    for g in gates:
        seen.setdefault(tuple(g.get(k) for k in parts), g)
    versions = list(seen.values())
    if len(versions) < MIN_VERSIONS:
        return []
    said = _said(_changes(versions, parts))
    out = []
    for row in GATE_METRICS:
        values = [v["values"].get(row) for v in versions]
        known = [v for v in values if isinstance(v, int | float)]
        if len(known) == len(values) and max(known) - min(known) <= 1e-9:
            out.append(WeeklyWarning(
                kind="flat", metric=row, runs=[g["gate_id"] for g in gates],
                message=f"gate row {row} stayed at exactly {known[0]:.3f} across {len(versions)} "
                f"gate versions ({said}): probably blind, or its verdicts were not judged again",
            ))  # fmt: skip
    return out


def _top_source(record: Any) -> tuple[str, int] | None:
    urls: Counter[str] = Counter()
    for c in record.answer.claims:
        if c.verdict.verdict != "PARTIAL":
            continue
        span = record.span(c.supporting_span_id or (c.span_ids[0] if c.span_ids else ""))
        if span is not None:
            urls[urlsplit(span.url).netloc + urlsplit(span.url).path or span.url] += 1
    return urls.most_common(1)[0] if urls else None


def partial_spikes(df: pd.DataFrame, records: dict[str, Any]) -> list[WeeklyWarning]:
    """Runs whose PARTIAL count the rest of the window makes improbable (module doc)."""
    runs = df.dropna(subset=["partial_rate"])
    runs = runs[runs["drafted"] > 0]
    if len(runs) < 3:
        return []
    partial = (runs["partial_rate"] * runs["drafted"]).round().astype(int)
    total_partial, total_drafted = int(partial.sum()), int(runs["drafted"].sum())
    out = []
    for (_, row), k in zip(runs.iterrows(), partial, strict=True):
        n = int(row["drafted"])
        rest_rate = (total_partial - k) / (total_drafted - n) if total_drafted > n else None
        if rest_rate is None or k < MIN_PARTIAL:
            continue
        p = binomial_tail(k, n, rest_rate)
        if p < ALPHA / len(runs):
            top = _top_source(records[row["run_id"]]) if row["run_id"] in records else None
            where = f"; {top[1]} of them cite {top[0]} (over-mined?)" if top else ""
            out.append(WeeklyWarning(
                kind="spike", metric="partial_rate", runs=[row["run_id"]],
                message=f"run {row['run_id']} has {k}/{n} PARTIAL claims ({k / n:.0%}) against "
                f"{rest_rate:.0%} in the other {len(runs) - 1} runs (binomial p={p:.2g}){where}",
            ))  # fmt: skip
    return out
