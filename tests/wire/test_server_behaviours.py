"""What a user sees (exit code, message, figures) from `spanproof verify` against real local
servers that behave like llama.cpp's, vLLM's and Ollama's, and like hostile ones."""

from __future__ import annotations

import json
import socket

import pytest

from .conftest import run_cli, write_pairs
from .server import (
    ChatServer,
    context_400_for,
    hang_after_first,
    html_page,
    json_response,
    json_schema_400,
    llama_cpp_json_schema_500,
    status_forever,
    text_reply,
)


def verify(server_url: str, pairs, *extra: str):
    return run_cli("verify", "--pairs", str(pairs), "--judge", "openai:fake", "--base-url",
                   server_url, "--api-key", "local", "--no-cache", "--json", *extra)  # fmt: skip


def test_llama_cpp_500_on_json_schema_negotiates_once_and_shows_the_servers_message(tmp_path):
    pairs = write_pairs(tmp_path / "p.jsonl", 8)
    with ChatServer(llama_cpp_json_schema_500()) as server:
        result = verify(server.base_url, pairs)
    summary = json.loads(result.stdout)
    assert result.exit_code == 0, result.output
    assert summary["errors"] == 0 and summary["verdicts"]["SUPPORTED"] == 8
    # one json_schema request for the whole run (not five retries per pair), then the schema
    # rides along with json_object, which llama.cpp turns into a grammar
    assert server.formats() == ["json_schema"] + ["json_object+schema"] * 8
    http = summary["http"]
    assert (http["requests"], http["retries"], http["reasks"]) == (9, 0, 0)
    assert http["errors"] == {"format_unsupported": 1}
    assert any("Input should be 'text' or 'json_object'" in n for n in http["notices"])
    assert http["tokens_per_pair"] == 120.0  # 100 in + 20 out per pair; the refused call cost none


def test_json_schema_400_under_concurrency_8_races_nothing(tmp_path):
    # Before: calls already in flight when the first 400 arrived were not retried (6 of 7 errors).
    pairs = write_pairs(tmp_path / "p.jsonl", 7)
    with ChatServer(json_schema_400(), latency_s=0.05) as server:
        result = verify(server.base_url, pairs, "--concurrency", "8")
    summary = json.loads(result.stdout)
    assert result.exit_code == 0 and summary["errors"] == 0
    assert server.formats().count("json_schema") == 1


def test_a_context_error_on_one_pair_is_that_pairs_error_and_changes_no_mode(tmp_path):
    pairs = write_pairs(tmp_path / "p.jsonl", 6, marker_at=2, marker="LONG" * 50)
    with ChatServer(context_400_for("LONGLONG"), latency_s=0.02) as server:
        result = verify(server.base_url, pairs, "--concurrency", "1")
    summary = json.loads(result.stdout)
    rows = {r["id"]: r for r in summary["results"]}
    assert summary["errors"] == 1 and rows["p2"]["error"].startswith("context_length")
    assert "maximum context length is 2048 tokens" in rows["p2"]["error"]
    assert all(rows[f"p{i}"]["verdict"] == "SUPPORTED" for i in (0, 1, 3, 4, 5))
    # every request, before and after the refused one, still asks for json_schema
    assert set(server.formats()) == {"json_schema"}
    assert result.exit_code == 1  # a judge error is reported, never a quiet pass


@pytest.mark.parametrize(
    "content,what",
    [("Sure! The claim is supported by the span.", "JSONDecodeError"),
     ('{"verdict": "SUPPORTED"}', "ValidationError")],
    ids=["invalid-json", "wrong-schema"],
)  # fmt: skip
def test_junk_replies_get_two_re_asks_then_an_error_verdict(tmp_path, content, what):
    pairs = write_pairs(tmp_path / "p.jsonl", 2)
    with ChatServer(text_reply(content)) as server:
        result = verify(server.base_url, pairs)
    summary = json.loads(result.stdout)
    assert result.exit_code == 1 and summary["errors"] == 2
    assert all("malformed output" in r["error"] and what in r["error"] for r in summary["results"])
    assert summary["http"]["requests"] == 6 and summary["http"]["reasks"] == 4
    assert server.count == 6


def test_one_character_quote_is_not_evidence(tmp_path):
    pairs = write_pairs(tmp_path / "p.jsonl", 1)
    reply = {"verdict": "SUPPORTED", "unsupported_element": None, "quote_used": "t",
             "contains_instructions": False}  # fmt: skip
    with ChatServer(text_reply(json.dumps(reply))) as server:
        result = verify(server.base_url, pairs)
    (row,) = json.loads(result.stdout)["results"]
    assert server.count == 1 and row["quote_used"] == "t"
    assert row["verdict"] != "SUPPORTED"  # the code audit, not the model, has the last word


def test_500_forever_opens_the_breaker_exit_2_with_the_cause(tmp_path, fast_backoff):
    pairs = write_pairs(tmp_path / "p.jsonl", 40)
    with ChatServer(status_forever(500, "CUDA error: out of memory")) as server:
        result = verify(server.base_url, pairs)
    assert result.exit_code == 2
    assert "calls in a row failed" in result.stderr and "CUDA error" not in result.stdout
    assert "HTTP 500" in result.stderr or "http_500" in result.stderr
    # 40 pairs, but the breaker stopped it: at most the in-flight calls past the 5th failure
    assert server.count <= 4 * 13


def test_429_with_a_long_retry_after_fails_fast_and_says_so(tmp_path):
    pairs = write_pairs(tmp_path / "p.jsonl", 20)
    with ChatServer(
        status_forever(429, "Rate limit reached", headers={"Retry-After": "3600"})
    ) as server:
        result = verify(server.base_url, pairs, "--concurrency", "1")
    assert result.exit_code == 2
    assert "retry after 3600 s" in result.stderr and "calls in a row failed" in result.stderr
    assert server.count == 5  # one request per call, no waiting an hour, then the breaker


def test_hang_after_first_success_is_bounded_by_timeout_and_breaker(tmp_path, fast_backoff):
    pairs = write_pairs(tmp_path / "p.jsonl", 12)
    with ChatServer(hang_after_first(5)) as server:
        result = verify(server.base_url, pairs, "--concurrency", "1", "--timeout", "0.2")
    assert result.exit_code == 2
    assert "after the endpoint had answered" in result.stderr and "timeout" in result.stderr
    # 1 answer, then 5 calls x (1 try + 1 retry of a timeout): ~2 s, not 5 minutes a pair
    assert server.count <= 1 + 5 * 2


def test_html_error_page_is_shown_as_words(tmp_path, fast_backoff):
    pairs = write_pairs(tmp_path / "p.jsonl", 6)
    with ChatServer(html_page(502)) as server:
        result = verify(server.base_url, pairs, "--concurrency", "1")
    assert result.exit_code == 2
    assert "502 Bad Gateway" in result.stderr and "<html>" not in result.stderr


def test_an_endpoint_never_reached_stops_in_seconds(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    pairs = write_pairs(tmp_path / "p.jsonl", 30)
    result = verify(f"http://127.0.0.1:{port}/v1", pairs, "--concurrency", "1")
    assert result.exit_code == 2
    assert "never reached" in result.stderr and "--base-url" in result.stderr


def test_a_200_that_is_not_a_chat_completion_is_an_error_not_a_crash(tmp_path, fast_backoff):
    pairs = write_pairs(tmp_path / "p.jsonl", 1)
    with ChatServer(lambda body, server: json_response({"ok": True})) as server:
        result = verify(server.base_url, pairs)
    summary = json.loads(result.stdout)
    assert result.exit_code == 1 and summary["errors"] == 1
    assert "bad_response" in summary["results"][0]["error"]


def test_a_megabyte_claim_is_refused_with_a_line_number_before_any_call(tmp_path):
    pairs = tmp_path / "p.jsonl"
    pairs.write_text(json.dumps({"id": "big", "claim": "x" * 1_000_000, "span": "A span."}) + "\n")
    with ChatServer() as server:
        result = verify(server.base_url, pairs)
    assert result.exit_code == 2 and server.count == 0
    assert "line 1: claim is 1000000 characters, over the 2000-character limit" in result.stderr


def test_deadline_stops_a_long_command_with_exit_2(tmp_path):
    pairs = write_pairs(tmp_path / "p.jsonl", 20)
    with ChatServer(one_at_a_time=True, latency_s=0.2) as server:
        result = verify(server.base_url, pairs, "--deadline", "0.6")
    assert result.exit_code == 2
    assert "reached its --deadline of 0.6 s" in result.stderr
    assert server.count < 20  # stopped, not run to the end
