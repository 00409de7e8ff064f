"""The agent's chat model: tool calling over any OpenAI-compatible endpoint, and the factory
that builds a model from its spec.

The chat types (messages, tool calls, usage, a turn, the ``ChatModel`` protocol) and the
scripted model live in the model layer, ``spanproof.wire.chat``, with the judge and the
scorers; they are imported here so the agent's modules keep one place to import them from.
What is the agent's own: native tool calls or JSON tool calls in text, the switch between
them, and trimming a conversation that no longer fits the context window.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from spanproof.core.specs import EndpointSettings, ModelSpec, SpecError, parse_spec
from spanproof.wire.chat import (
    AssistantMessage,
    ChatModel,
    ChatModelError,
    Message,
    ModelTurn,
    Script,
    ScriptedChatModel,
    ScriptExhausted,
    ScriptToolCall,
    ScriptTurn,
    SystemMessage,
    ToolCall,
    ToolMessage,
    TurnFunction,
    TurnLike,
    Usage,
    UserMessage,
    turn_from_response,
)
from spanproof.wire.chat import parse_arguments as _parse_arguments
from spanproof.wire.chat import to_wire as _to_wire

__all__ = [
    "AGENT_MAX_TOKENS",
    "AssistantMessage",
    "ChatModel",
    "ChatModelError",
    "Message",
    "ModelTurn",
    "OpenAIChatModel",
    "Script",
    "ScriptExhausted",
    "ScriptToolCall",
    "ScriptTurn",
    "ScriptedChatModel",
    "SystemMessage",
    "ToolCall",
    "ToolMessage",
    "ToolsNotCalled",
    "TurnFunction",
    "TurnLike",
    "Usage",
    "UserMessage",
    "describe_tools",
    "make_chat_model",
    "tool_calls_from_content",
]

# --- OpenAI-compatible endpoints --------------------------------------------------------


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
        function = item.get("function")
        fn = function if isinstance(function, dict) else item
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
        return turn_from_response(response, label=self.id, fallback_model=self.model)


# --- factory ----------------------------------------------------------------------------


CHAT_MODEL_KINDS = ("openai", "scripted")


def check_chat_spec(spec: str | ModelSpec) -> ModelSpec:
    """The spec of an agent (chat) model, parsed; SpecError saying what to write otherwise."""
    parsed = spec if isinstance(spec, ModelSpec) else parse_spec(spec)
    if parsed.kind not in CHAT_MODEL_KINDS or not parsed.name:
        raise SpecError(
            f"{str(parsed)!r} is not a chat model. Agent models are openai:<model> or "
            "scripted:<path>; for a run with no model use --policy extractive."
        )
    return parsed


def make_chat_model(spec: str | ModelSpec, endpoint: EndpointSettings | None = None) -> ChatModel:
    parsed = check_chat_spec(spec)
    if parsed.kind == "openai":
        return OpenAIChatModel(parsed.name, endpoint)
    return ScriptedChatModel.from_file(parsed.name)
