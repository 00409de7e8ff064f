"""The README's command table, run exactly as written, from a fresh home, in table order.

Each row's `exit` cell states the exit code of each of its commands; a cell marked `*` is a
command the README says this test does not run (it takes minutes, or it is a server).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
SPANPROOF = Path(sys.executable).with_name("spanproof")


class Row:
    def __init__(self, job: str, commands: list[str], exits: list[int], skipped: bool):
        self.job, self.commands, self.exits, self.skipped = job, commands, exits, skipped


def command_table(text: str) -> list[Row]:
    """Rows of the table under `## Commands`: (job, commands in backticks, exit codes, *)."""
    section = text.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    header = [c.strip() for c in lines[0].strip("|").split("|")]
    assert header == ["job", "command", "exit"], header
    rows = []
    for line in lines[2:]:
        # split on cell bars, not on bars inside backticks (`--kind gate|all`)
        cells = [c.strip() for c in re.split(r"\|(?=(?:[^`]*`[^`]*`)*[^`]*$)", line.strip("|"))]
        job, command, exit_cell = cells
        commands = re.findall(r"`([^`]+)`", command)
        exits = [int(x) for x in re.findall(r"\d+", exit_cell)]
        assert len(commands) == len(exits), f"{job}: {len(commands)} commands, exits {exit_cell}"
        rows.append(Row(job, commands, exits, exit_cell.endswith("*")))
    return rows


ROWS = command_table(README.read_text(encoding="utf-8"))


def test_the_table_parses_and_names_only_spanproof_commands():
    assert len(ROWS) >= 10
    for row in ROWS:
        for command in row.commands:
            assert shlex.split(command)[0] == "spanproof", command
    # What the test leaves out, the README says it leaves out, and why.
    assert any(r.skipped for r in ROWS)
    assert "* not run by the README test" in README.read_text(encoding="utf-8")


def test_a_row_whose_exits_do_not_match_its_commands_is_caught():
    table = "\n## Commands\n| job | command | exit |\n|---|---|---|\n| x | `spanproof a`, `spanproof b` | 0 |\n"
    with pytest.raises(AssertionError, match="2 commands"):
        command_table(table)


def fresh_clone(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A fresh clone's state: a new home, no database, no model endpoint; the working
    directory is the repository root as far as the README's relative paths go."""
    root = tmp_path / "clone"
    root.mkdir()
    (root / ".git").mkdir()  # a clone is a git repository (`goldens add-from-reviews` looks)
    (root / "goldens").symlink_to(REPO / "goldens")
    # the repository's own config: `spanproof gate` reads its committed baseline from it
    (root / "pyproject.toml").symlink_to(REPO / "pyproject.toml")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPANPROOF_", "OPENAI_"))}
    env |= {"SPANPROOF_HOME": str(tmp_path / "home"), "COLUMNS": "120"}
    return root, env


def run_as_written(command: str, expected: int, root: Path, env: dict[str, str]) -> str | None:
    """None when `command` exits with `expected`; else what happened."""
    argv = [str(SPANPROOF), *shlex.split(command)[1:]]
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=300,
                          stdin=subprocess.DEVNULL)  # fmt: skip
    if done.returncode == expected:
        return None
    return (
        f"`{command}` exited {done.returncode}, the README says {expected}\n"
        f"stdout: {done.stdout[-1500:]}\nstderr: {done.stderr[-1500:]}"
    )


def test_a_wrong_exit_code_is_caught(tmp_path):
    root, env = fresh_clone(tmp_path)
    assert "exited 0, the README says 1" in run_as_written("spanproof store info", 1, root, env)


def test_every_readme_command_runs_as_written(tmp_path):
    root, env = fresh_clone(tmp_path)
    ran = []
    for row in ROWS:
        if row.skipped:
            continue
        for command, expected in zip(row.commands, row.exits, strict=True):
            problem = run_as_written(command, expected, root, env)
            assert problem is None, problem
            ran.append(command)
    assert len(ran) >= 12, ran
