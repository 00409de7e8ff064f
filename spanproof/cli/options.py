"""Options and output helpers every spanproof command shares.

One definition of --home, --json and --base-url/--api-key, of progress lines
(stderr, silent under --json) and of JSON on stdout, so the commands cannot
drift apart in spelling, defaults or where their output goes.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import click

HOME_HELP = "State directory. Default: $SPANPROOF_HOME, else the per-user data dir."
DB_HELP = (
    "Store database: sqlite:///PATH or postgresql+psycopg://USER:PASS@HOST:PORT/DB, so several "
    "machines share runs, gate runs and the verdict cache. Default: $SPANPROOF_DB, else "
    "spanproof.sqlite in the home."
)


def home_option(help: str = HOME_HELP):
    return click.option("--home", type=click.Path(file_okay=False), default=None, help=help)


def db_option(help: str = DB_HELP):
    return click.option("--db", default=None, metavar="URL", help=help)


def storage_errors(command: Callable[..., Any]) -> Callable[..., Any]:
    """A storage problem (unusable home, damaged or unreachable database, damaged record)
    is one line on stderr that says how to recover, and exit 2 - never a traceback.
    Put it directly above the function, below the click decorators."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from spanproof.store.errors import StoreError

        try:
            return command(*args, **kwargs)
        except StoreError as exc:
            err(f"Error: {exc}")
            sys.exit(exc.exit_code)

    return wrapper


def json_option(help: str = "Print one JSON document on stdout (no progress, no table)."):
    return click.option("--json", "as_json", is_flag=True, help=help)


def endpoint_options(command):
    """--base-url and --api-key for openai: specs; each falls back to its OPENAI_* variable."""
    command = click.option(
        "--api-key",
        envvar="OPENAI_API_KEY",
        default=None,
        help="API key for openai: specs [env: OPENAI_API_KEY; local servers: any value].",
    )(command)
    return click.option(
        "--base-url",
        envvar="OPENAI_BASE_URL",
        default=None,
        help="OpenAI-compatible endpoint for openai: specs [env: OPENAI_BASE_URL].",
    )(command)


def err(message: str) -> None:
    click.echo(message, err=True)


def progress_printer(as_json: bool, indent: str = "") -> Callable[[str], None] | None:
    """Progress lines go to stderr, and nowhere under --json so stdout stays one document."""
    if as_json:
        return None
    return lambda message: click.echo(f"{indent}{message}", err=True)


def echo_json(payload: Any) -> None:
    click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
