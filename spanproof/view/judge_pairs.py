"""The judges page's paired comparison: each later judge against the first, pair by pair.

The same computation as ``spanproof calibrate --judge A --judge B`` (spanproof/bench/judge_compare.py),
made from the verdicts the page already shows, so the page and the command agree.
"""

from __future__ import annotations

from spanproof.bench.judge_compare import JudgeComparison, compare_judges, describe
from spanproof.view.judges import SideBySide


def paired(table: SideBySide) -> list[JudgeComparison]:
    if len(table.judges) < 2 or not table.rows:
        return []
    pairs = [r.pair for r in table.rows]
    first = table.judges[0]
    return [
        compare_judges(
            table.set_name, pairs, first, [[r.verdicts[first] for r in table.rows]],
            other, [[r.verdicts[other] for r in table.rows]],
        )
        for other in table.judges[1:]
    ]  # fmt: skip


__all__ = ["describe", "paired"]
