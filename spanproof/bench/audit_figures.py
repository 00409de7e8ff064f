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

from collections.abc import Iterable, Sequence

from pydantic import BaseModel

from spanproof.core.verdict import Verdict


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


class AuditTally:
    """Code's changes and the flags, counted one pair at a time (a pair's label, its final and
    judge verdicts, whether it errored, the kinds of its proofs and flags): what ``verify``
    keeps for a file of any size, and what ``code_changes``/``flag_figures`` count a list with."""

    def __init__(self) -> None:
        self.n = 0
        self.changed = self.right = self.supported = self.supported_changed = 0
        self.by_proof: dict[str, int] = {}
        self.flagged = self.flag_right = self.supported_flagged = 0
        self.kinds: dict[str, list[int]] = {}  # kind -> [flagged, right]

    def add(self, label: str | None, verdict: str, judge_verdict: str | None, failed: bool,
            proof_kinds: Iterable[str], flag_kinds: Iterable[str]) -> None:  # fmt: skip
        self.n += 1
        if label == "SUPPORTED":
            self.supported += 1
        if failed:
            return
        if judge_verdict is not None and verdict != judge_verdict:
            self.changed += 1
            self.right += label is not None and label != "SUPPORTED"
            if label == "SUPPORTED" and judge_verdict == "SUPPORTED":
                self.supported_changed += 1
            for kind in sorted(set(proof_kinds)):
                self.by_proof[kind] = self.by_proof.get(kind, 0) + 1
        flags = set(flag_kinds)
        if not flags:
            return
        wrongly_supported = label is not None and label != "SUPPORTED"
        self.flagged += 1
        self.flag_right += wrongly_supported
        self.supported_flagged += verdict == "SUPPORTED"
        for kind in flags:
            k = self.kinds.setdefault(kind, [0, 0])
            k[0] += 1
            k[1] += wrongly_supported

    def add_verdict(self, label: str | None, v: Verdict) -> None:
        self.add(label, v.verdict, v.judge_verdict, v.error is not None,
                 (p.kind for p in v.proofs), (f.kind for f in v.flags))  # fmt: skip

    def changes(self) -> CodeChanges:
        return CodeChanges(
            n=self.n,
            changed=self.changed,
            share=_ratio(self.changed, self.n),
            right=self.right,
            precision=_ratio(self.right, self.changed),
            supported=self.supported,
            supported_changed=self.supported_changed,
            supported_changed_share=_ratio(self.supported_changed, self.supported),
            by_proof=dict(sorted(self.by_proof.items())),
        )

    def flags(self) -> FlagFigures:
        n = self.n
        return FlagFigures(
            n=n,
            flagged=self.flagged,
            rate=_ratio(self.flagged, n),
            right=self.flag_right,
            precision=_ratio(self.flag_right, self.flagged),
            supported_flagged=self.supported_flagged,
            by_kind={
                kind: FlagKind(flagged=f, rate=_ratio(f, n), right=r, precision=_ratio(r, f))
                for kind, (f, r) in sorted(self.kinds.items(), key=lambda kv: (-kv[1][0], kv[0]))
            },
        )


def _tally(labels: Sequence[str | None], verdicts: Sequence[Verdict]) -> AuditTally:
    tally = AuditTally()
    for label, v in zip(labels, verdicts, strict=True):
        tally.add_verdict(label, v)
    return tally


def code_changes(labels: Sequence[str | None], verdicts: Sequence[Verdict]) -> CodeChanges:
    return _tally(labels, verdicts).changes()


def flag_figures(labels: Sequence[str | None], verdicts: Sequence[Verdict]) -> FlagFigures:
    return _tally(labels, verdicts).flags()


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
