"""`spanproof store info | prune | migrate`: a thin layer over spanproof.store."""

from __future__ import annotations

from datetime import UTC, datetime

import click

from spanproof.cli.options import (
    db_option,
    echo_json,
    err,
    home_option,
    json_option,
    storage_errors,
)


def _size(n: int | None) -> str:
    if n is None:
        return "-"
    size = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return str(size)


@click.group("store")
def store() -> None:
    """The run store: runs, gate runs, the verdict cache, usefulness scores and reviews.

    \b
    One machine: nothing to set up, a SQLite file in the home (spanproof.sqlite).
    A team: one PostgreSQL database every runner points at, e.g.
      export SPANPROOF_DB=postgresql+psycopg://ci:PASS@db.internal:5432/spanproof
      spanproof store migrate --from ~/.local/share/spanproof --to "$SPANPROOF_DB"
    Every command takes --db URL (default $SPANPROOF_DB, else SQLite in the home); a new
    database is created and migrated on first use, safely from many processes at once.

    \b
    Examples:
      spanproof store info                       # where it is, its tables and sizes
      spanproof store prune --older-than 90d     # retention
    """


@store.command("info")
@json_option("Print the figures as JSON.")
@home_option()
@db_option()
@storage_errors
def info(as_json: bool, home: str | None, db: str | None) -> None:
    """Where the store is, its schema revision, and the rows and size of every table.

    \b
    Examples:
      spanproof store info
      spanproof store info --db postgresql+psycopg://ci:PASS@db.internal/spanproof --json
    """
    from tabulate import tabulate

    from spanproof.store import open_store
    from spanproof.store.home import resolve_home
    from spanproof.store.legacy import legacy_files

    st = open_store(home=home, db=db)
    facts = st.info()
    legacy = [str(p) for p in legacy_files(resolve_home(home))]
    if as_json:
        echo_json({**facts.model_dump(), "legacy_files": legacy})
        return
    click.echo(f"store     {facts.url}")
    click.echo(f"backend   {facts.backend}, schema revision {facts.revision}")
    click.echo(f"size      {_size(facts.total_bytes)}")
    kinds = ", ".join(f"{k} {n}" for k, n in facts.runs_by_kind.items())
    click.echo(
        f"runs      {kinds}; oldest {facts.oldest_run or '-'}, newest {facts.newest_run or '-'}"
    )
    click.echo("")
    rows = [[t.name, t.rows, _size(t.bytes)] for t in facts.tables]
    click.echo(tabulate(rows, headers=["table", "rows", "size"], disable_numparse=True))
    if legacy:
        click.echo(
            f"\nThis home also holds files of an older spanproof ({', '.join(legacy)}); copy "
            f"them in with: spanproof store migrate --from {resolve_home(home)} --to {st.display_url}"
        )


@store.command("prune")
@click.option("--older-than", "older_than", required=True, metavar="AGE",
              help="Delete what was created longer ago than this: 90d, 12w, 720h.")  # fmt: skip
@click.option("--dry-run", is_flag=True, help="Count what would go; delete nothing.")
@json_option("Print the counts as JSON.")
@home_option()
@db_option()
@storage_errors
def prune(older_than: str, dry_run: bool, as_json: bool, home: str | None, db: str | None) -> None:
    """Delete old runs, cached verdicts and usefulness scores.

    Kept whatever their age: the runs and verdicts a stored gate result rests on (so every
    gate result stays explainable), runs that carry a human review, and gate runs.

    \b
    Examples:
      spanproof store prune --older-than 90d --dry-run
      spanproof store prune --older-than 90d
    """
    from spanproof.store import open_store
    from spanproof.store.timeutil import parse_age

    try:
        age = parse_age(older_than, "--older-than")
    except ValueError as exc:
        err(str(exc))
        raise SystemExit(2) from exc
    result = open_store(home=home, db=db).prune(datetime.now(UTC) - age, dry_run=dry_run)
    if as_json:
        echo_json(result.model_dump())
        return
    verb = "would delete" if dry_run else "deleted"
    click.echo(
        f"{verb} {result.runs} runs, {result.verdicts} verdicts, {result.usefulness} usefulness "
        f"scores created before {result.cutoff}; kept {result.kept_runs_referenced} older runs "
        f"and {result.kept_verdicts_referenced} older verdicts that a gate result or a review uses"
    )


@store.command("migrate")
@click.option("--from", "src", required=True, type=click.Path(file_okay=False),
              help="The spanproof home to copy from (its spanproof.sqlite and any older "
              "runs.sqlite / verdicts.sqlite / usefulness.sqlite).")  # fmt: skip
@click.option("--to", "dest", required=True, metavar="URL",
              help="The store to copy into: postgresql+psycopg://... or sqlite:///PATH.")  # fmt: skip
@json_option("Print the counts as JSON.")
@storage_errors
def migrate(src: str, dest: str, as_json: bool) -> None:
    """Copy a home's runs, gate runs, verdicts and usefulness scores into a database.

    Idempotent: a second copy adds nothing. A run already in the target under the same id
    with a different record is reported and left as it is (nothing is overwritten).

    \b
    Example:
      spanproof store migrate --from ~/.local/share/spanproof \\
          --to postgresql+psycopg://ci:PASS@db.internal:5432/spanproof
    """
    from pathlib import Path

    from spanproof.store import store_for_url
    from spanproof.store.legacy import copy_home

    # `--to "$SPANPROOF_DB"` with the variable unset passes an empty string: never a store
    # in the current directory, and never a message about the source.
    for option, value, hint in (("--from", src, "the home to copy"),
                                ("--to", dest, "the database URL")):  # fmt: skip
        if not str(value).strip():
            err(f"Error: {option} is empty: give {hint}. If you wrote {option} \"$SPANPROOF_DB\" "
                "(or another variable), it is not set in this shell: `echo $SPANPROOF_DB`.")  # fmt: skip
            raise SystemExit(2)
    result = copy_home(Path(src), store_for_url(dest))
    if as_json:
        echo_json(result.model_dump())
    else:
        r = result
        click.echo(
            f"from {r.source}: runs {r.runs_copied} copied, {r.runs_already_there} already there; "
            f"gate runs {r.gate_runs_copied} copied, {r.gate_runs_already_there} already there; "
            f"verdicts {r.verdicts_copied} copied, {r.verdicts_already_there} already there; "
            f"usefulness scores {r.usefulness_copied}, reviews {r.reviews_copied}, "
            f"signatures {r.signatures_copied}, "
            f"snapshot locations {r.snapshot_holders_copied} copied"
        )
    if result.runs_unreadable:
        err(f"{len(result.runs_unreadable)} run(s) in the source could not be read and were "
            f"skipped: {', '.join(result.runs_unreadable)}")  # fmt: skip
    if result.runs_conflicting:
        err(f"{len(result.runs_conflicting)} run id(s) are in the target with a different record "
            f"and were left as they are: {', '.join(result.runs_conflicting)}")  # fmt: skip
        raise SystemExit(1)
