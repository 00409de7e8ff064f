"""scripts/proof_cases.py reads a case file or says what is wrong with it: a damaged line
(named), a plain pair file, an empty file are each exit 2, never a table over nothing; a
proven paraphrase is exit 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[2]


CASE = {"id": "c1", "claim": "The bridge opened in 1932.", "span": "The bridge opened in 1934.",
        "kind": "contradiction", "slot": "date"}  # fmt: skip


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (json.dumps(CASE) + '\n{"id": "c2", "claim"\n', ":2: not a case"),
        ("\n\n", "no cases read"),
        (json.dumps({k: CASE[k] for k in ("id", "claim", "span")}) + "\n", "not plain pair files"),
    ],
)
def test_a_file_that_is_not_a_case_file_exits_2_saying_why(tmp_path, capsys, text, said):
    path = tmp_path / "cases.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        load_script("proof_cases").main([str(path)])
    assert stop.value.code == 2 and said in capsys.readouterr().err


def test_a_proven_paraphrase_is_exit_1_and_a_proven_contradiction_exit_0(tmp_path, capsys):
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(CASE) + "\n", encoding="utf-8")
    assert load_script("proof_cases").main([str(path)]) == 0
    path.write_text(json.dumps(CASE | {"kind": "paraphrase"}) + "\n", encoding="utf-8")
    assert load_script("proof_cases").main([str(path)]) == 1
    assert "paraphrase: proven 1 of 1" in capsys.readouterr().out
