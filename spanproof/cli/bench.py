"""`spanproof sensitivity` and `spanproof calibrate`: the grader test bench on the command line."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import click

from spanproof.cli.options import (
    HOME_HELP,
    SCRIPTED_FORMAT_HELP,
    endpoint_options,
    endpoint_settings,
    err,
    home_option,
    json_option,
    judge_specs,
    model_options,
    progress_printer,
    run_async,
)
from spanproof.core.specs import EndpointSettings, SpecError
from spanproof.core.verdict import Judge, Pair

if TYPE_CHECKING:
    from spanproof.graders.cache import VerdictCache

    from spanproof.bench.calibration import CalibrationResult

_FMT = "{:.3f}"


def _fmt(x: float | None) -> str:
    return "n/a" if x is None else _FMT.format(x)


def _cache(home: str | None, no_cache: bool) -> VerdictCache | None:
    from spanproof.agent.services import Services

    return Services(home, cache_verdicts=not no_cache).cache


def _judge(spec: str, endpoint: EndpointSettings) -> Judge:
    from spanproof.graders.judges import make_judge

    try:
        return make_judge(spec, endpoint=endpoint)
    except SpecError as exc:
        raise click.BadParameter(str(exc), param_hint="--judge") from exc


def _pairs(path: str) -> list[Pair]:
    from spanproof.bench.pairs import PairSetError, load_pairs

    try:
        return load_pairs(path)
    except PairSetError as exc:
        raise click.BadParameter(str(exc)) from exc


def planted_kinds() -> str:
    """The planted kinds the registry knows, for help text."""
    from spanproof.planted_failures import mutators

    return ", ".join(mutators())


def _list_kinds(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if not value or ctx.resilient_parsing:
        return
    from spanproof.planted_failures import mutators

    for m in mutators().values():
        example = m.plant_example()
        click.echo(f"{m.kind}  ({m.target} -> must be {m.expected})")
        click.echo(f"  {m.doc}")
        if example is not None:
            change = example.changes[0]
            shown = example.claim if m.target == "claim" else f"span now: {example.span}"
            click.echo(f"  e.g. {change.before!r} -> {change.after!r}: {shown}")
    ctx.exit(0)


@click.command(epilog=SCRIPTED_FORMAT_HELP)
@click.option(
    "--pairs",
    "pairs_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="JSONL pair set; its SUPPORTED pairs are planted on (all of them, unless --contract-clean).",
)
@click.option(
    "--contract-clean",
    is_flag=True,
    help="Plant only on SUPPORTED pairs whose claim's numbers, dates and named entities all "
    "appear in the span (the audit's check 4, no judge involved), as the gate does; pairs a "
    "labeller accepted by implication are excluded and counted.",
)
@click.option(
    "--judge",
    "judge_spec",
    default="rules",
    show_default=True,
    envvar="SPANPROOF_JUDGE",
    help=f"Judge spec: {judge_specs()}.",
)
@click.option(
    "--seed",
    default=0,
    show_default=True,
    help="Seed for the mutators (same seed, same planted set).",
)
@click.option(
    "--kind",
    "kinds",
    multiple=True,
    help=f"Plant only this kind (repeatable): {planted_kinds()}. Default: every registered kind.",
)
@click.option(
    "--list-kinds",
    is_flag=True,
    is_eager=True,
    expose_value=False,
    callback=_list_kinds,
    help="List every planted kind (plug-ins included) with its expected verdict, what it plants "
    "and its worked example, then exit.",
)
@click.option(
    "--min-sensitivity",
    default=0.90,
    show_default=True,
    help="Fail below this share of planted pairs caught.",
)
@click.option(
    "--min-specificity",
    default=0.80,
    show_default=True,
    help="Fail below this share of originals judged SUPPORTED.",
)
@json_option()
@home_option(HOME_HELP + " The verdict cache lives here.")
@endpoint_options
@model_options()
@click.option(
    "--no-cache",
    is_flag=True,
    help="Judge every pair afresh, ignoring and not filling the verdict cache.",
)
@click.option(
    "--show-missed",
    default=10,
    show_default=True,
    help="How many missed pairs to list in the table output.",
)
def sensitivity(
    pairs_path: str,
    contract_clean: bool,
    judge_spec: str,
    seed: int,
    kinds: tuple[str, ...],
    min_sensitivity: float,
    min_specificity: float,
    as_json: bool,
    home: str | None,
    base_url: str | None,
    api_key: str | None,
    no_cache: bool,
    show_missed: int,
) -> None:
    """Plant known failures on good pairs and measure whether a judge says no.

    Every registered planted kind (--list-kinds shows each, with an example) is applied to
    every SUPPORTED pair it fits.
    Sensitivity = planted pairs not judged SUPPORTED; specificity = untouched
    originals judged SUPPORTED (so an always-no judge cannot look good). A judge
    error counts against the judge on both sides. Exit code 1 when either is
    below its threshold.

    \b
    Examples:
      spanproof sensitivity --pairs goldens/wice_dev_pairs.jsonl --judge rules
      spanproof sensitivity --pairs goldens/wice_dev_pairs.jsonl --judge blind --json   # must fail
      spanproof sensitivity --pairs goldens/wice_dev_pairs.jsonl --contract-clean
    """
    from spanproof.planted_failures import mutators

    from spanproof.bench.sensitivity import SensitivityThresholds, run_sensitivity

    unknown = [k for k in kinds if k not in mutators()]
    if unknown:
        raise click.BadParameter(
            f"unknown kind(s) {unknown}; known: {', '.join(mutators())}", param_hint="--kind"
        )
    pairs = _pairs(pairs_path)
    judge = _judge(judge_spec, endpoint_settings(base_url, api_key))
    thresholds = SensitivityThresholds(sensitivity=min_sensitivity, specificity=min_specificity)
    result = run_async(
        run_sensitivity(
            pairs,
            judge,
            seed=seed,
            kinds=kinds or None,
            cache=_cache(home, no_cache),
            thresholds=thresholds,
            progress=progress_printer(as_json),
            only_contract_clean=contract_clean,
            set_name=Path(pairs_path).stem,
        ),
        quiet=as_json,
        what="sensitivity run",
    )
    if result.fitted_on is not None:
        err(result.fitted_on.warning())  # on stderr, so --json still warns
    if as_json:
        click.echo(result.model_dump_json(indent=2))
    else:
        from tabulate import tabulate

        own = result.judge_only
        rows = [
            [k, r.n, r.caught, _fmt(r.sensitivity), _fmt(own.by_kind[k].sensitivity), r.flag_only]
            for k, r in result.by_kind.items()
        ]
        rows.append(
            [
                "ALL planted",
                result.n_planted,
                round((result.sensitivity or 0) * result.n_planted),
                _fmt(result.sensitivity),
                _fmt(own.sensitivity),
                result.caught_only_by_flag,
            ]
        )
        rows.append(
            ["specificity (originals)", result.n_originals, "", _fmt(result.specificity),
             _fmt(own.specificity), result.originals_flagged]
        )  # fmt: skip
        click.echo(
            tabulate(
                rows,
                headers=[
                    "kind",
                    "n",
                    "caught by the verdict",
                    "final",
                    "judge-only",
                    "caught only by a flag",
                ],
                tablefmt="github",
            )  # fmt: skip
        )
        click.echo(
            f"\nset {result.set} ({result.n_pairs} pairs): planted on {result.n_originals} "
            f"{'contract-clean ' if contract_clean else ''}SUPPORTED originals, "
            f"{result.n_planted} planted variants"
        )
        click.echo(
            f"judge {result.judge}, final verdicts: sensitivity {_fmt(result.sensitivity)} "
            f"(>= {thresholds.sensitivity}), specificity {_fmt(result.specificity)} on "
            f"{result.n_originals} originals (>= {thresholds.specificity})"
            f" -> {'PASS' if result.passed else 'FAIL'} (thresholds apply to the final verdicts: "
            "the judge's, lowered only by code's proofs)"
        )
        click.echo(
            f"flags: {result.caught_only_by_flag} planted pairs passed with a flag "
            f"({_fmt(result.flag_only_share)}; a person would look, never counted as caught); "
            f"{result.originals_flagged} originals passed with a flag"
        )
        if contract_clean:
            click.echo(
                f"planted on {result.selection}; {result.n_excluded} SUPPORTED pairs excluded "
                "(a number, date or entity of the claim is absent from the span)"
            )
        for m in result.missed[:show_missed]:
            click.echo(f"  missed {m.id} [{m.kind}] -> {m.verdict}: {m.claim[:100]}")
        if len(result.missed) > show_missed:
            click.echo(f"  ... and {len(result.missed) - show_missed} more (use --json for all)")
    sys.exit(0 if result.passed else 1)


def _comparison_table(result: CalibrationResult, tablefmt: str) -> str:
    """Each judge on two rows: after the audit (what publishes; the gate column applies to
    it) and judge-only (its own verdicts before the audit), with the ECE of its confidence."""
    from tabulate import tabulate

    rows = []
    set_order = list(dict.fromkeys(r.set for r in result.judges))
    # Judges on the same set sit on adjacent rows so they read side by side.
    for r in sorted(result.judges, key=lambda r: set_order.index(r.set)):
        ci = r.ci95.get("agreement")
        nci = r.ci95.get("near_miss_agreement")
        rows.append(
            [
                r.set,
                r.judge,
                "final",
                r.n,
                _fmt(r.agreement) + (f" [{ci.low:.2f}, {ci.high:.2f}]" if ci else ""),
                _fmt(r.near_miss_agreement) + (f" [{nci.low:.2f}, {nci.high:.2f}]" if nci else ""),
                _fmt(r.kappa),
                _fmt(r.macro_f1),
                _fmt(r.balanced_accuracy),
                r.errors,
                "",
                {True: "PASS", False: "FAIL", None: "-"}[r.passed],
            ]
        )
        j = r.judge_only
        if j is not None:
            rows.append(
                [
                    r.set,
                    r.judge,
                    "judge-only",
                    r.n,
                    _fmt(j.agreement),
                    _fmt(j.near_miss_agreement),
                    _fmt(j.kappa),
                    _fmt(j.macro_f1),
                    _fmt(j.balanced_accuracy),
                    j.errors,
                    _fmt(r.confidence.ece) if r.confidence else "none",
                    "-",
                ]
            )
    headers = [
        "set",
        "judge",
        "verdicts",
        "n",
        "agreement [95% CI]",
        "near-miss [95% CI]",
        "kappa",
        "macro-F1",
        "bal. acc (S vs rest)",
        "errors",
        "ECE",
        "gate",
    ]
    return tabulate(rows, headers=headers, tablefmt=tablefmt)


def _audit_lines(result: CalibrationResult) -> str:
    """Per judge and set: what code's proofs changed, the flags, and a warning when the set
    trained the judge."""
    from spanproof.bench.audit_figures import describe
    from spanproof.bench.queue_figures import describe_queue

    out = []
    for r in result.judges:
        out.append(f"{r.judge} on {r.set}:")
        if r.fitted_on is not None:
            out.append("  " + r.fitted_on.warning())
        if r.code_changes is not None and r.flags is not None:
            out += ["  " + line for line in describe(r.code_changes, r.flags)]
        if r.review_queue is not None:
            out.append("  " + describe_queue(r.review_queue))
        out.append("")
    return "\n".join(out)


def _kind_tables(result: CalibrationResult, tablefmt: str) -> str:
    from tabulate import tabulate

    out = []
    for r in result.judges:
        if len(r.by_kind) < 2:
            continue  # one kind (every WiCE pair is "wice") says nothing per kind
        rows = [
            [
                kind,
                k.n,
                k.agree,
                _fmt(k.agreement),
                ", ".join(f"{lab} {c}" for lab, c in sorted(k.judged.items())),
            ]
            for kind, k in r.by_kind.items()
        ]
        out.append(f"{r.judge} on {r.set}, by kind:\n")
        out.append(
            tabulate(rows, headers=["kind", "n", "agree", "agreement", "judged"], tablefmt=tablefmt)
        )
        out.append("\n\n")
    return "".join(out)


def _confusion_tables(result: CalibrationResult, tablefmt: str) -> str:
    from tabulate import tabulate

    out = []
    for r in result.judges:
        cols = ["SUPPORTED", "PARTIAL", "NOT_SUPPORTED", "ERROR"]
        rows = [
            [
                gold,
                *[r.confusion[gold][c] for c in cols],
                _fmt(r.per_class[gold].precision),
                _fmt(r.per_class[gold].recall),
            ]
            for gold in r.confusion
        ]
        out.append(f"{r.judge} on {r.set} (rows gold, columns judged):\n")
        out.append(
            tabulate(
                rows, headers=["gold \\ judged", *cols, "precision", "recall"], tablefmt=tablefmt
            )
        )
        out.append("\n\n")
    return "".join(out)


def _paired_tables(result: CalibrationResult, tablefmt: str, limit: int = 15) -> str:
    """Each later judge against the first, pair by pair (spanproof/bench/judge_compare.py)."""
    from tabulate import tabulate

    from spanproof.bench.judge_compare import binary_lines, describe

    out = []
    for c in result.comparisons:
        out.append(f"paired comparison on {c.set} ({c.n} pairs): {c.b} minus {c.a}\n")
        agreement = (
            f"  agreement (three-way): {describe(c.agreement)}; {c.only_a_right} pairs only "
            f"{c.a} got right, {c.only_b_right} only {c.b}\n"
        )
        binary = [f"  {line}\n" for line in binary_lines(c)]
        # the headline first: balanced accuracy when a judge is binary, else agreement
        out += [*binary, agreement] if c.headline == "balanced_accuracy" else [agreement, *binary]
        if c.near_miss is not None:
            out.append(
                f"  near-miss agreement: {describe(c.near_miss)}; {c.near_miss_only_a_right} "
                f"only {c.a}, {c.near_miss_only_b_right} only {c.b}\n"
            )
        out.append(f"  judge-only (before the audit): agreement {describe(c.agreement_judge_only)}; "
                   f"near-miss {describe(c.near_miss_judge_only)}\n")  # fmt: skip
        rows = [[k.kind, k.n, k.near_miss, k.only_a_right, k.only_b_right, k.verdicts_differ]
                for k in c.by_kind]  # fmt: skip
        out.append("\nwhere they disagree, by kind:\n")
        out.append(tabulate(rows, headers=["kind", "n", "near-miss", f"only {c.a} right",
                                           f"only {c.b} right", "verdicts differ"],
                            tablefmt=tablefmt))  # fmt: skip
        if c.differing:
            shown = [[d.id, d.kind, "yes" if d.near_miss else "", d.label or "-", d.a, d.b,
                      d.claim[:70]] for d in c.differing[:limit]]  # fmt: skip
            out.append(f"\n\npairs where the verdicts differ ({len(c.differing)}"
                       + (f", first {limit}; --json lists all" if len(c.differing) > limit else "")
                       + "):\n")  # fmt: skip
            out.append(tabulate(shown, headers=["id", "kind", "near-miss", "label", c.a, c.b,
                                                "claim"], tablefmt=tablefmt))  # fmt: skip
        out.append("\n\n")
    return "".join(out)


def _coverage_lines(result: CalibrationResult, limit: int = 10) -> str:
    """With --cover: per set, the pairs kept and left out, and which judge lacks each."""
    out = []
    for c in result.coverage:
        out.append(c.summary())
        out += [f"  left out {p.id}: no verdict from {', '.join(p.missing_from)}"
                for p in c.left_out[:limit]]  # fmt: skip
        if len(c.left_out) > limit:
            out.append(f"  ... and {len(c.left_out) - limit} more (--json lists all)")
    return "\n".join(out) + ("\n\n" if out else "")


def _distinct_names(judges: Sequence[Judge]) -> None:
    """Each judge's name (its spec, or NAME= given to it) heads its rows: two alike cannot."""
    seen: set[str] = set()
    for j in judges:
        if j.id in seen:
            raise click.BadParameter(
                f"two judges are called {j.id!r}: give each its own name, e.g. "
                f"--judge a={j.id} --judge b=...",
                param_hint="--judge",
            )
        seen.add(j.id)


def _repeat_lines(result: CalibrationResult, limit: int = 15) -> str:
    out = []
    for r in result.judges:
        if r.repeats <= 1 or r.spread is None:
            continue
        from spanproof.bench.repeats import describe

        out.append(f"{r.judge} on {r.set}: agreement {describe(r.spread['agreement'])}; "
                   f"near-miss {describe(r.spread['near_miss_agreement'])}")  # fmt: skip
        unstable = r.unstable or []
        out.append(f"  {len(unstable)} unstable pair(s) (the verdict changed between repeats)")
        out.extend(f"  unstable {u.id} (label {u.label}): {' / '.join(u.verdicts)} - {u.claim[:70]}"
                   for u in unstable[:limit])  # fmt: skip
    return "\n".join(out) + ("\n" if out else "")


@click.command(epilog=SCRIPTED_FORMAT_HELP)
@click.option(
    "--set",
    "set_paths",
    multiple=True,
    required=True,
    type=click.Path(dir_okay=False),
    help="Labelled JSONL pair set (repeatable).",
)
@click.option(
    "--judge",
    "judge_specs",
    multiple=True,
    envvar="SPANPROOF_JUDGE",
    default=("rules",),
    show_default=True,
    help=f"Judge spec (repeatable): {judge_specs()}.",
)
@json_option()
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Also write the tables as Markdown to this file.",
)
@click.option(
    "--report",
    "report_dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Also write a self-contained HTML report (index.html) to this directory: the tables, "
    "confusion matrices and each judge's reliability diagram.",
)
@click.option(
    "--baseline",
    "baseline_path",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="An earlier `calibrate --json` result; flag metrics that fell below its 95% interval.",
)
@click.option("--seed", default=0, show_default=True, help="Seed for the bootstrap intervals.")
@click.option(
    "--repeat",
    type=click.IntRange(1, 20),
    default=1,
    show_default=True,
    help="Judge every pair N times (judges that are not deterministic): figures are means with "
    "their spread; pairs whose verdict changes are listed as unstable. Each sample is cached.",
)
@click.option(
    "--cover",
    is_flag=True,
    help="Compare the judges on the pairs every judge covers: a scripted judge answers only the "
    "pairs its file holds, and without --cover a pair one lacks is an error before anything is "
    "judged. The pairs kept and left out (and which judge lacks each) are reported.",
)
@click.option(
    "--gate-set",
    "gate_sets",
    multiple=True,
    default=("judge_calibration",),
    show_default=True,
    help="Set name (file stem) the thresholds apply to (repeatable). Other sets are informational.",
)
@click.option(
    "--min-agreement",
    default=0.90,
    show_default=True,
    help="Threshold on three-way agreement for gated sets.",
)
@click.option(
    "--min-near-miss",
    default=0.85,
    show_default=True,
    help="Threshold on near-miss agreement for gated sets.",
)
@home_option(HOME_HELP + " The shared verdict cache lives here.")
@endpoint_options
@model_options()
@click.option(
    "--no-cache",
    is_flag=True,
    help="Judge every pair afresh, ignoring and not filling the verdict cache.",
)
def calibrate(
    set_paths: tuple[str, ...],
    judge_specs: tuple[str, ...],
    as_json: bool,
    markdown_path: str | None,
    report_dir: str | None,
    baseline_path: str | None,
    seed: int,
    repeat: int,
    cover: bool,
    gate_sets: tuple[str, ...],
    min_agreement: float,
    min_near_miss: float,
    home: str | None,
    base_url: str | None,
    api_key: str | None,
    no_cache: bool,
) -> None:
    """Compare judges with human labels, side by side on the same pairs and cache.

    Per judge and set: n, three-way agreement, near-miss agreement, Cohen's kappa
    (n/a when undefined: gold and judge all one class), macro-F1, SUPPORTED-vs-rest
    balanced accuracy, per-class precision/recall, the confusion matrix, the
    error count (errors count as wrong, never dropped) and seeded 95% bootstrap
    intervals. Each judge is shown twice: after the code audit (what publishes; the
    thresholds apply here) and judge-only (its own verdicts: what it read). For a
    judge that states a confidence (the offline rules judge; an LLM endpoint that
    returns logprobs), the expected calibration error (ECE) of that confidence, and
    with --report its reliability diagram; for others "none", and why.

    Thresholds (agreement >= 0.90, near-miss >= 0.85) apply to the hand-labelled
    golden set — by default the set whose file stem is `judge_calibration`.
    Other sets (e.g. goldens/wice_dev_pairs.jsonl, crowd labels of Wikipedia
    citations) are reported for comparison with gate "-" and do not fail the
    command; add --gate-set NAME to gate one. Exit code 1 when any judge fails a
    gated set, or when --baseline flags a drop.

    With two judges or more, each later judge is compared with the first pair by
    pair on every set: the difference in agreement and in near-miss agreement with
    its 95% interval (clustered by source page) and a paired test (exact McNemar
    when no two pairs share a page), the pairs only one of them got right per kind,
    and the pairs where their verdicts differ.

    \b
    Example:
      spanproof calibrate --set goldens/judge_calibration.jsonl \\
        --set goldens/wice_dev_pairs.jsonl --judge rules --judge blind
      spanproof calibrate --set goldens/judge_calibration.jsonl --report out/calibration
      spanproof calibrate --set goldens/judge_calibration.jsonl --judge rules --judge blind
      spanproof calibrate --set goldens/judge_calibration.jsonl --judge openai:gpt-4o-mini --repeat 3
      spanproof calibrate --set goldens/wice_dev_pairs.jsonl --cover \\
        --judge t5=scripted:t5-3b-anli.dev.jsonl --judge t5-wice=scripted:t5-3b-anli-wice.dev.jsonl

    With --cover, only the pairs every judge covers are judged (a scripted judge answers only
    its file's pairs); the pairs left out are listed with the judge that lacks each. A judge
    that never says PARTIAL on a set is binary: the comparison's headline is then
    SUPPORTED-vs-rest balanced accuracy, with TPR and TNR, each paired with its interval.
    """
    from spanproof.bench.calibration import (
        CalibrationThresholds,
        compare_baseline,
        dump_json,
        load_result,
    )
    from spanproof.bench.calibration import calibrate as run_calibration
    from spanproof.bench.pairs import PairSetError

    sets: dict[str, Sequence[Pair]] = {}
    from spanproof.core.files import OutputPathError, refuse_overwriting_inputs, write_atomic

    try:
        refuse_overwriting_inputs(markdown_path, [*set_paths, baseline_path], option="--markdown")
    except OutputPathError as exc:
        raise click.BadParameter(str(exc), param_hint="--markdown") from exc
    for path in set_paths:
        name = Path(path).stem
        if name in sets:
            raise click.BadParameter(
                f"two sets are named {name!r}; rename one file", param_hint="--set"
            )
        sets[name] = _pairs(path)
    endpoint = endpoint_settings(base_url, api_key)
    judges = [_judge(s, endpoint) for s in judge_specs]
    _distinct_names(judges)
    thresholds = CalibrationThresholds(agreement=min_agreement, near_miss_agreement=min_near_miss)
    result = run_async(
        run_calibration(
            sets,
            judges,
            cache=_cache(home, no_cache),
            gated=gate_sets,
            thresholds=thresholds,
            seed=seed,
            progress=progress_printer(as_json),
            repeat=repeat,
            cover=cover,
        ),
        quiet=as_json,
        what="calibration",
    )
    if baseline_path:
        try:
            result.drift = compare_baseline(result, load_result(baseline_path))
        except PairSetError as exc:
            raise click.BadParameter(str(exc), param_hint="--baseline") from exc
    if markdown_path:
        md = (
            "# Judge calibration\n\n"
            + _coverage_lines(result)
            + _comparison_table(result, "github")
            + "\n\n"
            + "".join(
                f"{r.judge} on {r.set}: {r.fitted_on.warning()}\n\n"
                for r in result.judges
                if r.fitted_on is not None
            )  # fmt: skip
            + _confusion_tables(result, "github")
            + _kind_tables(result, "github")
            + _paired_tables(result, "github")
            + _repeat_lines(result)
        )
        write_atomic(markdown_path, md)
    if report_dir:
        from spanproof.reports.calibration_html import write_report

        written = write_report(result, report_dir)
        if not as_json:
            click.echo(f"HTML report: {written}", err=True)
    if as_json:
        click.echo(dump_json(result))
    else:
        click.echo(_coverage_lines(result), nl=False)
        click.echo(_comparison_table(result, "github"))
        click.echo("")
        click.echo(_confusion_tables(result, "simple"))
        click.echo(_kind_tables(result, "simple"))
        click.echo(_audit_lines(result))
        if result.comparisons:
            click.echo(_paired_tables(result, "simple"))
        if repeat > 1:
            click.echo(_repeat_lines(result))
        click.echo(
            f"thresholds on {', '.join(gate_sets)}: agreement >= {min_agreement}, near-miss >= {min_near_miss}"
            " (on the final verdicts)"
        )
        for f in result.drift or []:
            cur = "n/a" if f.current is None else f"{f.current:.3f}"
            click.echo(
                f"DRIFT {f.judge} on {f.set}: {f.metric} {f.baseline:.3f} -> {cur} (floor {f.allowed_low:.3f})"
            )
    # Judge errors count as wrong answers in the figures; a judge that errored on every pair
    # measured nothing, whatever its set's thresholds: said on stderr, and exit 2.
    unmeasured = [r for r in result.judges if r.n and r.errors >= r.n]
    for r in result.judges:
        if r.errors:
            word = "error" if r in unmeasured else "warning"
            err(f"{word}: {r.judge} on {r.set}: {r.errors} of {r.n} pairs got a judge error "
                f"(counted as wrong); first: {r.first_error}")  # fmt: skip
    if unmeasured:
        err("error: a judge that errored on every pair measured nothing; fix the judge (the "
            "errors above say why) and run again.")  # fmt: skip
        sys.exit(2)
    sys.exit(0 if result.passed else 1)
