"""`spanproof verify` with a model judge imports only what it uses: not the openai SDK (its
replies are read into the client's own type), not the store's SQLAlchemy (nothing is cached
with --no-cache), not the agent's loop and web, not pandas, matplotlib or Alembic, not httpx (the model calls go over h11) and so not the
rich and pygments httpx imports for its command line, not the run records' models. Importing
them was over a second of the command's own CPU, on the process whose event loop sends every
model call; this holds them out, so a module-level import added on the way cannot bring them
back unseen.

The real command runs in a fresh interpreter against a local OpenAI-compatible server and
reports, at exit, every module it imported."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.wire.server import ChatServer, honest_judge

# Modules the verify path with an openai: judge and --no-cache must not import.
NOT_IMPORTED = (
    "openai",
    "sqlalchemy",
    "alembic",
    "pandas",
    "matplotlib",
    "spanproof.store.store",
    "spanproof.agent.run",
    "spanproof.web.egress",
    # the model calls go over h11 (spanproof.wire.lean): httpx's stack is not imported, nor
    # its command line's rich and pygments (httpx's __init__ imports them)
    "httpx",
    "httpcore",
    "anyio",
    "rich",
    "pygments",
    # the run records' models: verify keeps no run
    "spanproof.agent.record",
)

MARK = "modules imported: "
PROBE = (
    "import atexit, json, sys\n"
    f"atexit.register(lambda: print({MARK!r} + json.dumps(sorted(sys.modules)), file=sys.stderr))\n"
    "{before}\n"
    "from spanproof.cli import main\n"
    "main()\n"
)

PAIRS = [
    {"id": "p1", "claim": "The council approved a budget of $4 million.",
     "span": "On Monday the council approved a budget of $4 million for the new library."},
    {"id": "p2", "claim": "The bridge opened in 1932.",
     "span": "The bridge, designed by a local engineer, opened to traffic in 1932."},
]  # fmt: skip


def imported_by_verify(tmp_path: Path, before: str = "") -> set[str]:
    """The modules a `verify --judge openai:... --no-cache` run imported (``before``: code run
    first in the same interpreter)."""
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("".join(json.dumps(p) + "\n" for p in PAIRS), encoding="utf-8")
    with ChatServer(honest_judge) as server:
        proc = subprocess.run(
            [sys.executable, "-c", PROBE.format(before=before), "verify", "--pairs", str(pairs),
             "--judge", "openai:local-judge", "--base-url", server.base_url, "--api-key", "k",
             "--no-cache", "--home", str(tmp_path / "home"), "--json"],
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["model_calls"] == len(PAIRS)  # the judge was really called
    line = next(x for x in proc.stderr.splitlines() if x.startswith(MARK))
    return set(json.loads(line.removeprefix(MARK)))


def heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in NOT_IMPORTED if m in modules)


def test_verify_with_a_model_judge_imports_none_of_what_it_does_not_use(tmp_path):
    modules = imported_by_verify(tmp_path)
    assert heavy(modules) == []
    assert "spanproof.wire.client" in modules  # the probe sees the command's own imports


def test_the_probe_sees_a_module_the_command_imported(tmp_path):
    # a planted import on the way (as a module-level import would be) is caught
    modules = imported_by_verify(tmp_path, before="import sqlalchemy, openai")
    assert {"openai", "sqlalchemy"} <= set(heavy(modules))


def test_importing_httpx_would_bring_its_command_lines_rich_and_pygments(tmp_path):
    # why httpx is held out of the verify path, not only its own import: its __init__ imports
    # its command line (httpx._main), and with it rich and pygments
    modules = imported_by_verify(tmp_path, before="import httpx")
    assert {"httpx", "rich", "pygments"} <= set(heavy(modules))
