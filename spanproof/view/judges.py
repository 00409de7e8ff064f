"""Judges side by side on one calibration set: each pair's gold label and every judge's verdict.

Only sets and judges named when the viewer was started can be run from a page (a URL
never names a file to read or a model to call). Verdicts go through the home's verdict
cache, so opening the page twice judges nothing twice, and a set whose every verdict is
already cached (by `calibrate`, the gate or another viewer) is shown without asking.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel

from spanproof.core.verdict import Pair, Verdict

if TYPE_CHECKING:
    from spanproof.agent.services import Services

Show = Literal["all", "disagreements", "judges_differ", "near_miss"]
SHOW_LABELS: dict[Show, str] = {
    "all": "every pair",
    "disagreements": "some judge disagrees with the gold label",
    "judges_differ": "the judges disagree with each other",
    "near_miss": "near-misses only",
}


def shipped_calibration_set() -> Path:
    from spanproof import goldens

    return Path(goldens.__file__).resolve().parent / "judge_calibration.jsonl"


class JudgedRow(BaseModel):
    pair: Pair
    verdicts: dict[str, Verdict]  # judge spec -> audited verdict

    def outcome(self, judge: str) -> str:
        v = self.verdicts[judge]
        return "ERROR" if v.error else v.verdict

    def agrees(self, judge: str) -> bool:
        return self.outcome(judge) == self.pair.label

    def shown(self, show: Show) -> bool:
        if show == "near_miss":
            return self.pair.near_miss
        if show == "disagreements":
            return any(not self.agrees(j) for j in self.verdicts)
        if show == "judges_differ":
            return len({self.outcome(j) for j in self.verdicts}) > 1
        return True


class SideBySide(BaseModel):
    set_name: str
    judges: list[str]
    rows: list[JudgedRow]

    def agreement(self, judge: str, near_miss_only: bool = False) -> float | None:
        rows = [r for r in self.rows if r.pair.near_miss or not near_miss_only]
        return sum(r.agrees(judge) for r in rows) / len(rows) if rows else None


async def side_by_side(set_path: Path, judges: list[str], *, services: Services) -> SideBySide:
    from spanproof.bench.calibration import judge_set
    from spanproof.bench.pairs import load_pairs

    pairs = [p for p in load_pairs(set_path) if p.label is not None]
    by_judge: dict[str, list[Verdict]] = {}
    for spec in judges:
        verifier = services.verifier([spec])
        by_judge[spec] = await judge_set(verifier, pairs)
    rows = [
        JudgedRow(pair=p, verdicts={j: by_judge[j][i] for j in judges}) for i, p in enumerate(pairs)
    ]
    return SideBySide(set_name=set_path.stem, judges=judges, rows=rows)


def all_cached(set_path: Path, judges: list[str], *, services: Services) -> bool:
    """Does the verdict cache hold every judge's verdict on every labelled pair of the set?
    Then showing the set calls no judge (the page may show it on a GET)."""
    from spanproof.graders.cache import cache_key_for

    from spanproof.bench.calibration import span_ref
    from spanproof.bench.pairs import load_pairs

    if services.cache is None:
        return False
    pairs = [p for p in load_pairs(set_path) if p.label is not None]
    built = services.judges(judges)
    keys = {cache_key_for(j, p.claim, span_ref(p)) for p in pairs for j in built}
    return bool(keys) and len(services.store.get_verdicts(sorted(keys))) == len(keys)
