"""Which pairs of a set every judge can answer, asked before any judging.

A scripted judge (a published judge's verdicts, one file) answers only the pairs its file
holds. Judging a set it does not cover stops at the first missing pair; a comparison of
judges that each cover part of a set is made on the pairs every judge covers, and only when
asked (``calibrate --cover``): the pairs kept, the pairs left out and which judge lacks each.
Without that request a set some judge does not cover is an error before anything is judged,
naming the judge, how many pairs it lacks and the two ways forward.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field
from spanproof.graders.errors import JudgeConfigError
from spanproof.graders.judges import spec_of, unwrap
from spanproof.graders.judges.scripted import ScriptedJudge

from spanproof.core.verdict import Judge, Pair


class LeftOut(BaseModel):
    id: str
    missing_from: list[str]  # the judges (by name) with no verdict for it


class Coverage(BaseModel):
    """One set: its labelled pairs, those every judge covers (kept) and the others."""

    set: str
    n: int
    kept: int
    left_out: list[LeftOut] = Field(default_factory=list)

    def missing_by_judge(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for p in self.left_out:
            for name in p.missing_from:
                out[name] = out.get(name, 0) + 1
        return out

    def summary(self) -> str:
        """'wice_dev_pairs: 100 of 349 pairs kept (every judge covers them); 249 left out:
        t5 lacks 249, t5-wice lacks 249'."""
        lacks = ", ".join(f"{name} has no verdict for {k}" for name, k in
                          self.missing_by_judge().items())  # fmt: skip
        head = f"{self.set}: {self.kept} of {self.n} labelled pairs kept (every judge covers them)"
        return head + (f"; {len(self.left_out)} left out: {lacks}" if self.left_out else "")


class UncoveredPairs(JudgeConfigError):
    """A judge cannot answer some pairs of a set, and no --cover was asked for."""


def _lacks(judge: Judge, pair: Pair) -> bool:
    inner = unwrap(judge)
    return isinstance(inner, ScriptedJudge) and not inner.covers(pair.claim, pair.span, pair.id)


def coverage(set_name: str, pairs: Sequence[Pair], judges: Sequence[Judge]) -> Coverage:
    left_out = []
    for p in pairs:
        missing = [j.id for j in judges if _lacks(j, p)]
        if missing:
            left_out.append(LeftOut(id=p.id, missing_from=missing))
    return Coverage(set=set_name, n=len(pairs), kept=len(pairs) - len(left_out), left_out=left_out)


def covered(
    set_name: str, pairs: Sequence[Pair], judges: Sequence[Judge], *, cover: bool
) -> tuple[list[Pair], Coverage]:
    """The pairs to judge and what was left out. Without ``cover``, a pair some judge lacks
    raises UncoveredPairs (nothing judged yet); with it, a set no pair of which every judge
    covers raises it too (a comparison on nothing measures nothing)."""
    c = coverage(set_name, pairs, judges)
    if c.left_out and not cover:
        name, count = next(iter(c.missing_by_judge().items()))
        judge = next(j for j in judges if j.id == name)
        first = next(p.id for p in c.left_out if name in p.missing_from)
        raise UncoveredPairs(
            f"the judge {name} ({spec_of(judge)}) has no verdict for {count} of the {c.n} "
            f"labelled pairs of {set_name} (first: {first}): a scripted judge replays only the "
            f"verdicts its file holds. Pass --cover to compare the judges on the {c.kept} pairs "
            "every judge covers (the others are listed as left out), or give a --set whose "
            "pairs every judge covers."
        )
    if cover and not c.kept:
        raise UncoveredPairs(
            f"no labelled pair of {set_name} is covered by every judge "
            f"({', '.join(f'{k} lacks {v}' for k, v in c.missing_by_judge().items())}): "
            "there is nothing to compare them on. Give a set the judges' files cover."
        )
    return [p for p in pairs if not any(_lacks(j, p) for j in judges)], c
