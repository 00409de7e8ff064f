"""Judging a set several times (``--repeat N``): for judges that are not deterministic.

Many LLM servers do not give the same answer twice even at temperature 0 (batching changes
the arithmetic). A figure from one pass then moves between identical runs, and a comparison
with a baseline cannot tell that movement from a regression. Judging each pair N times says
how much it moves:

- each sample is its own verdict-cache entry (keyed by its repeat index: graders/cache.py), so
  a rerun replays all N samples and a new sample is asked only when N grows;
- a figure is the mean over the samples (the pooled share: every sample judges every pair),
  with its spread across the N single-pass figures;
- a pair whose audited verdict is not the same in every sample is *unstable*, and is listed.

In Inspect AI's terms the N samples are epochs and the pooled share is the "mean" reducer; a
pair's counts keep every sample (``successes of trials``), so a paired comparison with a
baseline uses them all (spanproof/bench/outcomes.py).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, Field

from spanproof.core.verdict import Verdict

MAX_REPEATS = 20


def check_repeats(repeats: int) -> int:
    if not 1 <= repeats <= MAX_REPEATS:
        raise ValueError(f"--repeat must be between 1 and {MAX_REPEATS}, not {repeats}")
    return repeats


def pooled(
    pairs: Sequence[Any], samples: Sequence[Sequence[Verdict]]
) -> tuple[list[Any], list[Verdict]]:
    """Every sample as its own row (pairs repeated once per sample), so shares over the rows are
    the mean of the per-sample shares."""
    return [p for _ in samples for p in pairs], [v for s in samples for v in s]


def outcome(v: Verdict) -> str:
    return "ERROR" if v.error else v.verdict


class UnstablePair(BaseModel):
    set: str
    id: str
    claim: str
    label: str | None = None
    verdicts: list[str]  # the audited verdict of each sample, in order


def unstable_pairs(
    set_name: str, pairs: Sequence[Any], samples: Sequence[Sequence[Verdict]]
) -> list[UnstablePair]:
    out = []
    for i, p in enumerate(pairs):
        seen = [outcome(s[i]) for s in samples]
        if len(set(seen)) > 1:
            # a planted pair carries no label (what it must get is its ``expected``)
            out.append(UnstablePair(set=set_name, id=p.id, claim=p.claim,
                                    label=getattr(p, "label", None), verdicts=seen))  # fmt: skip
    return out


class Spread(BaseModel):
    """One figure over N samples."""

    values: list[float | None]
    mean: float | None
    sd: float | None
    low: float | None
    high: float | None


def spread(values: Sequence[float | None]) -> Spread:
    known = [v for v in values if v is not None]
    return Spread(
        values=list(values),
        mean=statistics.fmean(known) if known else None,
        sd=statistics.stdev(known) if len(known) > 1 else None,
        low=min(known) if known else None,
        high=max(known) if known else None,
    )


def per_sample(
    samples: Sequence[Sequence[Verdict]], figure: Callable[[Sequence[Verdict]], float | None]
) -> list[float | None]:
    return [figure(s) for s in samples]


class RepeatsNote(BaseModel):
    """What judging N times adds to a gate result: each repeated figure's spread and the pairs
    whose audited verdict changed between samples."""

    n: int
    figures: dict[str, Spread] = Field(default_factory=dict)
    unstable: list[UnstablePair] = Field(default_factory=list)


def note(current: RepeatsNote | None, repeats: int, unstable: list[UnstablePair],
         figures: dict[str, list[float | None]]) -> RepeatsNote | None:  # fmt: skip
    """``current`` with one more set's repeats (None, and nothing noted, for a single pass)."""
    if repeats <= 1:
        return current
    out = current or RepeatsNote(n=repeats)
    out.figures.update({k: spread(v) for k, v in figures.items()})
    out.unstable.extend(unstable)
    return out


def describe(s: Spread) -> str:
    def f(x: float | None) -> str:
        return "n/a" if x is None else f"{x:.3f}"

    return (
        f"mean of {len(s.values)} repeats (per repeat {', '.join(f(v) for v in s.values)}; "
        f"sd {f(s.sd)})"
    )


def annotate_rows(rows: Sequence[Any], note: RepeatsNote | None) -> None:
    """Say on each repeated row that its value is a mean, with its spread."""
    figures = note.figures if note is not None else {}
    for row in rows:
        if row.name in figures and row.status != "error":
            row.detail += "; " + describe(figures[row.name])
