"""`goldens add-from-reviews` writes into a repository's goldens/ (found from where it runs)
and refuses, writing nothing, anywhere else unless given --out."""

from __future__ import annotations

import json

from click.testing import CliRunner

from spanproof.cli import cli
from spanproof.store import open_store
from tests.view import homes


def _home_with_a_cut(home) -> None:
    run_id = homes.hostile_run(home)
    open_store(home=home).add_review(run_id, 0, "cut", reviewer="ann", note="no",
                                     label="NOT_SUPPORTED")  # fmt: skip


def _add(home, *extra: str):
    return CliRunner().invoke(cli, ["goldens", "add-from-reviews", "--home", str(home), "--json",
                                    *extra])  # fmt: skip


def test_outside_a_repository_it_refuses_and_creates_nothing(tmp_path, monkeypatch):
    home, elsewhere = tmp_path / "home", tmp_path / "somewhere"
    elsewhere.mkdir()
    _home_with_a_cut(home)
    monkeypatch.chdir(elsewhere)
    res = _add(home)
    assert res.exit_code == 2 and "not inside a git repository" in res.output
    assert "--out FILE" in res.output and list(elsewhere.iterdir()) == []
    # a repository that keeps no goldens/ is refused too
    (elsewhere / ".git").mkdir()
    res = _add(home)
    assert res.exit_code == 2 and "has no goldens/ folder" in res.output
    assert not (elsewhere / "goldens").exists()
    # --out writes where it is told
    out = elsewhere / "mine.jsonl"
    assert _add(home, "--out", str(out)).exit_code == 0 and out.is_file()


def test_inside_a_repository_it_writes_the_roots_goldens_from_any_subfolder(tmp_path, monkeypatch):
    home, repo = tmp_path / "home", tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "goldens").mkdir()
    (repo / "docs" / "deep").mkdir(parents=True)
    _home_with_a_cut(home)
    monkeypatch.chdir(repo / "docs" / "deep")
    res = _add(home)
    assert res.exit_code == 0, res.output
    assert len(json.loads(res.stdout)["added"]) == 1
    assert (repo / "goldens" / "reviewed_pairs.jsonl").is_file()
    assert not (repo / "docs" / "deep" / "goldens").exists()
