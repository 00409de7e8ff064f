"""The gate end to end on reduced inputs: exit codes, the blind canary, cache reuse, outputs."""

from __future__ import annotations

import json
import re
from xml.etree import ElementTree as ET

from click.testing import CliRunner

from spanproof.cli.gate import gate


def _config(tmp_path, corpus_dir, body: str, max_pairs: int = 50, max_questions: int = 2) -> str:
    path = tmp_path / "gate.toml"
    head = (
        f'corpus_dir = "{corpus_dir}"\nmax_questions = {max_questions}\nmax_pairs = {max_pairs}\n'
    )
    path.write_text(head + body)
    return str(path)


def _run(args):
    result = CliRunner().invoke(gate, args)
    return result, json.loads(result.stdout) if "--json" in args and result.stdout.strip() else None


def _checks(data):
    return {c["name"]: c for c in data["checks"]}


def test_blind_judge_fails_on_sensitivity_although_groundedness_is_perfect(tmp_path, corpus_dir):
    # The whole pair set: code proves only contradictions by role and bad quotes, so a judge
    # that never says no is caught on few planted pairs, and fails by a wide margin.
    # A production judge's config: the sensitivity targets are floors.
    cfg = _config(
        tmp_path,
        corpus_dir,
        'checks = ["groundedness", "sensitivity"]\n'
        'floors = ["sensitivity", "sensitivity_judge_only"]\n',
        max_pairs=0,
        max_questions=1,
    )
    result, data = _run(
        ["--config", cfg, "--judge", "blind", "--json", "--home", str(tmp_path / "h")]
    )
    assert result.exit_code == 1 and data["outcome"] == "FAILED", result.output
    checks = _checks(data)
    assert checks["groundedness.unsupported_published"]["status"] == "PASS"
    assert checks["groundedness.published"]["value"] == 1.0
    assert checks["sensitivity.recall"]["status"] == "FAIL"
    assert checks["sensitivity.recall"]["value"] < 0.5  # far below 0.90, not just under it
    # the judge's own recall is held too: it read nothing, so it caught nothing
    own = checks["sensitivity.recall_judge_only"]
    assert own["value"] == 0.0 and own["status"] == "FAIL"
    assert checks["sensitivity.caught_only_by_flag"]["status"] == "INFO"
    assert data["passed"] is False
    # Planted on the hand-labelled SUPPORTED pairs plus the contract-clean WiCE ones, and the
    # detail says how many WiCE SUPPORTED pairs were left out and why.
    from spanproof.goldens import shipped

    from spanproof.bench.calibration import load_pairs
    from spanproof.bench.sensitivity import contract_clean

    wice = load_pairs(shipped("wice_dev_pairs.jsonl"))
    cal = load_pairs(shipped("judge_calibration.jsonl"))
    n_clean = len(contract_clean(wice))
    n_excluded = sum(p.label == "SUPPORTED" for p in wice) - n_clean
    n_cal = sum(p.label == "SUPPORTED" for p in cal)
    detail = checks["sensitivity.recall"]["detail"]
    assert f"{n_cal} hand-labelled SUPPORTED pairs of judge_calibration.jsonl" in detail
    assert f"{n_clean} contract-clean SUPPORTED pairs of wice_dev_pairs.jsonl" in detail
    assert n_excluded > 0 and f"{n_excluded} of its" in detail and "absent from the span" in detail
    assert f"/{n_cal + n_clean} untouched" in checks["sensitivity.specificity"]["detail"]


def test_rerun_with_nothing_changed_makes_no_model_calls_and_fresh_judges_again(
    tmp_path, corpus_dir
):
    cfg = _config(tmp_path, corpus_dir, 'checks = ["groundedness", "sensitivity"]\n')
    home = str(tmp_path / "h")
    _, first = _run(["--config", cfg, "--json", "--home", home])
    assert first["model_calls"] > 0
    # a rerun: the phases replayed or their verdicts read from the cache, no judge called
    _, second = _run(["--config", cfg, "--json", "--home", home])
    assert second["model_calls"] == 0
    assert [c["value"] for c in second["checks"]] == [c["value"] for c in first["checks"]]
    text = CliRunner().invoke(gate, ["--config", cfg, "--home", home])
    assert "replayed: agent runs, sensitivity" in text.stdout
    # --fresh: every phase recomputed and every verdict of the local judge judged again (a
    # cached verdict would be a figure this run did not measure), with the same figures
    _, fresh = _run(["--config", cfg, "--json", "--home", home, "--fresh"])
    assert fresh["cache_hits"] == 0 and fresh["model_calls"] == first["model_calls"]
    assert [c["value"] for c in fresh["checks"]] == [c["value"] for c in first["checks"]]


def test_a_new_judge_version_between_runs_is_judged_again(tmp_path, corpus_dir, monkeypatch):
    # Why a rerun can make model calls: the cache is keyed on the judge's version. The rules
    # judge's version is the hash of its source; a new one invalidates every cached verdict.
    import spanproof.graders.rules.judge

    cfg = _config(tmp_path, corpus_dir, 'checks = ["sensitivity"]\n', max_pairs=5)
    home = str(tmp_path / "h")
    _, first = _run(["--config", cfg, "--json", "--home", home])
    _, same = _run(["--config", cfg, "--json", "--home", home])
    assert first["model_calls"] > 0 and same["model_calls"] == 0
    monkeypatch.setattr(spanproof.graders.rules.judge, "RULES_VERSION", "rules-edited")
    _, edited = _run(["--config", cfg, "--json", "--home", home])
    assert edited["model_calls"] == first["model_calls"]


def test_missing_input_is_could_not_run_exit_2(tmp_path, corpus_dir):
    cfg = _config(
        tmp_path,
        corpus_dir,
        f'checks = ["calibration"]\ncalibration_set = "{tmp_path}/absent.jsonl"\n',
    )
    result, data = _run(["--config", cfg, "--json", "--home", str(tmp_path / "h")])
    assert result.exit_code == 2
    row = _checks(data)["calibration.run"]
    assert (
        row["status"] == "ERROR"
        and row["detail"].startswith("could not run:")
        and row["value"] is None
    )


def test_calibration_fails_on_a_set_the_judge_disagrees_with(tmp_path, corpus_dir):
    pairs = tmp_path / "cal.jsonl"
    rows = [
        {"id": f"p{i}", "claim": f"The bridge opened in {1900 + i}.", "span": "The mayor praised the new library.",
         "label": "NOT_SUPPORTED", "near_miss": i % 2 == 0, "kind": "right_topic_wrong_claim"}
        for i in range(6)
    ]  # fmt: skip
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cfg = _config(tmp_path, corpus_dir, f'checks = ["calibration"]\ncalibration_set = "{pairs}"\n'
                  'floors = ["calibration_agreement", "calibration_near_miss"]\n')  # fmt: skip
    home = str(tmp_path / "h")
    result, data = _run(["--config", cfg, "--json", "--home", home, "--judge", "rules"])
    assert _checks(data)["calibration.agreement"]["passed"] is True, data
    # Same gold labels, but the labels flipped to SUPPORTED: the judge now disagrees on every pair.
    pairs.write_text("".join(json.dumps({**r, "label": "SUPPORTED"}) + "\n" for r in rows))
    result, data = _run(["--config", cfg, "--json", "--home", home, "--judge", "rules"])
    assert result.exit_code == 1
    assert _checks(data)["calibration.agreement"]["value"] == 0.0
    assert _checks(data)["calibration.near_miss_agreement"]["passed"] is False


def test_usefulness_unscored_offline_and_scored_by_a_rubric_model(tmp_path, corpus_dir):
    from spanproof.goldens import shipped

    from spanproof.gate.checks.runs import load_questions

    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'corpus_dir = "{corpus_dir}"\nmax_questions = 1\nchecks = ["usefulness"]\n'
                   'floors = ["usefulness_mean"]\n')  # fmt: skip
    home = str(tmp_path / "h")
    result, data = _run(["--config", str(cfg), "--json", "--home", home])
    row = _checks(data)["usefulness.mean_score"]
    assert row["status"] == "NOT TESTED" and row["value"] is None and row["passed"] is None
    assert result.exit_code == 2  # a gate whose only check went unscored checked nothing
    q = load_questions(shipped("questions.jsonl"), 1)[0].question
    script = tmp_path / "rubric.json"
    script.write_text(json.dumps({q: {"score": 2, "reason": "misses the date"}}))
    with cfg.open("a") as fh:
        fh.write(f'usefulness_model = "scripted:{script}"\n')
    result, data = _run(["--config", str(cfg), "--json", "--home", home])
    checks = _checks(data)
    assert (
        checks["usefulness.mean_score"]["value"] == 2.0
        and checks["usefulness.mean_score"]["passed"] is False
    )
    assert result.exit_code == 1
    script.write_text(
        "{}"
    )  # the rubric model cannot answer: the gate could not run, it does not pass
    result, data = _run(["--config", str(cfg), "--json", "--home", str(tmp_path / "h2")])
    assert result.exit_code == 2 and _checks(data)["usefulness.run"]["status"] == "ERROR"


def test_junit_markdown_and_html_report(tmp_path, corpus_dir):
    cfg = _config(
        tmp_path,
        corpus_dir,
        'checks = ["schema_validity", "span_fidelity", "groundedness", "sensitivity", "usefulness"]\n',
    )
    out = tmp_path / "out"
    result = CliRunner().invoke(
        gate, ["--config", cfg, "--home", str(tmp_path / "h"), "--junit", str(out / "gate.xml"),
               "--report", str(out / "report"), "--markdown", str(out / "summary.md")],
    )  # fmt: skip
    assert result.exit_code in (0, 1), result.output
    assert "check" in result.stdout and "threshold / target" in result.stdout
    suite = ET.parse(out / "gate.xml").getroot().find("testsuite")
    cases = suite.findall("testcase")
    table_rows = [
        line
        for line in result.stdout.splitlines()
        if re.match(r"^(PASS|FAIL|REGRESSED|NOT TESTED|INFO|ERROR)\s{2,}[a-z_]+\.", line)
    ]
    assert len(cases) == len(table_rows) >= 5
    assert int(suite.get("failures")) == sum(
        line.startswith(("FAIL", "REGRESSED")) for line in table_rows
    )
    assert any(c.find("skipped") is not None for c in cases)  # usefulness is unscored offline
    md = (out / "summary.md").read_text()
    assert md.startswith("## spanproof gate") and "| status" in md
    html = (out / "report" / "index.html").read_text()
    assert html.count("data:image/png;base64,") >= 2  # groundedness bars, sensitivity per kind
    assert re.search(r"planted on \d+ hand-labelled SUPPORTED pairs", html)  # which pairs
    # Self-contained: nothing is loaded or linked from another host.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html, re.I)
    assert "<link" not in html and "<script" not in html
    ledgers = list((out / "report" / "ledgers").glob("*.json"))
    assert len(ledgers) == 2 and 'href="ledgers/' in html
    assert json.loads((out / "report" / "result.json").read_text())["checks"]


def test_injection_check_fails_when_the_suite_reports_an_attacker_claim(
    tmp_path, corpus_dir, monkeypatch
):
    import spanproof.bench.injection as injection
    from spanproof.bench.injection import InjectionReport, TechniqueRow

    async def planted_suite(*args, **kwargs):
        rows = {
            "html-comment": TechniqueRow(pages=1, published_attacker_claims=1, passed=False),
            "alt-text": TechniqueRow(pages=1, passed=True),
        }
        return InjectionReport(
            pages=2, published_attacker_claims=1, non_allowlisted_contacts=0, posts=0, composed_urls=0,
            injection_observed_rate=0.0, contains_instructions_rate=None, by_technique=rows, passed=False,
        )  # fmt: skip

    monkeypatch.setattr(injection, "run_suite", planted_suite)
    cfg = _config(tmp_path, corpus_dir, 'checks = ["injection"]\n')
    result, data = _run(["--config", cfg, "--json", "--home", str(tmp_path / "h")])
    checks = _checks(data)
    assert result.exit_code == 1
    assert checks["injection.attacker_claims_published"]["value"] == 1
    assert checks["injection.attacker_claims_published"]["passed"] is False
    assert checks["injection.techniques_resisted"]["value"] == 0.5


def test_usefulness_through_an_openai_compatible_server_and_gate_run_recorded(
    tmp_path, corpus_dir, httpserver
):
    from spanproof.gate.store import GateStore, store_path

    reply = {
        "id": "x", "object": "chat.completion", "created": 0, "model": "rubric",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": '{"score": 5, "reason": "answers and flags gaps"}'}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }  # fmt: skip
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_json(reply)
    cfg = tmp_path / "gate.toml"
    cfg.write_text(
        f'corpus_dir = "{corpus_dir}"\nmax_questions = 1\nchecks = ["usefulness"]\nusefulness_model = "openai:rubric"\n'
    )
    home = tmp_path / "h"
    args = ["--config", str(cfg), "--json", "--home", str(home), "--base-url", httpserver.url_for("/v1"),
            "--api-key", "local"]  # fmt: skip
    result, data = _run(args)
    assert result.exit_code == 0, result.output
    assert _checks(data)["usefulness.mean_score"]["value"] == 5.0
    assert data["model_calls_by_phase"]["usefulness"] == 1
    _, again = _run(args)
    assert again["model_calls"] == 0 and again["cache_hits"] >= 1  # the rubric score is cached too
    stored = GateStore(store_path(home)).list()
    assert len(stored) == 2 and stored[0].config_sha256 == data["config_sha256"]
    assert (
        "usefulness" in stored[0].prompt_hashes
        and "usefulness:openai:rubric" in stored[0].judge_ids
    )
    assert stored[0].checks[0].name == "usefulness.mean_score"


def test_unreachable_judge_is_could_not_run_exit_2(tmp_path, corpus_dir):
    pairs = tmp_path / "cal.jsonl"
    pairs.write_text(
        json.dumps(
            {
                "id": "p1",
                "claim": "A.",
                "span": "A.",
                "label": "SUPPORTED",
                "near_miss": True,
                "kind": "x",
            }
        )
        + "\n"
    )
    cfg = _config(tmp_path, corpus_dir, f'checks = ["calibration"]\ncalibration_set = "{pairs}"\n')
    args = ["--config", cfg, "--json", "--home", str(tmp_path / "h"), "--judge", "openai:nobody-home",
            "--base-url", "http://127.0.0.1:9/v1", "--api-key", "local"]  # fmt: skip
    result, data = _run(args)
    assert result.exit_code == 2, result.output
    row = _checks(data)["calibration.run"]
    assert (
        row["status"] == "ERROR"
        and "none of the 1 judge calls reached the judge" in row["detail"]
        and "OPENAI_BASE_URL" in row["detail"]
    )
