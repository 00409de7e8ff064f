"""What `verify` prints: the figures against labels, the model traffic and the readable
summary, shared by the streaming path (spanproof.cli.verify) and the in-memory path of repeats
and batches (spanproof.cli.verify_repeats)."""

from __future__ import annotations

from typing import Any

LABELS = ("SUPPORTED", "PARTIAL", "NOT_SUPPORTED")


def label_metrics(labels: list[str], verdicts: list) -> dict[str, Any]:
    """Agreement with labels twice — after the audit (what publishes) and the judges' own
    verdicts — computed by graders.metrics, the one metrics module every command uses (an
    error verdict is wrong against every label and stays in every denominator)."""
    from spanproof.bench.calibration import figures

    f = figures(labels, verdicts)
    out: dict[str, Any] = {}
    for side in ("audited", "judge_only"):
        m = f[side]
        out[side] = {
            "n": m.n,
            "agreement": m.agreement,
            "macro_f1": m.macro_f1,
            "balanced_accuracy": m.balanced_accuracy,
            "kappa": m.kappa,
            "errors": m.errors,
            "confusion": m.confusion,
        }
    rel = f["reliability"]
    out["confidence"] = (
        {"n": rel.n, "without": rel.n_without, "ece": rel.ece} if rel is not None else None
    )
    return out


def _http_summary(live_pairs: int, tokens: int) -> dict[str, Any] | None:
    from spanproof.wire import clients, totals

    if not clients():
        return None
    t = totals()
    return {
        "requests": t.requests,
        "retries": t.retries,
        "reasks": t.reasks,
        "errors": t.errors,
        "tokens_per_pair": round(tokens / live_pairs, 1) if live_pairs else None,
        "notices": [n for c in clients() for n in c.notices],
        # per endpoint: the window of requests in flight over time, and why it moved
        "concurrency": [
            {"endpoint": c.label, **c.limiter.report().model_dump()} for c in clients()
        ],
    }


def _human_summary(s: dict[str, Any]) -> str:
    from tabulate import tabulate

    out = [
        f"{s['pairs']} pairs judged by {' + '.join(s['judges'])}"
        + (f" ({s['policy']})" if len(s["judges"]) > 1 else ""),
        f"model calls: {s['model_calls']}   cache hits: {s['cache_hits']}   "
        f"tokens: {s['tokens']['prompt']} in / {s['tokens']['completion']} out   "
        f"judge errors: {s['errors']}   spans with instructions: {s['contains_instructions']}",
        "verdicts: " + ", ".join(f"{k} {v}" for k, v in s["verdicts"].items()),
    ]
    if s["invalid_lines"]:
        out.append(f"skipped {len(s['invalid_lines'])} invalid line(s)")
    for b in s.get("batch", []):
        out.append(
            f"batch for {b['judge']}: "
            + (f"{b['batch_id']} {b['status']}{' (resumed)' if b['resumed'] else ''}, "
               f"{b['requests']} requests, {b['failed']} without a verdict"
               if b["batch_id"] else "nothing to submit (every pair was cached)")
        )  # fmt: skip
    m = s["metrics"]
    if s.get("fitted_on"):
        from spanproof.graders.rules.fitted import TrainingOverlap

        out.append(TrainingOverlap.model_validate(s["fitted_on"]).warning())
    if m:
        rows = []
        for side, name in (("audited", "final (after proofs)"), ("judge_only", "judge only")):
            x = m[side]
            rows.append(
                [
                    name,
                    x["agreement"],
                    x["macro_f1"],
                    x["balanced_accuracy"],
                    x["kappa"],
                    x["errors"],
                ]
            )
        n = m["audited"]["n"]
        rep_n = (s.get("repeats") or {}).get("n")
        out.append(
            f"against labels (n={n}"
            + (f": {s['pairs']} pairs x {rep_n} repeats" if rep_n else "")
            + "):"
        )
        out.append(
            tabulate(
                rows,
                headers=[
                    "verdicts",
                    "agreement",
                    "macro-F1",
                    "bal. acc (S vs rest)",
                    "kappa",
                    "errors",
                ],
                tablefmt="simple",
                floatfmt=".3f",
                missingval="n/a",
            )  # fmt: skip
        )
        conf = m["confidence"]
        if conf:
            out.append(
                f"confidence: expected calibration error {conf['ece']:.3f} over {conf['n']} verdicts"
                + (f" ({conf['without']} without a confidence)" if conf["without"] else "")
            )
        else:
            out.append("confidence: none (the judge gives no probability with its verdicts)")
        cols = [*LABELS, "ERROR"]
        table = [[g, *(m["audited"]["confusion"][g][p] for p in cols)] for g in LABELS]
        out.append("final verdicts (after proofs), rows gold, columns verdict:")
        out.append(tabulate(table, headers=["label \\ verdict", *cols], tablefmt="simple"))
    from spanproof.bench.audit_figures import CodeChanges, FlagFigures
    from spanproof.bench.audit_figures import describe as audit_lines

    out += audit_lines(
        CodeChanges.model_validate(s["code_changes"]), FlagFigures.model_validate(s["flags"])
    )
    rep = s.get("repeats")
    if rep:
        from spanproof.bench.repeats import Spread, describe

        if "agreement" in rep:
            out.append(
                f"agreement of the final verdicts: {describe(Spread.model_validate(rep['agreement']))}"
            )
        out.append(f"{rep['n']} repeats: {len(rep['unstable'])} unstable pair(s) (the verdict "
                   "changed between repeats)")  # fmt: skip
        for u in rep["unstable"][:20]:
            out.append(f"  unstable {u['id']}: {' / '.join(u['verdicts'])} - {u['claim'][:80]}")
    if not s["out"]:
        out.append("per-pair verdicts: pass --out FILE (JSONL) or --json")
    if s["out"]:
        out.append(f"verdicts written to {s['out']}")
    return "\n".join(out)
