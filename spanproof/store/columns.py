"""Columns derived from stored JSON: one place that knows which record fields the store
indexes, used both when a record is saved and when an older home is imported."""

from __future__ import annotations

import json
from typing import Any

from spanproof.store.provenance import Provenance
from spanproof.store.timeutil import now_naive, utc_naive

# The parts of a RunRecord the store indexes; pass to ``model_dump(include=...)`` so a save
# serialises only these besides the record itself.
RUN_SUMMARY_FIELDS: dict[str, Any] = {
    "run_id": True, "kind": True, "question": True, "status": True, "created_at": True,
    "finished_at": True, "record_version": True, "pid": True, "prompt_hashes": True,
    "model_ids": True, "config": {"policy", "model", "judges"},
    "metrics": {"claims_published": True, "claims_flagged": True, "claims_narrowed": True,
                "published_groundedness": True, "pre_prune_supported_rate": True,
                "cost": {"total_usd"}},
}  # fmt: skip


def provenance_values(p: Provenance) -> dict[str, Any]:
    return {
        "spanproof_version": p.spanproof_version[:64],
        "git_commit": p.git_commit,
        "host": p.host[:255],
        "runner": p.runner[:255],
        "ci_job": p.ci_job,
        "sanitiser_version": p.sanitiser_version[:64],
    }


def run_provenance(summary: dict[str, Any], base: Provenance) -> Provenance:
    """The writer's provenance plus what this run was judged and prompted with."""
    config = summary.get("config") or {}
    return base.model_copy(
        update={
            "judges": list(config.get("judges") or []),
            "model": config.get("model"),
            "model_ids": dict(summary.get("model_ids") or {}),
            "prompt_hashes": dict(summary.get("prompt_hashes") or {}),
            "pid": summary.get("pid") if summary.get("pid") is not None else base.pid,
        }
    )


def gate_provenance(result: dict[str, Any], base: Provenance) -> Provenance:
    return base.model_copy(
        update={
            "judges": list(result.get("judge_ids") or []),
            "model": result.get("model"),
            "prompt_hashes": dict(result.get("prompt_hashes") or {}),
        }
    )


def run_values(summary: dict[str, Any], prov: Provenance, kind: str) -> dict[str, Any]:
    """Column values for a run from its summary fields (see RUN_SUMMARY_FIELDS) and its
    provenance (``run_provenance``)."""
    config = summary.get("config") or {}
    m = summary.get("metrics") or {}
    created = utc_naive(summary.get("created_at")) or now_naive()
    return {
        "run_id": summary["run_id"],
        "kind": kind,
        "question": summary.get("question") or "",
        "status": summary.get("status") or "interrupted",
        "policy": config.get("policy") or "",
        "model": config.get("model"),
        "judges": "+".join(config.get("judges") or []) or None,
        "created_at": created,
        "updated_at": now_naive(),
        "finished_at": utc_naive(summary.get("finished_at")),
        "record_version": int(summary.get("record_version") or 1),
        "claims_published": (m.get("claims_published") or 0)
        + (m.get("claims_flagged") or 0)
        + (m.get("claims_narrowed") or 0),
        "published_groundedness": m.get("published_groundedness"),
        "pre_prune_supported_rate": m.get("pre_prune_supported_rate"),
        "cost_usd": (m.get("cost") or {}).get("total_usd"),
        **provenance_values(prov),
        "home": prov.home,
        "pid": prov.pid,
        "prompt_version": prov.prompt_version,
        "provenance": prov.model_dump_json(),
    }


def gate_values(result: dict[str, Any], prov: Provenance) -> dict[str, Any]:
    """Column values for a gate run from its GateResult (as JSON-mode dict) and its
    provenance (``gate_provenance``)."""
    metrics = {r["name"]: r.get("value") for r in result.get("checks") or []}
    return {
        "gate_id": result["gate_id"],
        "started_at": utc_naive(result.get("started_at")) or now_naive(),
        "passed": bool(result.get("passed")),
        "exit_code": int(result.get("exit_code", 2)),
        "config_sha256": result.get("config_sha256") or "",
        "judge": result.get("judge") or "",
        "policy": result.get("policy") or "",
        "model": result.get("model"),
        "judge_ids": json.dumps(result.get("judge_ids") or []),
        "prompt_hashes": json.dumps(result.get("prompt_hashes") or {}, sort_keys=True),
        "metrics": json.dumps(metrics, sort_keys=True),
        **provenance_values(prov),
        "home": prov.home,
        "prompt_version": prov.prompt_version,
        "provenance": prov.model_dump_json(),
        # The gate records the branch it gated; a result without one stays without one, so a
        # branchless gate is never taken for the baseline of the branch the store runs on.
        "git_branch": result.get("git_branch"),
    }


def verdict_values(verdict: dict[str, Any], prov: Provenance) -> dict[str, Any]:
    return {
        "judge": (verdict.get("judge") or "")[:255],
        "model_id": (verdict.get("model_id") or "")[:255] or None,
        "prompt_sha256": (verdict.get("prompt_sha256") or "")[:255] or None,
        "created_at": now_naive(),
        **provenance_values(prov),
    }
