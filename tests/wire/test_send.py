"""A chat request is POSTed as the caller built it (no SDK transform on the way), and its reply
is read as the openai SDK reads one: an object into the client's ChatReply, anything else as
itself, a JSON content type that does not parse as an unreadable response."""

from __future__ import annotations

import pytest
from werkzeug import Response

from spanproof.core.specs import EndpointSettings
from spanproof.wire import EndpointFailed, ModelClient
from spanproof.wire.reply import ChatReply

from .server import ChatServer, completion, json_response


def client(server: ChatServer) -> ModelClient:
    return ModelClient("fake", EndpointSettings(base_url=server.base_url, api_key="k").resolved())


async def test_the_body_reaches_the_server_as_built_and_the_sdks_create_is_not_called(
    monkeypatch,
):
    from openai.resources.chat.completions import AsyncCompletions

    async def refuse(*args, **kwargs):
        raise AssertionError("the SDK's per-request transform path was used")

    monkeypatch.setattr(AsyncCompletions, "create", refuse)
    messages = [{"role": "system", "content": "Réponds en JSON — ½ ✓"},
                {"role": "user", "content": "CLAIM:\n\"quoted\" \\ backslash"}]  # fmt: skip
    with ChatServer(lambda body, server: json_response(completion("hi"))) as server:
        model = client(server)
        resp = await model.chat(messages=messages, temperature=0, max_tokens=50, logprobs=True)
        await model.aclose()
    assert server.bodies == [{"messages": messages, "temperature": 0, "max_tokens": 50,
                              "logprobs": True, "model": "fake", "stream": False}]  # fmt: skip
    assert isinstance(resp, ChatReply)
    assert resp.choices[0].message.content == "hi" and resp.usage.prompt_tokens == 100


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (json_response([completion("a list, not a completion")]), "held no choices"),
        (Response("{not json", content_type="application/json"), "unreadable response"),
        (Response("plain words", content_type="text/plain"), "held no choices"),
    ],
)
async def test_a_reply_that_is_not_a_completion_is_a_bad_response(reply, said):
    with ChatServer(lambda body, server: reply) as server:
        model = client(server)
        with pytest.raises(EndpointFailed, match=said) as caught:
            await model.chat(messages=[{"role": "user", "content": "x"}])
        await model.aclose()
    assert caught.value.kind == "bad_response" and server.count == 1  # not retried
