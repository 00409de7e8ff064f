"""What a baseline must satisfy before a gate run is compared with it.

A baseline decides which rows REGRESSED, so a damaged one silently changes the gate's verdict:
outcomes zeroed while the figures were left alone make a blind judge look unchanged, and a
count of "5 of 1" makes a pair worse than it could ever be. The per-item outcomes are what the
comparison reads; the figures are what a person reads in the file. Both come from one gate
run, so they must agree, and every count must be one a gate run can produce. Each check
returns the problems it found, in words (an empty list: the baseline can be used).
"""

from __future__ import annotations

import math

from spanproof.bench.outcomes import GateOutcomes, figure, row_specs

# Figures are ratios of integer counts written with Python's repr; an exact recomputation
# agrees to the last bit, so this only absorbs a float written by another tool.
FIGURE_TOLERANCE = 1e-9


def outcome_problems(outcomes: GateOutcomes) -> list[str]:
    """Counts a gate run cannot produce, and items listed twice in one set."""
    problems: list[str] = []
    for set_name, outcome_set in sorted(outcomes.sets.items()):
        seen: set[str] = set()
        for item in outcome_set.items:
            where = f"{set_name} item {item.id!r}"
            if item.key in seen:
                problems.append(f"{where}: its key {item.key} appears twice in the set")
            seen.add(item.key)
            for outcome, (successes, trials) in sorted(item.counts.items()):
                if trials < 0 or successes < 0:
                    problems.append(f"{where}: {outcome} count {successes} of {trials} is negative")
                elif successes > trials:
                    problems.append(
                        f"{where}: {outcome} count {successes} of {trials} has more successes "
                        "than trials"
                    )
    return problems


def figure_problems(figures: dict[str, float | None], outcomes: GateOutcomes) -> list[str]:
    """Figures that are not the ratio of the outcome counts they are computed from."""
    problems: list[str] = []
    specs = row_specs(outcomes)
    for spec in specs:
        if spec.row not in figures:
            problems.append(f"the figure {spec.row} is missing")
            continue
        stated, computed = figures[spec.row], figure(outcomes, spec)
        if stated is None and computed is None:
            continue
        if (
            stated is None
            or computed is None
            or not math.isclose(stated, computed, rel_tol=0.0, abs_tol=FIGURE_TOLERANCE)
        ):
            shown = "none" if computed is None else f"{computed:.6g}"
            problems.append(f"{spec.row} is {stated} but its per-item outcomes give {shown}")
    known = {s.row for s in specs}
    problems += [
        f"the figure {row} has no per-item outcomes to come from"
        for row in sorted(set(figures) - known)
    ]
    return problems
