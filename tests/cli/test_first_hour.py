"""A new user's first hour, from a fresh clone and the README: what the commands say must be
what is true (an expected offline failure says so and why, an unset variable is named, a
reviewed run reads as reviewed, a gap is a gap), and the viewer shows what it is asked for."""

from __future__ import annotations

import json
import re
import socket
import subprocess

import pytest
from starlette.testclient import TestClient

from spanproof.gate.result import GateResult
from spanproof.gate.rows import CheckRow
from tests.cli.test_readme_commands import README, SPANPROOF, fresh_clone


def spanproof(root, env, *args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(SPANPROOF), *args], cwd=root, env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL, **kw)  # fmt: skip


def _row(check: str, metric: str, status: str, why: str = "", **kw) -> CheckRow:
    return CheckRow(name=f"{check}.{metric}", check=check, value=0.5, threshold=">= 0.9",
                    passed=status == "pass", status=status, why=why, **kw)  # fmt: skip


def _gate(rows: list[CheckRow], judge: str = "rules", code: int = 1) -> GateResult:
    return GateResult(passed=code == 0, exit_code=code, checks=rows, wall_s=1.0, judge=judge,
                      policy="extractive", gate_id="g")  # fmt: skip


# --- 1. the quick-start gate -------------------------------------------------------------


def test_the_gate_says_which_design_targets_its_judge_misses_and_why():
    from spanproof.reports.markdown import markdown_summary, terminal_table

    short = _row("calibration", "agreement", "pass", role="trend", to_target=-0.4)
    met = _row("sensitivity", "specificity", "pass", role="trend", to_target=0.1)
    offline = _gate([short, met, _row("span_fidelity", "exact_spans", "pass")], code=0)
    for text in (terminal_table(offline), markdown_summary(offline)):
        assert "design targets this judge does not meet" in text
        assert "calibration.agreement 0.500, target >= 0.9, -0.400" in text
        assert "reads words only" in text  # why: the registry's word on the offline judge
        assert "sensitivity.specificity 0.500, target" not in text  # a target met is no news
        assert "gate PASSED (exit 0)" in text
    model = _gate([short], judge="openai:m", code=0)
    assert "OpenAI-compatible" in terminal_table(model)


def test_the_terminal_never_cuts_the_reason_a_row_is_not_a_pass():
    from spanproof.reports.markdown import terminal_table

    why = "a reason " + "x" * 300
    result = _gate([_row("span_fidelity", "exact_spans", "fail", why=why, role="floor",
                         items=[f"span_{i:016x} differs from snapshot" for i in range(12)])])  # fmt: skip
    text = terminal_table(result)
    assert f"FAIL span_fidelity.exact_spans: {why}" in text
    assert "span_0000000000000009 differs" in text and "... and 2 more" in text
    assert "gate FAILED (exit 1)" in text


@pytest.fixture(scope="module")
def asked_clone(tmp_path_factory):
    """A fresh clone whose user has asked the README's first question."""
    root, env = fresh_clone(tmp_path_factory.mktemp("asked"))
    done = spanproof(root, env, "ask", "When did former congresswoman Liz Patterson die?")
    assert done.returncode == 0, done.stderr
    return root, env


# --- 2. store migrate with an unset variable ---------------------------------------------


def test_store_migrate_to_an_unset_variable_names_the_variable_not_the_source(asked_clone):
    root, env = asked_clone
    # the README's command, as a shell runs it with SPANPROOF_DB unset
    done = subprocess.run(["bash", "-c", f'"{SPANPROOF}" store migrate --from "$SPANPROOF_HOME" '
                           '--to "$SPANPROOF_DB"'], cwd=root, env=env, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--to is empty" in done.stderr and "$SPANPROOF_DB" in done.stderr
    assert "no spanproof store" not in done.stderr
    assert "copied" not in done.stdout  # nothing was copied anywhere


# --- 3. runs show after a review ------------------------------------------------------------


def test_runs_show_numbers_decisions_as_its_citations_and_shows_the_edited_wording(asked_clone):
    from spanproof.store import open_store

    root, env = asked_clone
    store = open_store(home=env["SPANPROOF_HOME"])
    record = json.loads(spanproof(root, env, "runs", "show", "last", "--json").stdout)
    first = record["answer"]["claims"][0]
    edited = "Liz Patterson died on a Saturday."
    store.add_review(record["run_id"], first["index"], "edit", reviewer="ann", edited_text=edited)
    shown = spanproof(root, env, "runs", "show", "last")
    assert shown.returncode == 0, shown.stderr
    answer = shown.stdout.split("Reviewer decisions")[0]
    assert edited in answer and first["text"] not in answer.split("#")[0]
    decisions = shown.stdout.split("Reviewer decisions")[1]
    assert re.search(r"\[1\]\s+edit\s+ann", decisions), decisions  # the citations' [1], not 0


# --- 5. the straw man --------------------------------------------------------------------------


def test_the_readme_says_presence_is_the_straw_man_wherever_it_is_used():
    text = README.read_text(encoding="utf-8")
    assert "--judge presence" in text
    for line in text.splitlines():
        if "--judge presence" in line:
            assert "straw man" in line, line


# --- 6. gaps and the trace ---------------------------------------------------------------------


def test_ask_lists_no_gap_that_a_shown_claim_answers_and_the_trace_claims_no_coverage(tmp_path):
    root, env = fresh_clone(tmp_path)
    done = spanproof(root, env, "ask", "Which court ruled in Plessy v. Ferguson, and in what year?")
    assert done.returncode == 0, done.stderr
    assert "the Supreme Court ruled in Plessy v. Ferguson" in done.stdout
    assert "Not sourced: Which court" not in done.stdout
    assert "every sub-question has a covering span" not in done.stderr


# --- 7. the rest -------------------------------------------------------------------------------


def test_judge_training_says_how_far_it_has_got():
    from spanproof.judge_training.data import Row
    from spanproof.judge_training.training import features

    rows = [Row(id=f"r{i}", claim=f"The council approved {i} new parks.",
                span=f"On Monday the council approved {i} new parks for the city.",
                label="SUPPORTED", origin="wice", group=f"g{i}", fold=i % 5)
            for i in range(20)]  # fmt: skip
    said: list[str] = []
    features(rows, progress=said.append)
    assert any(re.match(r"\s+measuring: \d+/20 pairs", s) for s in said), said
    assert any(re.match(r"\s+auditing: \d+/20 pairs", s) for s in said), said


def test_ask_with_a_dead_model_does_not_say_no_model_was_called(tmp_path):
    root, env = fresh_clone(tmp_path)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    done = spanproof(root, env, "ask", "When did former congresswoman Liz Patterson die?",
                     "--model", "openai:gone", "--base-url", f"http://127.0.0.1:{port}/v1",
                     "--api-key", "local")  # fmt: skip
    assert done.returncode == 2
    assert "no model was called" not in done.stdout + done.stderr
    assert "no model reply arrived" in done.stdout


def _viewer(home):
    from spanproof.view.app import create_app
    from spanproof.view.settings import ViewSettings

    return TestClient(create_app(ViewSettings(home=home, port=8765)),
                      base_url="http://127.0.0.1:8765")  # fmt: skip


def test_two_identical_gate_results_compare_as_agreeing_not_as_an_empty_table(tmp_path):
    from spanproof.gate.store import GateStore

    rows = [_row("calibration", "agreement", "fail"), _row("sensitivity", "recall", "pass")]
    store = GateStore.default(tmp_path)
    for gate_id in ("a1", "b2"):
        store.save(_gate(rows).model_copy(update={"gate_id": gate_id}))
    page = _viewer(tmp_path).get("/gates/compare?a=a1&b=b2").text
    assert "0 of 2 checks moved" in page and "agree on every check" in page
    assert page.count('data-check="') == 2


def test_the_gate_list_says_which_runner_ran_each_gate(tmp_path):
    from spanproof.gate.store import GateStore
    from spanproof.store import open_store

    GateStore.default(tmp_path).save(_gate([_row("calibration", "agreement", "pass")], code=0))
    (where,) = open_store(home=tmp_path).gate_provenance()
    assert where.runner  # recorded with every gate run ($SPANPROOF_RUNNER, else the host name)
    page = _viewer(tmp_path).get("/gates").text
    assert "<th>runner</th>" in page
    assert f'<td class="small runner">{where.runner}' in page


@pytest.mark.parametrize("db", [None, "postgresql+psycopg://ci:s3cret@db.internal:5432/team"])
def test_view_names_the_store_it_reads(tmp_path, db):
    from spanproof.view.server import banner
    from spanproof.view.settings import ViewSettings

    first = banner(ViewSettings(home=tmp_path, db=db))[0]
    if db is None:
        assert str(tmp_path / "spanproof.sqlite") in first
    else:
        assert "db.internal:5432/team" in first and "s3cret" not in first
        assert str(tmp_path) not in first
