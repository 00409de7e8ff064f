"""structured(): one typed reply through the shared client, re-asked after a reply that is not
the output model, against the real local OpenAI-compatible server; and the scripted model
standing in for an endpoint."""

from __future__ import annotations

import json

import pytest
from pydantic import BaseModel, Field

from spanproof.core.specs import EndpointSettings
from spanproof.wire import MalformedReply, ModelClient, structured
from spanproof.wire.chat import ScriptedChatModel, SystemMessage, UserMessage

from .server import ChatServer, completion, json_response


class Rating(BaseModel):
    score: int = Field(ge=1, le=5)
    reason: str = ""


MESSAGES = [SystemMessage(content="Rate it, JSON only."), UserMessage(content="An answer.")]


def client_for_server(server: ChatServer) -> ModelClient:
    settings = EndpointSettings(base_url=server.base_url, api_key="k").resolved()
    return ModelClient("fake", settings)


def replies(*contents: str, tokens=(100, 20)):
    """A server that answers each request with the next content in turn."""

    def behave(body, server: ChatServer):
        return json_response(completion(contents[len(server.bodies) - 1], tokens=tokens))

    return behave


async def test_a_valid_reply_parses_into_the_output_model():
    with ChatServer(replies('{"score": 4, "reason": "mostly"}', tokens=(30, 7))) as server:
        client = client_for_server(server)
        got = await structured(client, MESSAGES, Rating, reasks=2)
    assert got.output == Rating(score=4, reason="mostly")
    assert (got.usage.prompt_tokens, got.usage.completion_tokens) == (30, 7)
    assert got.model_id == "fake-judge-1" and got.attempts == 1
    body = server.bodies[0]
    # the typed messages go out as the Chat Completions wire format, with the negotiated format
    assert body["messages"] == [
        {"role": "system", "content": "Rate it, JSON only."},
        {"role": "user", "content": "An answer."},
    ]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["name"] == "rating"
    assert client.counters.reasks == 0


async def test_a_malformed_reply_is_re_asked_with_the_error_and_then_succeeds():
    bad = "Sure! The score is four."
    with ChatServer(replies(bad, '{"score": 9}', '{"score": 3}', tokens=(50, 10))) as server:
        client = client_for_server(server)
        got = await structured(
            client, MESSAGES, Rating, reasks=2, reask=lambda problem: f"Fix it: {problem}"
        )
    assert got.output.score == 3 and got.attempts == 3
    # usage is the sum over the first ask and both re-asks
    assert (got.usage.prompt_tokens, got.usage.completion_tokens) == (150, 30)
    assert client.counters.reasks == 2 and client.counters.calls == 3
    second, third = server.bodies[1]["messages"], server.bodies[2]["messages"]
    assert second[2] == {"role": "assistant", "content": bad}
    assert second[3]["role"] == "user" and second[3]["content"].startswith(
        "Fix it: JSONDecodeError"
    )
    # the re-ask after a reply of the wrong schema names the field that failed
    assert third[4] == {"role": "assistant", "content": '{"score": 9}'}
    assert "ValidationError" in third[5]["content"] and "score" in third[5]["content"]


async def test_reasks_exhausted_raises_the_typed_error_with_the_tokens_spent():
    with ChatServer(replies("nope", "still nope", tokens=(40, 5))) as server:
        client = client_for_server(server)
        with pytest.raises(MalformedReply) as caught:
            await structured(client, MESSAGES, Rating, reasks=1)
    err = caught.value
    assert len(server.bodies) == 2 and err.attempts == 2
    assert err.kind == "malformed_output"
    assert str(err).startswith("malformed output: no valid rating after 2 attempts (")
    assert "JSONDecodeError" in err.problem
    assert (err.usage.prompt_tokens, err.usage.completion_tokens) == (80, 10)
    assert err.turn.content == "still nope"


async def test_a_reply_cut_at_max_tokens_says_so():
    def cut(body, server):
        payload = completion('{"score": 4, "reas')
        payload["choices"][0]["finish_reason"] = "length"
        return json_response(payload)

    with ChatServer(cut) as server, pytest.raises(MalformedReply) as caught:
        await structured(client_for_server(server), MESSAGES, Rating, reasks=0, max_tokens=9)
    assert caught.value.problem.startswith("the reply hit max_tokens=9 (")


async def test_zero_reasks_asks_once():
    with ChatServer(replies("no json here")) as server, pytest.raises(MalformedReply):
        await structured(client_for_server(server), MESSAGES, Rating, reasks=0)
    assert len(server.bodies) == 1


async def test_the_scripted_model_stands_in_for_an_endpoint():
    model = ScriptedChatModel(
        [
            {"content": "not json", "usage": {"prompt_tokens": 11, "completion_tokens": 2}},
            {
                "content": json.dumps({"score": 5}),
                "usage": {"prompt_tokens": 13, "completion_tokens": 3},
            },
        ],
        model_id="script-1",
    )
    got = await structured(model, MESSAGES, Rating, reasks=1)
    assert got.output.score == 5 and got.model_id == "script-1"
    assert (got.usage.prompt_tokens, got.usage.completion_tokens) == (24, 5)
    assert model.calls[0]["response_format"] == {"type": "json_object"}
    reasked = model.calls[1]["messages"]
    assert reasked[2].role == "assistant" and reasked[2].content == "not json"
    assert "JSONDecodeError" in reasked[3].content


async def test_every_request_sends_the_strict_schema_and_none_changes_the_shared_one():
    """The schema is no longer copied per request: the bodies must still carry exactly the
    strict schema, and sending them must leave the shared schema as it was."""
    from spanproof.wire.schema import shared_schema, strict_schema

    before = json.dumps(shared_schema(Rating), sort_keys=True)
    reply = '{"score": 4, "reason": "mostly"}'
    with ChatServer(replies(reply, reply, reply)) as server:
        client = client_for_server(server)
        for _ in range(3):
            await structured(client, MESSAGES, Rating, reasks=0)
    sent = [body["response_format"]["json_schema"]["schema"] for body in server.bodies]
    assert sent == [strict_schema(Rating)] * 3
    assert json.dumps(shared_schema(Rating), sort_keys=True) == before
    assert shared_schema(Rating) is shared_schema(Rating)  # one object: no copy per call
    assert strict_schema(Rating) is not strict_schema(Rating)  # the public one still copies
