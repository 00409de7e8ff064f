"""A chat completion as the client reads it: a small typed object built from the reply's JSON.

The openai SDK's ``ChatCompletion`` would do as well, but importing it imports the whole SDK
(every type of every API it covers: about a second of CPU), and building one walks its type
machinery for every nested part. The client reads a handful of fields, so it builds these
instead, as the SDK's ``construct`` builds its own: without validation. An object becomes the
type its place in the wire format names; anything else (a string where a message belongs, a
missing field) stays as the server sent it, and every reader checks what it uses (the client:
``choices`` and ``usage``, spanproof.wire.client.checked_usage; the turn reader:
spanproof.wire.chat.turn_from_response). So a reply of the wrong shape is the same error it
was with the SDK's type: a bad response, a malformed output re-asked, never a verdict.

Fields hold what the server sent, hence ``Any`` for every value a server decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class ReplyFunction:
    name: Any = None
    arguments: Any = None


@dataclass(slots=True)
class ReplyToolCall:
    id: Any = None
    type: Any = None
    function: ReplyFunction | Any = None


@dataclass(slots=True)
class ReplyMessage:
    role: Any = None
    content: Any = None
    tool_calls: list[ReplyToolCall | Any] | Any = None


@dataclass(slots=True)
class ReplyTokenLogprob:
    token: Any = None
    logprob: Any = None


@dataclass(slots=True)
class ReplyLogprobs:
    content: list[ReplyTokenLogprob | Any] | Any = None


@dataclass(slots=True)
class ReplyChoice:
    index: Any = None
    message: ReplyMessage | Any = None
    finish_reason: Any = None
    logprobs: ReplyLogprobs | Any = None


@dataclass(slots=True)
class ReplyUsage:
    prompt_tokens: Any = None
    completion_tokens: Any = None
    total_tokens: Any = None


@dataclass(slots=True)
class ChatReply:
    """One chat completion. ``usage_estimated`` says why the token counts in ``usage`` were
    replaced by an estimate from the text (set by the client; None when they are the
    server's)."""

    id: Any = None
    model: Any = None
    choices: list[ReplyChoice | Any] | Any = None
    usage: ReplyUsage | Any = None
    usage_estimated: str | None = None


def _obj(value: Any, build: Any) -> Any:
    return build(value) if isinstance(value, dict) else value


def _each(value: Any, build: Any) -> Any:
    if not isinstance(value, list):
        return value
    return [build(v) if isinstance(v, dict) else v for v in value]


def _function(d: dict[str, Any]) -> ReplyFunction:
    return ReplyFunction(name=d.get("name"), arguments=d.get("arguments"))


def _tool_call(d: dict[str, Any]) -> ReplyToolCall:
    return ReplyToolCall(
        id=d.get("id"), type=d.get("type"), function=_obj(d.get("function"), _function)
    )


def _message(d: dict[str, Any]) -> ReplyMessage:
    return ReplyMessage(
        role=d.get("role"), content=d.get("content"),
        tool_calls=_each(d.get("tool_calls"), _tool_call),
    )  # fmt: skip


def _token(d: dict[str, Any]) -> ReplyTokenLogprob:
    return ReplyTokenLogprob(token=d.get("token"), logprob=d.get("logprob"))


def _logprobs(d: dict[str, Any]) -> ReplyLogprobs:
    return ReplyLogprobs(content=_each(d.get("content"), _token))


def _choice(d: dict[str, Any]) -> ReplyChoice:
    return ReplyChoice(
        index=d.get("index"), message=_obj(d.get("message"), _message),
        finish_reason=d.get("finish_reason"), logprobs=_obj(d.get("logprobs"), _logprobs),
    )  # fmt: skip


def usage_of(d: dict[str, Any]) -> ReplyUsage:
    return ReplyUsage(
        prompt_tokens=d.get("prompt_tokens"), completion_tokens=d.get("completion_tokens"),
        total_tokens=d.get("total_tokens"),
    )  # fmt: skip


def read_reply(data: dict[str, Any]) -> ChatReply:
    """The reply of a chat completion's JSON object (not validated: see the module)."""
    return ChatReply(
        id=data.get("id"), model=data.get("model"), choices=_each(data.get("choices"), _choice),
        usage=_obj(data.get("usage"), usage_of),
    )  # fmt: skip
