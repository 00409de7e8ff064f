"""--max-cost holds each request's worst-case price against the cap before it is sent, so calls
side by side never spend past the cap (each reply landing after the cap was crossed used to be
paid for: up to one window of replies over it)."""

from __future__ import annotations

import asyncio

import pytest

from spanproof.core.specs import EndpointSettings
from spanproof.wire import ModelClient
from spanproof.wire.spend import SpendCapReached, cap_spent, spend_cap, worst_tokens

from .server import ChatServer, completion, json_response

PER_MTOK = 1.0  # dollars per million tokens, prompt and reply alike
TOKENS = (1000, 100)  # what the server bills each reply
# a prompt of 4000 characters: the server's count (1000) is under its bytes, as every
# tokeniser's is (a token is at least one byte)
MESSAGES = [{"role": "user", "content": "word " * 800}]


def _billing(body: dict, server: ChatServer):
    return json_response(completion("ok", tokens=TOKENS))


def _price(model: str, prompt: int, reply: int) -> float:
    return (prompt + reply) * PER_MTOK / 1e6


def _spent(client: ModelClient) -> float:
    return _price(client.model, client.counters.prompt_tokens, client.counters.completion_tokens)


async def _eight_at_once(client: ModelClient) -> list[object]:
    calls = [client.chat(messages=MESSAGES, max_tokens=100) for _ in range(8)]
    return await asyncio.gather(*calls, return_exceptions=True)


async def test_eight_calls_side_by_side_never_spend_past_the_cap():
    # One reply costs $0.0011; eight sent together cost $0.0088. A cap of $0.005 let them all
    # go (nothing was spent when each was sent) and the gate paid $0.0088.
    cap = 0.005
    with ChatServer(_billing, latency_s=0.2) as server:
        settings = EndpointSettings(base_url=server.base_url, api_key="k").resolved()
        client = ModelClient("priced", settings)
        with spend_cap(cap, lambda: _spent(client), _price):
            outcomes = await _eight_at_once(client)
            why = cap_spent()
    assert 0 < _spent(client) <= cap, (_spent(client), server.count)
    assert server.count * _price("priced", *TOKENS) <= cap
    refused = [o for o in outcomes if isinstance(o, SpendCapReached)]
    assert refused and len(refused) + server.count == 8
    # the refusal says why, and every later call is refused the same way
    assert why is not None and "--max-cost 0.005 was reached" in why
    assert "held for the replies in flight" in why


async def test_a_cap_that_holds_every_worst_case_sends_every_call():
    with ChatServer(_billing, latency_s=0.05) as server:
        settings = EndpointSettings(base_url=server.base_url, api_key="k").resolved()
        client = ModelClient("priced", settings)
        with spend_cap(1.0, lambda: _spent(client), _price):
            outcomes = await _eight_at_once(client)
            assert cap_spent() is None
    assert not [o for o in outcomes if isinstance(o, BaseException)]
    assert server.count == 8


def test_the_worst_case_bounds_what_a_server_can_bill():
    prompt, reply = worst_tokens({"model": "m", "messages": MESSAGES, "max_tokens": 100}, 10**6)
    assert prompt >= 4000 >= TOKENS[0] and reply == 100
    # no max_tokens: the largest reply the client would read
    assert worst_tokens({"messages": MESSAGES}, 5000)[1] == 5000
    # a prompt in a script of several bytes a character counts its bytes
    assert worst_tokens({"messages": [{"role": "user", "content": "й" * 100}]}, 1)[0] >= 200


def test_a_cap_of_nothing_is_refused():
    with (
        pytest.raises(ValueError, match="--max-cost must be more than 0"),
        spend_cap(0, lambda: 0.0, _price),
    ):
        pass
