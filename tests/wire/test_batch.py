"""`verify --batch` and the gate's judge_batch against a local server with the Batch API
(tests/wire/batch_server.py): one job, the online path's verdicts, a resume that submits
nothing, and every way a batch can end badly failing closed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import openai

from spanproof.wire.batch_results import Line, read_line

from .batch_server import BatchServer
from .conftest import run_cli, write_pairs
from .server import ChatServer, context_400_for, text_reply
from .test_gate_warm_cold import calibration_set

ROOT = Path(__file__).resolve().parents[2]


def verify(server, pairs, home, *extra: str):
    args = ["verify", "--pairs", str(pairs), "--judge", "openai:fake", "--base-url",
            server.base_url, "--api-key", "local", "--home", str(home), *extra]  # fmt: skip
    return run_cli(*args)


def batch(server, pairs, home, *extra: str):
    return verify(server, pairs, home, "--batch", "--batch-poll", "0.05", *extra)


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def records(home: Path) -> list[Path]:
    return sorted((home / "batches").glob("*.json")) if (home / "batches").exists() else []


def test_one_batch_gives_the_online_verdicts_and_a_failed_line_is_an_error(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 12, marker_at=4, marker="LONGLONG")
    with BatchServer(context_400_for("LONGLONG")) as server:
        first = batch(server, pairs, tmp_path / "b", "--out", str(tmp_path / "batch.jsonl"))
        assert (server.uploads, server.batches_created, server.count) == (1, 1, 0)
        online = verify(server, pairs, tmp_path / "o", "--out", str(tmp_path / "online.jsonl"))
        assert server.count == 12  # the online path: one request per pair
    assert first.exit_code == online.exit_code == 1  # one pair got an error, not a verdict
    assert "submitted batch batch_" in first.stderr and "completed, 12/12 done, 1 failed" in (
        first.stderr
    )
    got, want = rows(tmp_path / "batch.jsonl"), rows(tmp_path / "online.jsonl")
    assert [r["id"] for r in got] == [r["id"] for r in want]
    for g, w in zip(got, want, strict=True):
        if w["error"]:  # the same pair fails either way; the wording of the cause differs
            assert g["error"] and "maximum context length" in g["error"] and g["id"] == "p4"
            g, w = {**g, "error": None}, {**w, "error": None}
        assert g == w
    assert records(tmp_path / "b") == []  # finished: nothing left to resume


def test_cached_pairs_are_not_sent_again_and_a_rerun_asks_only_for_the_failed_one(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 6, marker_at=2, marker="LONGLONG")
    told = {"fail": True}

    def sometimes(body, server):  # the context error happens once, then the pair is answered
        if told["fail"]:
            return context_400_for("LONGLONG")(body, server)
        return context_400_for("never-present")(body, server)

    with BatchServer(sometimes) as server:
        assert batch(server, pairs, tmp_path).exit_code == 1
        told["fail"] = False
        again = batch(server, pairs, tmp_path, "--json")
        third = batch(server, pairs, tmp_path, "--json")
        second_batch = server.batches[max(server.batches)]
    assert again.exit_code == 0 and second_batch["request_counts"]["total"] == 1
    data = json.loads(third.stdout)
    assert data["cache_hits"] == 6 and data["batch"][0]["batch_id"] is None
    assert server.batches_created == 2


def test_an_interrupted_command_resumes_its_batch_and_submits_nothing_new(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 8)
    with BatchServer(hold=True) as server:
        stopped = batch(server, pairs, tmp_path, "--deadline", "1")
        assert stopped.exit_code == 2 and "--deadline" in stopped.stderr
        assert "the same command run again collects it" in stopped.stderr
        assert len(records(tmp_path)) == 1  # the batch's id, kept for the next command
        server.release_batches()
        resumed = batch(server, pairs, tmp_path, "--json")
    assert resumed.exit_code == 0, resumed.output
    assert (server.uploads, server.batches_created, server.count) == (1, 1, 0)
    assert "(resumed)" in resumed.stderr
    assert json.loads(resumed.stdout)["batch"][0]["resumed"] is True
    assert records(tmp_path) == []


def test_ctrl_c_while_waiting_exits_130_and_the_next_run_collects_the_same_batch(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 4)
    with BatchServer(hold=True) as server:
        cmd = [sys.executable, "-c", "from spanproof.cli import main; main()", "verify",
               "--pairs", str(pairs), "--judge", "openai:fake", "--base-url", server.base_url,
               "--api-key", "local", "--home", str(tmp_path), "--batch", "--batch-poll", "0.05"]  # fmt: skip
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                # as a terminal delivers Ctrl-C, also under a background runner
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
        deadline = time.monotonic() + 60
        while server.batches_created == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.3)  # polling now
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == 130, stderr
        assert "the same command run again collects it" in stderr
        server.release_batches()
        again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert (server.uploads, server.batches_created, server.count) == (1, 1, 0)
    assert "(resumed)" in again.stderr


def test_an_expired_batch_gives_error_verdicts_for_what_did_not_run(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 10)
    with BatchServer(expire_after=6) as server:
        result = batch(server, pairs, tmp_path, "--json")
        assert result.exit_code == 1
        data = json.loads(result.stdout)
        assert data["errors"] == 4 and data["verdicts"]["SUPPORTED"] == 6
        errors = [r["error"] for r in data["results"] if r["error"]]
        assert all("expired" in e for e in errors)
        assert data["batch"][0]["status"] == "expired"
        assert records(tmp_path) == []  # a rerun submits the four that did not run
        batch(server, pairs, tmp_path)
        assert server.batches[max(server.batches)]["request_counts"]["total"] == 4


def test_a_cancelled_batch_leaves_no_pair_without_a_verdict_or_an_error(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 5)
    with BatchServer(hold=True) as server:
        assert batch(server, pairs, tmp_path, "--deadline", "1").exit_code == 2
        api = openai.OpenAI(api_key="local", base_url=server.base_url)
        (batch_id,) = server.batches
        api.batches.cancel(batch_id)  # someone cancels it (a dashboard, a colleague)
        server.release_batches()
        result = batch(server, pairs, tmp_path, "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["errors"] == 5 and data["verdicts"]["SUPPORTED"] == 0
    assert all("cancelled" in r["error"] for r in data["results"])


def test_a_batch_the_server_refuses_exits_2_with_its_reasons(tmp_path):
    class Refusing(BatchServer):
        def _work(self, batch_id):
            with self._batch_lock:
                self.batches[batch_id].update(status="failed", errors={"object": "list", "data": [
                    {"code": "model_not_found", "line": 1, "message": "no such model: fake"}]})  # fmt: skip

    pairs = write_pairs(tmp_path / "pairs.jsonl", 3)
    with Refusing() as server:
        result = batch(server, pairs, tmp_path)
    assert result.exit_code == 2
    assert "failed: line 1: no such model: fake" in result.stderr
    assert records(tmp_path) == [] and server.count == 0


def test_errors_in_the_output_file_as_vllm_writes_them_are_errors_too(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 5, marker_at=1, marker="LONGLONG")
    with BatchServer(context_400_for("LONGLONG"), errors_in_output=True) as server:
        result = batch(server, pairs, tmp_path, "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["errors"] == 1 and data["verdicts"]["SUPPORTED"] == 4


def test_a_malformed_reply_in_a_batch_is_an_error_that_says_to_rerun_online(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 2)
    with BatchServer(text_reply("Sure! It is supported.")) as server:
        result = batch(server, pairs, tmp_path, "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 1 and data["errors"] == 2
    assert all("without --batch" in r["error"] for r in data["results"])


def test_a_server_without_the_batch_api_is_a_clear_error(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 2)
    with ChatServer() as server:
        result = batch(server, pairs, tmp_path)
    assert result.exit_code == 2
    assert "does this server implement the Batch API (/v1/files, /v1/batches)?" in result.stderr
    assert server.count == 0  # and nothing was judged online instead


def test_batch_needs_an_openai_judge_and_batches_only_those_of_a_panel(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 3)
    with BatchServer() as server:
        alone = run_cli("verify", "--pairs", str(pairs), "--judge", "rules", "--batch",
                        "--home", str(tmp_path))  # fmt: skip
        panel = batch(server, pairs, tmp_path, "--judge", "rules", "--json")
    assert alone.exit_code == 2 and "no judge here is one (rules)" in alone.stderr
    assert panel.exit_code in (0, 1) and server.batches_created == 1 and server.count == 0
    assert json.loads(panel.stdout)["judges"] == ["openai:fake", "rules"]


def test_result_lines_that_are_not_results_are_not_silently_passes():
    text = "\n".join([
        json.dumps({"custom_id": "a", "response": {"status_code": 200, "body": {"x": 1}},
                    "error": None}),
        json.dumps({"custom_id": "b", "response": {"status_code": 429, "body": {"error": {
            "message": "slow down"}}}, "error": None}),
        json.dumps({"custom_id": "c", "response": None, "error": {"code": "batch_expired",
                                                                  "message": "expired"}}),
        json.dumps({"custom_id": "d", "response": None, "error": None}),
        "not json", json.dumps({"no": "id"}),
    ])  # fmt: skip
    read = [read_line(Line(n, raw.encode()), max_line=10_000)
            for n, raw in enumerate(text.splitlines(), 1)]  # fmt: skip
    assert read[-2:] == [None, None]  # names no request: that request has no result
    got = {r.custom_id: r for r in read if r is not None}
    assert got["a"].error is None and got["a"].body == {"x": 1}
    assert got["b"].error == "HTTP 429 in the batch: slow down"
    assert "expired" in got["c"].error and got["d"].error
    assert set(got) == {"a", "b", "c", "d"}


def gate(tmp_path, base_url: str, cal, *config: str):
    cfg = tmp_path / "gate.toml"
    cfg.write_text(f'checks = ["calibration"]\ncalibration_set = "{cal}"\n'
                   'judge = "openai:fake"\nrequired = ["calibration"]\n'
                   'floors = ["calibration_agreement", "calibration_near_miss"]\n'
                   + "".join(config))  # fmt: skip
    result = run_cli("gate", "--config", str(cfg), "--json", "--home", str(tmp_path / "home"),
                     "--base-url", base_url, "--api-key", "local")  # fmt: skip
    return result, json.loads(result.stdout)


def test_the_gate_judges_its_pairs_as_one_batch_behind_a_config_switch(tmp_path):
    cal = calibration_set(tmp_path / "cal.jsonl")
    with BatchServer() as server:
        result, data = gate(tmp_path, server.base_url, cal, "judge_batch = true\n",
                            "batch_poll_s = 0.05\n")  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (server.batches_created, server.count) == (1, 0)
    assert next(iter(server.batches.values()))["request_counts"]["total"] == 6
    assert data["checks"][0]["name"] == "calibration.agreement" and data["checks"][0]["value"] == 1


def test_a_gate_whose_batch_cannot_run_fails_closed_without_judging_online(tmp_path):
    cal = calibration_set(tmp_path / "cal.jsonl")
    with ChatServer() as server:  # no Batch API here
        result, data = gate(tmp_path, server.base_url, cal, "judge_batch = true\n")
    assert result.exit_code == 2
    assert data["checks"][0]["status"] == "ERROR" and "judge batch" in data["checks"][0]["detail"]
    assert server.count == 0


def test_repeats_are_batched_as_their_own_requests(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 3)
    with BatchServer() as server:
        result = batch(server, pairs, tmp_path, "--repeat", "2", "--json")
    assert result.exit_code == 0, result.output
    assert server.batches_created == 1 and server.count == 0
    assert next(iter(server.batches.values()))["request_counts"]["total"] == 6
    assert json.loads(result.stdout)["model_calls"] == 6


def test_max_cost_holds_a_batch_job_before_it_is_submitted(tmp_path):
    # The six calibration requests' worst case (each request's bytes as prompt tokens plus
    # its max_tokens, at the default research price) is about a cent: a cap of a tenth of a
    # cent refuses the job before anything reaches the server; a cap of a dollar lets it run
    # and then counts its tokens like any call.
    cal = calibration_set(tmp_path / "cal.jsonl")
    config = ("judge_batch = true\n", "batch_poll_s = 0.05\n")
    (tmp_path / "tight").mkdir()
    (tmp_path / "ample").mkdir()
    with BatchServer() as server:
        result, data = gate(tmp_path / "tight", server.base_url, cal, *config,
                            "max_cost_usd = 0.001\n")  # fmt: skip
        assert (server.uploads, server.batches_created, server.count) == (0, 0, 0)
        assert result.exit_code == 2, result.output
        row = data["checks"][0]
        assert row["status"] == "ERROR" and "--max-cost 0.001 was reached" in row["detail"]
        assert not records(tmp_path / "tight" / "home")  # nothing to resume: nothing was sent
        result, data = gate(tmp_path / "ample", server.base_url, cal, *config,
                            "max_cost_usd = 1\n")  # fmt: skip
        assert (server.uploads, server.batches_created) == (1, 1)
    assert result.exit_code == 0, result.output
