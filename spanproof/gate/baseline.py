"""A baseline for every gate row: is this run worse than before, or only different by noise?

``spanproof gate --baseline REF`` compares each figure measured on the same items as an earlier
gate run (calibration agreement and near-miss agreement, sensitivity overall and per planted
kind, specificity, the reviewed pairs, groundedness on the golden questions) item by item,
with spanproof/bench/paired_stats.py: the paired difference with its 95% interval (clustered by source
page) and a paired test. A row fails when its drop is significant *and* larger than the
configured tolerance, as well as when its absolute threshold fails. Holm's procedure over the
compared rows keeps the chance that an unchanged grader fails any of them at ``alpha``.

Every gated row also states what it can see: the smallest drop it would catch with the
configured power under this rule, and how many items it would need to see ``target_drop``.

REF is one of (docs/gate-baseline.md):

- a stored gate run id (or a unique prefix);
- ``last-passed``: the newest gate run on this git branch that passed (exit 0);
- a baseline file (``spanproof gate --save-baseline FILE``), committed to the repository.

A REF that names nothing, a gate run recorded before per-item outcomes were kept, a damaged
file: ``BaselineError`` (the gate exits 2), never a comparison with nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import BaseModel, ValidationError

from spanproof.bench.outcomes import (
    GateOutcomes,
    OutcomeItem,
    RowSpec,
    figure,
    items_for,
    kind_row,
    row_specs,
)
from spanproof.bench.paired_stats import (
    Power,
    design_effect,
    holm,
    paired_difference,
    power_of,
    smallest_p,
    tarone,
)
from spanproof.gate.baseline_checks import figure_problems, outcome_problems
from spanproof.gate.comparison import BaselineReport, MovedItem, RowComparison
from spanproof.gate.config import GateConfig, Regression
from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow, exit_code_for

if TYPE_CHECKING:
    from spanproof.store.models import GateRunRow

LAST_PASSED = "last-passed"
FILE_FORMAT: Final = "spanproof-gate-baseline"
FILE_VERSION: Final = 1


class BaselineError(Exception):
    """The baseline cannot be used as asked; the message says why and how to fix it (exit 2)."""


class BaselineFile(BaseModel):
    """A gate run's per-item outcomes as a file to commit (docs/gate-baseline.md)."""

    format: Literal["spanproof-gate-baseline"] = FILE_FORMAT
    version: Literal[1] = FILE_VERSION
    gate_id: str
    started_at: str
    git_commit: str | None = None
    git_branch: str | None = None
    judge: str
    judge_ids: list[str]
    config_sha256: str
    # Each compared row's figure in that run, for a person reading the file; the comparison
    # itself reads only ``outcomes``, so on reading the two must agree (baseline_checks.py).
    figures: dict[str, float | None]
    outcomes: GateOutcomes


class Baseline(BaseModel):
    """What a run is compared with, and how to name it in the report."""

    ref: str
    described: str
    gate_id: str
    outcomes: GateOutcomes


# ---------------------------------------------------------------- resolving a REF


def _from_result(result: GateResult, ref: str, described: str) -> Baseline:
    if result.subset is not None:
        raise BaselineError(
            f"gate run {result.gate_id} ran a subset ({result.subset.asked}), not the whole "
            "gate; compare with a full run (`spanproof runs gates` lists them)"
        )
    outcomes = result.artifacts.outcomes
    if outcomes is None or not outcomes.sets:
        raise BaselineError(
            f"gate run {result.gate_id} keeps no per-item outcomes (it was recorded by an older "
            "spanproof, or none of its judged checks finished); run the gate again and use "
            "that run as the baseline"
        )
    problems = outcome_problems(outcomes)
    if problems:
        raise BaselineError(
            f"{described} cannot be a baseline: {_listed(problems)}; give another gate id, or a "
            "baseline file saved with `spanproof gate --save-baseline FILE`"
        )
    return Baseline(ref=ref, described=described, gate_id=result.gate_id, outcomes=outcomes)


def _listed(problems: list[str], shown: int = 3) -> str:
    more = len(problems) - shown
    return "; ".join(problems[:shown]) + (f" (and {more} more)" if more > 0 else "")


def regenerate_hint(path: Path) -> str:
    return (
        f'regenerate it from a gate run you trust with `spanproof gate --baseline "" '
        f"--save-baseline {path}` (docs/gate-baseline.md)"
    )


def _describe_row(row: GateRunRow) -> str:
    when = row.started_at.isoformat(timespec="seconds") + "Z"
    where = f" on branch {row.git_branch}" if row.git_branch else ""
    commit = f" at {row.git_commit[:12]}" if row.git_commit else ""
    return f"gate run {row.gate_id} ({when}{where}{commit}, judge {row.judge})"


def load_file(path: Path) -> Baseline:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise BaselineError(
            f"baseline file {path} cannot be read ({exc.__class__.__name__}: {exc}); make one "
            "with `spanproof gate --save-baseline FILE`"
        ) from None
    if not isinstance(raw, dict) or raw.get("format") != FILE_FORMAT:
        raise BaselineError(
            f'{path} is not a gate baseline (no "format": "{FILE_FORMAT}"); make one with '
            "`spanproof gate --save-baseline FILE`"
        )
    if raw.get("version") != FILE_VERSION:
        raise BaselineError(
            f"{path} is a version {raw.get('version')!r} gate baseline; this spanproof reads "
            f"version {FILE_VERSION} (docs/gate-baseline.md). Save a new one with "
            "`spanproof gate --save-baseline FILE`"
        )
    try:
        # strict: a count written as "5" or 5.0 is damage, not a count to coerce
        data = BaselineFile.model_validate_json(json.dumps(raw), strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise BaselineError(
            f"baseline file {path} is damaged at {where}: {first['msg']} "
            f"(got {first.get('input')!r}); {regenerate_hint(path)}"
        ) from None
    problems = outcome_problems(data.outcomes) + figure_problems(data.figures, data.outcomes)
    if problems:
        raise BaselineError(
            f"baseline file {path} cannot be trusted: {_listed(problems)}. A baseline's figures "
            "and counts come from one gate run, so this file was edited or damaged; "
            + regenerate_hint(path)
        )
    when = f"{data.started_at}" + (f" on branch {data.git_branch}" if data.git_branch else "")
    return Baseline(
        ref=str(path), described=f"baseline file {path} (gate run {data.gate_id}, {when})",
        gate_id=data.gate_id, outcomes=data.outcomes,
    )  # fmt: skip


def resolve(ref: str, *, store: Any, branch: str | None) -> Baseline:
    """The baseline REF names (module doc); BaselineError when it names nothing usable."""
    from spanproof.store.errors import RunNotFound

    ref = ref.strip()
    if not ref:
        raise BaselineError("--baseline needs a gate id, last-passed or a baseline file")
    if ref == LAST_PASSED:
        if not branch:
            raise BaselineError(
                "--baseline last-passed needs the git branch being gated, and none could be "
                "found (not a git checkout, or a detached HEAD); set SPANPROOF_BRANCH, or give "
                "a gate id or a baseline file"
            )
        row = store.last_passed_gate(branch)
        if row is None:
            raise BaselineError(
                f"no gate run on branch {branch!r} has passed in {store.display_url}; there is "
                "nothing to compare with. Give a gate id (`spanproof runs gates` lists them) or "
                "a baseline file, or run without --baseline until the gate passes on this branch"
            )
        return _from_result(
            GateResult.model_validate_json(row.result), ref,
            f"the last passing {_describe_row(row)}",
        )  # fmt: skip
    path = Path(ref)
    if path.suffix == ".json" or path.exists():
        if not path.is_file():
            raise BaselineError(
                f"baseline file {path} does not exist; make one with "
                "`spanproof gate --save-baseline FILE`, or give a gate id or last-passed"
            )
        return load_file(path)
    try:
        row = store.gate_run(ref)
    except RunNotFound as exc:
        raise BaselineError(f"--baseline {ref}: {exc}") from None
    return _from_result(GateResult.model_validate_json(row.result), ref, _describe_row(row))


def save_file(result: GateResult, path: str | Path, *, branch: str | None = None) -> Path:
    """Write this run's outcomes as a baseline file (BaselineError when it kept none)."""
    from spanproof.core.files import write_atomic
    from spanproof.store.provenance import git_commit

    if result.subset is not None:
        raise BaselineError(
            f"this gate run ran a subset ({result.subset.asked}); a baseline is a whole gate "
            "run: run it without --only / --skip"
        )
    outcomes = result.artifacts.outcomes
    if outcomes is None or not outcomes.sets:
        raise BaselineError(
            "this gate run measured no per-item outcomes (none of calibration, sensitivity, "
            "reviewed or the agent runs finished), so there is no baseline to save"
        )
    data = BaselineFile(
        gate_id=result.gate_id, started_at=result.started_at, git_commit=git_commit(),
        git_branch=branch, judge=result.judge, judge_ids=result.judge_ids,
        config_sha256=result.config_sha256,
        figures={s.row: figure(outcomes, s) for s in row_specs(outcomes)},
        outcomes=outcomes,
    )  # fmt: skip
    out = Path(path)
    write_atomic(out, data.model_dump_json(indent=1) + "\n")
    return out


# ---------------------------------------------------------------- comparing


def _counts(items: list[OutcomeItem], outcome: str) -> tuple[list[int], list[int]]:
    return [i.counts[outcome][0] for i in items], [i.counts[outcome][1] for i in items]


def _moved(
    common: list[OutcomeItem], before: dict[str, OutcomeItem], spec: RowSpec
) -> tuple[list[MovedItem], int]:
    """The items whose share of successes moved the wrong way, worst first, and how many moved
    the right way."""
    out, improved = [], 0
    for item in common:
        old = before[item.key]
        (y1, n1), (y0, n0) = item.counts[spec.outcome], old.counts[spec.outcome]
        change = y1 / n1 - y0 / n0
        if not change:
            continue
        if (change > 0) == spec.higher_is_better:
            improved += 1
            continue
        out.append((abs(change), MovedItem(
            id=item.id, kind=item.kind, near_miss=item.near_miss, outcome=spec.outcome,
            before=(y0, n0), after=(y1, n1),
            before_verdicts=old.judge_verdicts if spec.judge_only else old.verdicts,
            after_verdicts=item.judge_verdicts if spec.judge_only else item.verdicts,
            claim=item.claim or old.claim, span=item.span or old.span,
        )))  # fmt: skip
    return [m for _, m in sorted(out, key=lambda x: (-x[0], x[1].id))], improved


def compare_row(current: GateOutcomes, baseline: GateOutcomes, spec: RowSpec) -> RowComparison:
    now = items_for(current, spec)
    measured_then = spec.set in baseline.sets and any(
        spec.outcome in i.counts for i in baseline.sets[spec.set].items
    )
    if not measured_then:
        return RowComparison(row=spec.row, items_new=len(now),
                             note="not measured in the baseline run")  # fmt: skip
    before = {i.key: i for i in items_for(baseline, spec)}
    common = [i for i in now if i.key in before]
    gone = len(set(before) - {i.key for i in now})
    if not common:
        return RowComparison(
            row=spec.row, items_new=len(now), items_gone=gone, no_overlap=bool(now),
            note=f"none of its {len(now)} items is in the baseline ({len(before)} there): the "
            "set changed, so there is nothing to pair",
        )  # fmt: skip
    moved, improved = _moved(common, before, spec)
    y1, n1 = _counts(common, spec.outcome)
    y0, n0 = _counts([before[i.key] for i in common], spec.outcome)
    diff = paired_difference(y1, n1, y0, n0, [i.cluster for i in common],
                             higher_is_better=spec.higher_is_better)  # fmt: skip
    return RowComparison(row=spec.row, compared=diff, items_compared=len(common),
                         trials_compared=sum(n1), items_new=len(now) - len(common),
                         items_gone=gone, moved=moved, improved=improved)  # fmt: skip


def decide(comparisons: list[RowComparison], settings: Regression) -> None:
    """Mark the rows that regressed: significant under Holm over the testable compared rows,
    and worse by more than the tolerance."""
    compared = [
        (c, c.compared) for c in comparisons
        if c.testable and c.compared is not None and c.compared.diff is not None
    ]  # fmt: skip
    rejected = holm([paired.p_worse for _, paired in compared], settings.alpha)
    for (c, paired), significant in zip(compared, rejected, strict=True):
        worse_by = paired.worse_by or 0.0
        c.regressed = bool(significant and worse_by > settings.tolerance + 1e-12)


def testable_rows(outcomes: GateOutcomes, specs: list[RowSpec], alpha: float) -> dict[str, bool]:
    """Tarone's rule over the family, from each figure's number of clusters (its design)."""
    mins = [smallest_p(len({i.cluster for i in items_for(outcomes, s)})) for s in specs]
    return {s.row: ok for s, ok in zip(specs, tarone(mins, alpha), strict=True)}


def compare(current: GateOutcomes, baseline: Baseline, specs: list[RowSpec],
            settings: Regression) -> BaselineReport:  # fmt: skip
    testable = testable_rows(current, specs, settings.alpha)
    rows = [compare_row(current, baseline.outcomes, s) for s in specs]
    for r in rows:
        r.testable = testable[r.row]
    decide(rows, settings)
    return BaselineReport(ref=baseline.ref, described=baseline.described,
                          gate_id=baseline.gate_id, tolerance=settings.tolerance,
                          alpha=settings.alpha, rows=rows)  # fmt: skip


# ---------------------------------------------------------------- the gate's rows


def _family(outcomes: GateOutcomes, rows: dict[str, CheckRow]) -> list[RowSpec]:
    """The figures compared as one family: every trend row with per-item outcomes (the
    judge-only figures among them), and sensitivity per planted kind when sensitivity itself
    was measured."""
    out = []
    for spec in row_specs(outcomes):
        if spec.kind is not None:
            parent = rows.get("sensitivity.recall")
            if parent is not None and parent.status != "error":
                out.append(spec)
        elif (
            spec.row in rows and rows[spec.row].role == "trend" and rows[spec.row].status != "error"
        ):
            out.append(spec)
    return out


def _noise_from_repeats(items: list[OutcomeItem], outcome: str) -> float:
    """Expected discordance between two single passes, from each item's spread over repeats:
    mean over items of 2q(1-q), q the item's share of successes."""
    shares = [
        i.counts[outcome][0] / i.counts[outcome][1] for i in items if i.counts[outcome][1] > 1
    ]
    return sum(2 * q * (1 - q) for q in shares) / len(shares) if shares else 0.0


def _power(outcomes: GateOutcomes, spec: RowSpec, comparison: RowComparison | None,
           settings: Regression, family: int) -> Power | None:  # fmt: skip
    items = items_for(outcomes, spec)
    y, n = _counts(items, spec.outcome)
    trials = sum(n)
    if not trials:
        return None
    deff = design_effect(y, n, [i.cluster for i in items])
    if comparison is not None and comparison.compared is not None and comparison.trials_compared:
        # What moved the good way is noise (or a real gain); an unchanged grader moves as much
        # each way, so twice the smaller side is the discordance noise alone would give.
        c = comparison.compared
        noise = 2 * min(c.worse, c.better) / comparison.trials_compared
    else:
        noise = _noise_from_repeats(items, spec.outcome)
    return power_of(trials, design_effect=deff, noise=min(noise, 1.0),
                    alpha=settings.alpha / max(1, family), power=settings.power,
                    tolerance=settings.tolerance, target=settings.target_drop,
                    ).per_item(len(items))  # fmt: skip


def _fmt(x: float | None, signed: bool = False) -> str:
    if x is None:
        return "n/a"
    return f"{x:+.3f}" if signed else f"{x:.3f}"


def describe_comparison(c: RowComparison, settings: Regression) -> str:
    if c.compared is None or c.compared.diff is None:
        return f"vs baseline: not compared ({c.note or 'nothing to compare'})"
    d = c.compared
    ci = f" [{_fmt(d.ci_low, True)}, {_fmt(d.ci_high, True)}]" if d.ci_low is not None else ""
    scope = f"{c.items_compared} items in {d.n_clusters} clusters"
    if c.items_new or c.items_gone:
        scope += f" ({c.items_new} new, {c.items_gone} gone)"
    text = (
        f"vs baseline {_fmt(d.baseline)}: {_fmt(d.diff, True)}{ci} on {scope}; {d.test} "
        f"p={d.p_worse:.3g} that it is worse ({d.worse:g} worse, {d.better:g} better)"
    )
    if c.regressed:
        text += (
            f" -> REGRESSED: significant (Holm, alpha {settings.alpha:g}) and worse by more "
            f"than the {settings.tolerance:g} tolerance"
        )
    return text


def describe_power(p: Power | None, clusters: int = 0) -> str:
    if p is None:
        return (
            f"sees no drop vs a baseline: {clusters} cluster(s) cannot make any drop "
            "significant among the compared rows"
        )
    seen = (
        f"sees a drop of >= {p.min_detectable:.3f}" if p.min_detectable is not None
        else "cannot see even a drop to zero"
    )  # fmt: skip
    need = (
        f"~{p.items_for_target} items to see {p.target:g}" if p.items_for_target is not None
        else f"never sees {p.target:g} (within the tolerance)"
    )  # fmt: skip
    noise = f", run-to-run noise {p.noise:.3f}" if p.noise else ", a repeatable judge assumed"
    size = f"{p.n_items} items" + (f", {p.trials} judgements" if p.trials != p.n_items else "")
    return (
        f"{seen} vs a baseline ({p.power:.0%} power, false alarms {p.alpha:.2g} per row{noise}; "
        f"{size}, design effect {p.trials / p.n_effective:.2f}); {need}"
    )


NO_BASELINE = (
    "no baseline to compare with (give --baseline REF, or `baseline` in the config; the "
    "repository's own config names goldens/gate_baseline.json)"
)
NO_OUTCOMES = "no per-item outcomes to pair with a baseline; its target is shown, not gated"


def apply(result: GateResult, cfg: GateConfig, baseline: Baseline | None,
          required: list[str]) -> None:  # fmt: skip
    """Settle every trend row against ``baseline``, in place (``spanproof.gate.rows``): PASS
    when compared and not significantly worse, REGRESSED when significantly worse beyond the
    tolerance, NOT TESTED (with why) when it cannot be tested; ERROR when the baseline shares
    none of its items. Sensitivity per planted kind gets rows of its own; every compared row
    states its power and lists the items that moved; the exit code follows."""
    if result.exit_code in (130, 143):
        return  # a stopped gate keeps the rows it had; nothing is settled
    outcomes = result.artifacts.outcomes
    settings = cfg.regression
    if outcomes is not None:
        _add_kind_rows(result, outcomes, _family(outcomes, {r.name: r for r in result.checks}))
    rows = {r.name: r for r in result.checks}
    family = _family(outcomes, rows) if outcomes is not None else []
    testable = testable_rows(outcomes, family, settings.alpha) if outcomes is not None else {}
    tested = sum(testable.values())
    by_row: dict[str, RowComparison] = {}
    if baseline is not None and outcomes is not None:
        report = compare(outcomes, baseline, family, settings)
        by_row = {c.row: c for c in report.rows}
        result.artifacts.baseline = report
    paired = {s.row for s in family}
    for row in result.checks:
        if row.role == "trend" and row.status == "not_tested" and row.name not in paired:
            row.why = row.why or NO_OUTCOMES
    for spec in family:
        row = rows[spec.row]
        _settle(row, by_row.get(spec.row), baseline, settings, testable[spec.row])
        if testable[spec.row] and outcomes is not None:
            row.power = _power(outcomes, spec, by_row.get(spec.row), settings, tested)
            if row.power is not None:
                row.detail += "; " + describe_power(row.power)
        elif outcomes is not None:
            clusters = len({i.cluster for i in items_for(outcomes, spec)})
            row.detail += "; " + describe_power(None, clusters)
        if row.check == "reviewed":
            _reviewed_only_with_power(row, len(items_for(outcomes, spec)) if outcomes else 0)
    # a baseline that shares no figure with a run that has some to compare is a mistake (the
    # wrong file, another config); a run of floors alone has nothing to compare
    if baseline is not None and family and not any(c.compared is not None for c in by_row.values()):
        _cannot_compare(
            result, required, f"no row of this run was measured in {baseline.described}"
        )
        return
    result.exit_code = exit_code_for(result.checks, required)
    result.passed = result.exit_code == 0


def _reviewed_only_with_power(row: CheckRow, n_pairs: int) -> None:
    """The reviewed pairs gate only once the set can see a drop: a handful of reviewer
    decisions would turn one disagreement into a standing red. Until then the row reports."""
    need = row.power.items_for_target if row.power is not None else None
    if need is not None and need <= n_pairs:
        return
    row.status, row.passed = "not_tested", None
    needs = f"about {need} to see a drop" if need is not None else "more to see any drop"
    row.why = f"the reviewed set has {n_pairs} pair(s); it needs {needs}, and reports until then"


def _settle(row: CheckRow, comparison: RowComparison | None, baseline: Baseline | None,
            settings: Regression, testable: bool) -> None:  # fmt: skip
    """One trend row's status against the baseline (a target the config enforced keeps its
    FAIL)."""
    if baseline is None:
        if row.status == "not_tested":
            row.why = NO_BASELINE
        return
    if comparison is None:
        return
    row.vs_baseline = comparison.compared
    if comparison.no_overlap:
        row.status, row.passed = "error", False
        row.why = f"could not run: compared with {baseline.described}, {comparison.note}"
        return
    row.detail += "; " + describe_comparison(comparison, settings)
    if comparison.regressed:
        d = comparison.compared
        assert d is not None and d.diff is not None
        row.status, row.passed = "regressed", False
        row.why = (
            f"significantly worse than the baseline: {d.diff:+.3f} ({len(comparison.moved)} "
            f"items worse, {comparison.improved} better; {d.test} p={d.p_worse:.2g} under Holm "
            "at alpha "
            f"{settings.alpha:g}, beyond the {settings.tolerance:g} tolerance)"
        )
    elif row.status == "not_tested" and comparison.compared is not None and testable:
        row.status, row.passed, row.why = "pass", True, ""
    elif row.status == "not_tested":
        why = comparison.note or "too few items or clusters to see a drop among the compared rows"
        row.why = why


def _cannot_compare(result: GateResult, required: list[str], why: str) -> None:
    from spanproof.gate.rows import error_row

    result.checks.append(error_row("baseline", f"{why}, so nothing was compared with the "
                                   "baseline; give a baseline of the same sets"))  # fmt: skip
    result.exit_code = exit_code_for(result.checks, [*required, "baseline"])
    result.passed = False


def _add_kind_rows(result: GateResult, outcomes: GateOutcomes, family: list[RowSpec]) -> None:
    """Sensitivity per planted kind as rows of their own (gated only by the baseline), after
    the sensitivity rows."""
    kinds = [s for s in family if s.kind is not None]
    if not kinds:
        return
    present = {r.name for r in result.checks}
    new = [
        CheckRow(
            name=kind_row(s.kind or ""), check="sensitivity", role="trend",
            value=figure(outcomes, s), threshold="no target", status="not_tested",
            detail=f"share of planted {s.kind} failures caught, after the audit",
        )
        for s in kinds
        if kind_row(s.kind or "") not in present
    ]  # fmt: skip
    at = max((i for i, r in enumerate(result.checks) if r.check == "sensitivity"), default=-1)
    result.checks[at + 1 : at + 1] = new
