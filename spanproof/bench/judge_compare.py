"""Two judges side by side, pair by pair, on the same labelled pairs.

Two headline agreements (0.72 and 0.68) cannot say whether one judge is better: both were
measured on the same pairs, so the comparison with the most power is the paired one — which
pairs one judge gets right and the other wrong. This module gives, for judges A and B on one
set (spanproof/bench/paired_stats.py does the arithmetic):

- the difference in agreement and in near-miss agreement (B minus A), with its 95% interval
  clustered by source page and a paired test (two-sided: neither judge is the baseline);
- per pair kind, how many pairs only A got right, only B got right, and where their verdicts
  differ at all;
- the pairs where the two judges' audited verdicts differ;
- the same on SUPPORTED vs rest (spanproof/bench/binary_compare.py): balanced accuracy, TPR
  and TNR, each paired. A judge that never says PARTIAL on the set is *binary*; with one, the
  headline is balanced accuracy, since three-way agreement counts every PARTIAL pair against
  a judge that cannot say it.

``calibrate --judge A --judge B`` prints it, and the viewer's judges page shows the same.
With repeats (``--repeat``) each pair counts its samples (successes of trials).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pydantic import BaseModel, Field

from spanproof.bench.binary_compare import BinaryComparison, Tally, compare_binary
from spanproof.bench.outcomes import labelled_set, pair_cluster
from spanproof.bench.paired_stats import PairedDifference, paired_difference
from spanproof.core.verdict import Pair, Verdict


class KindCounts(BaseModel):
    kind: str
    n: int
    near_miss: int  # near-miss pairs of this kind
    only_a_right: int
    only_b_right: int
    verdicts_differ: int


class DifferingPair(BaseModel):
    id: str
    kind: str
    near_miss: bool
    label: str | None
    a: str  # A's audited verdict (the first sample's, with repeats)
    b: str
    claim: str


class JudgeComparison(BaseModel):
    set: str
    a: str
    b: str
    n: int
    agreement: PairedDifference  # B minus A, after the audit (what publishes)
    near_miss: PairedDifference | None = None
    # the same on the judges' own verdicts before the audit (what each judge read)
    agreement_judge_only: PairedDifference | None = None
    near_miss_judge_only: PairedDifference | None = None
    only_a_right: int = 0  # pairs A got right more often than B (every pair)
    only_b_right: int = 0
    near_miss_only_a_right: int = 0
    near_miss_only_b_right: int = 0
    by_kind: list[KindCounts] = Field(default_factory=list)
    differing: list[DifferingPair] = Field(default_factory=list)
    # SUPPORTED vs rest, after the audit and judge-only; a judge is binary when its own label
    # was never PARTIAL here, and then the headline is balanced accuracy
    binary: BinaryComparison | None = None
    binary_judge_only: BinaryComparison | None = None
    a_binary: bool = False
    b_binary: bool = False

    @property
    def headline(self) -> str:
        """The figure to read first: "balanced_accuracy" when either judge is binary."""
        return "balanced_accuracy" if self.a_binary or self.b_binary else "agreement"


def _outcome(v: Verdict) -> str:
    return "ERROR" if v.error else v.verdict


def _binary_right(
    pairs: Sequence[Pair], samples: Sequence[Sequence[Verdict]], *, judge_only: bool
) -> list[Tally]:
    """Per pair: samples right on SUPPORTED vs rest (an error is wrong), of how many."""

    def right(p: Pair, v: Verdict) -> bool:
        said = (v.judge_verdict or v.verdict) if judge_only else v.verdict
        return v.error is None and (said == "SUPPORTED") == (p.label == "SUPPORTED")

    return [(sum(right(p, s[i]) for s in samples), len(samples)) for i, p in enumerate(pairs)]


def is_binary(samples: Sequence[Sequence[Verdict]]) -> bool:
    """The judge's own label was never PARTIAL (it cannot, or did not, say it on this set)."""
    return not any((v.judge_verdict or v.verdict) == "PARTIAL" for s in samples for v in s)


def compare_judges(
    set_name: str,
    pairs: Sequence[Pair],
    a: str,
    a_samples: Sequence[Sequence[Verdict]],
    b: str,
    b_samples: Sequence[Sequence[Verdict]],
) -> JudgeComparison:
    """B against A on the same labelled pairs (each judge's samples repeat-major)."""
    items_a = labelled_set(set_name, pairs, a_samples).items
    items_b = labelled_set(set_name, pairs, b_samples).items

    def diff(select: Callable[[Pair], bool], outcome: str = "correct") -> PairedDifference | None:
        idx = [i for i, p in enumerate(pairs) if select(p)]
        if not idx:
            return None
        ya = [items_a[i].counts[outcome] for i in idx]
        yb = [items_b[i].counts[outcome] for i in idx]
        return paired_difference(
            [c[0] for c in yb], [c[1] for c in yb], [c[0] for c in ya], [c[1] for c in ya],
            [items_a[i].cluster for i in idx],
        )  # fmt: skip

    def binary(*, judge_only: bool) -> BinaryComparison:
        return compare_binary(
            [p.label == "SUPPORTED" for p in pairs],
            _binary_right(pairs, a_samples, judge_only=judge_only),
            _binary_right(pairs, b_samples, judge_only=judge_only),
            [pair_cluster(p) for p in pairs],
        )

    kinds: dict[str, KindCounts] = {}
    differing = []
    for i, p in enumerate(pairs):
        kind = p.kind or "-"
        k = kinds.setdefault(kind, KindCounts(kind=kind, n=0, near_miss=0, only_a_right=0,
                                              only_b_right=0, verdicts_differ=0))  # fmt: skip
        ra, na = items_a[i].counts["correct"]
        rb, nb = items_b[i].counts["correct"]
        share_a, share_b = ra / na, rb / nb
        k.n += 1
        k.near_miss += int(p.near_miss)
        k.only_a_right += int(share_a > share_b)
        k.only_b_right += int(share_b > share_a)
        va, vb = _outcome(a_samples[0][i]), _outcome(b_samples[0][i])
        if va != vb:
            k.verdicts_differ += 1
            differing.append(DifferingPair(id=p.id, kind=kind, near_miss=p.near_miss,
                                           label=p.label, a=va, b=vb, claim=p.claim))  # fmt: skip
    agreement = diff(lambda p: True)
    assert agreement is not None  # a labelled set has pairs
    shares = [
        (items_a[i].counts["correct"][0] / items_a[i].counts["correct"][1],
         items_b[i].counts["correct"][0] / items_b[i].counts["correct"][1], p.near_miss)
        for i, p in enumerate(pairs)
    ]  # fmt: skip
    return JudgeComparison(
        set=set_name, a=a, b=b, n=len(pairs), agreement=agreement,
        near_miss=diff(lambda p: p.near_miss),
        agreement_judge_only=diff(lambda p: True, "correct_judge_only"),
        near_miss_judge_only=diff(lambda p: p.near_miss, "correct_judge_only"),
        by_kind=sorted(kinds.values(), key=lambda k: k.kind), differing=differing,
        only_a_right=sum(sa > sb for sa, sb, _ in shares),
        only_b_right=sum(sb > sa for sa, sb, _ in shares),
        near_miss_only_a_right=sum(sa > sb for sa, sb, nm in shares if nm),
        near_miss_only_b_right=sum(sb > sa for sa, sb, nm in shares if nm),
        binary=binary(judge_only=False), binary_judge_only=binary(judge_only=True),
        a_binary=is_binary(a_samples), b_binary=is_binary(b_samples),
    )  # fmt: skip


def describe(d: PairedDifference | None) -> str:
    """'-0.404 [-0.521, -0.287], sign-flip over 46 clusters (exact) p=2e-12 (two-sided)'."""
    if d is None or d.diff is None:
        return "n/a"
    ci = f" [{d.ci_low:+.3f}, {d.ci_high:+.3f}]" if d.ci_low is not None else ""
    return f"{d.diff:+.3f}{ci}, {d.test} p={d.p_two_sided:.2g} (two-sided)"


def binary_lines(c: JudgeComparison) -> list[str]:
    """The SUPPORTED-vs-rest comparison in words, headline first: which judge is binary,
    balanced accuracy with TPR and TNR after the audit and judge-only (every line says B
    minus A, its interval and its test)."""
    binary = [name for name, b in ((c.a, c.a_binary), (c.b, c.b_binary)) if b]
    lines = []
    if binary:
        what = "binary judges" if len(binary) > 1 else "a binary judge"
        lines.append(
            f"{' and '.join(binary)} never said PARTIAL here ({what}): the headline is "
            "SUPPORTED-vs-rest balanced accuracy (three-way agreement counts every PARTIAL "
            "pair against a judge that does not say it)"
        )
    for side, b in (("final", c.binary), ("judge-only", c.binary_judge_only)):
        if b is None:
            continue
        ba = b.balanced_accuracy
        lines.append(
            f"balanced accuracy ({side}): {c.a} {_rate(ba.baseline)}, {c.b} {_rate(ba.current)}; "
            f"{c.b} minus {c.a} {describe(ba)}"
        )
        for what, d, n in (("TPR", b.tpr, b.n_supported), ("TNR", b.tnr, b.n_rest)):
            if d is not None:
                lines.append(f"  {what} on {n} {'SUPPORTED' if what == 'TPR' else 'other'} pairs: "
                             f"{_rate(d.baseline)} -> {_rate(d.current)}, {describe(d)}")  # fmt: skip
    return lines


def _rate(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.3f}"
