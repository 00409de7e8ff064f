"""`verify --batch` against Batch API servers that do what the API's documentation does not
promise: one request answered twice, differently; a status the API does not define; an output
file too large to read whole; a create whose reply never came back. Real local servers
(tests/wire/batch_server.py), the real command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from .batch_server import BatchServer, jsonl
from .conftest import write_pairs
from .test_batch import ROOT, batch, records


def flipped(row: dict) -> dict:
    """The same result line with the verdict NOT_SUPPORTED instead."""
    out = json.loads(json.dumps(row))
    message = out["response"]["body"]["choices"][0]["message"]
    content = json.loads(message["content"])
    message["content"] = json.dumps({**content, "verdict": "NOT_SUPPORTED"})
    return out


def test_one_request_answered_twice_with_different_verdicts_is_an_error_for_that_pair(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 3)
    # p1 answered SUPPORTED, then NOT_SUPPORTED further down the file; p2's line twice, alike
    twice = BatchServer(output_file=lambda rows: jsonl([*rows, flipped(rows[1]), rows[2]]))
    with twice as server:
        result = batch(server, pairs, tmp_path, "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 1, result.output
    by_id = {r["id"]: r for r in data["results"]}
    assert by_id["p1"]["error"] and "two different results" in by_id["p1"]["error"]
    assert by_id["p1"]["verdict"] != "SUPPORTED"
    # the same line twice is one result
    assert by_id["p0"]["error"] is None and by_id["p2"]["error"] is None
    assert by_id["p2"]["verdict"] == "SUPPORTED"
    assert data["errors"] == 1


def test_a_status_the_api_does_not_define_is_waited_through_not_read_as_the_end(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 4)
    script = ["validating", "in_progress", "paused_by_operator", "paused_by_operator",
              "finalizing", "cancelling"]  # fmt: skip
    with BatchServer(status_script=script) as server:
        result = batch(server, pairs, tmp_path, "--json")
        looks = next(iter(server.looks.values()))
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["verdicts"]["SUPPORTED"] == 4 and data["errors"] == 0
    assert looks == len(script) + 1  # the create's reply and every poll after it, then done
    assert "'paused_by_operator', which the Batch API does not define" in result.stderr
    assert "still waiting" in result.stderr


def test_an_undefined_status_that_lasts_ends_at_the_deadline_with_the_batch_kept(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 2)
    with BatchServer(status_script=["paused_by_operator"] * 10_000) as server:
        result = batch(server, pairs, tmp_path, "--deadline", "2")
    assert result.exit_code == 2, result.output
    assert (
        "--deadline" in result.stderr and "the same command run again collects it" in result.stderr
    )
    assert len(records(tmp_path)) == 1 and server.batches_created == 1


def padded(pad_bytes: int):
    """Each output line padded with ``pad_bytes`` of JSON whitespace (the file grows, what
    it says does not)."""

    def make(rows: list[dict]) -> bytes:
        return b"".join(json.dumps(r).encode()[:-1] + b" " * pad_bytes + b"}\n" for r in rows)

    return make


def test_an_output_file_over_the_cap_is_an_error_with_the_fix_and_the_batch_is_kept(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 4)
    with BatchServer(output_file=padded(400_000)) as server:  # 1.6 MB in all
        over = batch(server, pairs, tmp_path, "--batch-max-output", "1")
        assert over.exit_code == 2, over.output
        assert "passed the cap of 1 MB" in over.stderr and "--batch-max-output" in over.stderr
        assert len(records(tmp_path)) == 1  # still recorded: a rerun collects, not resubmits
        under = batch(server, pairs, tmp_path, "--batch-max-output", "8", "--json")
    assert under.exit_code == 0, under.output
    assert json.loads(under.stdout)["verdicts"]["SUPPORTED"] == 4
    assert (server.uploads, server.batches_created) == (1, 1)


def test_a_line_over_the_reply_cap_is_that_request_s_error(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 2)

    def one_huge(rows: list[dict]) -> bytes:
        return padded(2_000_000)(rows[:1]) + jsonl(rows[1:])

    with BatchServer(output_file=one_huge) as server:
        result = batch(server, pairs, tmp_path, "--json")
    assert result.exit_code == 1, result.output
    by_id = {r["id"]: r for r in json.loads(result.stdout)["results"]}
    assert "passed" in by_id["p0"]["error"] and by_id["p1"]["error"] is None


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_a_command_stopped_while_create_waits_finds_its_batch_again(tmp_path, how):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 4)
    with BatchServer(hold_create=True) as server:
        cmd = [sys.executable, "-c", "from spanproof.cli import main; main()", "verify",
               "--pairs", str(pairs), "--judge", "openai:fake", "--base-url", server.base_url,
               "--api-key", "local", "--home", str(tmp_path), "--batch", "--batch-poll", "0.05"]  # fmt: skip
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # fmt: skip
        deadline = time.monotonic() + 60
        while server.batches_created == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server.batches_created == 1  # created on the server; its reply is held
        proc.send_signal(how)
        _, stderr = proc.communicate(timeout=60)
        assert proc.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[how], stderr
        server.release_create()
        again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert (server.uploads, server.batches_created, server.count) == (1, 1, 0)
    assert server.lists == 1 and "found batch batch_" in again.stderr
    assert records(tmp_path) == []


def test_after_a_batch_the_traffic_line_counts_its_requests(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 5)
    with BatchServer() as server:
        result = batch(server, pairs, tmp_path)
        as_json = batch(server, pairs, tmp_path / "again", "--json")
    assert result.exit_code == 0, result.output
    traffic = next(line for line in result.stderr.splitlines() if line.startswith("model traffic"))
    assert "5 requests in Batch API jobs" in traffic, traffic
    assert "tokens 500 in / 100 out" in traffic, traffic  # the test server's 100 / 20 a reply
    assert json.loads(as_json.stdout)["http"]["batch_requests"] == 5
