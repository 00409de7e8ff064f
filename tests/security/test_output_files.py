"""Outputs never destroy inputs, and every file a command writes is replaced atomically."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from spanproof.cli import cli
from spanproof.core.files import OutputPathError, refuse_overwriting_inputs, write_atomic

ROOT = Path(__file__).resolve().parents[2]
PAIR = {
    "id": "a",
    "claim": "The council met.",
    "span": "The council met on Monday.",
    "label": "SUPPORTED",
}


def test_verify_refuses_out_equal_to_its_pairs_file_and_keeps_the_input(tmp_path):
    pairs = tmp_path / "p.jsonl"
    original = json.dumps(PAIR) + "\n"
    pairs.write_text(original)
    result = CliRunner().invoke(
        cli, ["verify", "--pairs", str(pairs), "--out", str(pairs), "--home", str(tmp_path / "h")]
    )
    assert result.exit_code == 2
    assert "would destroy the input" in result.output
    assert pairs.read_text() == original


def test_calibrate_refuses_markdown_onto_its_set_file(tmp_path):
    pairs = tmp_path / "set.jsonl"
    original = json.dumps(PAIR) + "\n"
    pairs.write_text(original)
    result = CliRunner().invoke(
        cli,
        ["calibrate", "--set", str(pairs), "--markdown", str(pairs), "--home", str(tmp_path / "h")],
    )
    assert result.exit_code == 2
    assert pairs.read_text() == original


def test_grade_refuses_markdown_onto_the_report(tmp_path):
    report = tmp_path / "r.md"
    report.write_text("The council met [1].\n\n[1]: https://example.org/a\n")
    before = report.read_text()
    result = CliRunner().invoke(
        cli, ["grade", str(report), "--markdown", str(report), "--home", str(tmp_path / "h")]
    )
    assert result.exit_code == 2 and report.read_text() == before


def test_a_symlink_to_an_input_is_the_input(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text("x")
    link = tmp_path / "link.jsonl"
    link.symlink_to(src)
    with pytest.raises(OutputPathError):
        refuse_overwriting_inputs(link, [src])
    refuse_overwriting_inputs(tmp_path / "other.jsonl", [src])  # a different file is fine


def test_write_atomic_leaves_the_old_file_whole_when_the_write_fails(tmp_path, monkeypatch):
    target = tmp_path / "out.md"
    target.write_text("old contents")

    def boom(*_a, **_k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError, match="disk full"):
        write_atomic(target, "new contents")
    assert target.read_text() == "old contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.md"]  # no temp file left behind


def test_write_atomic_replaces_and_creates_parents(tmp_path):
    target = tmp_path / "a" / "b" / "out.json"
    write_atomic(target, "1")
    write_atomic(target, b"2")
    assert target.read_text() == "2"


def test_no_command_writes_an_output_file_except_through_write_atomic():
    """The one helper is the only writer: a new `.write_text(` in product code fails here."""
    offenders = []
    for folder in ("agent", "graders", "reports", "spanproof", "planted_failures"):
        for path in (ROOT / folder).rglob("*.py"):
            if path.name == "files.py":
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"\.write_(text|bytes)\(|open\([^)]*[\"']w[b+]?[\"']", line):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []
