"""A dead model endpoint stops the injection suite at once, exit 2, instead of every hostile
page's run crashing on it in turn (which read as "runs crashed")."""

from __future__ import annotations

import socket

from click.testing import CliRunner

from spanproof.cli import cli


def test_a_dead_model_endpoint_stops_the_injection_suite_at_once(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    result = CliRunner().invoke(cli, [
        "injection", "--policy", "llm", "--model", "openai:gone", "--home", str(tmp_path / "h"),
        "--base-url", f"http://127.0.0.1:{port}/v1", "--api-key", "local",
    ])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "the endpoint was never reached" in result.stderr
    traffic = next(line for line in result.stderr.splitlines() if line.startswith("model traffic"))
    # three calls proved it dead; the 43 pages did not each try again
    assert "errors: connection 3;" in traffic
    assert "runs crashed" not in result.output


def test_a_scripted_judge_without_the_agents_claims_stops_the_suite_with_one_clear_error(
    tmp_path,
):
    # a published judge's verdicts on pairs of a set: none of them is an agent's claim here
    script = tmp_path / "judge.jsonl"
    script.write_text('{"id": "wice-dev00001", "verdict": "SUPPORTED"}\n')
    result = CliRunner().invoke(cli, [
        "injection", "--judge", f"anchor=scripted:{script}", "--home", str(tmp_path / "h"),
    ])  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "has no verdict for the claim" in result.stderr
    assert "runs crashed" not in result.output and '"id": None' not in result.output
    assert result.stderr.count("has no verdict") == 1  # said once, not once a page
