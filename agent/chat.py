"""The model layer: the project's own chat messages, tool calls and usage.

The loop and the convergence check talk to a `ChatModel`. Provider objects
(openai's response classes, its exceptions) never leave this module, so the
rest of the agent is written against these types only and a scripted model
can stand in for any endpoint.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, Field, field_validator

from spanproof.core.specs import EndpointSettings, ModelSpec, SpecError, parse_spec


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


class ModelTurn(BaseModel):
    content: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    model_id: str = ""

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


# --- OpenAI-compatible endpoints --------------------------------------------------------


def _to_wire(message: Message) -> dict[str, Any]:
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


def _parse_arguments(raw: str | None) -> tuple[dict[str, Any], str | None]:
    if not raw:
        return {}, None
    try:
        value = json.loads(raw)
    except json.JSONDecodeError as exc:
        return {}, f"arguments are not valid JSON ({exc.msg}); send one JSON object"
    if not isinstance(value, dict):
        return {}, "arguments must be a JSON object"
    return value, None


class ToolsNotCalled(ChatModelError):
    """Tools were offered, and the model called none: natively or as JSON in its reply."""


# Consecutive tool-offered turns with no tool call before the model is asked once more with the
# tools described in text (JSON tool calls in content); a model that answers that without a tool
# call either ends the run with ToolsNotCalled.
NO_TOOL_TURNS = 2
# A cap on one agent turn: a draft with a dozen claims fits; a small model that loses its way on
# a CPU server does not write until the context window is full.
AGENT_MAX_TOKENS = 1500
CONTEXT_TRIMS = 3

CONTENT_TOOLS_HEADER = (
    "TOOLS. This server has no native tool calling: to call tools, reply with only one JSON "
    'object, {"tool_calls": [{"name": "<tool name>", "arguments": {...}}]}, and nothing else. '
    "Tool results come back in a user message that starts with TOOL RESULT. The tools:"
)


def describe_tools(tools: Sequence[dict[str, Any]]) -> str:
    lines = [CONTENT_TOOLS_HEADER]
    for tool in tools:
        fn = tool.get("function", tool)
        params = json.dumps(fn.get("parameters", {}), separators=(",", ":"))
        lines.append(f"- {fn.get('name')}: {fn.get('description', '').strip()} Arguments: {params}")
    return "\n".join(lines)


def tool_calls_from_content(content: str | None, offered: Sequence[str]) -> list[ToolCall]:
    """JSON tool calls written in a reply's text, for offered tools only ([] when there are none).

    Accepted shapes: {"tool_calls": [...]}, one {"name", "arguments"} object (also "tool" /
    "args"), or a list of them. Arguments are parsed like native ones, so the runtime validates
    them against the same schemas and answers INVALID_ARGUMENTS the same way.
    """
    from spanproof.wire import json_from_reply

    if not content or "{" not in content:
        return []
    try:
        data = json_from_reply(content)
    except ValueError:
        return []
    if isinstance(data, dict) and isinstance(data.get("tool_calls"), list):
        items = data["tool_calls"]
    elif isinstance(data, list):
        items = data
    else:
        items = [data]
    calls: list[ToolCall] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            continue
        fn = item.get("function") if isinstance(item.get("function"), dict) else item
        name = fn.get("name") or fn.get("tool")
        if name not in offered:
            continue
        raw = fn.get("arguments", fn.get("args", fn.get("parameters", {})))
        if isinstance(raw, str):
            args, err = _parse_arguments(raw)
        elif isinstance(raw, dict):
            args, err = raw, None
        else:
            args, err = {}, "arguments must be a JSON object"
        calls.append(ToolCall(id=f"json_call_{i}", name=name, arguments=args, arguments_error=err))
    return calls


def _to_text_wire(message: Message) -> dict[str, Any]:
    """A message for a server without tool support: tool traffic written as plain text."""
    if isinstance(message, AssistantMessage):
        if message.tool_calls:
            calls = [{"name": c.name, "arguments": c.arguments} for c in message.tool_calls]
            return {"role": "assistant", "content": json.dumps({"tool_calls": calls})}
        return {"role": "assistant", "content": message.content or ""}
    if isinstance(message, ToolMessage):
        return {
            "role": "user",
            "content": f"TOOL RESULT {message.name} ({message.tool_call_id}):\n{message.content}",
        }
    return {"role": message.role, "content": message.content}


def _trim_longest(wire: list[dict[str, Any]], share: float) -> int:
    """Cut the middle of the longest tool result (or, failing that, user message); chars cut."""
    candidates = [
        m for m in wire[2:] if m["role"] in ("tool", "user") and isinstance(m.get("content"), str)
    ]
    if not candidates:
        return 0
    target = max(candidates, key=lambda m: len(m["content"]))
    text = target["content"]
    keep = int(len(text) * (1 - share))
    if keep >= len(text) or len(text) < 400:
        return 0
    head, tail = text[: keep * 2 // 3], text[len(text) - keep // 3 :]
    cut = len(text) - len(head) - len(tail)
    target["content"] = (
        f"{head}\n[... {cut} characters cut to fit the model's context window ...]\n{tail}"
    )
    return cut


class OpenAIChatModel:
    """Any OpenAI-compatible Chat Completions endpoint (OpenAI, vLLM, llama.cpp, Ollama).

    Calls go through the shared client (spanproof.wire), so timeouts, retries, the circuit
    breaker and the counters are the same as the judge's. Servers differ in tool support:
    native ``tool_calls`` are read first; a reply that writes a JSON tool call in its text is
    read as one; a server that refuses ``tools``, or a model that answers ``NO_TOOL_TURNS``
    tool-offered turns in a row with no tool call, is asked with the tools described in text
    (JSON tool calls in content, validated like native ones); a model that still calls none
    raises ToolsNotCalled. A conversation that no longer fits the context window has its longest
    tool results cut (and the client says how much) before the error reaches the run.
    """

    def __init__(
        self,
        model: str,
        endpoint: EndpointSettings | None = None,
        *,
        max_retries: int | None = None,
    ):
        from spanproof.wire import client_for

        settings = endpoint or EndpointSettings()
        if max_retries is not None:
            settings = settings.model_copy(update={"max_retries": max_retries})
        self.id = f"openai:{model}"
        self.model = model
        self.client = client_for(model, settings)
        self._no_tool_turns = 0

    async def _call(self, kwargs: dict[str, Any]) -> Any:
        from spanproof.wire import (
            CircuitOpen,
            EndpointConfigError,
            EndpointRefused,
            WireError,
        )

        trims = 0
        while True:
            try:
                fmt = kwargs.get("response_format")
                if fmt and self.client.format_settled and self.client.mode == "prompt":
                    kwargs.pop("response_format")  # this endpoint takes no response_format
                elif fmt:
                    try:
                        return await self.client.chat(**kwargs)
                    except EndpointRefused as exc:
                        if not exc.format_unsupported:
                            raise
                        # The prompt asks for JSON too; this call goes without the format.
                        kwargs.pop("response_format")
                return await self.client.chat(**kwargs)
            except EndpointRefused as exc:
                if exc.kind == "context_length" and trims < CONTEXT_TRIMS:
                    cut = _trim_longest(kwargs["messages"], 0.5)
                    if cut:
                        trims += 1
                        self.client.notice(
                            f"{self.client.label}: the conversation did not fit the model's "
                            f"context window ({exc.server_message}); cut {cut} characters of "
                            "tool results and asked again"
                        )
                        continue
                raise
            except (EndpointConfigError, CircuitOpen) as exc:
                raise ChatModelError(str(exc)) from exc
            except WireError as exc:
                raise ChatModelError(
                    f"{self.id}: the model call failed ({exc.kind}: {exc}). Check the server, "
                    "--base-url / OPENAI_BASE_URL and the model name; raise --timeout for slow "
                    "hardware."
                ) from exc

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[dict[str, Any]] | None,
        *,
        temperature: float = 0,
        response_format: dict[str, Any] | None = None,
    ) -> ModelTurn:
        from spanproof.wire import EndpointRefused

        offered = [t.get("function", {}).get("name") for t in tools or []]
        if tools and self.client.tools_mode == "native":
            try:
                turn = await self._complete_native(messages, tools, temperature, response_format)
            except EndpointRefused as exc:
                if not exc.tools_unsupported:
                    raise self._refused(exc) from exc
                self.client.tools_mode = "content"
                self.client.notice(
                    f"{self.client.label}: the server refused native tool calls "
                    f"({exc.server_message}); tools are described in text and called as JSON"
                )
                return await self._complete_content(messages, tools, offered, temperature)
            if turn.tool_calls:
                self._no_tool_turns = 0
                return turn
            self._no_tool_turns += 1
            if self._no_tool_turns < NO_TOOL_TURNS:
                return turn
            # The model has not called a tool in NO_TOOL_TURNS turns: ask once with the tools
            # described in text. If that works, keep doing so for this endpoint.
            retry = await self._complete_content(messages, tools, offered, temperature)
            self.client.tools_mode = "content"
            self.client.notice(
                f"{self.client.label}: the model made no native tool call in {NO_TOOL_TURNS} "
                "turns; tools are now described in text and called as JSON in the reply"
            )
            return retry
        if tools:
            return await self._complete_content(messages, tools, offered, temperature)
        try:
            return self._turn(
                await self._call(self._kwargs(messages, None, temperature, response_format, False))
            )
        except EndpointRefused as exc:
            raise self._refused(exc) from exc

    def _refused(self, exc: Exception) -> ChatModelError:
        return ChatModelError(
            f"{self.id}: the endpoint refused the call ({exc}). Check --base-url / "
            "OPENAI_BASE_URL, the key, and that the model name exists there."
        )

    def _kwargs(self, messages, tools, temperature, response_format, native: bool) -> dict:
        if native:
            wire = [_to_wire(m) for m in messages]
        else:
            wire = [_to_text_wire(m) for m in messages]
            if tools:
                text = describe_tools(tools)
                if wire and wire[0]["role"] == "system":
                    wire[0] = {"role": "system", "content": wire[0]["content"] + "\n\n" + text}
                else:
                    wire.insert(0, {"role": "system", "content": text})
        kwargs: dict[str, Any] = {
            "messages": wire,
            "temperature": temperature,
            "max_tokens": AGENT_MAX_TOKENS,
        }
        if tools and native:
            kwargs["tools"] = list(tools)
        if response_format:
            kwargs["response_format"] = response_format
        return kwargs

    async def _complete_native(self, messages, tools, temperature, response_format) -> ModelTurn:
        offered = [t.get("function", {}).get("name") for t in tools]
        response = await self._call(
            self._kwargs(messages, tools, temperature, response_format, True)
        )
        turn = self._turn(response)
        if not turn.tool_calls:
            calls = tool_calls_from_content(turn.content, offered)
            if calls:
                turn = turn.model_copy(update={"tool_calls": calls})
        return turn

    async def _complete_content(self, messages, tools, offered, temperature) -> ModelTurn:
        from spanproof.wire import EndpointRefused

        try:
            response = await self._call(self._kwargs(messages, tools, temperature, None, False))
        except EndpointRefused as exc:
            raise self._refused(exc) from exc
        turn = self._turn(response)
        calls = tool_calls_from_content(turn.content, offered)
        if calls:
            self._no_tool_turns = 0
            return turn.model_copy(update={"tool_calls": calls})
        self._no_tool_turns += 1
        if self._no_tool_turns > NO_TOOL_TURNS:
            raise ToolsNotCalled(
                f"this model/server did not call tools: {self.id} at {self.client.base_url} "
                f"answered {self._no_tool_turns} tool-offered turns in a row with no tool call, "
                "natively or as JSON in its reply (last reply: "
                f"{(turn.content or '').strip()[:120]!r}). Use a model and server with tool "
                "calling (llama.cpp: llama-server --jinja; vLLM: --enable-auto-tool-choice "
                "--tool-call-parser ...; Ollama: a model tagged 'tools'), or --policy extractive."
            )
        return turn

    def _turn(self, response: Any) -> ModelTurn:
        if not response.choices:
            raise ChatModelError(f"{self.id}: the endpoint returned no choices")
        msg = response.choices[0].message
        calls = []
        for i, call in enumerate(getattr(msg, "tool_calls", None) or []):
            fn = getattr(call, "function", None)
            if fn is None:
                continue
            args, err = _parse_arguments(fn.arguments)
            calls.append(
                ToolCall(
                    id=call.id or f"call_{i}", name=fn.name, arguments=args, arguments_error=err
                )
            )
        usage = response.usage  # checked by the client: non-negative, estimated when unusable
        return ModelTurn(
            content=msg.content,
            tool_calls=calls,
            usage=Usage(
                prompt_tokens=getattr(usage, "prompt_tokens", 0) or 0,
                completion_tokens=getattr(usage, "completion_tokens", 0) or 0,
                estimated=bool(getattr(response, "usage_estimated", None)),
            ),
            model_id=response.model or self.model,
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
        self._fn_wants_tools = bool(self._fn) and len(inspect.signature(self._fn).parameters) >= 2
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
        if self._fn is not None:
            names = [t.get("function", {}).get("name") for t in tools or []]
            raw = (
                self._fn(list(messages), names)
                if self._fn_wants_tools
                else self._fn(list(messages))
            )
            if inspect.isawaitable(raw):
                raw = await raw
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
        return self._coerce(raw, index, messages)


# --- factory ----------------------------------------------------------------------------


def make_chat_model(spec: str | ModelSpec, endpoint: EndpointSettings | None = None) -> ChatModel:
    parsed = spec if isinstance(spec, ModelSpec) else parse_spec(spec)
    if parsed.kind == "openai":
        return OpenAIChatModel(parsed.name, endpoint)
    if parsed.kind == "scripted":
        return ScriptedChatModel.from_file(parsed.name)
    raise SpecError(
        f"{parsed} is not a chat model. Agent models are openai:<model> or scripted:<path>; "
        "for a run with no model use --policy extractive."
    )
