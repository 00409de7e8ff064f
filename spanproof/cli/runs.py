"""`spanproof runs`: list, show, sign and delete stored runs, and list gate runs."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from spanproof.cli.agent import get_run, pct, render_answer, run_store, snapshot_notes
from spanproof.cli.options import (
    db_option,
    echo_json,
    err,
    home_option,
    json_option,
    storage_errors,
)
from spanproof.store.home import resolve_home

if TYPE_CHECKING:
    from spanproof.agent.signoff import SignOff


@click.group()
def runs() -> None:
    """List, show or delete stored runs.

    \b
    Examples:
      spanproof runs list                        # your own `ask` runs, newest first
      spanproof runs list --kind gate            # the agent runs the gate made
      spanproof runs gates                       # gate runs and their ids
      spanproof runs show last --json            # your newest run, the full record
    """


KIND_CHOICES = ("ask", "gate", "injection", "grade", "all")


@runs.command("list")
@click.option("--kind", type=click.Choice(KIND_CHOICES), default="ask", show_default=True,
              help="Which runs: your own questions (ask), the gate's, the injection suite's, "
              "grading's, or all.")  # fmt: skip
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--offset", type=click.IntRange(min=0), default=0, show_default=True,
              help="Skip this many of the newest runs (the next page).")  # fmt: skip
@json_option("Print the page as JSON: items, total, offset, next_offset.")
@home_option()
@db_option()
@storage_errors
def runs_list(
    kind: str, limit: int, offset: int, as_json: bool, home: str | None, db: str | None
) -> None:
    """Stored runs, newest first: by default your own `ask` runs, not the gate's.

    \b
    Examples:
      spanproof runs list                      # your questions
      spanproof runs list --kind gate --limit 50
      spanproof runs list --kind all --offset 20 --json
    """
    from tabulate import tabulate

    page = run_store(resolve_home(home), db).page(
        kind=None if kind == "all" else kind, limit=limit, offset=offset
    )
    if as_json:
        echo_json({"items": [i.model_dump() for i in page.items], "total": page.total,
                   "offset": page.offset, "next_offset": page.next_offset, "kind": kind})  # fmt: skip
        return
    if not page.items:
        if page.total:
            click.echo(f"No runs past offset {offset} ({page.total} {kind} runs in all).")
        elif kind == "ask":
            click.echo('No runs yet. Try: spanproof ask "..."  (gate runs: --kind gate)')
        else:
            click.echo("No runs yet." if kind == "all" else f"No {kind} runs yet.")
        return
    rows = [
        [i.run_id, i.kind, i.status + (" (still running)" if i.still_running else ""), i.policy,
         i.created_at, i.claims_published, pct(i.published_groundedness), i.runner,
         i.question[:60]]
        for i in page.items
    ]  # fmt: skip
    click.echo(
        tabulate(
            rows,
            headers=[
                "run",
                "kind",
                "status",
                "policy",
                "created",
                "shown",
                "grounded",
                "runner",
                "question",
            ],
        )  # fmt: skip
    )
    end = page.offset + len(page.items)
    more = f"; next page: --offset {end}" if page.next_offset is not None else ""
    click.echo(f"\nruns {page.offset + 1}-{end} of {page.total} ({kind}){more}")


@runs.command("gates")
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@json_option("Print the gate runs as JSON.")
@home_option()
@db_option()
@storage_errors
def runs_gates(limit: int, as_json: bool, home: str | None, db: str | None) -> None:
    """Gate runs, newest first: their ids (for `spanproof gate --baseline ID`), outcome, judge,
    branch and commit.

    \b
    Examples:
      spanproof runs gates
      spanproof gate --baseline "$(spanproof runs gates --json | jq -r '.[0].gate_id')"
    """
    from tabulate import tabulate

    from spanproof.gate.result import GateResult
    from spanproof.store import open_store

    rows = open_store(home=resolve_home(home), db=db).latest_gate_runs(limit)
    listed = [
        {"gate_id": r.gate_id, "started_at": r.started_at.isoformat(timespec="seconds") + "Z",
         "outcome": GateResult.model_validate_json(r.result).outcome, "exit_code": r.exit_code,
         "judge": r.judge, "branch": r.git_branch, "commit": (r.git_commit or "")[:12],
         "runner": r.runner}
        for r in rows
    ]  # fmt: skip
    if as_json:
        echo_json(listed)
        return
    if not listed:
        click.echo("No gate runs yet. Run: spanproof gate")
        return
    click.echo(tabulate([list(g.values()) for g in listed], headers=list(listed[0])))


@runs.command("show")
@click.argument("run_id")
@json_option("Print the full run record, its ledger with reviewer decisions, and the review log.")
@click.option("--markdown", "markdown_file", type=click.Path(dir_okay=False), default=None,
              help="Write the brief and the claim ledger, with reviewer decisions, to this file.")  # fmt: skip
@home_option()
@db_option()
@storage_errors
def runs_show(
    run_id: str, as_json: bool, markdown_file: str | None, home: str | None, db: str | None
) -> None:
    """One run: its answer, citations and reviewer decisions (or the full record with --json).

    RUN_ID is the full id or a unique prefix of it (taken literally: % and _ are not
    wildcards), or `last` for your newest `ask` run. Reviewer decisions are made in
    `spanproof view`.

    \b
    Examples:
      spanproof runs show last
      spanproof runs show 3f2a9c1e
      spanproof runs show 3f2a9c1e --json
      spanproof runs show 3f2a9c1e --markdown brief.md   # the brief and the reviewed ledger
    """
    import json

    from spanproof.agent.ledger import answer_markdown, reviewed_answer
    from spanproof.agent.signoff import signed_ledger

    home_dir = resolve_home(home)
    store = run_store(home_dir, db)
    record = get_run(store, run_id)
    reviews = store.store.list_reviews(record.run_id)
    signatures = store.store.signatures([record.run_id]).get(record.run_id, [])
    ledger, standing = signed_ledger(record, reviews, signatures)
    reviewed = reviewed_answer(record, reviews).model_copy(update={"ledger": ledger})
    if markdown_file:
        from spanproof.core.files import write_atomic

        write_atomic(markdown_file, answer_markdown(reviewed))
        if not as_json:
            err(f"wrote {markdown_file}")
    if as_json:
        payload = json.loads(reviewed.model_dump_json())
        payload["reviews"] = [r.model_dump(mode="json") for r in reviews]
        payload["signoff"] = standing.model_dump(mode="json")
        echo_json(payload)
        return
    render_answer(reviewed, rich_ok=sys.stdout.isatty())
    for note in snapshot_notes(record, home_dir, db):
        err(note)
    click.echo(f"\n{signoff_line(standing, record.run_id)}")
    if reviews:
        from tabulate import tabulate

        # Claims are numbered as in the citations above ([1] is the first shown claim); a
        # decision on a claim that is not shown names its place in the draft.
        number = {c.index: f"[{n}]" for n, c in enumerate(record.answer.shown, start=1)}
        click.echo("\nReviewer decisions (latest per claim is in force):")
        click.echo(
            tabulate(
                [[r.decided_at.isoformat(timespec="seconds"),
                  number.get(r.claim_index, f"draft claim {r.claim_index + 1}"), r.decision,
                  r.reviewer, r.edited_text or "", r.note] for r in reviews],
                headers=["when", "claim", "decision", "reviewer", "edited text", "note"],
            )
        )  # fmt: skip


def signoff_line(standing: SignOff, run_id: str) -> str:
    """One line saying who signed the run, or what it waits for and how to sign it."""
    if standing.state == "signed":
        return f"Signed by {standing.signed_by} at {standing.signed_at}."
    again = (
        " (a decision was recorded after the last signature)"
        if standing.superseded_by_decision
        else ""
    )
    if standing.signable:
        return f"Not signed{again}; nothing stands in the way: `spanproof runs sign {run_id} --reviewer NAME`."
    return f"Waiting for sign-off{again}: " + "; ".join(standing.waiting_on) + "."


@runs.command("sign")
@click.argument("run_id")
@click.option("--reviewer", required=True, help="Who signs (the name recorded with the signature).")
@home_option()
@db_option()
@storage_errors
def runs_sign(run_id: str, reviewer: str, home: str | None, db: str | None) -> None:
    """Sign a run's brief: you vouch for it as it stands.

    Allowed only when every claim left in the brief is SUPPORTED with no flag, or carries
    your team's decision (approve, edit or cut, made in `spanproof view`); otherwise exit 2
    naming the claims to decide. A decision recorded later puts the run back to waiting.
    The signature shows in `runs show`, the ledger exports and `report weekly`.

    \b
    Examples:
      spanproof runs sign 3f2a9c1e --reviewer "Ada Lovelace"
      spanproof runs sign last --reviewer ada
    """
    from spanproof.agent.signoff import SignRefused, sign

    store = run_store(resolve_home(home), db)
    record = get_run(store, run_id)
    try:
        signature = sign(store.store, record, reviewer)
    except SignRefused as exc:
        err(f"error: {exc}")
        sys.exit(2)
    click.echo(f"signed run {record.run_id} as {signature.reviewer} at "
               f"{signature.signed_at.isoformat(timespec='seconds')}Z")  # fmt: skip


@runs.command("delete")
@click.argument("run_id")
@home_option()
@db_option()
@storage_errors
def runs_delete(run_id: str, home: str | None, db: str | None) -> None:
    """Remove one run (and its review decisions) from the store, e.g. a damaged record.

    \b
    Example:
      spanproof runs delete 3f2a9c1e-6b1d-4c3e-9d7a-2f0c1b2a3d4e
    """
    from spanproof.store import open_store

    full = open_store(home=home, db=db).delete_run(run_id)
    click.echo(f"deleted run {full}")
