"""A server that answers one request at a time, slowly (llama.cpp on two CPU cores): with default
settings, no timeouts and no retry storm; requests in flight never exceed what is reported.

Latencies are scaled down from the 10 s seen on real hardware; the timeout keeps the same
ratio to the latency as the old fixed 60 s client timeout had to 10 s (6x), under which
eight queued requests (80 s) timed out and were retried while the server still computed them.
The limiter's decisions on queueing and parallel servers are tested in simulated time
(test_limiter.py); this is the whole command against a real socket.
"""

from __future__ import annotations

import json
import re
import threading

from .conftest import run_cli, write_pairs
from .server import ChatServer, claim_and_span, error, honest_judge

LATENCY_S = 0.2
TIMEOUT_S = 6 * LATENCY_S


def test_calibrate_against_a_one_at_a_time_server_no_timeouts_no_retry_storm(tmp_path):
    pairs = write_pairs(tmp_path / "slow_set.jsonl", 12)
    with ChatServer(one_at_a_time=True, latency_s=LATENCY_S) as server:
        result = run_cli("calibrate", "--set", str(pairs), "--judge", "openai:fake", "--base-url",
                         server.base_url, "--api-key", "local", "--no-cache",
                         "--timeout", str(TIMEOUT_S))  # fmt: skip
    assert result.exit_code == 0, result.output
    traffic = next(line for line in result.stderr.splitlines() if line.startswith("model traffic"))
    # every pair answered with one request: no timeouts, no retries, no errors
    assert "12 calls, 12 HTTP requests (0 retries, 0 re-asks)" in traffic
    assert "errors: none" in traffic
    assert server.count == 12
    reported = re.search(r"at most (\d+), window \d+-(\d+), peak (\d+) in flight", traffic)
    at_most, _, peak = (int(g) for g in reported.groups())
    assert at_most == 8  # the default, unchanged
    assert server.peak_in_flight <= peak <= 2  # the server never saw a queue of abandoned calls
    assert "| fake" in result.stdout or "openai:fake" in result.stdout


def test_verify_says_how_the_window_moved_on_stderr_and_in_json(tmp_path, fast_backoff):
    told: set[str] = set()

    def busy_twice(body, server):
        claim, _ = claim_and_span(body)
        if claim.endswith(("(item 3).", "(item 4).")) and claim not in told:
            told.add(claim)  # two requests of the first full window: "too busy, wait"
            return error(503, "server busy", kind="server_error", headers={"Retry-After": "0.1"})
        return honest_judge(body, server)

    pairs = write_pairs(tmp_path / "pairs.jsonl", 12)
    with ChatServer(busy_twice, latency_s=0.05) as server:
        result = run_cli("verify", "--pairs", str(pairs), "--judge", "openai:fake", "--base-url",
                         server.base_url, "--api-key", "local", "--no-cache", "--json",
                         "--home", str(tmp_path))  # fmt: skip
    assert result.exit_code == 0, result.output
    traffic = next(line for line in result.stderr.splitlines() if line.startswith("model traffic"))
    assert "1 back-off(s) (overloaded 1); window 8 -> 4 at " in traffic
    (report,) = json.loads(result.stdout)["http"]["concurrency"]
    assert report["maximum"] == 8 and report["backoffs"] == {"overloaded": 1}
    assert report["window_over_time"][0]["window"] == 4
    assert report["window_over_time"][0]["why"] == "overloaded"


def test_a_server_that_goes_away_after_answering_is_backed_off_from(tmp_path, fast_backoff):
    def answer_then_close(body, server):
        if server.count == 3:  # the server process dies: later connections are refused
            threading.Thread(target=lambda: (server._server.shutdown(),
                                             server._server.server_close())).start()  # fmt: skip
        return honest_judge(body, server)

    pairs = write_pairs(tmp_path / "pairs.jsonl", 12)
    with ChatServer(answer_then_close) as server:
        result = run_cli("verify", "--pairs", str(pairs), "--judge", "openai:fake", "--base-url",
                         server.base_url, "--api-key", "local", "--no-cache", "--concurrency",
                         "2", "--home", str(tmp_path))  # fmt: skip
    assert result.exit_code == 2, result.output  # the breaker: calls kept failing
    traffic = next(line for line in result.stderr.splitlines() if line.startswith("model traffic"))
    assert "(connection 1)" in traffic and "window 2 -> 1 at " in traffic
