"""Storage failures are one clear message and exit 2, never a traceback; concurrent first
starts migrate once; run ids are taken literally; a window too wide is refused clearly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from spanproof.cli import cli

REPO = Path(__file__).resolve().parents[2]


def _spanproof(*args: str, env: dict[str, str] | None = None, **kw) -> subprocess.Popen:
    code = "import sys; from spanproof.cli import main; sys.argv[0] = 'spanproof'; main()"
    full_env = {**os.environ, **(env or {})}
    full_env.pop("SPANPROOF_DB", None)
    return subprocess.Popen(
        [sys.executable, "-c", code, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=full_env, **kw,
    )  # fmt: skip


def _run(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    proc = _spanproof(*args, env=env)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err


def _saved_run(home: Path) -> str:
    from spanproof.agent.record import RunConfig, RunRecord
    from spanproof.agent.runstore import RunStore

    rec = RunRecord(run_id=str(uuid.uuid4()), question="q", status="complete",
                    config=RunConfig(policy="extractive"))  # fmt: skip
    RunStore.default(home).save(rec)
    return rec.run_id


def test_eight_processes_starting_on_a_fresh_home_all_list_runs(tmp_path):
    # On a fresh home, concurrent first starts used to race the migration ("table runs
    # already exists", "duplicate column name"): now it runs once, under a write lock.
    home = tmp_path / "fresh"
    procs = [_spanproof("runs", "list", "--kind", "all", env={"SPANPROOF_HOME": str(home)})
             for _ in range(8)]  # fmt: skip
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in procs]
    for code, out, err in results:
        assert code == 0, err
        assert "No runs yet" in out
        assert "Traceback" not in err and "already exists" not in err
    from spanproof.store.store import Store
    from spanproof.store.url import sqlite_url

    assert Store(sqlite_url(home / "spanproof.sqlite")).revision is not None


def _cli(*args: str) -> tuple[int, str]:
    """In-process CLI run: (exit code, stderr); an escaped exception fails the test."""
    result = CliRunner().invoke(cli, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    return result.exit_code, result.stderr


def test_a_home_that_is_a_regular_file_is_a_clear_error_with_exit_2(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.write_text("not a directory")
    monkeypatch.setenv("SPANPROOF_HOME", str(home))
    for args in (["runs", "list"], ["report", "weekly"], ["store", "info"], ["ask", "q?"]):
        code, err = _cli(*args)
        assert code == 2, (args, err)
        assert "is a regular file" in err and f"mv {home} {home}.bak" in err


def test_the_gate_on_an_unusable_home_exits_2_not_1(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.write_text("not a directory")
    monkeypatch.setenv("SPANPROOF_HOME", str(home))
    code, err = _cli("gate")
    assert code == 2 and "is a regular file" in err
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    (damaged / "spanproof.sqlite").write_bytes(os.urandom(4096))
    cfg = tmp_path / "gate.toml"
    cfg.write_text('max_questions = 1\nchecks = ["groundedness"]\n')
    code, err = _cli("gate", "--config", str(cfg), "--home", str(damaged))
    assert code == 2 and "is damaged" in err and "mv " in err


def _read_only(home: Path, *args: str) -> tuple[int, str]:
    """Run spanproof with ``home`` read-only: a chmod for a normal user; for root (who
    ignores modes) a read-only bind mount in a private mount namespace."""
    if os.geteuid() != 0:
        home.chmod(0o555)
        try:
            code, _, err = _run(*args, "--home", str(home))
        finally:
            home.chmod(0o755)
        return code, err
    if not shutil.which("unshare"):
        pytest.skip("root without unshare(1): cannot make a read-only directory here")
    code_line = "import sys; from spanproof.cli import main; sys.argv[0] = 'spanproof'; main()"
    script = (
        f'mount --bind "{home}" "{home}" && mount -o remount,bind,ro "{home}" && '
        f'exec "{sys.executable}" -c "{code_line}" "$@"'
    )
    env = {k: v for k, v in os.environ.items() if k != "SPANPROOF_DB"}
    proc = subprocess.run(["unshare", "-m", "sh", "-c", script, "sh", *args, "--home", str(home)],
                          capture_output=True, text=True, env=env, timeout=120)  # fmt: skip
    if "mount:" in proc.stderr or "unshare:" in proc.stderr:
        pytest.skip(f"cannot make a read-only mount here: {proc.stderr.strip()[:200]}")
    return proc.returncode, proc.stderr


def test_a_read_only_home_is_a_clear_error_with_exit_2(tmp_path):
    home = tmp_path / "ro"
    home.mkdir()
    code, err = _read_only(home, "runs", "list")
    assert code == 2 and "Traceback" not in err, err
    assert "read-only" in err or "not writable" in err
    assert "writable" in err  # says what to do


def test_a_corrupt_store_file_is_a_clear_error_naming_the_file_to_move(tmp_path):
    (tmp_path / "spanproof.sqlite").write_bytes(b"SQLite format 3\x00" + os.urandom(8000))
    result = CliRunner().invoke(cli, ["runs", "list", "--home", str(tmp_path)])
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit)
    assert "is damaged" in result.output and f"mv {tmp_path / 'spanproof.sqlite'}" in result.output


def test_a_corrupt_run_record_is_a_clear_error_and_can_be_removed(tmp_path):
    from spanproof.store import open_store
    from spanproof.store import schema as t

    good = _saved_run(tmp_path)
    bad = _saved_run(tmp_path)
    store = open_store(home=tmp_path)
    with store._write() as conn:
        conn.execute(sa.update(t.runs).where(t.runs.c.run_id == bad).values(record='{"run_id": 1'))
    runner = CliRunner()
    listed = runner.invoke(cli, ["runs", "list", "--home", str(tmp_path)])
    assert listed.exit_code == 0 and bad in listed.output  # listing reads no record
    shown = runner.invoke(cli, ["runs", "show", bad, "--home", str(tmp_path)])
    assert shown.exit_code == 2 and "cannot be read" in shown.output
    assert f"spanproof runs delete {bad}" in shown.output and "Traceback" not in shown.output
    weekly = runner.invoke(cli, ["report", "weekly", "--home", str(tmp_path)])
    assert weekly.exit_code == 2 and bad in weekly.output
    assert runner.invoke(cli, ["runs", "show", good, "--home", str(tmp_path)]).exit_code == 0
    deleted = runner.invoke(cli, ["runs", "delete", bad, "--home", str(tmp_path)])
    assert deleted.exit_code == 0
    assert runner.invoke(cli, ["report", "weekly", "--home", str(tmp_path)]).exit_code == 0


def test_runs_show_percent_does_not_resolve_to_the_newest_run(tmp_path):
    run_id = _saved_run(tmp_path)
    runner = CliRunner()
    for pattern in ("%", "_", "%%", "_" * 8):
        result = runner.invoke(cli, ["runs", "show", pattern, "--json", "--home", str(tmp_path)])
        assert result.exit_code == 2 and run_id not in result.output, pattern
        assert "no run" in result.output
    ok = runner.invoke(cli, ["runs", "show", run_id[:8], "--json", "--home", str(tmp_path)])
    assert ok.exit_code == 0 and json.loads(ok.stdout)["run_id"] == run_id


def test_weekly_since_too_far_back_is_a_clear_error_not_an_overflow(tmp_path):
    runner = CliRunner()
    for since in ("99999999999d", "999999999999w", "73001d"):
        result = runner.invoke(cli, ["report", "weekly", "--since", since, "--home", str(tmp_path)])
        assert result.exit_code == 2, (since, result.output)
        assert "200 years" in result.output and "Traceback" not in result.output
        assert not isinstance(result.exception, OverflowError)
    assert (
        runner.invoke(
            cli, ["report", "weekly", "--since", "3650d", "--home", str(tmp_path)]
        ).exit_code
        == 0
    )
