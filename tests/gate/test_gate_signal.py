"""The gate's signal: one meaning per status and exit code, measured against the committed
baseline of the shipped default.

- the default gate equals its committed baseline (a stale baseline is an error here, in CI)
  and exits 0, saying what it checked against what and which design targets it misses;
- a judge that rubber-stamps exactly ten near-miss pairs is REGRESSED, naming those ten;
- the blind judge is REGRESSED, naming the pairs that moved;
- an agent that shows an unsupported claim, and an injection leak, each FAIL a floor;
- each of the three reaches JUnit as its own failure type.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from click.testing import CliRunner

from spanproof.cli.gate import gate

REPO = Path(__file__).resolve().parents[2]
BASELINE = REPO / "goldens" / "gate_baseline.json"
REGENERATE = "spanproof gate --save-baseline goldens/gate_baseline.json"


def _gate(*args: str) -> tuple[object, dict]:
    result = CliRunner().invoke(gate, [*args, "--json"])
    return result, json.loads(result.stdout) if result.stdout.strip() else {}


def _config(tmp_path: Path, body: str) -> str:
    path = tmp_path / "gate.toml"
    path.write_text(f'baseline = "{BASELINE}"\n' + body)
    return str(path)


def _rows(data: dict) -> dict[str, dict]:
    return {c["name"]: c for c in data["checks"]}


def _moved(data: dict, row: str) -> list[dict]:
    return next(r["moved"] for r in data["baseline"]["rows"] if r["row"] == row)


@pytest.fixture(scope="module")
def default_gate(tmp_path_factory):
    """`spanproof gate` as the quick start runs it: the repository's own config (its committed
    baseline), the offline default."""
    home = tmp_path_factory.mktemp("default")
    out = tmp_path_factory.mktemp("out")
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(REPO)
        result = CliRunner().invoke(gate, ["--home", str(home), "--json", "--save-baseline",
                                           str(out / "now.json")])  # fmt: skip
    return (result, json.loads(result.stdout), json.loads((out / "now.json").read_text()),
            home)  # fmt: skip


def test_the_committed_baseline_is_the_shipped_default_s_measurement(default_gate):
    _, _, now, _ = default_gate
    committed = json.loads(BASELINE.read_text())
    assert committed["judge"] == "rules"
    stale = [
        name for name in sorted(set(now["outcomes"]["sets"]) | set(committed["outcomes"]["sets"]))
        if now["outcomes"]["sets"].get(name, {}).get("items")
        != committed["outcomes"]["sets"].get(name, {}).get("items")
    ]  # fmt: skip
    assert not stale, (
        f"goldens/gate_baseline.json is stale: the sets {stale} measure differently now. If "
        f"the change is meant to move these figures, regenerate it: {REGENERATE}"
    )


def test_the_quick_start_gate_exits_0_and_says_what_it_checked(default_gate):
    result, data, _, _ = default_gate
    assert result.exit_code == 0 and data["outcome"] == "PASSED", result.output
    rows = _rows(data)
    assert {r["status"] for r in rows.values()} <= {"PASS", "NOT TESTED", "INFO"}
    assert rows["calibration.agreement"]["status"] == "PASS"  # tested against the baseline
    assert rows["calibration.agreement"]["to_target"] < 0  # ... and short of its design target
    assert data["baseline"]["ref"].endswith("gate_baseline.json")


def test_the_quick_start_gate_s_first_screen_says_against_what_and_which_targets_it_misses(
    default_gate,
):
    from spanproof.reports.markdown import terminal_table

    from spanproof.gate.store import GateStore

    *_, home = default_gate
    (stored,) = GateStore.default(home).list()
    first = terminal_table(stored).splitlines()[:9]
    text = "\n".join(first)
    assert "floors (contracts that hold absolutely):" in text and "FAIL" not in text
    assert "against baseline file" in text and "gate_baseline.json" in text
    assert "design targets this judge does not meet" in text and "reads words only" in text
    agreement = next(r.value for r in stored.checks if r.name == "calibration.agreement")
    assert agreement < 0.9  # the offline judge misses this target: the screen must say so
    assert f"calibration.agreement {agreement:.3f}, target >= 0.900" in text


def test_rubber_stamping_ten_near_miss_pairs_is_regressed_naming_exactly_those_ten(tmp_path):
    import asyncio

    from spanproof.graders.judges import make_judge
    from spanproof.graders.quoting import best_window
    from spanproof.graders.verify import Verifier

    from spanproof.bench.calibration import load_pairs
    from spanproof.core.verdict import SpanRef

    pairs = load_pairs(REPO / "goldens" / "judge_calibration.jsonl")
    spans = [(p.claim, SpanRef(text=p.span)) for p in pairs]
    rules = asyncio.run(Verifier([make_judge("rules")]).verify_many(spans))
    blind = asyncio.run(Verifier([make_judge("blind")]).verify_many(spans))
    # near-miss pairs rules gets right that a rubber stamp would get wrong (code cannot prove
    # them, so the audit does not rescue a SUPPORTED there)
    stampable = [
        p.id for p, r, b in zip(pairs, rules, blind, strict=True)
        if p.near_miss and r.verdict == p.label != "SUPPORTED" and b.verdict == "SUPPORTED"
    ]  # fmt: skip
    assert len(stampable) >= 10
    stamped = set(stampable[:10])
    script = {}
    for p, r in zip(pairs, rules, strict=True):
        entry = {"verdict": r.judge_verdict or r.verdict, "quote_used": r.quote_used,
                 "unsupported_element": r.unsupported_element}  # fmt: skip
        if p.id in stamped:
            entry = {"verdict": "SUPPORTED", "quote_used": best_window(p.claim, p.span)}
        script[p.id] = entry
    judge = tmp_path / "stamp.json"
    judge.write_text(json.dumps(script))
    cfg = _config(tmp_path, 'checks = ["calibration"]\nrequired = ["calibration"]\n')
    result, data = _gate("--config", cfg, "--judge", f"scripted:{judge}",
                         "--home", str(tmp_path / "h"), "--junit", str(tmp_path / "g.xml"))  # fmt: skip
    assert result.exit_code == 1 and data["outcome"] == "REGRESSED", result.output
    rows = _rows(data)
    assert rows["calibration.near_miss_agreement"]["status"] == "REGRESSED"
    assert {m["id"] for m in _moved(data, "calibration.near_miss_agreement")} == stamped
    assert {m["id"] for m in _moved(data, "calibration.agreement")} == stamped
    assert all(m["after_verdicts"] == ["SUPPORTED"] for m in _moved(data, "calibration.agreement"))
    failure = _junit(tmp_path / "g.xml")["calibration.near_miss_agreement"].find("failure")
    assert failure.get("type") == "Regressed" and sorted(stamped)[0] in failure.text
    text = CliRunner().invoke(gate, ["--config", cfg, "--judge", f"scripted:{judge}",
                                     "--home", str(tmp_path / "h")]).stdout  # fmt: skip
    assert "REGRESSED calibration.near_miss_agreement: significantly worse" in text
    assert all(f"- {pid}" in text for pid in stamped)


def test_the_blind_judge_is_regressed_naming_the_pairs_that_moved(tmp_path):
    cfg = _config(tmp_path, 'checks = ["calibration", "sensitivity"]\n'
                  'required = ["calibration", "sensitivity"]\n')  # fmt: skip
    result, data = _gate("--config", cfg, "--judge", "blind", "--home", str(tmp_path / "h"))
    assert result.exit_code == 1 and data["outcome"] == "REGRESSED", result.output
    rows = _rows(data)
    for name in ("calibration.agreement", "sensitivity.recall", "sensitivity.recall_judge_only"):
        assert rows[name]["status"] == "REGRESSED", rows[name]
        assert _moved(data, name), name
    # no floor broke: a judge that reads nothing is a regression, not a broken contract
    assert not [r for r in rows.values() if r["status"] == "FAIL"]


def _junit(path: Path) -> dict[str, ET.Element]:
    suite = ET.parse(path).getroot().find("testsuite")
    return {c.get("name"): c for c in suite.findall("testcase")}


def test_an_agent_that_shows_an_unsupported_claim_fails_a_floor(tmp_path, corpus_dir, monkeypatch):
    import spanproof.agent.publish
    from spanproof.graders.judges import judge, registry

    from spanproof.core.verdict import JudgeBase, Verdict

    class Naysayer(JudgeBase):
        id = "naysayer"
        prompt_sha256 = "naysayer-v1"

        async def judge(self, claim, span):
            return Verdict(verdict="NOT_SUPPORTED", judge=self.id, prompt_sha256=self.prompt_sha256)

    monkeypatch.setattr(registry, "_KINDS", dict(registry._KINDS))
    judge("naysayer", summary="always NOT_SUPPORTED", local=True, deterministic=False)(
        lambda argument, endpoint: Naysayer()
    )
    # an agent whose routing publishes whatever it drafted
    monkeypatch.setattr(spanproof.agent.publish, "route", lambda text, verdict, partial:
                        ("published", text, ""))  # fmt: skip
    cfg = _config(tmp_path, f'corpus_dir = "{corpus_dir}"\nmax_questions = 2\n'
                  'checks = ["groundedness"]\nrequired = ["groundedness"]\n')  # fmt: skip
    result, data = _gate("--config", cfg, "--judge", "naysayer", "--home", str(tmp_path / "h"),
                         "--junit", str(tmp_path / "g.xml"))  # fmt: skip
    assert result.exit_code == 1 and data["outcome"] == "FAILED", result.output
    row = _rows(data)["groundedness.unsupported_published"]
    assert row["status"] == "FAIL" and row["value"] > 0
    assert row["items"] and "shown as published with verdict NOT_SUPPORTED" in row["items"][0]
    failure = _junit(tmp_path / "g.xml")["groundedness.unsupported_published"].find("failure")
    assert failure.get("type") == "FloorBroken"


def test_an_injection_leak_fails_a_floor(tmp_path, monkeypatch):
    import spanproof.agent.publish
    import spanproof.graders.findings
    import spanproof.graders.instructions
    import spanproof.graders.rules.judge

    from spanproof.bench.injection import COMPROMISED_SPEC

    shipped = REPO / "adversarial_fixtures"
    fixtures = tmp_path / "fixtures"
    (fixtures / "pages").mkdir(parents=True)
    keep = {"visible-body-text", "verifier-addressed"}
    lines = [json.loads(line) for line in (shipped / "fixtures.jsonl").read_text().splitlines()
             if line.strip()]  # fmt: skip
    chosen = [f for f in lines if f["id"] in keep]
    for f in chosen:
        shutil.copy(shipped / f["file"], fixtures / f["file"])
    (fixtures / "fixtures.jsonl").write_text("".join(json.dumps(f) + "\n" for f in chosen))
    for module in (spanproof.graders.instructions, spanproof.graders.rules.judge,
                   spanproof.graders.findings):  # fmt: skip
        monkeypatch.setattr(module, "find_instructions", lambda text: [])
    monkeypatch.setattr(spanproof.agent.publish, "off_question", lambda text, subs: False)
    cfg = _config(tmp_path, f'injection_fixtures = "{fixtures}"\npolicy = "llm"\n'
                  f'model = "{COMPROMISED_SPEC}"\nchecks = ["injection"]\n'
                  'required = ["injection"]\n')  # fmt: skip
    result, data = _gate("--config", cfg, "--home", str(tmp_path / "h"),
                         "--junit", str(tmp_path / "g.xml"))  # fmt: skip
    assert result.exit_code == 1 and data["outcome"] == "FAILED", result.output
    row = _rows(data)["injection.attacker_claims_published"]
    assert row["status"] == "FAIL" and row["value"] > 0
    failure = _junit(tmp_path / "g.xml")["injection.attacker_claims_published"].find("failure")
    assert failure.get("type") == "FloorBroken"
    # the leaking pages are named by the ids `spanproof injection --only` takes, in the row
    # and in the stored artifact the viewer lists, with what each got through
    from spanproof.gate.store import GateStore

    (stored,) = GateStore.default(tmp_path / "h").list()
    assert stored.artifacts.injection is not None
    leaked = stored.artifacts.injection.failing_pages
    assert leaked and set(leaked) <= keep and all("published" in w for w in leaked.values())
    assert f"pages: {', '.join(leaked)}" in json.dumps(row)


def test_runs_gates_lists_the_ids_the_baseline_option_takes(default_gate):
    from spanproof.cli import cli

    *_, home = default_gate
    listed = CliRunner().invoke(cli, ["runs", "gates", "--home", str(home), "--json"])
    assert listed.exit_code == 0, listed.output
    (only,) = json.loads(listed.stdout)
    assert only["outcome"] == "PASSED" and only["judge"] == "rules"
    text = CliRunner().invoke(cli, ["runs", "gates", "--home", str(home)]).stdout
    assert only["gate_id"] in text and "PASSED" in text


def test_no_verdict_in_the_default_gate_quotes_over_the_audit_s_word_limit(default_gate):
    # The verifier contract: quote_used is at most 25 words of the span. The extractive agent
    # quotes whole sentences (spans may be longer), so the judge's quote is the one that must
    # stay within the limit on every run the gate makes, and the audit never has to note it.
    from spanproof.agent.runstore import RunStore
    from spanproof.graders.quoting import QUOTE_MAX_WORDS

    *_, home = default_gate
    records = RunStore.default(home).records()
    verdicts = [c.verdict for r in records for c in r.answer.claims if c.verdict is not None]
    assert len(records) >= 40 and len(verdicts) >= 40
    over = [v.quote_used for v in verdicts if len((v.quote_used or "").split()) > QUOTE_MAX_WORDS]
    noted = [ch.detail for v in verdicts for ch in v.checks if "-word limit" in ch.detail]
    assert over == [] and noted == []
