"""The model layer's own chat types: messages, tool calls, usage, a model turn, the
``ChatModel`` protocol every model meets, and the scripted model that stands in for any
endpoint in tests and demos.

Provider objects (openai's response classes, its exceptions) never leave ``spanproof.wire``:
the agent, the judge, the scorer and the splitter are written against these types only.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field, field_validator

from spanproof.core.specs import SpecError


class ChatModelError(RuntimeError):
    """A model call that produced no usable turn (endpoint error, exhausted script)."""


class ScriptExhausted(ChatModelError):
    """A scripted model was asked for more turns than its script holds."""


# --- messages -------------------------------------------------------------------------


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    # Set when the model sent arguments that are not a JSON object; the runtime
    # answers INVALID_ARGUMENTS instead of guessing what was meant.
    arguments_error: str | None = None


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    # The server's counts were unusable (missing, negative, implausible): estimated from text.
    estimated: bool = False

    @property
    def total(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class SystemMessage(BaseModel):
    role: Literal["system"] = "system"
    content: str


class UserMessage(BaseModel):
    role: Literal["user"] = "user"
    content: str


class AssistantMessage(BaseModel):
    role: Literal["assistant"] = "assistant"
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)


class ToolMessage(BaseModel):
    role: Literal["tool"] = "tool"
    tool_call_id: str
    name: str
    content: str


Message = Annotated[
    SystemMessage | UserMessage | AssistantMessage | ToolMessage, Field(discriminator="role")
]


class TokenLogprob(BaseModel):
    token: str
    logprob: float | None = None


class ModelTurn(BaseModel):
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    model_id: str = ""
    # What a structured reply's reader needs and a run record does not keep: why the reply
    # ended ("length": it hit max_tokens) and its token logprobs when the server sent them.
    finish_reason: str | None = Field(default=None, exclude=True)
    logprobs: list[TokenLogprob] | None = Field(default=None, exclude=True)

    def as_message(self) -> AssistantMessage:
        return AssistantMessage(content=self.content, tool_calls=list(self.tool_calls))


@runtime_checkable
class ChatModel(Protocol):
    """One chat completion with optional tools. `id` is the spec string the run records."""

    id: str

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]] | None,
        *,
        temperature: float = 0,
        response_format: dict[str, Any] | None = None,
    ) -> ModelTurn: ...


# --- OpenAI wire format ---------------------------------------------------------------------


def to_wire(message: Message) -> dict[str, Any]:
    if isinstance(message, AssistantMessage):
        out: dict[str, Any] = {"role": "assistant", "content": message.content}
        if message.tool_calls:
            out["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                for call in message.tool_calls
            ]
        return out
    if isinstance(message, ToolMessage):
        return {"role": "tool", "tool_call_id": message.tool_call_id, "content": message.content}
    return {"role": message.role, "content": message.content}


def parse_arguments(raw: str | None) -> tuple[dict[str, Any], str | None]:
    if not raw:
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON ({exc.msg}); send one JSON object"
    if not isinstance(value, dict):
        return {}, "arguments must be a JSON object"
    return value, None


def turn_from_response(response: Any, *, label: str, fallback_model: str = "") -> ModelTurn:
    """The turn of one chat completion (the client's ``ChatReply``, or the SDK's object a batch
    line is read into): its first choice's text and tool calls, the usage the client checked,
    the model the endpoint named, why it ended and its token logprobs."""
    if not response.choices:
        raise ChatModelError(f"{label}: the endpoint returned no choices")
    choice = response.choices[0]
    msg = choice.message
    calls = []
    # The reply is not validated (any server's JSON): its optional parts are read with
    # getattr, as the client does (spanproof.wire.client.checked_usage).
    for i, call in enumerate(getattr(msg, "tool_calls", None) or []):
        fn = getattr(call, "function", None)
        if fn is None:
            continue
        args, err = parse_arguments(fn.arguments)
        calls.append(
            ToolCall(id=call.id or f"call_{i}", name=fn.name, arguments=args, arguments_error=err)
        )
    usage = response.usage  # checked by the client: non-negative, estimated when unusable
    tokens = getattr(getattr(choice, "logprobs", None), "content", None)
    return ModelTurn(
        content=msg.content,
        tool_calls=calls,
        usage=Usage(
            prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
            completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
            estimated=bool(getattr(response, "usage_estimated", None)),
        ),
        model_id=getattr(response, "model", None) or fallback_model,
        finish_reason=getattr(choice, "finish_reason", None),
        logprobs=[TokenLogprob(token=t.token, logprob=t.logprob) for t in tokens]
        if tokens
        else None,
    )


# --- scripted model ---------------------------------------------------------------------


class ScriptToolCall(BaseModel):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class ScriptTurn(BaseModel):
    """One scripted reply: text, tool calls, or both. Usage defaults to a rough size estimate."""

    content: str | None = None
    tool_calls: list[ScriptToolCall] = Field(default_factory=list)
    usage: Usage | None = None


class Script(BaseModel):
    """The file format of `scripted:<path>`: `{"model_id": ..., "turns": [ScriptTurn, ...]}`.

    A bare JSON list of turns is accepted too.
    """

    model_id: str = "scripted"
    turns: list[ScriptTurn]

    @field_validator("turns", mode="before")
    @classmethod
    def _text_turns(cls, value: Any) -> Any:
        # A bare string is a text-only turn.
        if isinstance(value, list):
            return [{"content": t} if isinstance(t, str) else t for t in value]
        return value


TurnLike = ModelTurn | ScriptTurn | dict[str, Any] | str
TurnFunction = Callable[..., TurnLike | Awaitable[TurnLike]]  # (messages[, tool_names])


def _estimate_tokens(messages: Sequence[Message]) -> int:
    # A scripted model has no tokenizer; four characters a token keeps budgets exercised.
    chars = sum(len(m.model_dump_json()) for m in messages)
    return max(1, chars // 4)


class ScriptedChatModel:
    """Replays a fixed list of turns, or asks a function for each turn.

    A list item is text, a ScriptTurn / dict (`{"content": ..., "tool_calls": [{"name",
    "arguments"}]}`), a ModelTurn, or a callable(messages) returning one of those (so a
    test can cite the doc_id or span_id an earlier tool returned).

    Built for tests and demos, like pydantic-ai's TestModel / FunctionModel: it
    never improvises, and it fails loudly, naming the turn index, when asked for
    a turn its script does not have. `calls` records what it was sent.
    """

    def __init__(
        self,
        turns: Sequence[TurnLike | TurnFunction] | TurnFunction,
        *,
        model_id: str = "scripted",
        spec: str | None = None,
    ):
        self.id = spec or f"scripted:{model_id}"
        self.model_id = model_id
        self._fn: TurnFunction | None = turns if callable(turns) else None
        # A function may take (messages) or (messages, offered_tool_names).
        self._fn_wants_tools = (
            self._fn is not None and len(inspect.signature(self._fn).parameters) >= 2
        )
        self._turns: list[TurnLike | TurnFunction] = [] if callable(turns) else list(turns)
        self.calls: list[dict[str, Any]] = []

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedChatModel:
        p = Path(path)
        if not p.is_file():
            raise SpecError(
                f"Script file {str(p)!r} not found - scripted:<path> needs a JSON file."
            )
        data = json.loads(p.read_text(encoding="utf-8"))
        script = Script(turns=data) if isinstance(data, list) else Script.model_validate(data)
        return cls(script.turns, model_id=script.model_id, spec=f"scripted:{path}")

    @classmethod
    def from_function(cls, fn: TurnFunction, *, model_id: str = "function") -> ScriptedChatModel:
        return cls(fn, model_id=model_id)

    @property
    def remaining(self) -> int | None:
        return None if self._fn else len(self._turns) - len(self.calls)

    def _coerce(self, raw: TurnLike, index: int, messages: Sequence[Message]) -> ModelTurn:
        if isinstance(raw, ModelTurn):
            turn = raw
        else:
            if isinstance(raw, str):
                raw = ScriptTurn(content=raw)
            elif isinstance(raw, dict):
                raw = ScriptTurn.model_validate(raw)
            turn = ModelTurn(
                content=raw.content,
                tool_calls=[
                    ToolCall(id=c.id or f"call_{index}_{j}", name=c.name, arguments=c.arguments)
                    for j, c in enumerate(raw.tool_calls)
                ],
                usage=raw.usage
                or Usage(
                    prompt_tokens=_estimate_tokens(messages),
                    completion_tokens=max(1, len(raw.model_dump_json()) // 4),
                ),
            )
        if not turn.model_id:
            turn = turn.model_copy(update={"model_id": self.model_id})
        return turn

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]] | None,
        *,
        temperature: float = 0,
        response_format: dict[str, Any] | None = None,
    ) -> ModelTurn:
        index = len(self.calls)
        self.calls.append(
            {
                "messages": list(messages),
                "tools": [t.get("function", {}).get("name") for t in tools or []],
                "response_format": response_format,
            }
        )
        raw: TurnLike | TurnFunction | Awaitable[TurnLike]
        if self._fn is not None:
            names = [t.get("function", {}).get("name") for t in tools or []]
            raw = (
                self._fn(list(messages), names)
                if self._fn_wants_tools
                else self._fn(list(messages))
            )
        else:
            if index >= len(self._turns):
                raise ScriptExhausted(
                    f"{self.id}: script exhausted - asked for turn {index} (0-based) but the "
                    f"script has {len(self._turns)} turn(s). Add a turn, or end the script "
                    "with a draft_answer call."
                )
            raw = self._turns[index]
            if callable(raw):  # a turn may be computed from the conversation so far
                raw = raw(list(messages))
        if inspect.isawaitable(raw):
            raw = await raw
        assert not callable(raw), "a turn function returned a function"
        return self._coerce(raw, index, messages)
