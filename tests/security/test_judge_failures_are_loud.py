"""A command whose judge calls failed says so on stderr and exits 2; it never prints PASSED."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from spanproof.cli import cli

ROOT = Path(__file__).resolve().parents[2]


NOT_JSON = {
    "id": "c1",
    "object": "chat.completion",
    "created": 0,
    "model": "hostile-judge",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "Sure! It is supported."},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
}


@pytest.fixture
def failing_judge(httpserver, monkeypatch):
    """An OpenAI-compatible server on loopback whose every answer is not a verdict."""
    httpserver.expect_request("/v1/chat/completions", method="POST").respond_with_json(NOT_JSON)
    monkeypatch.setenv("OPENAI_BASE_URL", httpserver.url_for("/v1"))
    monkeypatch.setenv("OPENAI_API_KEY", "local")
    return "openai:hostile-judge"


def test_injection_with_every_judge_call_errored_exits_2_and_never_says_passed(
    tmp_path, failing_judge
):
    result = CliRunner().invoke(
        cli,
        ["injection", "--only", "visible-body-text", "--judge", failing_judge,
         "--home", str(tmp_path / "h")],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "PASSED" not in result.stdout
    assert "judge calls failed" in result.stderr
    assert "judge errors" in result.stdout


def test_injection_json_counts_judge_errors(tmp_path, failing_judge):
    result = CliRunner().invoke(
        cli,
        ["injection", "--only", "visible-body-text", "--judge", failing_judge,
         "--json", "--home", str(tmp_path / "h")],
    )  # fmt: skip
    data = json.loads(result.stdout)
    assert result.exit_code == 2
    assert data["judge_errors"] == data["judge_calls"] > 0 and data["passed"] is False


def test_grade_with_every_verdict_a_judge_error_exits_2(tmp_path, failing_judge):
    report = ROOT / "goldens" / "reports" / "briefing.md"
    result = CliRunner().invoke(
        cli, ["grade", str(report), "--judge", failing_judge, "--home", str(tmp_path / "h")]
    )
    assert result.exit_code == 2, result.stderr
    assert "verdicts failed (every one)" in result.stderr


def test_grade_with_a_working_judge_still_exits_0(tmp_path):
    report = ROOT / "goldens" / "reports" / "briefing.md"
    result = CliRunner().invoke(cli, ["grade", str(report), "--home", str(tmp_path / "h")])
    assert result.exit_code == 0, result.stderr
