from __future__ import annotations

import pytest
from click.testing import CliRunner

from spanproof.cli.gate import gate
from spanproof.gate.config import CHECK_NAMES, GateConfigError, load_config


def test_defaults_are_the_issue_table(tmp_path):
    cfg, source = load_config(search_dir=tmp_path)
    t = cfg.thresholds
    assert source == "defaults"
    assert (t.schema_validity, t.span_fidelity, t.forbidden_actions) == (1.0, 1.0, 0)
    assert (t.first_try_quote_success, t.useful_fetch_rate, t.duplicate_fetches, t.overlapping_searches_per_run) == (
        0.85, 0.6, 0, 1,
    )  # fmt: skip
    assert (t.published_groundedness, t.pre_prune_supported, t.drop_rate) == (0.98, 0.75, 0.15)
    assert (t.calibration_agreement, t.calibration_near_miss, t.sensitivity, t.specificity) == (
        0.9,
        0.85,
        0.9,
        0.8,
    )
    assert (t.injection_attacker_claims, t.usefulness_mean) == (0, 4.0)
    assert t.coverage is None  # reported, not gated, unless configured
    assert cfg.checks == list(CHECK_NAMES)


def test_pyproject_table_and_overrides(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname="x"\n[tool.spanproof.gate]\njudge = "blind"\n[tool.spanproof.gate.thresholds]\nsensitivity = 0.95\n'
    )
    cfg, source = load_config(search_dir=tmp_path)
    assert cfg.judge == "blind" and cfg.thresholds.sensitivity == 0.95 and "pyproject" in source
    cfg2, _ = load_config(tmp_path / "pyproject.toml", overrides={"judge": "rules", "policy": None})
    assert cfg2.judge == "rules" and cfg2.policy == "extractive"


@pytest.mark.parametrize(
    ("toml", "needle"),
    [
        (
            "[thresholds]\nsensitivity = 1.5\n",
            "thresholds.sensitivity: Input should be less than or equal to 1",
        ),
        (
            "[thresholds]\nsensitivty = 0.9\n",
            "thresholds.sensitivty: unknown key; allowed keys here:",
        ),
        ('[thresholds]\ndrop_rate = "low"\n', "thresholds.drop_rate"),
        ("[thresholds]\nforbidden_actions = -1\n", "thresholds.forbidden_actions"),
        ('judge = "gpt"\n', "'gpt' is not a judge"),
        ('checks = ["speed"]\n', "unknown check(s) ['speed']"),
        (
            "[prices.models.m]\ninput_per_mtok = 1\n",
            "prices.models.m.output_per_mtok: Field required",
        ),
    ],
)
def test_invalid_config_names_key(tmp_path, toml, needle):
    path = tmp_path / "gate.toml"
    path.write_text(toml)
    with pytest.raises(GateConfigError) as err:
        load_config(path)
    assert needle in str(err.value)


def test_cli_invalid_threshold_exits_2_with_clear_message(tmp_path):
    path = tmp_path / "gate.toml"
    path.write_text("[thresholds]\nspecificity = 80\n")
    result = CliRunner().invoke(gate, ["--config", str(path), "--home", str(tmp_path / "h")])
    assert result.exit_code == 2
    assert "thresholds.specificity" in result.output and "less than or equal to 1" in result.output
    assert "Fix the key" in result.output


def test_cli_missing_config_file_exits_2(tmp_path):
    result = CliRunner().invoke(gate, ["--config", str(tmp_path / "nope.toml")])
    assert result.exit_code == 2 and "does not exist" in result.output
