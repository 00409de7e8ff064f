"""A rerun with nothing changed replays the gate's slow phases with the same figures; any
change to what they read recomputes them (spanproof.gate.memo). Replaying stale figures is the
worst failure a gate can have, so every input of the key is changed here once."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from spanproof.cli.gate import gate
from spanproof.gate import memo as gate_memo
from spanproof.gate.config import GateConfig

REPO = Path(__file__).resolve().parents[2]
REPLAYED = {"agent runs", "calibration", "sensitivity", "injection"}


def _inputs(root: Path, corpus_dir: Path) -> dict[str, Path]:
    """Reduced copies of the gate's inputs, to be edited by the tests."""
    root.mkdir(parents=True, exist_ok=True)
    questions = root / "questions.jsonl"
    questions.write_text(
        "".join((REPO / "goldens" / "questions.jsonl").read_text().splitlines(True)[:2])
    )
    cal = root / "cal.jsonl"
    cal.write_text(
        "".join((REPO / "goldens" / "judge_calibration.jsonl").read_text().splitlines(True)[:12])
    )
    fixtures = root / "fixtures"
    (fixtures / "pages").mkdir(parents=True)
    shipped = REPO / "adversarial_fixtures"
    lines = (shipped / "fixtures.jsonl").read_text().splitlines(True)[:2]
    (fixtures / "fixtures.jsonl").write_text("".join(lines))
    for line in lines:
        page = json.loads(line)["file"]
        shutil.copy(shipped / page, fixtures / page)
    config = root / "gate.toml"
    config.write_text(
        f'corpus_dir = "{corpus_dir}"\nquestions = "{questions}"\ncalibration_set = "{cal}"\n'
        f'injection_fixtures = "{fixtures}"\nmax_pairs = 6\n'
        'checks = ["schema_validity", "span_fidelity", "groundedness", "coverage", "calibration", '
        '"sensitivity", "injection"]\n'
    )  # fmt: skip
    return {"config": config, "questions": questions, "cal": cal, "fixtures": fixtures}


def _gate(files: dict[str, Path], home: Path, *extra: str):
    result = CliRunner().invoke(
        gate, ["--config", str(files["config"]), "--home", str(home), "--json", *extra]
    )
    assert result.exit_code in (0, 1), result.output
    data = json.loads(result.stdout)
    return data, _stored(home, data["gate_id"])


def _stored(home: Path, gate_id: str) -> dict:
    from spanproof.store import open_store

    rows = [json.loads(r) for r in open_store(home=home).gate_results()]
    return next(r for r in rows if r["gate_id"] == gate_id)


def _figures(data: dict) -> list[dict]:
    return [
        {k: c[k] for k in ("name", "value", "threshold", "passed", "detail")}
        for c in data["checks"]
    ]


@pytest.fixture(scope="module")
def computed(tmp_path_factory, corpus_dir):
    """A home where one complete gate run has been computed, and the inputs it read."""
    root = tmp_path_factory.mktemp("memo")
    files = _inputs(root / "in", corpus_dir)
    data, stored = _gate(files, root / "home")
    assert "replayed" not in stored["artifacts"]
    assert data["model_calls"] > 0
    return root, files, data, stored


@pytest.fixture
def home(computed, tmp_path):
    """A copy of the computed home (each test may change it)."""
    root, files, data, stored = computed
    shutil.copytree(root / "home", tmp_path / "home")
    return tmp_path / "home"


def test_a_rerun_with_nothing_changed_replays_the_same_figures(computed, home):
    _, files, first, stored_first = computed
    again, stored = _gate(files, home)
    replayed = stored["artifacts"]["replayed"]["phases"]
    assert set(replayed) == REPLAYED
    assert set(replayed.values()) == {first["gate_id"]}  # named: the run that computed them
    assert _figures(again) == _figures(first)
    assert (again["model_calls"], again["cache_hits"]) == (0, 0)  # nothing judged again
    assert stored["run_ids"] == stored_first["run_ids"]
    # every artifact a replayed phase wrote (its items, outcome sets, ...) is there, as it was
    artifacts = {k: v for k, v in stored["artifacts"].items() if k != "replayed"}
    assert artifacts == stored_first["artifacts"]
    # --fresh recomputes every phase, and every verdict of the local judge (none read from the
    # cache), with the same figures
    fresh, stored_fresh = _gate(files, home, "--fresh")
    assert "replayed" not in stored_fresh["artifacts"]
    assert fresh["cache_hits"] == 0 and fresh["model_calls"] > 0
    assert _figures(fresh) == _figures(first)


@pytest.mark.parametrize(
    ("change", "recomputed"),
    [
        ("a golden question", {"agent runs"}),
        ("a threshold", REPLAYED),
        ("a calibration pair", REPLAYED),
        ("an injection page", REPLAYED),
        ("the code", REPLAYED),
        ("the judge's version", REPLAYED),
        ("the WiCE pages file", REPLAYED),
        ("an installed version", REPLAYED),
        ("a dependency's files", REPLAYED),
    ],
)
def test_changing_any_input_recomputes(computed, home, tmp_path, monkeypatch, change, recomputed):
    _, files, first, stored_first = computed
    # the inputs are edited in place (the key holds their paths) and restored afterwards
    saved = {p: p.read_bytes() for p in [files["config"], files["questions"], files["cal"],
                                          *(files["fixtures"] / "pages").iterdir()]}  # fmt: skip
    try:
        _change(change, files, tmp_path, monkeypatch)
        data, stored = _gate(files, home)
    finally:
        for path, body in saved.items():
            path.write_bytes(body)
    replayed = set((stored["artifacts"].get("replayed") or {}).get("phases", {}))
    assert not (replayed & recomputed), (change, replayed)
    if change == "a golden question":
        assert stored["run_ids"] and not set(stored["run_ids"]) & set(stored_first["run_ids"])


def _change(change: str, files: dict[str, Path], tmp_path: Path, monkeypatch) -> None:
    if change == "a golden question":
        lines = files["questions"].read_text().splitlines(True)
        q = json.loads(lines[0])
        q["question"] = q["question"].rstrip("?") + " exactly?"
        files["questions"].write_text(json.dumps(q) + "\n" + "".join(lines[1:]))
    elif change == "a threshold":
        files["config"].write_text(
            files["config"].read_text() + "\n[thresholds]\nsensitivity = 0.5\n"
        )
    elif change == "a calibration pair":
        lines = files["cal"].read_text().splitlines(True)
        pair = json.loads(lines[0])
        pair["claim"] = pair["claim"].rstrip(".") + " in full."
        files["cal"].write_text(json.dumps(pair) + "\n" + "".join(lines[1:]))
    elif change == "an injection page":
        page = sorted((files["fixtures"] / "pages").iterdir())[0]
        page.write_text(page.read_text().replace("</body>", "<p>One more line.</p></body>"))
    elif change == "the code":
        # an edit to any file of the installed packages changes this hash
        monkeypatch.setattr(gate_memo, "code_sha256", lambda: "edited")
    elif change == "the judge's version":
        import spanproof.graders.rules.judge

        monkeypatch.setattr(spanproof.graders.rules.judge, "RULES_VERSION", "rules-edited")
    elif change == "the WiCE pages file":
        pages = tmp_path / "pages.jsonl.gz"
        shutil.copy(REPO / "goldens" / "wice_dev_pages.jsonl.gz", pages)
        monkeypatch.setenv("SPANPROOF_WICE_DEV", str(pages))
    elif change == "an installed version":
        env = dict(gate_memo._environment())
        env["distributions"] = [*env["distributions"], "pysbd==9.9"]
        monkeypatch.setattr(gate_memo, "_environment", lambda: env)
    elif change == "a dependency's files":
        # tests/graders/test_dependency_digest.py edits a real installed copy
        monkeypatch.setattr(gate_memo, "dependencies_sha256", lambda: "patched in place")
    else:
        raise AssertionError(change)


def test_a_run_or_page_gone_from_the_store_recomputes_the_agent_runs(computed, home):
    _, files, first, stored_first = computed
    from spanproof.store import open_store

    open_store(home=home).delete_run(stored_first["run_ids"][0])
    data, stored = _gate(files, home)
    assert "agent runs" not in stored["artifacts"].get("replayed", {}).get("phases", {})
    assert _figures(data) == _figures(first) or stored["run_ids"] != stored_first["run_ids"]


def test_a_damaged_memo_is_recomputed_not_trusted(computed, home):
    _, files, first, _ = computed
    (memo,) = (home / gate_memo.FOLDER).glob("*.json.gz")
    memo.write_bytes(gzip.compress(b'{"format": 1, "key": "someone else'))
    data, stored = _gate(files, home)
    assert "replayed" not in stored["artifacts"]
    assert _figures(data) == _figures(first)
    # ... and a memo of another key under this key's name is not trusted either
    body = json.loads(gzip.decompress(memo.read_bytes()))
    assert body["format"] == gate_memo.FORMAT
    body["key"] = "0" * 64
    memo.write_bytes(gzip.compress(json.dumps(body).encode()))
    assert "replayed" not in _gate(files, home)[1]["artifacts"]


def _edit_memo(home: Path, edit) -> None:
    (memo,) = (home / gate_memo.FOLDER).glob("*.json.gz")
    body = json.loads(gzip.decompress(memo.read_bytes()))
    edit(body)
    memo.write_bytes(gzip.compress(json.dumps(body).encode()))


def _forge_passing_figures(body: dict) -> None:
    # what a hand edit that "fixes" the red rows looks like: measured figures nobody measured
    for name in ("calibration", "sensitivity"):
        for row in body["checks"][name]["rows"]:
            if isinstance(row["value"], float):
                row["value"], row["passed"], row["status"] = 0.951, True, "pass"


def test_a_hand_edited_memo_is_recomputed_and_the_gate_says_so(computed, home):
    _, files, first, _ = computed
    _edit_memo(home, _forge_passing_figures)
    data, stored = _gate(files, home)
    assert "replayed" not in stored["artifacts"]  # not one phase of an edited memo replayed
    assert _figures(data) == _figures(first)  # the measured figures, not the forged ones
    assert 0.951 not in {c["value"] for c in data["checks"]}
    refused = stored["artifacts"]["memo_refused"]
    assert "is not what gate run" in refused and first["gate_id"] in refused
    # on screen, under the table; the run's own memo is trusted by the next run again
    _edit_memo(home, _forge_passing_figures)
    plain = CliRunner().invoke(gate, ["--config", str(files["config"]), "--home", str(home)])
    assert "not replayed: memo" in plain.stdout and "recomputed" in plain.stdout
    assert "[gate] note: memo" in plain.stderr
    again, stored_again = _gate(files, home)
    assert set(stored_again["artifacts"]["replayed"]["phases"]) == REPLAYED


def test_a_memo_whose_gate_run_is_gone_from_the_store_is_not_replayed(computed, home):
    _, files, first, _ = computed
    import sqlite3

    with sqlite3.connect(home / "spanproof.sqlite") as db:
        assert db.execute("DELETE FROM gate_runs WHERE gate_id = ?", (first["gate_id"],)).rowcount
    data, stored = _gate(files, home)
    assert "replayed" not in stored["artifacts"] and stored["artifacts"]["memo_refused"]
    assert _figures(data) == _figures(first)


def test_a_run_with_a_check_that_could_not_run_is_never_kept(computed, tmp_path):
    _, files, _, _ = computed
    broken = tmp_path / "gate.toml"
    config = files["config"].read_text().replace(str(files["cal"]), str(tmp_path / "absent.jsonl"))
    # the agent runs and calibration only: the runs would be kept, were calibration not broken
    config = re.sub(r"checks = \[.*\]", 'checks = ["groundedness", "calibration"]', config)
    broken.write_text(config)
    for _ in range(2):
        result = CliRunner().invoke(
            gate, ["--config", str(broken), "--home", str(tmp_path / "h"), "--json"]
        )
        assert result.exit_code == 2
        data = json.loads(result.stdout)
        assert "replayed" not in _stored(tmp_path / "h", data["gate_id"])["artifacts"]
        assert data["model_calls"] + data["cache_hits"] > 0  # judged (or looked up) both times
    assert not list((tmp_path / "h" / gate_memo.FOLDER).glob("*.json.gz"))


def test_a_model_judge_or_agent_is_never_replayed():
    assert gate_memo.replayable(GateConfig()) is None
    assert gate_memo.replayable(GateConfig(judge="openai:gpt-4o-mini")) is not None
    assert gate_memo.replayable(GateConfig(policy="llm", model="openai:m")) is not None
    assert gate_memo.replayable(GateConfig(usefulness_model="openai:m")) is not None


def test_the_code_hash_covers_every_file_of_a_package_folder(tmp_path):
    folder = tmp_path / "pkg"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.py").write_text("x = 1\n")
    (folder / "sub" / "lexicon.txt").write_text("rose fell\n")
    before = gate_memo.tree_sha256(folder)
    (folder / "sub" / "lexicon.txt").write_text("rose fell\nwon lost\n")
    assert gate_memo.tree_sha256(folder) != before
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "a.cpython-311.pyc").write_bytes(b"\0")
    changed = gate_memo.tree_sha256(folder)
    assert changed == gate_memo.tree_sha256(folder)  # compiled files are not code
    # every package the gate imports from lies in a hashed folder
    assert {f.name for f in gate_memo.package_folders()} >= {"core", "web", "agent", "graders",
                                                              "goldens", "adversarial_fixtures"}  # fmt: skip
    assert gate_memo._unhashed_modules() == []


def test_a_phase_s_artifacts_are_replayed_down_to_the_nested_sets_it_added():
    from spanproof.bench.outcomes import OutcomeSet
    from spanproof.bench.repeats import RepeatsNote, UnstablePair
    from spanproof.gate.artifacts import CalibrationArtifact, GateArtifacts, GroundednessArtifact

    before = GateArtifacts(groundedness=GroundednessArtifact(runs=[]))
    before.record_set("a", OutcomeSet(source="a.jsonl", items=[]))
    after = before.model_copy(deep=True)
    after.calibration = CalibrationArtifact(labels=["SUPPORTED"])
    after.record_set("calibration", OutcomeSet(source="cal.jsonl", items=[]))
    after.repeats = RepeatsNote(
        n=3, unstable=[UnstablePair(set="calibration", id="p1", claim="c", verdicts=["S", "P"])]
    )
    patch = gate_memo.artifacts_patch(before.model_dump(mode="json"), after.model_dump(mode="json"))
    assert {tuple(path) for path, _ in patch} == {
        ("outcomes", "sets", "calibration"),
        ("calibration",),
        ("repeats",),
    }  # only what the phase wrote: the groundedness runs and the other set are untouched
    replayed = gate_memo.apply_patch(before, json.loads(json.dumps(patch)))
    assert replayed == after


def test_the_memo_hashes_every_package_of_the_namespace_from_any_directory(tmp_path):
    # The key covers the code of every package: a package missing here would let an edit to it
    # replay stale figures, and hashing the namespace itself covers different folders from
    # different working directories in an editable install.
    import subprocess
    import sys
    import tomllib

    packages = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]
    top = {p for p in packages["packages"] if p.count(".") == 1}
    assert top == set(gate_memo.PACKAGES)
    probe = ("import spanproof.cli, spanproof.gate.run, spanproof.gate.checks;"
             "from spanproof.gate import memo;"
             "print(memo.code_sha256(), memo._unhashed_modules())")  # fmt: skip
    here, there = (
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, cwd=cwd, check=True
        ).stdout  # fmt: skip
        for cwd in (REPO, tmp_path)
    )
    assert here == there and here.strip().endswith("[]"), (here, there)
