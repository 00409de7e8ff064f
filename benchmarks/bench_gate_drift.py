"""The gate's signal under drift: how often it goes red with nothing changed, and how often
it catches a 5- and a 10-point sensitivity drop.

Simulates judges on the gate's own sets (the hand-labelled calibration set, the planted
failures and their untouched originals, selected exactly as `spanproof gate` selects them)
and decides every simulated run with the gate's own code: the declared calibration and
sensitivity checks (spanproof/gate/checks/judged.py), the per-item outcomes
(spanproof/bench/outcomes.py), the comparison with a baseline and the statuses
(spanproof/gate/baseline.py) and the exit code (spanproof/gate/rows.py). Nothing of the
decision is re-implemented here.

The simulated judge:

- its base verdicts are a real judge's own labels, replayed: the offline ``rules`` judge by
  default; ``--base passing`` uses the gold labels with a fixed 5% of them wrong;
- every run flips ``--noise`` of its verdicts at random (to one of the two other labels): two
  runs of one judge are not identical, as with an LLM on a batching server (``--noise 0`` is
  the deterministic offline default, which never moves);
- a drop of d points: the judge now says SUPPORTED, quoting the span window most like the
  claim, on planted failures it caught, d% of all planted failures, chosen among those the
  audit cannot prove (so the final sensitivity drops by d points, not less);
- every verdict then goes through the real code audit (graders/audit.py), as in the gate.

For each d in 0, 5, 10: ``--runs`` pairs of runs, a baseline run and a current run (each with
its own noise; the current one drifted by d). d = 0 is two runs of the same judge: the share
of red gates is the false-alarm rate (target <= 1%).

    python benchmarks/bench_gate_drift.py                 # rules judge replayed, 200 runs per d
    python benchmarks/bench_gate_drift.py --noise 0       # the deterministic default
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

import numpy as np
from tabulate import tabulate

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from spanproof.graders.audit import audit  # noqa: E402
from spanproof.graders.quoting import best_window  # noqa: E402

from spanproof.bench import outcomes as gate_outcomes  # noqa: E402
from spanproof.bench.calibration import load_pairs, rows_for, span_ref  # noqa: E402
from spanproof.bench.metrics import compute  # noqa: E402
from spanproof.bench.sensitivity import score  # noqa: E402
from spanproof.core.verdict import LABELS, Verdict  # noqa: E402
from spanproof.gate.artifacts import GateArtifacts  # noqa: E402
from spanproof.gate.baseline import Baseline, apply  # noqa: E402
from spanproof.gate.checks.judged import (  # noqa: E402
    CalibrationInput,
    SensitivityInput,
    calibration,
    sensitivity,
    sensitivity_sets,  # noqa: E402
)
from spanproof.gate.config import GateConfig  # noqa: E402
from spanproof.gate.paths import resolve as _resolve  # noqa: E402
from spanproof.gate.result import GateResult  # noqa: E402
from spanproof.gate.rows import exit_code_for  # noqa: E402

KS = (0, 5, 10)
REQUIRED = ["calibration", "sensitivity"]


class Items:
    """Every judged item of the gate's judge sets, with the audited label for each judge label."""

    def __init__(self, cfg: GateConfig, base: str, seed: int, noise: float):
        self.noise = noise
        self.cfg = cfg
        self.cal = [p for p in load_pairs(_resolve(cfg.calibration_set)) if p.label is not None]
        self.sets = sensitivity_sets(cfg)
        self.originals = self.sets.originals
        self.planted = self.sets.planted
        pairs = [*self.cal, *self.originals, *(p.as_pair() for p in self.planted)]
        self.pairs = pairs
        self.n_cal, self.n_orig = len(self.cal), len(self.originals)
        raw = asyncio.run(_raw_verdicts(pairs)) if base == "rules" else None
        rng = np.random.default_rng(seed)
        gold = [p.label for p in self.cal] + ["SUPPORTED"] * self.n_orig
        gold += [p.expected for p in self.planted]
        if base == "rules":
            self.base = np.array([LABELS.index(v.verdict) for v in raw])
        else:
            wrong = rng.random(len(pairs)) < 0.05
            self.base = np.array([
                (LABELS.index(g) + (1 + rng.integers(0, 2) if w else 0)) % 3
                for g, w in zip(gold, wrong, strict=True)
            ])  # fmt: skip
        first = self.n_cal + self.n_orig
        # the audited label of each pair for each judge label, computed once
        self.audited = np.zeros((len(pairs), 3), dtype=np.int64)
        for i, p in enumerate(pairs):
            quote = (raw[i].quote_used if raw else None) or best_window(p.claim, p.span) or None
            for j, label in enumerate(LABELS):
                v = Verdict(verdict=label, quote_used=quote, judge="simulated")
                self.audited[i, j] = LABELS.index(audit(p.claim, span_ref(p), v).verdict)
        # planted failures the judge caught and the audit would not catch if it said SUPPORTED
        supported = LABELS.index("SUPPORTED")
        self.stampable = np.array([
            i for i in range(first, len(pairs))
            if self.audited[i, self.base[i]] != supported and self.audited[i, supported] == supported
        ])  # fmt: skip

    def run(self, rng: np.random.Generator, d: int) -> np.ndarray:
        """One simulated run's judge labels: a d-point sensitivity drop, then noise."""
        labels = self.base.copy()
        if d:
            size = round(len(self.planted) * d / 100)
            if size > len(self.stampable):
                raise SystemExit(f"a {d}-point drop needs {size} stampable planted pairs; "
                                 f"there are {len(self.stampable)}")  # fmt: skip
            stamped = rng.choice(self.stampable, size=size, replace=False)
            labels[stamped] = LABELS.index("SUPPORTED")
        flip = rng.random(len(labels)) < self.noise
        labels[flip] = (labels[flip] + rng.integers(1, 3, size=int(flip.sum()))) % 3
        return labels

    def gate(self, labels: np.ndarray) -> GateResult:
        """The gate's calibration and sensitivity rows for one run, decided by the gate's code."""
        verdicts = [
            Verdict.model_construct(verdict=LABELS[self.audited[i, j]], judge_verdict=LABELS[j],
                                    error=None, judge="simulated", checks=[])
            for i, j in enumerate(labels)
        ]  # fmt: skip
        a, b = self.n_cal, self.n_cal + self.n_orig
        cal_v, orig_v, planted_v = verdicts[:a], verdicts[a:b], verdicts[b:]
        m = compute(rows_for(self.cal, cal_v), n_boot=0)
        own = compute(rows_for(self.cal, cal_v, judge_only=True), n_boot=0)
        res = score("simulated", self.originals, orig_v, self.planted, planted_v)
        sets = self.sets
        rows = calibration.rows(CalibrationInput("simulated", "calibration", m, own), self.cfg)
        rows += sensitivity.rows(
            SensitivityInput(res, "simulated", len(sets.cal_good), len(sets.clean), sets.excluded,
                             sum(v.supported for v in orig_v)),
            self.cfg,
        )  # fmt: skip
        artifacts = GateArtifacts()
        artifacts.record_set(
            "calibration", gate_outcomes.labelled_set("calibration", self.cal, [cal_v])
        )
        artifacts.record_set(
            "sensitivity_planted",
            gate_outcomes.planted_set("planted", self.planted, [planted_v], sets.clusters()),
        )
        artifacts.record_set(
            "sensitivity_originals",
            gate_outcomes.originals_set("originals", self.originals, [orig_v]),
        )
        code = exit_code_for(rows, REQUIRED)
        return GateResult(passed=code == 0, exit_code=code, checks=rows, wall_s=0.0,
                          gate_id="simulated", judge="simulated", artifacts=artifacts)  # fmt: skip


async def _raw_verdicts(pairs) -> list[Verdict]:
    from spanproof.graders.judges import make_judge

    judge = make_judge("rules")
    return [await judge.judge(p.claim, span_ref(p)) for p in pairs]


def simulate(items: Items, runs: int, seed: int) -> list[list]:
    rng = np.random.default_rng(seed + 1)
    out = {k: {"red": 0, "recall": 0, "drop": 0.0, "rows": {}} for k in KS}
    for _ in range(runs):
        before = items.gate(items.run(rng, 0))
        baseline = Baseline(ref="simulated", described="the simulated baseline run",
                            gate_id="simulated-baseline",
                            outcomes=before.artifacts.outcomes)  # fmt: skip
        recall_before = next(r.value for r in before.checks if r.name == "sensitivity.recall")
        for k in KS:
            now = items.gate(items.run(rng, k))
            apply(now, items.cfg, baseline, REQUIRED)
            out[k]["red"] += now.exit_code != 0
            rows = {r.name: r for r in now.checks}
            out[k]["recall"] += rows["sensitivity.recall"].status == "regressed"
            out[k]["drop"] += recall_before - rows["sensitivity.recall"].value
            for r in now.checks:
                if r.status == "regressed":
                    out[k]["rows"][r.name] = out[k]["rows"].get(r.name, 0) + 1
    table = []
    for k in KS:
        o = out[k]
        top = sorted(o["rows"].items(), key=lambda kv: -kv[1])[:3]
        table.append([
            f"{k} points" + (" (nothing changed: false alarms)" if k == 0 else ""),
            f"{o['drop'] / runs:+.3f}", f"{o['red'] / runs:.1%}", f"{o['recall'] / runs:.1%}",
            ", ".join(f"{n} {c / runs:.0%}" for n, c in top) or "-",
        ])  # fmt: skip
    return table


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--base", choices=["rules", "passing"], default="rules")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--noise",
        type=float,
        default=0.03,
        help="share of verdicts flipped at random in every run (0: deterministic)",
    )
    args = ap.parse_args()
    t0 = time.perf_counter()
    cfg = GateConfig()
    items = Items(cfg, args.base, args.seed, args.noise)
    first = items.gate(items.base)
    print(
        f"base judge: {'the rules judge, replayed' if args.base == 'rules' else 'gold labels with 5% wrong'}"
        f"; {items.n_cal} calibration pairs, {items.n_orig} originals, {len(items.planted)} "
        f"planted failures ({len(items.stampable)} caught that the audit would not prove); "
        f"noise {args.noise:.0%} of verdicts flipped per run; {args.runs} runs per drop"
    )
    print("base judge's rows: " + ", ".join(
        f"{r.name} {r.value:.3f} {r.status}" for r in first.checks if isinstance(r.value, float)
    ))  # fmt: skip
    r = cfg.regression
    print(f"baseline rule: tolerance {r.tolerance}, alpha {r.alpha} over the compared rows (Holm), "
          f"one-sided paired tests clustered by source page\n")  # fmt: skip
    table = simulate(items, args.runs, args.seed)
    print(tabulate(table, headers=["sensitivity drop", "mean measured drop", "gate red (exit 1)",
                                   "sensitivity.recall REGRESSED", "rows that regressed most"],
                   tablefmt="github"))  # fmt: skip
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
