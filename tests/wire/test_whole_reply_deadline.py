"""--timeout bounds a whole model reply, not each read, and a reply has a size cap: a server
that trickles its reply one byte at a time, or sends megabytes, cannot hold or grow a run."""

from __future__ import annotations

import asyncio
import time

import pytest

from spanproof.core.specs import EndpointSettings
from spanproof.wire import EndpointFailed, client_for, forget_clients

from .conftest import run_cli, write_pairs
from .server import ChatServer, huge_reply, trickle

# The trickled verdict is ~200 bytes at one byte per 0.5 s: about 100 s if nothing stopped it.
DRIP_S = 0.5
TIMEOUT_S = 1.5


def test_verify_against_a_trickling_server_stops_at_the_timeout_without_retrying(tmp_path):
    pairs = write_pairs(tmp_path / "pairs.jsonl", 4)
    with ChatServer(trickle(DRIP_S)) as server:
        started = time.monotonic()
        result = run_cli("verify", "--pairs", str(pairs), "--judge", "openai:trickle",
                         "--base-url", server.base_url, "--api-key", "local", "--no-cache",
                         "--timeout", str(TIMEOUT_S), "--home", str(tmp_path / "h"))  # fmt: skip
        took = time.monotonic() - started
    assert result.exit_code == 2, result.output
    assert (
        f"did not finish within {TIMEOUT_S:g} s although the server had answered" in result.stderr
    )
    traffic = next(line for line in result.stderr.splitlines() if line.startswith("model traffic"))
    # not retried, and the circuit opened: no pair after it waited for the timeout again
    assert "(0 retries" in traffic and "slow_reply 1" in traffic, traffic
    assert server.count <= 2  # the first request, and at most one already in flight beside it
    assert took < 30, f"the trickle held verify for {took:.0f} s"  # ~100 s without the deadline


def test_ask_with_a_trickling_agent_model_exits_2_after_one_request(tmp_path):
    with ChatServer(trickle(DRIP_S)) as server:
        result = run_cli("ask", "When did the Larkspur Bridge open?", "--model", "openai:trickle",
                         "--base-url", server.base_url, "--api-key", "local",
                         "--timeout", str(TIMEOUT_S), "--home", str(tmp_path / "h"))  # fmt: skip
    assert result.exit_code == 2, result.output
    assert "did not finish within" in result.stderr
    assert server.count == 1


@pytest.mark.parametrize("declare_length", [True, False])
def test_a_reply_larger_than_the_cap_is_refused_while_it_streams(declare_length):
    forget_clients()
    with ChatServer(huge_reply(300_000, declare_length=declare_length)) as server:
        client = client_for("big", EndpointSettings(base_url=server.base_url, api_key="local",
                                                    max_reply_bytes=100_000))  # fmt: skip

        async def call():
            try:
                with pytest.raises(EndpointFailed, match="passed 100000 bytes") as info:
                    await client.chat(messages=[{"role": "user", "content": "hi"}])
                return info.value
            finally:
                await client.aclose()

        error = asyncio.run(call())
    assert error.kind == "reply_too_large"
    assert client.counters.errors == {"reply_too_large": 1}
    forget_clients()


def test_a_reply_under_the_cap_is_read_as_usual():
    forget_clients()
    with ChatServer(huge_reply(50_000)) as server:
        client = client_for("big", EndpointSettings(base_url=server.base_url, api_key="local",
                                                    max_reply_bytes=100_000))  # fmt: skip

        async def call():
            try:
                return await client.chat(messages=[{"role": "user", "content": "hi"}])
            finally:
                await client.aclose()

        resp = asyncio.run(call())
    assert resp.choices[0].message.content == "ok"
    forget_clients()
