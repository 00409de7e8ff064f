"""The gate never passes having checked nothing: empty or all-error gates and configs that
would silently check less (misspelt tables, coerced types) are refused with exit 2."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from spanproof.cli.gate import gate
from spanproof.gate.config import GateConfigError, load_config
from spanproof.gate.rows import error_row, exit_code_for, gated_row


def test_an_empty_check_list_is_refused(tmp_path):
    cfg = tmp_path / "g.toml"
    cfg.write_text("checks = []\n")
    with pytest.raises(GateConfigError, match="at least one check"):
        load_config(cfg)


def test_a_misspelt_tool_table_is_an_error_not_the_defaults(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.spanproof.gates]\njudge = "blind"\n')
    with pytest.raises(GateConfigError, match=r"\[tool\.spanproof\.gates\]"):
        load_config(search_dir=tmp_path)
    with pytest.raises(GateConfigError, match="unknown table"):
        load_config(tmp_path / "pyproject.toml")


@pytest.mark.parametrize(
    ("toml", "key"),
    [
        ("[thresholds]\nforbidden_actions = true\n", "thresholds.forbidden_actions"),
        ('[thresholds]\nsensitivity = "0.9"\n', "thresholds.sensitivity"),
        ('[thresholds]\nduplicate_fetches = "0"\n', "thresholds.duplicate_fetches"),
        ("max_pairs = 1.5\n", "max_pairs"),
        ("concurrency = true\n", "concurrency"),
    ],
)
def test_threshold_types_are_strict_never_coerced(tmp_path, toml, key):
    cfg = tmp_path / "g.toml"
    cfg.write_text(toml)
    with pytest.raises(GateConfigError, match=key):
        load_config(cfg)


def test_an_int_still_counts_as_a_rate(tmp_path):
    cfg = tmp_path / "g.toml"
    cfg.write_text("[thresholds]\nsensitivity = 1\nusefulness_mean = 4\n")
    loaded, _ = load_config(cfg)
    assert loaded.thresholds.sensitivity == 1.0


def test_all_error_rows_exit_2_even_when_nothing_is_required():
    rows = [error_row("calibration", "no pairs"), error_row("injection", "crashed")]
    assert exit_code_for(rows, required=[]) == 2
    assert exit_code_for([], required=[]) == 2
    passing = gated_row("sensitivity", "recall", 0.95, ">=", 0.9, "")
    assert exit_code_for([*rows, passing], required=[]) == 0
    assert exit_code_for([gated_row("sensitivity", "recall", 0.5, ">=", 0.9, "")], []) == 1


def test_gate_with_only_an_erroring_unrequired_check_exits_2(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    cfg = tmp_path / "g.toml"
    cfg.write_text(
        f'checks = ["calibration"]\nrequired = []\ncalibration_set = "{tmp_path / "nope.jsonl"}"\n'
    )
    result = CliRunner().invoke(gate, ["--config", str(cfg), "--home", str(tmp_path / "h")])
    assert result.exit_code == 2, result.output
    assert "PASSED" not in result.output
