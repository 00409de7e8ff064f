"""`spanproof ask`, `spanproof recheck`, `spanproof runs`: a thin layer over agent.run."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from spanproof.cli.options import (
    allow_network_option,
    db_option,
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
    storage_errors,
)
from spanproof.core.specs import SpecError
from spanproof.store.home import resolve_home
from spanproof.store.models import RunKind

if TYPE_CHECKING:
    from spanproof.agent.record import PartialMode, RunRecord
    from spanproof.agent.run import ConvergenceMode, PolicyName
    from spanproof.agent.runstore import RunStore
    from spanproof.agent.services import Services

    from spanproof.core.evidence import Span
    from spanproof.core.specs import EndpointSettings
    from spanproof.web.env import WebEnv

PARTIAL_MODES = ("flag", "narrow", "drop")


def _services(
    home: Path, db: str | None = None, endpoint: EndpointSettings | None = None
) -> Services:
    from spanproof.agent.services import Services

    return Services(home, db, endpoint)


def _offline_env(parts: Services, corpus: str | None) -> WebEnv:
    try:
        return parts.offline_web(corpus)
    except FileNotFoundError as exc:
        raise click.ClickException(str(exc)) from exc


def run_store(home: Path, db: str | None = None, kind: RunKind | None = None) -> RunStore:
    return _services(home, db).runs(kind)


LAST = "last"


def get_run(store: RunStore, run_id: str) -> RunRecord:
    """The record for RUN_ID, a unique prefix of it, or `last` (the newest `ask` run)."""
    if run_id == LAST:
        from spanproof.store.errors import RunNotFound

        newest = store.page(kind="ask", limit=1).items
        if not newest:
            raise RunNotFound(
                "No `ask` runs in this store yet, so `last` names nothing. Ask something first: "
                'spanproof ask "When did former congresswoman Liz Patterson die?"'
            )
        run_id = newest[0].run_id
    return store.get(run_id)


def snapshot_notes(record: RunRecord, home: Path, db: str | None) -> list[str]:
    """Where the run's snapshots are when they are not in this home (a shared store holds
    runs from every runner; the blobs stay on the runner that fetched them)."""
    from spanproof.store import open_store
    from spanproof.web.snapshots import SnapshotStore

    cited = {s.doc_id for s in record.spans}
    wanted = [d.doc_id for d in record.documents if d.doc_id in cited] or [
        d.doc_id for d in record.documents
    ]
    if not wanted:
        return []
    folder = home / "snapshots"
    local = SnapshotStore(folder) if folder.is_dir() else None
    try:
        missing = [d for d in wanted if local is None or d not in local]
    finally:
        if local is not None:
            local.close()
    if not missing:
        return []
    holders = open_store(home=home, db=db).snapshot_holders(missing)
    elsewhere: dict[str, list[str]] = {}
    nowhere = []
    for doc_id in missing:
        places = sorted(
            {f"runner {h.runner} (host {h.host}, home {h.home})" for h in holders[doc_id]}
        )
        if places:
            elsewhere.setdefault("; ".join(places), []).append(doc_id)
        else:
            nowhere.append(doc_id)
    notes = [
        f"Snapshot(s) {', '.join(docs)} are not on this machine: stored on {where}. The spans "
        "and hashes above come from the shared record; to read the pages, run this command "
        "there, copy that home's snapshots/ folder here, or re-fetch with `spanproof recheck "
        "--live`."
        for where, docs in elsewhere.items()
    ]
    if nowhere:
        notes.append(
            f"Snapshot(s) {', '.join(nowhere)} are in no known home (this run predates the "
            "shared snapshot index, or its home was removed); `spanproof recheck --live` "
            "re-fetches the pages."
        )
    return notes


# --- rendering ----------------------------------------------------------------------------


def _citation_rows(record: RunRecord) -> list[list[str]]:
    rows = []
    for n, claim in enumerate(record.answer.shown, start=1):
        span = record.span(claim.supporting_span_id) if claim.supporting_span_id else None
        quote = " ".join((span.text if span else "").split())
        rows.append(
            [
                str(n),
                claim.status,
                claim.verdict.verdict,
                quote[:300] + ("…" if len(quote) > 300 else ""),
                span.url if span else "",
                span.retrieved_at if span else "",
            ]
        )
    return rows


NO_CITATIONS = "Citations: none (no claim was drafted)."


def render_answer(record: RunRecord, *, rich_ok: bool) -> None:
    from tabulate import tabulate

    m = record.metrics
    a = record.answer
    headers = ["#", "status", "verdict", "quote", "url", "retrieved"]
    metrics_line = (
        f"claims drafted {m.claims_drafted}, published {m.claims_published}, flagged "
        f"{m.claims_flagged}, narrowed {m.claims_narrowed}, dropped {m.claims_dropped}, held "
        f"{m.claims_held} | "
        f"pre-prune SUPPORTED {pct(m.pre_prune_supported_rate)}, published groundedness "
        f"{pct(m.published_groundedness)}, PARTIAL rate {pct(m.partial_rate)}, drop rate "
        f"{pct(m.drop_rate)}, held rate {pct(m.held_rate)}, judge errors {m.judge_errors} | "
        f"{m.searches} searches, {m.fetches} "
        f"fetches, {m.spans} spans, {m.tool_calls} tool calls | cost ${m.cost.total_usd:.4f}"
        + (f" ({m.cost.free})" if m.cost.free else "")
    )
    if rich_ok:
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        # Questions, answers and reasons hold page and model text: printed as text, never read
        # as rich markup (a "[/x]" in a page would otherwise stop the command).
        console = Console()
        console.print(f"[bold]{escape(record.question)}[/bold]")
        if a.label:
            console.print(f"[dim]{escape(a.label)}[/dim]")
        console.print()
        console.print(escape(a.summary))
        for n, claim in enumerate(a.shown, start=1):
            if claim.status != "published":
                console.print(f"[yellow]\\[{n}] {claim.status}: {escape(claim.reason)}[/yellow]")
        for note in _notes(record):
            console.print(f"[red]{escape(note)}[/red]")
        if a.gaps:
            console.print()
            for gap in a.gaps:
                console.print(f"[dim]- {escape(gap)}[/dim]")
        rows = _citation_rows(record)
        table = Table(title="Citations", show_lines=True)
        for name in headers:
            # URLs and times are citations: never truncate them, wrap instead.
            table.add_column(name, overflow="fold", ratio=4 if name == "quote" else None)
        for row in rows:
            table.add_row(*(escape(cell) for cell in row))
        console.print(table if rows else f"[dim]{NO_CITATIONS}[/dim]")
        console.print(f"[dim]{metrics_line}[/dim]")
        console.print(
            f"[dim]run {record.run_id} ({record.status}); `spanproof runs show {record.run_id}`[/dim]"
        )
        return
    lines = [record.question]
    if a.label:
        lines.append(a.label)
    lines += ["", a.summary]
    for n, claim in enumerate(a.shown, start=1):
        if claim.status != "published":
            lines.append(f"[{n}] {claim.status}: {claim.reason}")
    lines += _notes(record)
    if a.gaps:
        lines += [""] + [f"- {g}" for g in a.gaps]
    rows = _citation_rows(record)
    # no claim, no table: a header over nothing reads as a table that failed to print
    cited = tabulate(rows, headers=headers, tablefmt="simple") if rows else NO_CITATIONS
    lines += ["", cited, "", metrics_line, f"run {record.run_id} ({record.status})"]
    click.echo("\n".join(lines))


# the option that sets each budget, for the note of a run that stopped at one
_BUDGET_OPTIONS = {"cost": "--max-cost", "tokens": "--tokens", "searches": "--searches",
                   "fetches": "--fetches", "tool_calls": "--tool-calls", "spans": "--spans"}  # fmt: skip


def budget_note(record: RunRecord) -> str | None:
    """What a run that stopped at one of its budgets says about it, or None."""
    name = record.ended_by.removeprefix("budget:")
    option = _BUDGET_OPTIONS.get(name) if record.ended_by.startswith("budget:") else None
    if option is None:
        return None
    budgets = record.config.budgets
    if name == "cost":
        cost = record.metrics.cost
        what = (f"dollar budget: the agent model spent ${cost.research_usd + cost.small_usd:.4f} "
                f"of {option} {budgets.cost_usd:g}")  # fmt: skip
    else:
        what = f"{name.replace('_', ' ')} budget ({option} {getattr(budgets, name)})"
    return f"The run stopped at its {what}; the answer rests on what it found before."


def _notes(record: RunRecord) -> list[str]:
    notes = []
    budget = budget_note(record)
    if budget:
        notes.append(budget)
    if record.needs_human:
        notes.append(f"Needs human review: {record.needs_human_reason}")
    if record.injection_observed:
        notes.append(f"Injection observed in fetched content: {record.injection_observed!r}")
    if record.status != "complete":
        notes.append(f"Run status: {record.status}; errors: {'; '.join(record.errors) or 'none'}")
    return notes


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{x:.0%}"


# --- ask ----------------------------------------------------------------------------------


@click.command()
@click.argument("question")
@click.option("--policy", type=click.Choice(["extractive", "llm"]), default=None,
              help="extractive: the deterministic, model-free baseline (default offline). "
              "llm: a model directs the search (default when --model is given).")  # fmt: skip
@click.option("--model", "model_spec", default=None, metavar="SPEC",
              help="Agent model: openai:<model> or scripted:<path.json>.")  # fmt: skip
@click.option("--judge", "judges", multiple=True, metavar="SPEC", envvar="SPANPROOF_JUDGE",
              help=f"Verifier judge(s): {judge_specs()} (default rules). "
              "Repeat for a panel where every judge must say SUPPORTED.")  # fmt: skip
@click.option("--corpus", type=click.Path(file_okay=False), default=None,
              help="Offline corpus directory to replay (default: the shipped corpus).")  # fmt: skip
@click.option("--partial", type=click.Choice(PARTIAL_MODES), default="flag", show_default=True,
              help="PARTIAL claims: flag (publish, marked), narrow (append what is not "
              "established), or drop.")  # fmt: skip
@click.option("--convergence", type=click.Choice(["rules", "llm", "off"]), default=None,
              help="Convergence check (default: llm with an openai: model, else rules).")  # fmt: skip
@click.option("--convergence-model", default=None, metavar="SPEC",
              help="Small model for the convergence check (default: the agent model).")  # fmt: skip
@click.option("--searches", type=int, default=None, help="Search budget (default 6).")
@click.option("--fetches", type=int, default=None, help="Fetch budget (default 5).")
@click.option("--tool-calls", type=int, default=None, help="Tool-call budget (default 14).")
@click.option("--spans", type=int, default=None, help="Span budget (default 11).")
@click.option("--tokens", type=int, default=None, help="Token budget (default 200000).")
@click.option("--max-cost", "max_cost", type=click.FloatRange(min=0, min_open=True), default=None,
              metavar="USD", help="Dollar budget for the agent model (research and convergence "
              "calls, priced by the price table; judges are counted apart): once spent, the run "
              "drafts with what it has. Default: none.")  # fmt: skip
@click.option("--no-targeted-round", is_flag=True,
              help="Skip the extra search round for sub-questions whose support was pruned.")  # fmt: skip
@click.option("--config", "config_path", type=click.Path(dir_okay=False), default=None,
              help="Price the run with this gate config's `prices` table (the one `spanproof "
              "gate` reads). Default: ./pyproject.toml's [tool.spanproof.gate.prices] if "
              "present, else the built-in prices.")  # fmt: skip
@json_option("Print the run record as JSON (quiet otherwise).")
@click.option("--markdown", "markdown_file", type=click.Path(dir_okay=False), default=None,
              help="Also write the brief and the claim ledger to this markdown file.")  # fmt: skip
@home_option()
@db_option()
@endpoint_options
@model_options()
@storage_errors
def ask(
    question: str,
    policy: PolicyName | None,
    model_spec: str | None,
    judges: tuple[str, ...],
    corpus: str | None,
    partial: PartialMode,
    convergence: ConvergenceMode | None,
    convergence_model: str | None,
    searches: int | None,
    fetches: int | None,
    tool_calls: int | None,
    spans: int | None,
    tokens: int | None,
    max_cost: float | None,
    no_targeted_round: bool,
    config_path: str | None,
    as_json: bool,
    markdown_file: str | None,
    home: str | None,
    db: str | None,
    base_url: str | None,
    api_key: str | None,
) -> None:
    """Answer QUESTION; every published claim carries a quote, a URL, a retrieval time and a verdict.

    Offline (no model, no network) it runs the extractive baseline over the shipped corpus,
    verified by the `rules` judge; searches of the local corpus cost $0. The run is stored:
    `spanproof runs show last` shows it again, `spanproof recheck last` re-fetches its
    sources and confirms each quote is still there. Exit codes: 0 answered (gaps are
    stated in the answer); 2 could not run - a bad option or spec, an unusable store, an
    agent model or judge call that failed (the run is still stored, marked).

    \b
    Examples:
      spanproof ask "Who did the Odessa Jackalopes hire as head coach in May 2019?"
      spanproof ask "When did former congresswoman Liz Patterson die?" --json
      OPENAI_API_KEY=... spanproof ask "..." --model openai:gpt-4o-mini --judge openai:gpt-4o-mini
      spanproof ask "..." --model openai:gpt-4o --max-cost 0.05 --tokens 50000   # both budgets
    """
    from spanproof.agent.record import Budgets
    from spanproof.agent.run import run_question

    if not question.strip():
        raise click.UsageError('QUESTION is empty. Ask something, e.g. spanproof ask "Who ...?"')
    home_dir = resolve_home(home)
    policy = policy or ("llm" if model_spec else "extractive")
    if policy == "llm" and not model_spec:
        raise click.UsageError("--policy llm needs --model, e.g. --model openai:gpt-4o-mini.")
    endpoint = endpoint_settings(base_url, api_key)
    budget_args = {k: v for k, v in dict(searches=searches, fetches=fetches, tool_calls=tool_calls,
                                         spans=spans, tokens=tokens,
                                         cost_usd=max_cost).items() if v is not None}  # fmt: skip
    from spanproof.gate.config import GateConfigError, load_config

    try:
        prices = load_config(config_path)[0].prices
    except GateConfigError as exc:
        raise click.UsageError(str(exc)) from exc
    parts = _services(home_dir, db, endpoint)
    try:
        budgets = Budgets(**budget_args)
        judge_objs = parts.judges(judges or ("rules",))
    except (SpecError, ValueError) as exc:
        raise click.UsageError(str(exc)) from exc
    verifier = parts.verifier(judge_objs)
    env = _offline_env(parts, corpus)
    store = parts.runs("ask")
    progress = progress_printer(as_json, indent="  ")

    async def go() -> RunRecord:
        try:
            return await run_question(
                question, env=env, policy=policy, model=model_spec if policy == "llm" else None,
                verifier=verifier, budgets=budgets, store=store, endpoint=endpoint, partial=partial,
                convergence=convergence, convergence_model=convergence_model, prices=prices,
                targeted_round=not no_targeted_round, progress=progress,
            )  # fmt: skip
        finally:
            await env.aclose()

    try:
        record = run_async(go(), quiet=as_json, what="run")
    except SpecError as exc:
        raise click.UsageError(str(exc)) from exc
    judge_errors = [v.verdict.error for v in record.verdicts if v.verdict.error]
    if judge_errors:
        # Nothing rests on an errored verdict, so the claims were dropped; say why, loudly.
        err(
            f"  warning: {len(judge_errors)} (claim, span) pair(s) could not be verified, so "
            f"their claims were not published. First error: {judge_errors[0]}"
        )
    model_failed = record.ended_by == "model_error"
    if markdown_file:
        from spanproof.agent.ledger import answer_markdown

        from spanproof.core.files import write_atomic

        write_atomic(markdown_file, answer_markdown(record))
        if not as_json:
            err(f"  wrote {markdown_file}")
    if as_json:
        click.echo(record.model_dump_json(indent=2))
    else:
        render_answer(record, rich_ok=sys.stdout.isatty())
    if model_failed or judge_errors:
        # The answer above is what the runtime could restate, not the model's work: a model or
        # judge that failed is a run that could not be done, never a quiet "could not source".
        cause = (
            f"the agent model failed: {record.errors[0] if record.errors else record.ended_by}"
            if model_failed
            else f"{len(judge_errors)} judge call(s) failed: {judge_errors[0]}"
        )
        err(f"error: {cause} (run {record.run_id} stored as {record.status})")
        sys.exit(2)


# --- recheck ------------------------------------------------------------------------------

_QUOTES = str.maketrans(
    {
        "“": '"',
        "”": '"',
        "„": '"',
        "‟": '"',
        "‘": "'",
        "’": "'",
        "‚": "'",
        "‛": "'",
        "«": '"',
        "»": '"',
    }
)


def normalise_for_match(text: str) -> str:
    """Whitespace collapsed, curly quotes made straight: check 2 is a string match after this."""
    return re.sub(r"\s+", " ", text.translate(_QUOTES)).strip()


_FETCH_FAILED = "fetch failed: "


async def recheck_record(record: RunRecord, env: WebEnv) -> list[dict[str, Any]]:
    """Checks 1 and 2 for every cited span: the source resolves, the quote is still on the page."""
    from urllib.parse import urlsplit

    from spanproof.core.tool_schema import ToolFailure

    cited = {sid for c in record.answer.claims for sid in c.span_ids}
    by_url: dict[str, list[Span]] = {}
    for span in record.spans:
        if span.span_id in cited:
            by_url.setdefault(span.url, []).append(span)
    rows: list[dict[str, Any]] = []
    for url, spans in by_url.items():
        doc_rec = record.document(spans[0].doc_id)
        try:
            doc = await env.fetcher.fetch(url)
            error = None
        except ToolFailure as failure:
            doc, error = None, f"{failure.detail.error}: {failure.detail.message}"
        except Exception as exc:  # a dead source is a finding, not a crash
            doc, error = None, f"{type(exc).__name__}: {exc}"
        for span in spans:
            row: dict[str, Any] = {
                "span_id": span.span_id,
                "url": url,
                "snapshot_sha256": doc_rec.sha256 if doc_rec else "",
            }
            if doc is None:
                row.update(
                    resolves=False,
                    same_snapshot=None,
                    quote_on_page=None,
                    flag=f"{_FETCH_FAILED}{error}",
                )
            else:
                moved = (urlsplit(doc.final_url).hostname or "") != (urlsplit(url).hostname or "")
                same = doc_rec is not None and doc.sha256 == doc_rec.sha256
                present = normalise_for_match(span.text) in normalise_for_match(doc.text)
                flag = ""
                if moved:
                    flag = f"redirected to another host: {doc.final_url}"
                elif not present:
                    flag = "quote no longer on the page"
                row.update(resolves=not moved, same_snapshot=same, quote_on_page=present,
                           fetched_sha256=doc.sha256, flag=flag)  # fmt: skip
            rows.append(row)
    return rows


@click.command()
@click.argument("run_id")
@click.option("--corpus", type=click.Path(file_okay=False), default=None,
              help="Replay this corpus (default: the shipped corpus).")  # fmt: skip
@click.option(
    "--live", is_flag=True, help="Re-fetch over the network (egress allowlist = the run's hosts)."
)
@allow_network_option
@fetch_timeout_option
@json_option("Print the findings as JSON.")
@home_option()
@db_option()
@storage_errors
def recheck(
    run_id: str,
    corpus: str | None,
    live: bool,
    allow_networks: tuple[str, ...],
    fetch_timeout_s: float | None,
    as_json: bool,
    home: str | None,
    db: str | None,
) -> None:
    """Re-fetch each URL a run cited, compare with the stored snapshot, and confirm each
    quote is still on the page (whitespace and quotation marks normalised).

    Exit status 1 when any source fails to resolve or any quote is gone. With a shared
    store (--db), a run made on another runner is compared by its recorded hashes, and the
    output says which runner holds its snapshots.

    \b
    Examples:
      spanproof recheck last                     # your newest `ask` run
      spanproof recheck 3f2a9c1e                 # a unique prefix of the run id is enough
      spanproof recheck 3f2a9c1e --live --json   # re-fetch over the network
    """
    home_dir = resolve_home(home)
    parts = _services(home_dir, db)
    store = parts.runs()
    record = get_run(store, run_id)
    notes = snapshot_notes(record, home_dir, db)
    if live:
        from urllib.parse import urlsplit

        from spanproof.web.search import StaticSearch

        hosts = sorted({urlsplit(s.url).hostname or "" for s in record.spans} - {""})
        try:
            env = parts.live_web(hosts, StaticSearch([]), allow_networks=list(allow_networks),
                                 page_timeout_s=fetch_timeout_s)  # fmt: skip
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--allow-network") from exc
    else:
        env = _offline_env(parts, corpus)

    async def go() -> list[dict[str, Any]]:
        try:
            return await recheck_record(record, env)
        finally:
            await env.aclose()

    rows = asyncio.run(go())
    from spanproof.store.models import Recheck

    # Kept in the store, so the viewer shows beside each span whether its quote is still there.
    store.store.add_rechecks(record.run_id, [Recheck(**r) for r in rows])
    if as_json:
        echo_json({"run_id": record.run_id, "checks": rows, "snapshot_notes": notes})
    else:
        for note in notes:
            err(note)
        from tabulate import tabulate

        # A failed fetch is one finding per URL, however many spans it cited: the table says
        # "fetch failed" per span and the reason is printed once below it.
        failures: dict[str, str] = {}
        table = []
        for r in rows:
            flag = r["flag"]
            if r["resolves"] is False and flag.startswith(_FETCH_FAILED):
                failures.setdefault(r["url"], flag.removeprefix(_FETCH_FAILED))
                flag = "fetch failed (below)"
            table.append(
                [
                    r["span_id"],
                    r["url"],
                    r["resolves"],
                    r["same_snapshot"],
                    r["quote_on_page"],
                    flag,
                ]
            )
        click.echo(
            tabulate(
                table, headers=["span", "url", "resolves", "same snapshot", "quote on page", "flag"]
            )
        )
        for url, reason in failures.items():
            click.echo(f"fetch failed: {url}: {reason}")
    if any(r["flag"] for r in rows):
        sys.exit(1)
