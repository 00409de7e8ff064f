"""The `spanproof` command: a thin layer over the library.

Each subcommand lives in its own module and is imported only when used, so
`spanproof --help` stays fast and one command's imports never slow another.
"""

from __future__ import annotations

import importlib
import sys
from typing import Any

import click

# name -> (module, attribute, one-line help) of a click command or group
COMMANDS: dict[str, tuple[str, str, str]] = {
    "corpus": ("spanproof.cli.evidence", "corpus", "Build or describe an offline web corpus."),
    "search": (
        "spanproof.cli.evidence",
        "search",
        "Search the offline corpus (or another backend).",
    ),
    "fetch": (
        "spanproof.cli.evidence",
        "fetch",
        "Fetch a page through the egress policy and store it.",
    ),
    "quote": ("spanproof.cli.evidence", "quote", "Extract an exact span from a stored document."),
    "verify": (
        "spanproof.cli.verify",
        "verify",
        "Judge (claim, span) pairs with one or more judges.",
    ),
    "ask": ("spanproof.cli.agent", "ask", "Answer a question with every claim bound to a span."),
    "recheck": (
        "spanproof.cli.agent",
        "recheck",
        "Re-fetch a run's sources and confirm each quote.",
    ),
    "runs": ("spanproof.cli.runs", "runs", "List or show stored runs."),
    "judge": (
        "spanproof.cli.judge",
        "judge",
        "Fit, cross-validate and ablate the offline rules judge.",
    ),
    "sensitivity": (
        "spanproof.cli.bench",
        "sensitivity",
        "Plant failures and measure whether a judge says no.",
    ),
    "calibrate": (
        "spanproof.cli.bench",
        "calibrate",
        "Compare judges with human labels, side by side.",
    ),
    "injection": (
        "spanproof.cli.injection",
        "injection",
        "Run the agent against locally served injection pages.",
    ),
    "gate": ("spanproof.cli.gate", "gate", "Run every check and fail when a threshold drops."),
    "goldens": (
        "spanproof.cli.goldens",
        "goldens",
        "Golden data in the repository: add reviewers' decisions as labelled pairs.",
    ),
    "report": ("spanproof.cli.gate", "report", "Reports built from the run store (weekly)."),
    "grade": (
        "spanproof.cli.grade",
        "grade",
        "Grade another agent's cited report, claim by claim.",
    ),
    "store": (
        "spanproof.cli.store",
        "store",
        "The run store: info, prune, migrate a home into a shared database.",
    ),
    "view": (
        "spanproof.cli.view",
        "view",
        "A local web page to read runs and gate results and review each claim.",
    ),
}


# The errors every command turns into one line and exit 2, by module and class. They are read
# from the modules already imported, never imported here: an error's class is imported before
# it can be raised, and importing these modules to catch them would put the store (SQLAlchemy)
# and the snapshot store on every command's start-up, whether it uses them or not.
ONE_LINE_ERRORS = (
    ("spanproof.graders.errors", "JudgeConfigError"),
    ("spanproof.graders.instructions", "DetectorWordsError"),
    ("spanproof.web.snapshots", "SnapshotStoreError"),
)


def _raised(exc: Exception, module: str, name: str) -> bool:
    """Is ``exc`` an instance of ``module.name``, if that module has been imported?"""
    cls = getattr(sys.modules.get(module), name, None)
    return isinstance(cls, type) and isinstance(exc, cls)


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module_name, attr, _ = COMMANDS[name]
        # the command is loaded only when it is run (a registry of names keeps help fast)
        command: click.Command = getattr(importlib.import_module(module_name), attr)
        return command

    def invoke(self, ctx: click.Context) -> Any:
        # Any command: a storage problem, a damaged snapshot file, damaged detector word files
        # or a judge that cannot work as configured is a one-line fix on stderr and exit 2,
        # never a traceback (commands that catch it themselves say the same).
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            # Ctrl-C before a command's own handling starts (its imports, opening its input):
            # exit 130 as a stopped command does (options.run_async), not click's "Aborted!"
            # and 1, which a script cannot tell from a failure
            click.echo("interrupted (Ctrl-C) before the command started its work", err=True)
            ctx.exit(130)
        except Exception as exc:
            if _raised(exc, "spanproof.store.errors", "StoreError"):
                click.echo(f"Error: {exc}", err=True)
                ctx.exit(getattr(exc, "exit_code", 2))
            if any(_raised(exc, module, name) for module, name in ONE_LINE_ERRORS):
                click.echo(f"Error: {exc}", err=True)
                ctx.exit(2)
            raise

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Help text comes from the table so listing commands imports nothing.
        rows = [(name, help_text) for name, (_, _, help_text) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="spanproof")
def cli() -> None:
    """spanproof: answers whose every claim is bound to an exact span of a fetched page,
    and a test bench that proves the grader can still say no.

    \b
    Everything runs offline by default (replayed corpus, local index, `rules` judge,
    `extractive` policy). Real models: any OpenAI-compatible endpoint, e.g.
      OPENAI_API_KEY=... spanproof ask "..." --model openai:gpt-4o-mini
    State lives under --home, $SPANPROOF_HOME, or the per-user data directory; runs,
    gate runs and the verdict cache in --db / $SPANPROOF_DB (default: SQLite in the home,
    PostgreSQL for a team: see `spanproof store --help`).

    \b
    Examples:
      spanproof gate                             # every check, offline
      spanproof ask "When did former congresswoman Liz Patterson die?"
      spanproof COMMAND --help                   # each command's own examples
    """
    from spanproof.wire import forget_clients

    forget_clients()  # each command starts with fresh model clients (negotiation, counters)


def main() -> None:
    cli()
