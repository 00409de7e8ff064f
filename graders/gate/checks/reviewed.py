"""The gate's row for the pairs reviewers labelled: a defect a human caught stays caught.

A reviewer who cuts a published claim in ``spanproof view`` (or confirms its flag, or stands by
an edit the verifier refused) has found a pair the grader got wrong. ``spanproof goldens
add-from-reviews`` writes such decisions into the repository as labelled pairs
(goldens/reviewed_pairs.jsonl: graders/bench/reviewed_pairs.py); this check judges them with the
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

from spanproof.graders.gate.result import format_value
from spanproof.graders.gate.spec import CannotMeasure, Measurement, Metric, Unscored, declare

if TYPE_CHECKING:
    from spanproof.graders.bench.metrics import Metrics

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


@declare(
    "reviewed",
    measures="reviewer-labelled pairs (defects a human caught) published as the reviewer would",
    reads="the reviewed set (goldens/reviewed_pairs.jsonl), judged by the gate's verifier",
    metrics=[
        Metric("agreement", "share of reviewed pairs SUPPORTED exactly when the reviewer said "
               "so, after the audit", ">=", "reviewed_agreement"),
        Metric("label_agreement", "three-way agreement with the reviewers' labels", ">=", None),
    ],
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
