"""`spanproof grade`: grade another agent's cited report, claim by claim, judges side by side."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import click

from spanproof.cli.options import (
    allow_network_option,
    echo_json,
    endpoint_options,
    endpoint_settings,
    err,
    fetch_timeout_option,
    home_option,
    json_option,
    judge_specs,
    model_options,
    progress_printer,
    run_async,
)
from spanproof.core.figures import format_value

if TYPE_CHECKING:
    from spanproof.bench.grade_models import GradedClaim
    from spanproof.bench.grade_report import GradeResult


def _label(entry: GradedClaim) -> str:
    v = entry.verdict
    if v == "UNREACHABLE":
        return "UNREACHABLE"
    if v.error:
        return "ERROR"
    return v.verdict + (" +flag" if v.flags else "")


def _short(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def render_tables(result: GradeResult, tablefmt: str = "simple") -> str:
    """Claims in review order with one column per judge, then metrics side by side, then
    planted sensitivity."""
    from tabulate import tabulate

    judges = [g.judge for g in result.judges]
    rows = []
    first = result.judges[0]
    for k in result.review_order():
        entry = first.claims[k]
        url = entry.url or "(uncited)"
        scope = {"paragraph": "para", "sentence": "sent"}.get(entry.scope or "", "-")
        row = [entry.id, _short(entry.text, 60), _short(url.split("://", 1)[-1], 38), scope]
        row += [_label(g.claims[k]) for g in result.judges]
        rows.append(row)
    out = [
        f"Report: {result.report} ({result.format}); {first.metrics.claims} atomic claims, "
        f"{first.metrics.citations} (claim, citation) pairs, {first.metrics.uncited_claims} uncited; "
        "in review order (code's proofs, then flags, then the judges' confidence)",
        tabulate(
            rows,
            headers=["claim", "text", "cited", "scope", *judges],
            tablefmt=tablefmt,
            disable_numparse=True,
        ),
        "",
    ]
    names = [
        ("claims", "atomic claims"),
        ("uncited_claims", "uncited claims"),
        ("citations", "(claim, citation) pairs"),
        ("citation_recall", "citation recall (SUPPORTED)"),
        ("citation_recall_with_partial", "recall incl. PARTIAL"),
        ("partial_claim_rate", "claims at best PARTIAL"),
        ("citation_precision", "citation precision (SUPPORTED)"),
        ("partial_citation_rate", "citations PARTIAL"),
        ("citation_precision_with_partial", "precision incl. PARTIAL"),
        ("unreachable", "unreachable citations"),
        ("unreachable_rate", "unreachable rate"),
        ("judge_errors", "judge errors"),
        ("paragraph_level_citations", "paragraph-level citations"),
        ("shared_citations", "citations shared by several claims"),
        ("laundering", "laundering (shared, support only some)"),
    ]
    out += _proofs_and_flags(result)
    metric_rows = [
        [label] + [format_value(g.metrics.model_dump()[key]) for g in result.judges]
        for key, label in names
    ]
    out.append(
        tabulate(metric_rows, headers=["metric", *judges], tablefmt=tablefmt, disable_numparse=True)
    )
    for g in result.judges:
        for case in g.metrics.laundered:
            out.append(
                f"  laundering ({g.judge}): {case.url} supports {len(case.supported)} of "
                f"{len(case.supported) + len(case.unsupported)} claims; not: "
                + "; ".join(_short(t, 60) for t in case.unsupported)
            )
    if result.planted is not None:
        p = result.planted
        kinds = list(p.sensitivity_by_kind)
        plant_rows: list[list[str]] = []
        for kind in kinds:
            n = sum(1 for v in p.variants if v.kind == kind)
            plant_rows.append(
                [kind, str(n)] + [format_value(p.sensitivity_by_kind[kind][j]) for j in judges]
            )
        plant_rows.append(
            ["all planted", str(len(p.variants))] + [format_value(p.sensitivity[j]) for j in judges]
        )
        plant_rows.append(
            ["caught only by a flag", "-"] + [format_value(p.flag_only.get(j, 0.0)) for j in judges]
        )
        plant_rows.append(
            ["original pass rate", "-"] + [format_value(p.original_pass_rate[j]) for j in judges]
        )
        out += [
            "",
            f"Planted failures from {len(p.eligible_sentences)} good sentences "
            "(sensitivity = share of variants the grader flags):",
            tabulate(
                plant_rows,
                headers=["kind", "variants", *judges],
                tablefmt=tablefmt,
                disable_numparse=True,
            ),
        ]
    return "\n".join(out)


def _proofs_and_flags(result: GradeResult) -> list[str]:
    """What code proved (with the page offsets of both values) and flagged, claim by claim."""
    out = []
    for g in result.judges:
        lines = []
        for entry in g.claims:
            if entry.verdict == "UNREACHABLE" or entry.verdict.error:
                continue
            v = entry.verdict
            for p, at in entry.proofs_on_page():
                where = ""
                if p.claim_value is not None and at is not None and entry.span is not None:
                    where = (
                        f" [claim {p.claim_value.start}:{p.claim_value.end}; "
                        f"{entry.span.doc_id} {at[0]}:{at[1]}]"
                    )
                lines.append(f"  {entry.id}: {v.verdict} by proof ({p.kind}): {p.reason}{where}")
            for f in v.flags:
                lines.append(f"  {entry.id}: {v.verdict}, needs a look ({f.kind}): {f.reason}")
        if lines:
            out += [
                f"Code's proofs and flags ({g.judge}; a flag never changes the verdict):",
                *lines,
                "",
            ]
    return out


@click.command("grade")
@click.argument("report", type=click.Path(dir_okay=False))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["md", "json"]),
    help="Report format (default: by suffix; .json is JSON, anything else markdown).",
)
@click.option(
    "--corpus",
    type=click.Path(file_okay=False),
    help="Replay sources from this corpus directory (default: the shipped goldens/corpus/).",
)
@click.option(
    "--live",
    is_flag=True,
    help="Fetch the cited pages from the live web instead (public addresses only: a report "
    "citing 127.0.0.1 or 169.254.169.254 gets UNREACHABLE, unless --allow-network names it).",
)
@allow_network_option
@fetch_timeout_option
@click.option(
    "--judge",
    "judges",
    multiple=True,
    envvar="SPANPROOF_JUDGE",
    help="Grader spec, repeatable for side-by-side columns: presence (the straw man: passes "
    f"any link to an allowlisted page that loads, never reads it) or a judge: {judge_specs()} "
    "(default rules).",
)
@click.option(
    "--plant",
    is_flag=True,
    help="Also plant report-level failures (swapped citation, drifted number, shifted date, "
    "sentence slipped under a paragraph citation, negated claim) and report each grader's "
    "sensitivity.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for --plant.")
@click.option(
    "--model",
    help="Split sentences into atomic claims with this model (openai:<model>); every model "
    "claim must reuse the sentence's words or the rule-based split is used.",
)
@json_option("Print the full result as JSON on stdout.")
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(dir_okay=False),
    help="Also write the tables as markdown to FILE.",
)
@home_option()
@endpoint_options
@model_options()
def grade(
    report: str,
    fmt: Literal["md", "json"] | None,
    corpus: str | None,
    live: bool,
    judges: tuple[str, ...],
    plant: bool,
    seed: int,
    model: str | None,
    as_json: bool,
    markdown_path: str | None,
    home: str | None,
    base_url: str | None,
    api_key: str | None,
    allow_networks: tuple[str, ...] = (),
    fetch_timeout_s: float | None = None,
) -> None:
    """Grade a cited REPORT (markdown or JSON) claim by claim against the pages it cites.

    \b
    Each sentence is split into atomic claims; each (claim, cited URL) is graded by
    fetching the page now (allowlist = the hosts the report cites), ranking its passages
    and judging the best few. Every verdict points at exact characters of the stored
    snapshot; a source that fails to load or redirects off the allowlist is UNREACHABLE
    and counts against the report.

    \b
    Exit codes: 0 graded (whatever the verdicts); 2 could not grade: unreadable report,
    missing corpus, bad judge spec, or any judge call that failed (counted on stderr and
    in the judge errors row).

    \b
    Examples:
      spanproof grade goldens/reports/briefing.md
      spanproof grade goldens/reports/agent_answer.json --judge presence --judge rules
      spanproof grade --plant goldens/reports/briefing.md --judge presence --judge rules --json
      spanproof grade my_report.md --live --judge openai:gpt-4o-mini
    """
    from spanproof.agent.services import Services
    from spanproof.graders.judges import check_judge_spec

    from spanproof.bench.atomic import (
        atomic_claims,
        atomic_claims_with_model,
        openai_splitter,
    )
    from spanproof.bench.grade_models import GradeError
    from spanproof.bench.grade_report import grade_report
    from spanproof.bench.grade_sources import cited_hosts, make_fetcher
    from spanproof.bench.presence import PRESENCE_ID
    from spanproof.bench.report_input import ReportFormatError, parse_report
    from spanproof.core.specs import SpecError, parse_spec
    from spanproof.store.home import resolve_home
    from spanproof.web.corpus import ReplayTransport, warc_of
    from spanproof.web.env import SNAPSHOT_DIR, default_corpus_dir
    from spanproof.web.snapshots import SnapshotStore

    if live and corpus:
        raise click.UsageError("Use either --corpus DIR (replay) or --live, not both.")
    specs = list(judges) or ["rules"]
    try:
        for spec in specs:
            if spec.strip() != PRESENCE_ID:
                check_judge_spec(spec)
    except SpecError as exc:
        raise click.UsageError(str(exc)) from None
    from spanproof.core.files import OutputPathError, refuse_overwriting_inputs, write_atomic

    try:
        refuse_overwriting_inputs(markdown_path, [report], option="--markdown")
    except OutputPathError as exc:
        err(str(exc))
        sys.exit(2)
    try:
        parsed = parse_report(report, fmt)
    except ReportFormatError as exc:
        err(f"Cannot read the report: {exc}")
        sys.exit(2)

    state = resolve_home(home)
    endpoint = endpoint_settings(base_url, api_key)
    transport = None
    if not live:
        corpus_dir = Path(corpus) if corpus else default_corpus_dir()
        if not warc_of(corpus_dir).exists():
            err(
                f"No corpus at {corpus_dir}: build one with `spanproof corpus build --from-wice "
                "PATH/dev.jsonl --out DIR` and pass --corpus DIR, or grade with --live."
            )
            sys.exit(2)
        transport = ReplayTransport(corpus_dir)
    store = SnapshotStore(state / SNAPSHOT_DIR)
    hosts = cited_hosts(parsed.cited_urls)
    try:
        fetcher = make_fetcher(
            store, hosts, transport=transport, allow_networks=list(allow_networks),
            page_timeout_s=fetch_timeout_s,
        )  # fmt: skip
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--allow-network") from exc
    progress = progress_printer(as_json)

    async def run() -> GradeResult:
        try:
            if model:
                spec = parse_spec(model)
                if spec.kind != "openai":
                    raise click.UsageError(
                        "--model takes openai:<model> (the splitter calls a chat model)."
                    )
                claims = await atomic_claims_with_model(
                    parsed, openai_splitter(spec.name, endpoint)
                )
            else:
                claims = atomic_claims(parsed)
            return await grade_report(
                parsed,
                fetcher=fetcher,
                store=store,
                judges=specs,
                allow_hosts=hosts,
                plant=plant,
                seed=seed,
                cache=Services(state, endpoint=endpoint).cache,
                endpoint=endpoint,
                claims=claims,
                progress=progress,
            )
        finally:
            await fetcher.aclose()

    try:
        result = run_async(run(), quiet=as_json, what="grading")
    except (GradeError, SpecError) as exc:
        err(str(exc))
        sys.exit(2)
    if markdown_path:
        write_atomic(markdown_path, render_tables(result, tablefmt="github") + "\n")
    if as_json:
        echo_json(result.model_dump(mode="json", exclude={"egress"}))
    else:
        click.echo(render_tables(result))
    failed = judge_failures(result)
    if failed:
        err("error: " + "; ".join(failed))
        err(
            "The claims behind those verdicts were not graded. Check the judge (--judge, "
            "--base-url, OPENAI_API_KEY) and run again; verdicts that succeeded are cached."
        )
        sys.exit(2)


def judge_failures(result: GradeResult) -> list[str]:
    """One line per judge that failed on some (claim, citation) pair it was asked to grade."""
    out = []
    for g in result.judges:
        asked = g.metrics.citations - g.metrics.unreachable
        if g.metrics.judge_errors:
            every = " (every one)" if g.metrics.judge_errors >= asked else ""
            out.append(f"{g.judge}: {g.metrics.judge_errors} of {asked} verdicts failed{every}")
    return out
