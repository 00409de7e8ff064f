"""A baseline is checked, not trusted: a file whose figures disagree with its per-item
outcomes, with counts no gate run can produce, or with an item listed twice is refused (exit 2)
with what is wrong and how to regenerate it; the committed baseline itself passes."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from spanproof.cli.gate import gate
from spanproof.gate.baseline import BaselineError, load_file, resolve
from spanproof.gate.result import GateResult
from spanproof.gate.store import GateStore
from spanproof.store import open_store

REPO = Path(__file__).resolve().parents[2]
COMMITTED = REPO / "goldens" / "gate_baseline.json"


def _committed() -> dict:
    return json.loads(COMMITTED.read_text())


def _first(data: dict, set_name: str = "calibration") -> dict:
    return data["outcomes"]["sets"][set_name]["items"][0]


def _zero_outcomes(data: dict) -> None:
    # every success wiped while the figures were left alone: a blind judge then looks unchanged
    for outcome_set in data["outcomes"]["sets"].values():
        for item in outcome_set["items"]:
            item["counts"] = {k: [0, n] for k, (_, n) in item["counts"].items()}


def _five_of_one(data: dict) -> None:
    _first(data)["counts"]["correct"] = [5, 1]


def _negative(data: dict) -> None:
    _first(data)["counts"]["correct"] = [-1, 1]


def _string(data: dict) -> None:
    _first(data)["counts"]["correct"] = ["1", 1]


def _fraction(data: dict) -> None:
    _first(data)["counts"]["correct"] = [0.5, 1]


def _duplicate(data: dict) -> None:
    items = data["outcomes"]["sets"]["calibration"]["items"]
    items.append(copy.deepcopy(items[0]))


def _figure_edited(data: dict) -> None:
    data["figures"]["sensitivity.recall"] = 0.951


def _figure_dropped(data: dict) -> None:
    del data["figures"]["calibration.agreement"]


TAMPERED = {
    # the committed figure, named with the count that no longer gives it (refits move it)
    "zeroed outcomes": (
        _zero_outcomes,
        f"calibration.agreement is {_committed()['figures']['calibration.agreement']} but its "
        "per-item outcomes give 0",
    ),
    "5 of 1": (_five_of_one, "count 5 of 1 has more successes than trials"),
    "negative": (_negative, "count -1 of 1 is negative"),
    "string": (_string, "outcomes.sets.calibration.items.0.counts.correct.0"),
    "fraction": (_fraction, "outcomes.sets.calibration.items.0.counts.correct.0"),
    "duplicate key": (_duplicate, "appears twice in the set"),
    "figure edited": (_figure_edited, "sensitivity.recall is 0.951 but its per-item outcomes"),
    "figure dropped": (_figure_dropped, "the figure calibration.agreement is missing"),
}


def test_the_committed_baseline_passes_its_own_checks():
    assert load_file(COMMITTED).outcomes.sets  # figures agree with counts, counts are possible


@pytest.mark.parametrize("case", list(TAMPERED))
def test_a_tampered_baseline_file_is_refused_naming_the_problem(case, tmp_path):
    tamper, expected = TAMPERED[case]
    data = _committed()
    tamper(data)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    with pytest.raises(BaselineError) as refused:
        load_file(path)
    message = str(refused.value)
    assert expected in message
    assert f"--save-baseline {path}" in message  # how to make a good one


@pytest.mark.parametrize("case", ["zeroed outcomes", "5 of 1", "duplicate key"])
def test_the_gate_exits_2_on_a_tampered_baseline_before_any_work(case, tmp_path):
    """Against the zeroed file, `--judge blind` used to show 0 regressions instead of 13."""
    data = _committed()
    TAMPERED[case][0](data)
    path = tmp_path / "tampered.json"
    path.write_text(json.dumps(data))
    home = tmp_path / "h"
    res = CliRunner().invoke(
        gate, ["--judge", "blind", "--baseline", str(path), "--home", str(home)]
    )
    assert res.exit_code == 2, res.output
    assert "cannot be trusted" in res.stderr and "--save-baseline" in res.stderr
    assert open_store(home=home).count("gate_runs") == 0  # refused before anything ran


def test_a_stored_gate_run_with_impossible_counts_is_no_baseline(tmp_path):
    data = _committed()
    _five_of_one(data)
    result = GateResult(passed=True, exit_code=0, checks=[], wall_s=0.0, gate_id="g1",
                        started_at="2026-01-01T00:00:00Z",
                        artifacts={"outcomes": data["outcomes"]})  # fmt: skip
    GateStore.default(tmp_path).save(result)
    with pytest.raises(BaselineError, match="5 of 1 has more successes than trials"):
        resolve("g1", store=open_store(home=tmp_path), branch=None)
