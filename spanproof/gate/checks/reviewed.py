"""The gate's row for the pairs reviewers labelled: a defect a human caught stays caught.

A reviewer who cuts a published claim in ``spanproof view`` (or confirms its flag, or stands by
an edit the verifier refused) has found a pair the grader got wrong. ``spanproof goldens
add-from-reviews`` writes such decisions into the repository as labelled pairs
(goldens/reviewed_pairs.jsonl: spanproof/bench/reviewed_pairs.py); this check judges them with the
gate's verifier on every run.

Its gated figure is the share of reviewed pairs the audited grader *publishes as the reviewer
would*: SUPPORTED exactly when the reviewer said SUPPORTED. That is the decision a reviewer
corrected; whether a cut claim is PARTIAL or NOT_SUPPORTED does not change what publishes, so
the three-way agreement is reported beside it, not gated.

No reviewed set yet (the file is missing or empty) is ``unscored``: the normal state of a
project nobody has reviewed, so not a reason for the gate to stop ("could not run"), and never
a pass. A reviewed set named in the config that does not exist is a typo and could not run;
a damaged file could not run either.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from spanproof.core.figures import format_value
from spanproof.gate.artifacts import ReviewedArtifact
from spanproof.gate.checks.judged import judged_item
from spanproof.gate.paths import resolve
from spanproof.gate.spec import CannotMeasure, Measurement, Metric, Unscored, declare

if TYPE_CHECKING:
    from spanproof.bench.metrics import Metrics
    from spanproof.gate.gaterun import GateRun

ADD_FROM_REVIEWS = "spanproof goldens add-from-reviews"


@dataclass(frozen=True)
class ReviewedInput:
    """The reviewed set judged by the gate's verifier; ``missing`` says why it was not."""

    set_name: str
    judge_id: str = ""
    publishes_right: int = 0  # samples whose publish decision matched the reviewer's
    samples: int = 0
    audited: Metrics | None = None
    missing: str | None = None


async def gather_reviewed(run: GateRun) -> ReviewedInput:
    """The pairs reviewers labelled (``spanproof goldens add-from-reviews``), judged like the
    calibration set; missing or empty: unscored (spanproof/gate/checks/reviewed.py)."""
    from spanproof.bench import calibration, repeats
    from spanproof.bench import outcomes as gate_outcomes
    from spanproof.bench.calibration import rows_for
    from spanproof.bench.metrics import compute
    from spanproof.bench.pairs import load_pairs

    cfg, verifier = run.cfg, run.built_verifier()
    path = resolve(cfg.reviewed_set)
    missing = reviewed_set_state(path, configured="reviewed_set" in cfg.model_fields_set)
    if missing is not None:
        return ReviewedInput(set_name=path.name, missing=missing)
    pairs = load_pairs(path)
    unlabelled = [p.id for p in pairs if p.label is None]
    if unlabelled:
        raise ValueError(f"{path} has pairs without a label ({unlabelled[:3]}); a reviewed pair "
                         "carries the reviewer's verdict")  # fmt: skip
    samples = await calibration.judge_samples(verifier, pairs, cfg.repeat)
    outcome = gate_outcomes.labelled_set(path.name, pairs, samples)
    run.artifacts.record_set("reviewed", outcome)
    every_pair, every_verdict = repeats.pooled(pairs, samples)
    right = sum(i.counts["publishes_right"][0] for i in outcome.items)
    run.artifacts.repeats = repeats.note(run.artifacts.repeats, cfg.repeat,
                                         repeats.unstable_pairs("reviewed", pairs, samples), {
        "reviewed.agreement": [
            sum(v.error is None and (v.verdict == "SUPPORTED") == (p.label == "SUPPORTED")
                for p, v in zip(pairs, s, strict=True)) / len(pairs) for s in samples],
    })  # fmt: skip
    run.artifacts.reviewed = ReviewedArtifact(items={verifier.id: [
        judged_item(p, v) for p, v in zip(pairs, samples[0], strict=True)]})  # fmt: skip
    return ReviewedInput(
        set_name=path.name, judge_id=verifier.id, publishes_right=right,
        samples=len(every_verdict), audited=compute(rows_for(every_pair, every_verdict), n_boot=0),
    )  # fmt: skip


@declare(
    "reviewed",
    measures="reviewer-labelled pairs (defects a human caught) published as the reviewer would",
    reads="the reviewed set (goldens/reviewed_pairs.jsonl), judged by the gate's verifier",
    gather=gather_reviewed,
    metrics=[
        Metric("agreement", "share of reviewed pairs SUPPORTED exactly when the reviewer said "
               "so, after the audit", ">=", "reviewed_agreement"),
        Metric("label_agreement", "three-way agreement with the reviewers' labels", ">=", None, role="info"),
    ],
    artifact=ReviewedArtifact,
)  # fmt: skip
def reviewed(data: ReviewedInput) -> dict[str, Measurement] | Unscored:
    if data.missing is not None:
        return Unscored(f"unscored: {data.missing}")
    if data.samples == 0 or data.audited is None:
        raise CannotMeasure(f"{data.set_name}: no reviewed pair was judged")
    m = data.audited
    return {
        "agreement": Measurement(data.publishes_right / data.samples,
            f"after the audit; {data.publishes_right}/{data.samples} reviewed pairs published as "
            f"the reviewer decided, by {data.judge_id} on {data.set_name}; {m.errors} judge errors"),
        "label_agreement": Measurement(m.agreement,
            f"the reviewers' three-way labels (not gated: PARTIAL and NOT_SUPPORTED publish "
            f"alike); kappa {format_value(m.kappa)}"),
    }  # fmt: skip


def reviewed_set_state(path: Path, *, configured: bool) -> str | None:
    """Why the reviewed set cannot be scored (None: it has pairs to judge).

    Raises FileNotFoundError for a configured path that does not exist (a typo must not
    quietly turn the row into 'unscored')."""
    if not path.exists():
        if configured:
            raise FileNotFoundError(
                f"reviewed set {path} (reviewed_set in the gate config) does not exist; fix the "
                f"path, or create it with `{ADD_FROM_REVIEWS}`"
            )
        return (
            f"no reviewed set yet ({path.name} does not exist): cut or flag claims in "
            f"`spanproof view`, then `{ADD_FROM_REVIEWS}` writes them into the repository"
        )
    if not path.read_text(encoding="utf-8", errors="replace").strip():
        return (
            f"{path.name} holds no reviewed pairs yet: `{ADD_FROM_REVIEWS}` adds the decisions "
            "reviewers made in `spanproof view`"
        )
    return None
