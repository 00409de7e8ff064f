"""The audit workers' fork server, started ahead by ``verify``: started exactly when the run
will audit a model judge's verdicts in worker processes, never for a run that will not, ended
when the run stops before its pool, and deaf to the Ctrl-C its parent handles."""

from __future__ import annotations

import json
import subprocess
import sys
from multiprocessing import forkserver
from pathlib import Path

import pytest
from click.testing import CliRunner
from spanproof.graders.audit_fork_server import end_fork_server, start_ahead
from spanproof.graders.pool_plan import POOL_MIN_PAIRS

from spanproof.cli import cli


def _pairs(path: Path, n: int, *, broken_last: bool = False) -> Path:
    lines = [json.dumps({"id": f"p{i}", "claim": "It rose 5%.", "span": f"It rose 5% in {i}."})
             for i in range(n)]  # fmt: skip
    if broken_last:
        lines[-1] = "{not json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _running() -> bool:
    return getattr(forkserver._forkserver, "_forkserver_pid", None) is not None


@pytest.fixture
def no_fork_server():
    end_fork_server()
    assert not _running()
    yield
    end_fork_server()


@pytest.mark.parametrize(
    ("specs", "workers", "pairs", "started"),
    [
        (["openai:m"], None, POOL_MIN_PAIRS, True),  # a model judge on a large file
        (["rules", "openai:m"], None, POOL_MIN_PAIRS, True),  # a panel with one
        (["openai:m"], 2, 10, True),  # workers asked for, whatever the size
        (["openai:m"], None, POOL_MIN_PAIRS - 1, False),  # a small file: no workers
        (["openai:m"], 1, POOL_MIN_PAIRS, False),  # one process asked for
        (["rules"], None, POOL_MIN_PAIRS, False),  # local judges have their own pool
        (["no-such-judge:x"], None, POOL_MIN_PAIRS, False),  # the run names the mistake
    ],
)
def test_started_ahead_only_for_a_run_that_audits_in_workers(
    tmp_path, no_fork_server, specs, workers, pairs, started
):
    path = _pairs(tmp_path / "pairs.jsonl", pairs)
    assert start_ahead(specs, workers, path) is started
    assert _running() is started


def test_a_file_that_cannot_be_read_starts_nothing(tmp_path, no_fork_server):
    assert start_ahead(["openai:m"], None, tmp_path / "missing.jsonl") is False
    assert not _running()


def test_a_run_stopped_before_its_pool_ends_the_fork_server_started_for_it(
    tmp_path, no_fork_server
):
    # a thousand lines, one of them not a pair: the fork server is started ahead on the
    # count of lines, the scan then stops the run (exit 2) before any pool exists
    pairs = _pairs(tmp_path / "pairs.jsonl", POOL_MIN_PAIRS, broken_last=True)
    result = CliRunner().invoke(cli, ["verify", "--pairs", str(pairs), "--judge",
                                      "openai:m", "--home", str(tmp_path / "home")])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert not _running()


def _fresh_python_prints(code: str) -> str:
    """What ``code`` prints in a fresh interpreter (nothing this test session imported)."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_the_preload_leaves_ctrl_c_to_the_parent():
    # the fork server preloads the audit (a second) while the command starts; Ctrl-C reaches
    # every process of the terminal's group, and it stopped those imports with a traceback
    code = (
        "import signal, spanproof.graders.audit_preload\n"
        "print(signal.getsignal(signal.SIGINT) == signal.SIG_IGN)"
    )
    assert _fresh_python_prints(code) == "True"


def test_the_verify_command_starts_it_before_importing_the_audit():
    # importing the command (its options' help: the judges the registry knows, which run
    # locally) must not import the audit's readers, or the fork server starts no earlier
    # than it did inside the run
    code = (
        "import sys, spanproof.cli.verify\n"
        "print('spanproof.graders.specifics.slot_reader' in sys.modules)"
    )
    assert _fresh_python_prints(code) == "False"


def test_the_process_that_runs_the_audit_pool_never_imports_the_readers():
    # with the findings computed in the workers, the verify job, the verifier, the pool's
    # parent and the audit of a verdict need none of the readers (about a third of a second
    # of imports before the first model call)
    code = (
        "import sys, spanproof.bench.verify, spanproof.graders.verify\n"
        "import spanproof.graders.audit_pool\n"
        "from spanproof.graders.audit import audit\n"
        "from spanproof.graders.findings_model import PairFindings\n"
        "from spanproof.core.verdict import SpanRef, Verdict\n"
        "found = PairFindings(proofs=(), flags=(), addressed=None, best_quote='It rose 5%.')\n"
        "v = Verdict(verdict='SUPPORTED', quote_used='It rose 5%.')\n"
        "span = SpanRef(url='https://example.org/', start=0, end=11, text='It rose 5%.')\n"
        "audited = audit('It rose 5%.', span, v, found)\n"
        "readers = ('slot_reader', 'graders.findings', 'graders.instructions')\n"
        "print(audited.verdict, any(m.endswith(readers) for m in sys.modules))"
    )
    assert _fresh_python_prints(code) == "SUPPORTED False"
