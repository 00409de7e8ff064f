"""Every command's --help shows how to call it: an Examples section with a real invocation."""

from __future__ import annotations

import re

import click
import pytest

from spanproof.cli import cli

EXAMPLES = re.compile(r"^\s*Examples?:\s*$", re.MULTILINE)


def walk(command: click.Command, path: tuple[str, ...] = ("spanproof",)):
    """(path, command, help page) for the command and everything below it."""
    ctx = click.Context(command, info_name=" ".join(path))
    yield path, command, command.get_help(ctx)
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            yield from walk(command.get_command(ctx, name), (*path, name))


def example_problem(path: tuple[str, ...], page: str) -> str | None:
    """Why this help page lacks a usable Examples section, or None when it has one."""
    found = EXAMPLES.search(page)
    if found is None:
        return f"`{' '.join(path)} --help` has no Examples section"
    after = page[found.end() :].splitlines()
    calls = [line.strip() for line in after if line.strip()]
    # The first lines after the heading must be invocations of this command (or its children).
    if not calls or " ".join(path) not in calls[0]:
        return f"`{' '.join(path)} --help` Examples do not start with a `{' '.join(path)}` call"
    return None


COMMANDS = list(walk(cli))


def test_the_walk_reaches_every_command():
    names = {" ".join(p) for p, _, _ in COMMANDS}
    # Groups and their subcommands, not just the top level (the walk cannot silently stop short).
    assert {"spanproof", "spanproof corpus info", "spanproof runs show", "spanproof report weekly",
            "spanproof store prune", "spanproof judge cv"} <= names  # fmt: skip
    assert len(names) >= 30


@pytest.mark.parametrize("path,page", [(p, page) for p, _, page in COMMANDS], ids=lambda v: str(v))
def test_every_command_help_has_examples(path, page):
    assert example_problem(path, page) is None, example_problem(path, page)


def test_a_command_without_examples_is_caught():
    @click.command()
    def bare() -> None:
        """Does a thing."""

    @click.command()
    def other() -> None:
        """Does a thing.

        \b
        Examples:
          somebody-else --flag
        """

    assert "no Examples section" in example_problem(
        ("spanproof", "bare"), bare.get_help(click.Context(bare))
    )
    assert "do not start" in example_problem(
        ("spanproof", "other"), other.get_help(click.Context(other))
    )


@pytest.mark.parametrize("command", ["grade", "gate", "ask", "recheck", "fetch", "quote"])
def test_commands_that_can_fail_document_their_exit_codes(command):
    page = dict((" ".join(p), page) for p, _, page in COMMANDS)[f"spanproof {command}"]
    assert re.search(r"[Ee]xit (codes|status)?\s*:?\s*[0-9]|[Ee]xit [0-9]", page), page
