"""One typed structured call: ``structured(model, messages, Output, reasks=N)``.

Every caller that needs a JSON reply of a pydantic model (the verdict judge, the usefulness
scorer, the claim splitter, the agent's convergence check) asks through here, so reading the
reply, re-asking after one that is not the model and counting the tokens of every attempt is
written once:

- ``model`` is either a ``ModelClient`` (the request goes through the client's ``structured``
  call: its limiter, retries, whole-reply deadline, reply cap, breaker, usage accounting and
  response-format negotiation, unchanged) or any ``ChatModel`` (the agent's endpoint model, or
  the scripted model that stands in for all of them in tests), asked with ``response_format``.
- A reply that is not valid JSON for ``Output`` is re-asked at most ``reasks`` times in the
  same conversation: the reply as the assistant's turn, then a user turn that names the
  validation error (``reask(problem)``). Each re-ask is counted in the client's ``reasks``.
- After the last failure, ``MalformedReply``: a ``WireError`` (kind ``malformed_output``) that
  carries the problem, the number of attempts, the tokens spent and the last turn, so a caller
  records a model error (a judge's error verdict, a scorer's unscored item), never a pass.
- Wire errors (refusals, timeouts, an open circuit) propagate, carrying the tokens the
  earlier attempts spent (``usage``, ``model_id``); ``on_refused`` lets a caller retry a
  refused request once with other extra parameters, kept for the rest of the call (the judge
  drops ``logprobs`` for a server that refuses them).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from spanproof.wire.chat import (
    AssistantMessage,
    ChatModel,
    Message,
    ModelTurn,
    Usage,
    UserMessage,
    to_wire,
    turn_from_response,
)
from spanproof.wire.client import EndpointRefused, ModelClient, WireError
from spanproof.wire.schema import json_from_reply, max_tokens_for, shared_schema

Output = TypeVar("Output", bound=BaseModel)

JSON_OBJECT_FORMAT: dict[str, Any] = {"type": "json_object"}
# What a parse failure is shown as (in the re-ask and the final error): long validation
# messages are cut, a reply that ran out of tokens says so.
DETAIL_CHARS = 200


def default_reask(problem: str) -> str:
    return f"That reply was not the JSON object asked for ({problem}). Reply again with only it."


class MalformedReply(WireError):
    """No reply of the model's in ``attempts`` tries was valid JSON for the output model."""

    kind = "malformed_output"

    def __init__(
        self,
        message: str,
        *,
        problem: str,
        attempts: int,
        cause: Exception,
        usage: Usage,
        model_id: str,
        turn: ModelTurn,
    ):
        super().__init__(message)
        self.problem, self.attempts, self.cause = problem, attempts, cause
        self.usage, self.model_id, self.turn = usage, model_id, turn


@dataclass
class Structured(Generic[Output]):
    """A parsed reply: ``output``, the tokens of every attempt (``usage``), the model the
    endpoint said answered (``model_id``, "" when it named none) and the last ``turn`` (its
    finish reason and token logprobs)."""

    output: Output
    usage: Usage
    model_id: str
    turn: ModelTurn
    attempts: int = 1


def read_output(
    turn: ModelTurn, output: type[Output], *, max_tokens: int | None = None,
    detail_chars: int = DETAIL_CHARS,
) -> tuple[Output | None, str, Exception | None]:  # fmt: skip
    """(the parsed output, "", None), or (None, the problem in words, the parse error)."""
    try:
        return output.model_validate(json_from_reply(turn.content)), "", None
    except (json.JSONDecodeError, ValidationError, TypeError, ValueError) as exc:
        problem = f"{type(exc).__name__}: {str(exc)[:detail_chars]}"
        if turn.finish_reason == "length":
            problem = f"the reply hit max_tokens={max_tokens} ({problem})"
        return None, problem, exc


def add_usage(total: Usage, turn: ModelTurn) -> Usage:
    return Usage(
        prompt_tokens=total.prompt_tokens + turn.usage.prompt_tokens,
        completion_tokens=total.completion_tokens + turn.usage.completion_tokens,
        estimated=total.estimated or turn.usage.estimated,
    )


async def _ask_client(
    client: ModelClient,
    messages: Sequence[Message],
    output: type[BaseModel],
    name: str,
    max_tokens: int | None,
    extra: dict[str, Any],
    on_refused: Callable[[EndpointRefused], Awaitable[dict[str, Any] | None]] | None,
) -> tuple[ModelTurn, dict[str, Any]]:
    """One request; the turn, and the extra parameters to send from now on."""
    wire = [to_wire(m) for m in messages]
    schema = shared_schema(output)  # encoded into the body, never changed
    try:
        resp = await client.structured(
            wire, schema=schema, name=name, max_tokens=max_tokens, **extra
        )
    except EndpointRefused as exc:
        retry = await on_refused(exc) if on_refused is not None else None
        if retry is None:
            raise
        extra = retry
        resp = await client.structured(
            wire, schema=schema, name=name, max_tokens=max_tokens, **extra
        )
    return turn_from_response(resp, label=client.label), extra


async def structured(
    model: ModelClient | ChatModel,
    messages: Sequence[Message],
    output: type[Output],
    *,
    reasks: int = 2,
    name: str | None = None,
    max_tokens: int | None = None,
    extra: dict[str, Any] | None = None,
    response_format: dict[str, Any] | None = JSON_OBJECT_FORMAT,
    reask: Callable[[str], str] = default_reask,
    detail_chars: int = DETAIL_CHARS,
    on_refused: Callable[[EndpointRefused], Awaitable[dict[str, Any] | None]] | None = None,
    on_attempt: Callable[[int], None] | None = None,
) -> Structured[Output]:
    """Ask ``model`` for one ``output``; re-ask at most ``reasks`` times after a reply that is
    not one. ``name`` and ``max_tokens`` (default: sized from the schema) and ``extra`` go on a
    ``ModelClient``'s request; ``response_format`` on a ``ChatModel``'s. ``on_attempt(i)`` is
    called before each request (i = 0 for the first)."""
    client = model if isinstance(model, ModelClient) else None
    name = name or output.__name__.lower()
    if client is not None and max_tokens is None:
        max_tokens = max_tokens_for(output)
    conversation = list(messages)
    usage = Usage()
    model_id = ""
    sent_extra = dict(extra or {})
    for attempt in range(1 + reasks):
        if on_attempt is not None:
            on_attempt(attempt)
        if attempt and client is not None:
            client.counters.reasks += 1
        try:
            if client is not None:
                turn, sent_extra = await _ask_client(
                    client, conversation, output, name, max_tokens, sent_extra, on_refused
                )
            else:
                assert not isinstance(model, ModelClient)
                turn = await model.complete(conversation, None, response_format=response_format)
        except WireError as exc:
            exc.usage, exc.model_id = usage, model_id
            raise
        usage = add_usage(usage, turn)
        model_id = turn.model_id or model_id
        parsed, problem, cause = read_output(
            turn, output, max_tokens=max_tokens, detail_chars=detail_chars
        )
        if parsed is not None:
            return Structured(parsed, usage, model_id, turn, attempt + 1)
        if attempt < reasks:
            conversation += [
                AssistantMessage(content=turn.content or ""),
                UserMessage(content=reask(problem)),
            ]
    assert cause is not None
    raise MalformedReply(
        f"malformed output: no valid {name} after {1 + reasks} attempts ({problem})",
        problem=problem, attempts=1 + reasks, cause=cause, usage=usage, model_id=model_id,
        turn=turn,
    )  # fmt: skip
