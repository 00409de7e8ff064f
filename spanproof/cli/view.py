"""`spanproof view`: serve the local viewer over the run store."""

from __future__ import annotations

import sys

import click

from spanproof.cli.options import db_option, endpoint_options, err, home_option, storage_errors


@click.command("view")
@home_option(
    "State directory whose snapshots this machine holds (the spans' page text). "
    "Default: $SPANPROOF_HOME, else the per-user data dir."
)
@db_option()
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port to listen on.")  # fmt: skip
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to bind. Anything but loopback also needs --token.")  # fmt: skip
@click.option("--token", default=None, envvar="SPANPROOF_VIEW_TOKEN", metavar="TOKEN|auto",
              help="Access token every request must carry; `auto` makes a random one, printed "
              "at start. Required off loopback [env: SPANPROOF_VIEW_TOKEN].")  # fmt: skip
@click.option("--reviewer", default=None, envvar="SPANPROOF_REVIEWER",
              help="Name recorded with review decisions (default: $USER; editable per decision).")  # fmt: skip
@click.option("--judge", "judges", multiple=True, metavar="SPEC",
              help="A judge the judges page may run (repeatable; default: rules and blind).")  # fmt: skip
@click.option("--set", "sets", multiple=True, type=click.Path(dir_okay=False, exists=True),
              help="A calibration set the judges page may use (repeatable; default: the shipped "
              "goldens/judge_calibration.jsonl).")  # fmt: skip
@endpoint_options
@storage_errors
def view(
    home: str | None,
    db: str | None,
    port: int,
    host: str,
    token: str | None,
    reviewer: str | None,
    judges: tuple[str, ...],
    sets: tuple[str, ...],
    base_url: str | None,
    api_key: str | None,
) -> None:
    """Open a local web page to read runs and gate results, and review each claim
    against its span, highlighted in the stored page text.

    \b
    Pages: runs (filter, search, paginate) -> a run (answer, claim ledger, trace, cost)
    -> a claim (the span at its exact offsets in the snapshot, quote_used marked,
    recheck status; approve / edit / cut with a note). Gate results: checks, plots,
    sensitivity per planted kind with misses, calibration matrix (click a cell),
    injection per technique, two results side by side. Judges side by side on a
    calibration set. An edited claim is verified against the same span with the
    run's judges before it is stored; the verifier is never bypassed.

    \b
    Binds to 127.0.0.1. Anywhere else needs a token that every request carries;
    every form carries a CSRF token. No page loads a script or anything from another host.

    \b
    Examples:
      spanproof view                               # http://127.0.0.1:8765/
      spanproof view --home /tmp/demo --port 9000
      spanproof view --db postgresql+psycopg://ci:PASS@db.internal/spanproof   # a team's store
      spanproof view --judge rules --judge openai:gpt-4o-mini --set goldens/judge_calibration.jsonl
      spanproof view --host 0.0.0.0 --token auto   # on a shared box: prints the token to use

    Exit status 2 when it cannot start (a refused bind, a store it cannot open).
    """
    from pathlib import Path

    from spanproof.store import open_store
    from spanproof.store.home import resolve_home
    from spanproof.view.server import serve
    from spanproof.view.settings import (
        BindError,
        ViewSettings,
        check_bind,
        default_reviewer,
        resolve_token,
    )

    try:
        token = resolve_token(token)
        check_bind(host, token)  # refuse before opening anything
        home_dir = resolve_home(home)
        # Open (and migrate) the store before binding, so a bad --db fails here with exit 2.
        open_store(home=home_dir, db=db)
        settings = ViewSettings(
            home=home_dir,
            db=db,
            host=host,
            port=port,
            token=token,
            reviewer=reviewer or default_reviewer(),
            judges=list(judges) or ["rules", "blind"],
            sets=[Path(s) for s in sets],
            base_url=base_url,
            api_key=api_key,
        )
        serve(settings, say=err)
    except BindError as exc:
        err(f"spanproof view: {exc}")
        sys.exit(2)
    except OSError as exc:  # port taken, address not on this machine
        err(f"spanproof view: cannot listen on {host}:{port}: {exc}. Pick another --port.")
        sys.exit(2)
