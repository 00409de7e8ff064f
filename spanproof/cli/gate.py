"""`spanproof gate` and `spanproof report weekly`: thin commands over spanproof.gate and spanproof.reports."""

from __future__ import annotations

import os
import sys

import click

from spanproof.cli.options import (
    CommandStop,
    db_option,
    echo_json,
    endpoint_options,
    err,
    home_option,
    json_option,
    judge_specs,
    model_options,
    progress_printer,
    run_async,
    storage_errors,
    wire_options,
)


@click.command("gate")
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="TOML file with the gate table (whole file, or [tool.spanproof.gate]). "
    "Default: [tool.spanproof.gate] of ./pyproject.toml, else built-in defaults.",
)
@click.option(
    "--judge",
    envvar="SPANPROOF_JUDGE",
    help=f"Judge spec: {judge_specs()} (default rules).",
)
@click.option(
    "--policy", type=click.Choice(["extractive", "llm"]), help="Agent policy (default extractive)."
)
@click.option(
    "--model",
    help="Agent model spec for --policy llm, e.g. openai:gpt-4o-mini; also scores usefulness.",
)
@click.option(
    "--max-questions", type=int, help="Answer only the first N golden questions (0 = all)."
)
@click.option(
    "--baseline",
    "baseline_ref",
    metavar="REF",
    help="Compare every row with an earlier gate run, pair by pair: a gate id (or a unique "
    "prefix), last-passed (the newest passing gate run on this git branch) or a baseline file "
    "(--save-baseline). A row also fails when it is significantly worse by more than the "
    "tolerance ([regression] in the config). Config key: baseline.",
)
@click.option(
    "--save-baseline",
    "save_baseline",
    type=click.Path(dir_okay=False),
    help="Write this run's per-item outcomes here as a baseline file to commit "
    "(docs/gate-baseline.md).",
)
@click.option(
    "--repeat",
    type=click.IntRange(1, 20),
    help="Judge every pair of the judged sets N times (for judges that are not deterministic): "
    "figures are means with their spread, and pairs whose verdict changes are listed as "
    "unstable. Each sample is cached. Config key: repeat.",
)
@json_option()
@click.option(
    "--junit", type=click.Path(dir_okay=False), help="Write JUnit XML, one testcase per check."
)
@click.option(
    "--report",
    "report_dir",
    type=click.Path(file_okay=False),
    help="Write index.html (self-contained, with plots), summary.md and result.json here.",
)
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(dir_okay=False),
    help="Write the markdown summary here (also appended to $GITHUB_STEP_SUMMARY when set).",
)
@click.option(
    "--only",
    "only",
    multiple=True,
    metavar="CHECK",
    help="A quick loop: run only this check (repeat for more). Left-out checks show as NOT "
    "TESTED; a subset never passes (exit 3 when all it ran passed) and is never a baseline.",
)
@click.option(
    "--skip",
    "skip",
    multiple=True,
    metavar="CHECK",
    help="A quick loop: run every check but this one (repeat for more); as --only, never a pass.",
)
@click.option(
    "--runs-in-flight",
    "runs_in_flight",
    type=click.IntRange(1, 64),
    help="Agent runs side by side (golden questions, injection pages), each run's model calls "
    "inside the endpoint's one adaptive window. Default: --concurrency. Config key: "
    "runs_in_flight.",
)
@click.option(
    "--max-cost",
    "max_cost",
    type=click.FloatRange(min=0, min_open=True),
    metavar="USD",
    help="Dollars the whole gate may spend on model calls (agent, judge, rubric), priced by "
    "the price table; each call holds its worst-case price until its reply is counted, so "
    "the spend never passes the cap: a call that would not fit is not made and the gate "
    "stops, exit 2, with what finished recorded. With a model, the gate prints its estimate first. Config key: "
    "max_cost_usd.",
)
@click.option(
    "--fresh",
    is_flag=True,
    help="Recompute every phase, even those an offline rerun with nothing changed replays, and "
    "with a local judge every verdict (its cached verdicts are not read).",
)
@home_option()
@db_option()
@endpoint_options
@model_options()
@storage_errors
def gate(
    config_path: str | None,
    judge: str | None,
    policy: str | None,
    model: str | None,
    max_questions: int | None,
    baseline_ref: str | None,
    save_baseline: str | None,
    repeat: int | None,
    as_json: bool,
    junit: str | None,
    report_dir: str | None,
    markdown_path: str | None,
    only: tuple[str, ...],
    skip: tuple[str, ...],
    runs_in_flight: int | None,
    max_cost: float | None,
    fresh: bool,
    home: str | None,
    db: str | None,
    base_url: str | None,
    api_key: str | None,
) -> None:
    """Run every check and fail when a threshold drops.

    \b
    Checks: draft schema validity, span fidelity, forbidden actions, tool-call
    correctness, groundedness (pre/post prune, PARTIAL, drop), answer coverage,
    judge calibration, grader sensitivity (with specificity), injection
    resistance, answer usefulness (scored only when a model is configured).
    Sensitivity plants failures on the hand-labelled SUPPORTED calibration pairs
    and on the WiCE SUPPORTED pairs whose claim numbers, dates and names all
    appear in the span (the others are excluded and counted in the detail).

    \b
    Exit codes: 0 every check passed; 1 a threshold failed, or a row is
    significantly worse than the baseline by more than the tolerance; 2 the gate
    could not run (bad config, missing input, unreachable judge, the store lost, a
    --baseline that names no usable run, --deadline reached; default deadline_s 3600
    in the config) - the message says what to do; 3 every check of a subset
    (--only / --skip) passed, which is not a gate pass; 130 interrupted (Ctrl-C); 143
    stopped by SIGTERM (how CI cancels a job). However it ends, the checks that
    finished are recorded with the run, the others are marked, and --junit /
    --markdown / --report are written. A model endpoint that a phase proves dead
    stops the phases that would call it.

    \b
    Every row measured on items (calibration, reviewed pairs, sensitivity,
    groundedness) states the smallest drop it can see against a baseline (80%
    power, 5% false alarms over all compared rows) and how many items it would
    need to see a 5-point drop. With --baseline each such row also shows the paired
    difference with its 95% interval (clustered by source page) and a paired test;
    sensitivity gets one row per planted kind (docs/gate-baseline.md).
    Options override the config file. Judge verdicts are cached in the store (--db, default
    SQLite in the home), so a rerun with nothing changed makes no model calls - on any
    runner that shares the database. Each gate run is recorded with its provenance.
    Offline (a local judge, the extractive policy), a rerun in the same home whose every
    input is unchanged - code and installed versions, config, goldens, corpus, fixtures,
    judge, store - replays the agent runs and the calibration, sensitivity and injection
    measurements of the earlier run and says so (a memo that disagrees with the stored run it
    came from is not replayed, and the gate says so); --fresh recomputes them, and every
    verdict of a local judge.

    \b
    Examples:
      spanproof gate                                  # offline: corpus, rules judge, extractive agent
      spanproof gate --junit out/gate.xml --report out/gate
      spanproof gate --judge blind                    # must fail: sensitivity catches a blind judge
      spanproof gate --save-baseline goldens/gate_baseline.json   # a baseline to commit
      spanproof gate --baseline goldens/gate_baseline.json        # worse than that run?
      spanproof gate --baseline last-passed           # the newest passing run on this branch
      spanproof gate --judge openai:gpt-4o-mini --repeat 3   # judge each pair 3 times
      spanproof gate --fresh                          # recompute every phase, replay nothing
      spanproof gate --only calibration --only sensitivity   # a quick loop: exit 3, never a pass
      spanproof gate --db postgresql+psycopg://ci:PASS@db.internal/spanproof   # a team's shared store
    """
    from spanproof.reports.markdown import markdown_summary, terminal_table

    from spanproof.core.files import OutputPathError, refuse_overwriting_inputs, write_atomic
    from spanproof.core.specs import EndpointSettings
    from spanproof.gate.config import GateConfigError, load_config
    from spanproof.gate.run import run_gate
    from spanproof.gate.subset import choose
    from spanproof.store.home import resolve_home

    try:
        outputs = (
            ("--markdown", markdown_path),
            ("--junit", junit),
            ("--save-baseline", save_baseline),
        )
        for option, path in outputs:
            refuse_overwriting_inputs(path, [config_path], option=option)
    except OutputPathError as exc:
        err(str(exc))
        sys.exit(2)
    wire = wire_options()
    overrides = {"judge": judge, "policy": policy, "model": model, "max_questions": max_questions,
                 "concurrency": wire.get("concurrency"), "timeout_s": wire.get("timeout_s"),
                 "response_format": wire.get("response_format"), "baseline": baseline_ref,
                 "repeat": repeat, "deadline_s": wire.get("deadline_s"),
                 "runs_in_flight": runs_in_flight, "max_cost_usd": max_cost}  # fmt: skip
    try:
        cfg, source = load_config(config_path, overrides=overrides)
        cfg, subset = choose(cfg, only, skip)
    except GateConfigError as exc:
        err(str(exc))
        sys.exit(2)
    if subset is not None and save_baseline:
        err("error: --save-baseline: a baseline is a whole gate run; drop --only / --skip")
        sys.exit(2)
    home_dir = resolve_home(home)
    if db:
        from spanproof.store.url import resolve_db_url

        db = resolve_db_url(db, home_dir)  # a bad URL is exit 2 before any work is done
    endpoint = EndpointSettings(
        base_url=base_url, api_key=api_key, timeout_s=cfg.timeout_s, concurrency=cfg.concurrency,
        response_format=cfg.response_format,
    )  # fmt: skip
    progress = progress_printer(as_json)
    from spanproof.gate.baseline import BaselineError, save_file

    baseline = None
    if cfg.baseline:
        from spanproof.gate.run import resolve_baseline

        try:  # before any work: a REF that names nothing is exit 2, never a comparison with nothing
            baseline = resolve_baseline(cfg.baseline, home_dir, db)
        except BaselineError as exc:
            err(f"error: {exc}")
            sys.exit(2)
        if progress:
            progress(f"[gate] comparing with {baseline.described}")
    # Ctrl-C, SIGTERM and the deadline stop the gate through `stop`: it records what finished
    # and returns, so the files below are written on every way the gate ends.
    stop = CommandStop(cfg.deadline_s)
    result = run_async(
        run_gate(cfg, home=home_dir, config_source=source, progress=progress, endpoint=endpoint,
                 db=db, baseline=baseline, stop=stop, fresh=fresh, subset=subset),
        quiet=as_json,
        what="gate",
        stop=stop,
    )  # fmt: skip
    if save_baseline and stop.reason:
        err("--save-baseline: not written: the gate was stopped before its checks finished")
    elif save_baseline:
        try:
            saved = save_file(result, save_baseline, branch=result.git_branch)
        except BaselineError as exc:
            err(f"error: --save-baseline: {exc}")
            sys.exit(2)
        if not as_json:
            err(
                f"baseline: {saved} (gate run {result.gate_id}); commit it and pass it to --baseline"
            )
    if junit:
        from spanproof.reports.junit import write_junit

        write_junit(result, junit)
    if report_dir:
        from spanproof.reports.html import write_report

        paths = write_report(result, report_dir)
        if not as_json:
            err(f"report: {paths['html']}")
    summary = markdown_summary(result)
    if markdown_path:
        write_atomic(markdown_path, summary)
    if os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as fh:
            fh.write(summary)
    if as_json:
        echo_json(result.public())
    else:
        click.echo(terminal_table(result))
        replayed = result.artifacts.replayed
        if replayed:
            phases = ", ".join(sorted(replayed.phases))
            click.echo(f"replayed: {phases} (nothing they read changed; --fresh recomputes)")
        if result.artifacts.memo_refused:
            click.echo(f"not replayed: {result.artifacts.memo_refused}")
    if subset is not None:
        err(f"note: {subset.note()}")
    if stop.reason:
        err(stop.message("gate"))
    not_recorded = result.artifacts.not_recorded
    if not_recorded:
        err(f"error: {not_recorded.message}")
    sys.exit(result.exit_code)


@click.group("report")
def report() -> None:
    """Reports built from the run store.

    \b
    Examples:
      spanproof report weekly                    # the last 7 days of the team's `ask` runs
      spanproof report weekly --kind gate        # the gates' own agent runs, on their own
      spanproof report weekly --since 30d --out out/weekly
    """


@report.command("weekly")
@click.option("--since", default="7d", show_default=True, help="Window: 24h, 7d, 2w, 90d ...")
@click.option(
    "--kind",
    type=click.Choice(["ask", "gate", "injection", "grade", "all"]),
    default="ask",
    show_default=True,
    help="Which runs the figures are over: the team's `ask` runs, the agent runs a gate made, "
    "the injection suite's, `grade`'s, or all of them together.",
)
@json_option("Print the report as JSON.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False),
    help="Write weekly.md, weekly.html, weekly.json here.",
)
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False),
    help="Gate config (for the price table).",
)
@home_option()
@db_option()
@storage_errors
def weekly(
    since: str,
    kind: str,
    as_json: bool,
    out_dir: str | None,
    config_path: str | None,
    home: str | None,
    db: str | None,
) -> None:
    """Pre- vs post-prune groundedness per day, flagged claims, reviewer decisions, the
    review backlog and the runs signed or waiting, drop and PARTIAL rates, cost and latency
    per run (every run in --json and weekly.json; the newest 50 in HTML and markdown), the
    same per runner / CI job and per judge, prompt and model version, the gate runs with
    their provenance (runner, CI job, commit, versions), and the largest drop rates.

    The figures are over one kind of run: the team's `ask` runs unless --kind says
    otherwise (the headline counts the runs of other kinds it left out).

    Works on a store with zero, one or many runs; with a shared --db it covers every
    runner that writes to it.

    \b
    Examples:
      spanproof report weekly
      spanproof report weekly --kind gate
      spanproof report weekly --since 30d --out out/weekly
      spanproof report weekly --db postgresql+psycopg://ci:PASS@db.internal/spanproof --json
    """
    from collections import Counter

    from spanproof.agent.runstore import parse_record
    from spanproof.reports.weekly import build_weekly, weekly_text, window, write_weekly

    from spanproof.gate.config import GateConfigError, load_config
    from spanproof.store import open_store

    try:
        start, now = window(since)
        cfg, _ = load_config(config_path)
    except (ValueError, GateConfigError) as exc:
        err(str(exc))
        sys.exit(2)
    store = open_store(home=home, db=db)
    stored = store.runs_between(start, now)
    # Runs of another kind are only counted (the headline names them), never parsed.
    others: Counter[str] = Counter(r.kind for r in stored if kind not in ("all", r.kind))
    records = [parse_record(r.run_id, r.record) for r in stored if kind in ("all", r.kind)]
    gates = store.gate_runs_between(start, now)
    reviews = {r.run_id: store.list_reviews(r.run_id) for r in records}
    signatures = store.signatures([r.run_id for r in records])
    rep = build_weekly(records, gates, since=since, now=now, prices=cfg.prices, reviews=reviews,
                       signatures=signatures, kind=kind, other_kinds=others)  # fmt: skip
    if out_dir:
        paths = write_weekly(rep, out_dir)
        if not as_json:
            err(f"wrote {', '.join(str(p) for p in paths.values())}")
    click.echo(rep.model_dump_json(indent=2) if as_json else weekly_text(rep))
