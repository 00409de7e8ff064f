"""What the code audit did, measured against human labels: its proofs and its flags.

Two figures sit beside every agreement table (``verify``, ``calibrate``, the gate's
calibration rows):

- **Code's changes** — pairs whose final verdict differs from the judge's own
  (``Verdict.judge_verdict``), which only a proof can do. A change is *right* when the pair's
  label is not SUPPORTED (the change said "not as the judge said, lower"), so the precision
  of code's changes is the share of changed pairs a human did not label SUPPORTED, and
  ``supported_changed`` the share of labelled-SUPPORTED pairs code moved off SUPPORTED: the
  harm an override does to a good judge.
- **Flags** — pairs a person is asked to look at (``Verdict.flags``); a flag never changes a
  verdict. The flag rate is reviewer workload; flag precision is the share of flagged pairs a
  human labelled not SUPPORTED. Both overall and per flag kind (a pair with two flags of one
  kind counts once for that kind).

Error verdicts are left out of both (no judge verdict to change; the audit of an error
raises no flag worth a look) but stay in ``n``.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel
from spanproof.graders.verdict import Verdict


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


class CodeChanges(BaseModel):
    n: int
    changed: int  # final verdict differs from the judge's own
    share: float | None
    right: int  # changed pairs labelled not SUPPORTED
    precision: float | None
    supported: int  # pairs labelled SUPPORTED
    supported_changed: int  # of them, moved off SUPPORTED by code
    supported_changed_share: float | None
    by_proof: dict[str, int]  # proof kind -> changed pairs resting on it


class FlagKind(BaseModel):
    flagged: int
    rate: float | None
    right: int  # flagged pairs labelled not SUPPORTED
    precision: float | None


class FlagFigures(BaseModel):
    n: int
    flagged: int
    rate: float | None
    right: int
    precision: float | None
    # final verdict SUPPORTED and flagged: what the agent would hold back for a person
    supported_flagged: int
    by_kind: dict[str, FlagKind]


def code_changes(labels: Sequence[str | None], verdicts: Sequence[Verdict]) -> CodeChanges:
    changed = right = supported = supported_changed = 0
    by_proof: dict[str, int] = {}
    for label, v in zip(labels, verdicts, strict=True):
        if label == "SUPPORTED":
            supported += 1
        if v.error is not None or v.judge_verdict is None or v.verdict == v.judge_verdict:
            continue
        changed += 1
        right += label is not None and label != "SUPPORTED"
        if label == "SUPPORTED" and v.judge_verdict == "SUPPORTED":
            supported_changed += 1
        for kind in sorted({p.kind for p in v.proofs}):
            by_proof[kind] = by_proof.get(kind, 0) + 1
    n = len(verdicts)
    return CodeChanges(
        n=n,
        changed=changed,
        share=_ratio(changed, n),
        right=right,
        precision=_ratio(right, changed),
        supported=supported,
        supported_changed=supported_changed,
        supported_changed_share=_ratio(supported_changed, supported),
        by_proof=dict(sorted(by_proof.items())),
    )


def flag_figures(labels: Sequence[str | None], verdicts: Sequence[Verdict]) -> FlagFigures:
    flagged = right = supported_flagged = 0
    kinds: dict[str, list[int]] = {}  # kind -> [flagged, right]
    for label, v in zip(labels, verdicts, strict=True):
        if v.error is not None or not v.flags:
            continue
        wrongly_supported = label is not None and label != "SUPPORTED"
        flagged += 1
        right += wrongly_supported
        supported_flagged += v.verdict == "SUPPORTED"
        for kind in {f.kind for f in v.flags}:
            k = kinds.setdefault(kind, [0, 0])
            k[0] += 1
            k[1] += wrongly_supported
    n = len(verdicts)
    return FlagFigures(
        n=n,
        flagged=flagged,
        rate=_ratio(flagged, n),
        right=right,
        precision=_ratio(right, flagged),
        supported_flagged=supported_flagged,
        by_kind={
            kind: FlagKind(flagged=f, rate=_ratio(f, n), right=r, precision=_ratio(r, f))
            for kind, (f, r) in sorted(kinds.items(), key=lambda kv: (-kv[1][0], kv[0]))
        },
    )


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"


def describe(changes: CodeChanges, flags: FlagFigures) -> list[str]:
    """Lines for a terminal summary: code's changes, then the flags per kind."""
    out = [
        f"code's proofs changed {changes.changed} of {changes.n} verdicts "
        f"(right on {changes.right}: precision {_fmt(changes.precision)}; "
        f"SUPPORTED pairs moved off SUPPORTED: {changes.supported_changed}/{changes.supported} "
        f"= {_fmt(changes.supported_changed_share)})"
        + (
            " by " + ", ".join(f"{k} {n}" for k, n in changes.by_proof.items())
            if changes.by_proof
            else ""
        ),
        f"flags (a person looks; the verdict stands): {flags.flagged} of {flags.n} pairs "
        f"(rate {_fmt(flags.rate)}), labelled not SUPPORTED on {flags.right} "
        f"(flag precision {_fmt(flags.precision)}); {flags.supported_flagged} flagged SUPPORTED "
        "verdicts would be held back from publication",
    ]
    for kind, k in flags.by_kind.items():
        out.append(
            f"  flag {kind:<12} {k.flagged:>4} pairs  rate {_fmt(k.rate)}  precision {_fmt(k.precision)}"
        )
    return out
