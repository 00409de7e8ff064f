"""`spanproof goldens`: data the bench keeps in the repository, grown from reviewers' decisions."""

from __future__ import annotations

import sys

import click

from spanproof.cli.options import (
    db_option,
    echo_json,
    err,
    home_option,
    json_option,
    storage_errors,
)


@click.group("goldens")
def goldens() -> None:
    """Golden data kept in the repository.

    \b
    Examples:
      spanproof goldens add-from-reviews            # reviewer decisions -> goldens/reviewed_pairs.jsonl
      spanproof goldens add-from-reviews --dry-run  # what would change
    """


@goldens.command("add-from-reviews")
@click.option(
    "--out",
    "out_path",
    default=None,
    type=click.Path(dir_okay=False),
    help="The reviewed set to add to (the gate's reviewed_set); created when missing. Default: "
    "goldens/reviewed_pairs.jsonl at the root of the git repository you are in (exit 2 "
    "outside one, or when it has no goldens/ folder).",
)
@click.option("--since", default=None, help="Only decisions made in this window: 7d, 30d, 2w ...")
@click.option("--dry-run", is_flag=True, help="Say what would change; write nothing.")
@json_option()
@home_option()
@db_option()
@storage_errors
def add_from_reviews(
    out_path: str | None,
    since: str | None,
    dry_run: bool,
    as_json: bool,
    home: str | None,
    db: str | None,
) -> None:
    """Write reviewers' decisions from `spanproof view` into the repository as labelled pairs.

    A claim cut as not supported by its span (with the reviewer's PARTIAL or NOT_SUPPORTED), a
    cut of a flagged claim (its flag confirmed) and an edit the verifier refused that the
    reviewer kept as SUPPORTED each become one line of the reviewed set (a claim cut as "not an
    answer / off-topic" never does: it says nothing of its span's support; nor does a refused
    edit that reads as instructions): the claim, its span, the reviewer's verdict, the note
    as the reason, and the run, span and reviewer it came from. The gate judges the set on
    every run (its `reviewed` row), so a defect a human caught stays caught. Commit the file.

    Running it again adds only new decisions; a cut a reviewer later overturned is removed.
    Lines not made by this command are never touched.

    \b
    Exit codes: 0 done (also when there was nothing new); 2 could not run (the store
    cannot be read, the reviewed set has bad lines, or without --out you are not in a
    repository that keeps a goldens/ folder: nothing is written).

    \b
    Examples:
      spanproof goldens add-from-reviews
      spanproof goldens add-from-reviews --since 7d --dry-run
      spanproof goldens add-from-reviews --out ../bench/goldens/reviewed_pairs.jsonl
      spanproof goldens add-from-reviews --db postgresql+psycopg://ci:PASS@db.internal/spanproof
    """
    from datetime import UTC, datetime
    from pathlib import Path

    from spanproof.bench.pairs import PairSetError
    from spanproof.bench.reviewed_pairs import (
        NoRepository,
        collect,
        merge,
        repository_reviewed_set,
    )
    from spanproof.store import open_store
    from spanproof.store.timeutil import parse_age

    try:
        out = Path(out_path) if out_path else repository_reviewed_set(Path.cwd())
    except NoRepository as exc:
        err(f"error: {exc}")
        sys.exit(2)
    start = None
    if since:
        try:
            start = datetime.now(UTC) - parse_age(since, "--since")
        except ValueError as exc:
            err(f"error: {exc}")
            sys.exit(2)
    store = open_store(home=home, db=db)
    pairs, overturned, skipped = collect(store, start)
    try:
        result = merge(out, pairs, overturned, dry_run=dry_run)
    except PairSetError as exc:
        err(f"error: {exc}")
        sys.exit(2)
    result.skipped[:0] = skipped
    if as_json:
        echo_json(result.model_dump())
        return
    verb = "would add" if dry_run else "added"
    click.echo(
        f"{out}: {verb} {len(result.added)}, updated {len(result.updated)}, removed "
        f"{len(result.removed)} overturned, {len(result.unchanged)} unchanged"
        + ("" if result.written or dry_run else " (nothing to write)")
    )
    for pid in result.added:
        pair = next(p for p in pairs if p["id"] == pid)
        click.echo(f"  + {pid} [{pair['kind']}] {pair['label']}: {pair['claim'][:90]}")
    for pid in result.removed:
        click.echo(f"  - {pid} (the reviewer overturned the cut)")
    for why in result.skipped:
        err(f"  skipped {why}")
    if not pairs and not result.removed:
        err(
            "no reviewer decision carries a verdict yet: cut a claim (or keep a refused edit) "
            "in `spanproof view`, then run this again"
        )
