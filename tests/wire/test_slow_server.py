"""A server that answers one request at a time, slowly (llama.cpp on two CPU cores): with default
settings, no timeouts and no retry storm; requests in flight never exceed what is reported.

Latencies are scaled down from the 10 s seen on real hardware; the timeout keeps the same
ratio to the latency as the old fixed 60 s client timeout had to 10 s (6x), under which
eight queued requests (80 s) timed out and were retried while the server still computed them.
"""

from __future__ import annotations

import asyncio
import re

from spanproof.wire import AdaptiveLimiter

from .conftest import run_cli, write_pairs
from .server import ChatServer

LATENCY_S = 0.2
TIMEOUT_S = 6 * LATENCY_S


def test_calibrate_against_a_one_at_a_time_server_no_timeouts_no_retry_storm(tmp_path):
    pairs = write_pairs(tmp_path / "slow_set.jsonl", 8)
    with ChatServer(one_at_a_time=True, latency_s=LATENCY_S) as server:
        result = run_cli("calibrate", "--set", str(pairs), "--judge", "openai:fake", "--base-url",
                         server.base_url, "--api-key", "local", "--no-cache",
                         "--timeout", str(TIMEOUT_S))  # fmt: skip
    assert result.exit_code == 0, result.output
    traffic = next(line for line in result.stderr.splitlines() if line.startswith("model traffic"))
    # every pair answered with one request: no timeouts, no retries, no errors
    assert "8 calls, 8 HTTP requests (0 retries, 0 re-asks)" in traffic
    assert "errors: none" in traffic
    assert server.count == 8
    reported = re.search(r"at most (\d+), window \d+-(\d+), peak (\d+) in flight", traffic)
    at_most, _, peak = (int(g) for g in reported.groups())
    assert at_most == 8  # the default, unchanged
    assert server.peak_in_flight <= peak <= 2  # the server never saw a queue of abandoned calls
    assert "| fake" in result.stdout or "openai:fake" in result.stdout


async def test_the_limiter_backs_off_on_a_queueing_server_and_opens_up_on_a_parallel_one():
    async def run(one_at_a_time: bool) -> AdaptiveLimiter:
        limiter = AdaptiveLimiter(8)
        serial = asyncio.Lock()
        in_flight = peak = 0

        async def request() -> None:
            nonlocal in_flight, peak
            async with limiter.slot() as outcome:
                in_flight += 1
                peak = max(peak, in_flight)
                if one_at_a_time:
                    async with serial:
                        await asyncio.sleep(0.06)
                else:
                    await asyncio.sleep(0.06)
                in_flight -= 1
                outcome["kind"] = "ok"

        await asyncio.gather(*(request() for _ in range(40)))
        assert peak == limiter.peak_in_flight
        return limiter

    queueing = await run(True)
    assert queueing.peak_in_flight <= 2 and queueing.backoffs >= 1
    parallel = await run(False)
    assert parallel.highest_window >= 5 and parallel.peak_in_flight >= 5
