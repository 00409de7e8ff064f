"""`--repeat N` for judges that are not deterministic: every sample cached by its index, figures
as means with their spread, and the pairs whose verdict changes listed as unstable."""

from __future__ import annotations

import json
import shutil

from click.testing import CliRunner

from spanproof.cli.gate import gate

SENTENCES = [
    "The bridge over the river opened to traffic in the spring.",
    "The library added a reading room for children on the second floor.",
    "The council voted to extend the bus route to the new hospital.",
    "The museum lent two paintings to a gallery in another city.",
    "The school replaced the roof of its gymnasium during the summer.",
    "The harbour authority dredged the channel for larger ships.",
]


def _calibration_set(tmp_path):
    path = tmp_path / "cal.jsonl"
    path.write_text("".join(
        json.dumps({"id": f"c{i}", "claim": s, "span": s, "label": "SUPPORTED",
                    "near_miss": False, "kind": "clear"}) + "\n"
        for i, s in enumerate(SENTENCES)
    ))  # fmt: skip
    script = {f"c{i}": {"verdict": "SUPPORTED", "quote_used": s} for i, s in enumerate(SENTENCES)}
    # c1 answers differently on its second sample: a judge that is not deterministic
    script["c1"]["by_repeat"] = ["SUPPORTED", "PARTIAL", "SUPPORTED"]
    judge = tmp_path / "flaky.json"
    judge.write_text(json.dumps(script))
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'checks = ["calibration"]\nrequired = ["calibration"]\n'
                   f'calibration_set = "{path}"\n')  # fmt: skip
    return cfg, judge


def test_gate_repeat_lists_unstable_pairs_and_reports_means_with_their_spread(tmp_path):
    cfg, judge = _calibration_set(tmp_path)
    args = ["--config", str(cfg), "--judge", f"scripted:{judge}", "--home", str(tmp_path / "h"),
            "--repeat", "3"]  # fmt: skip
    res = CliRunner().invoke(gate, [*args, "--json"])
    # a calibration-only gate with no baseline tests no trend: it says so (exit 2), never passes
    assert res.exit_code == 2, res.output
    data = json.loads(res.stdout)
    row = next(c for c in data["checks"] if c["name"] == "calibration.agreement")
    assert abs(row["value"] - 17 / 18) < 1e-9  # 6/6, 5/6, 6/6 over the three samples
    assert "mean of 3 repeats (per repeat 1.000, 0.833, 1.000; sd 0.096)" in row["detail"]
    assert data["repeats"]["n"] == 3
    (unstable,) = data["repeats"]["unstable"]
    assert unstable["id"] == "c1" and unstable["verdicts"] == ["SUPPORTED", "PARTIAL", "SUPPORTED"]
    assert data["model_calls"] == 18  # 6 pairs x 3 samples
    # Every sample is cached under its repeat index: a rerun that recomputes (its replay memo
    # gone, so no phase is replayed) asks the judge nothing. (--fresh would judge every local
    # verdict again.)
    shutil.rmtree(tmp_path / "h" / "gate-memo")
    again = json.loads(CliRunner().invoke(gate, [*args, "--json"]).stdout)
    assert again["model_calls"] == 0 and again["cache_hits"] == 18
    table = CliRunner().invoke(gate, args).stdout
    assert "1 unstable pair(s)" in table and "unstable calibration c1" in table
