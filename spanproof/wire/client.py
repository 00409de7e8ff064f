"""One client per model endpoint: timeouts, retries, counting, a circuit breaker, closing, and
structured-output negotiation — used by the agent, the judge, the splitter and the scorer.

Why one place: real OpenAI-compatible servers differ (llama.cpp's server answers
``response_format: json_schema`` with HTTP 500, some servers have no tool calling, a CPU
server answers one request at a time), and every caller must meet those differences the same
way, with the server's own explanation shown to the person.

- ``client_for(model, endpoint)`` returns the process's one ``ModelClient`` for that endpoint
  and model (so the response format is negotiated once, and the counters cover every caller).
- Requests go through an ``AdaptiveLimiter`` (``endpoint.concurrency`` in flight, fewer when
  the server says it is overloaded, times out, or queues requests for two rounds in a row).
  Retries happen here, inside the limit, so a retry never piles onto a server still
  computing the request the client gave up on.
- Requests are POSTed as they are (``spanproof.wire.send``), not through the openai SDK's
  ``create``, whose per-request parameter transform was most of the client's CPU a request;
  replies are read as the SDK reads them, into the client's own ``ChatReply``.
- ``timeout_s`` bounds a whole reply, not each read: a server that sends one byte a second
  cannot keep a call alive. A reply whose headers came but whose body did not finish in time
  (a trickle) is not retried and opens the circuit at once (every call would take the whole
  timeout). A reply larger than ``max_reply_bytes`` is refused while it streams.
- Retries: timeouts with no reply yet (once), connection errors (once the endpoint has
  answered), 408, 429 and 5xx, with exponential backoff and the server's Retry-After honoured
  up to ``MAX_RETRY_AFTER_S``; a longer wait fails the call.
- A request error that belongs to one call (a 400 for a context that is too long, a 422) is
  that call's error (``EndpointRefused``) and changes nothing for later calls.
- Circuit breaker: ``breaker_after`` calls in a row that fail at the endpoint (timeouts,
  connection errors, 5xx, rate limits after retries) open the circuit, also after earlier
  successes; every later call raises ``CircuitOpen`` with the cause at once. An endpoint that
  never answered opens it after ``NEVER_REACHED_AFTER`` calls; a refused key or an unknown
  model (``EndpointConfigError``) opens it at once.
- Structured output (``structured()``): the first call tries json_schema, then json_object with
  the schema attached (llama.cpp, vLLM and Ollama accept it), then plain json_object, then no
  response_format (the prompt asks for JSON), moving on only when the server's error says the
  format is unsupported; the outcome is fixed for the endpoint and said once in ``notices``.
  Concurrent first calls wait for that negotiation instead of racing it.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import re
import time
from collections import Counter
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from spanproof.core.specs import EndpointSettings
from spanproof.wire.limiter import AdaptiveLimiter
from spanproof.wire.reply import ReplyUsage
from spanproof.wire.send import (
    REPLY,
    ChatSender,
    ReplyProgress,
    ReplyTooLarge,
    SendFailed,
    StatusError,
)
from spanproof.wire.spend import SpendCapReached, refuse_if_spent, reserve

if TYPE_CHECKING:
    from openai import APIStatusError

ResponseMode = Literal["json_schema", "json_object_schema", "json_object", "prompt"]
NEGOTIATION_ORDER: tuple[ResponseMode, ...] = (
    "json_schema",
    "json_object_schema",
    "json_object",
    "prompt",
)
MAX_RETRY_AFTER_S = 30.0
NEVER_REACHED_AFTER = 3
BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 8.0

_FORMAT_WORDS = re.compile(r"response_format|json_schema|json_object|structured output", re.I)
_CONTEXT_WORDS = re.compile(
    r"context[_ ]length|context window|maximum context|too many tokens|exceeds? the (?:model'?s? )?"
    r"(?:context|maximum)|n_ctx|prompt is too long",
    re.I,
)
_TOOL_WORDS = re.compile(r"\btools?\b|tool_choice|function call", re.I)


class WireError(RuntimeError):
    """A model call that produced no response the caller can use."""

    kind = "error"
    # Set by ``structured()`` when the error ends a call whose earlier attempts were answered:
    # the tokens they spent (a ``Usage``) and the model the endpoint named, so the caller's
    # error record still counts them.
    usage: Any = None
    model_id: str = ""

    def __init__(self, message: str, *, kind: str | None = None, status: int | None = None):
        super().__init__(message)
        if kind:
            self.kind = kind
        self.status = status


class EndpointRefused(WireError):
    """The server refused this one request (4xx, or a 5xx that names an unsupported option)."""

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        status: int | None,
        server_message: str = "",
        format_unsupported: bool = False,
        tools_unsupported: bool = False,
    ):
        super().__init__(message, kind=kind, status=status)
        self.server_message = server_message
        self.format_unsupported = format_unsupported
        self.tools_unsupported = tools_unsupported


class EndpointFailed(WireError):
    """The endpoint did not answer usefully after the retries (timeout, 5xx, 429, connection)."""


class EndpointConfigError(WireError):
    """A setup mistake every call would repeat: a refused key, an unknown model or URL."""

    kind = "config"


class CircuitOpen(WireError):
    """Too many calls in a row failed at the endpoint; no more calls are made."""

    kind = "circuit_open"


def endpoint_dead(exc: BaseException) -> bool:
    """Does ``exc`` (or an error it was raised from) say every later call to the endpoint would
    fail the same way: a refused key, an unknown model or URL, an open circuit? Callers wrap
    wire errors in their own types (a judge's, an agent model's), keeping them as the cause."""
    seen: BaseException | None = exc
    for _ in range(8):
        if seen is None:
            return False
        if isinstance(seen, CircuitOpen | EndpointConfigError):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


# Usage a server reports is what budgets and costs rest on: missing, negative or non-integer
# counts are replaced by an estimate from the text (about four characters a token), and the
# reply says so (``usage_estimated``). So is a count implausibly small for the text it counts:
# more than MAX_CHARS_PER_TOKEN characters a token (under a sixteenth of the estimate) over at
# least PLAUSIBILITY_MIN_CHARS of text - a server reporting 1 token for a 200 kB reply would
# otherwise spend any dollar or token budget without tripping it. Tokenisers pack three to
# five characters of prose into a token, a run of spaces or repeated symbols a few dozen at
# most; counts between that and the estimate are kept, since a provider bills what it counts.
CHARS_PER_TOKEN = 4
MAX_CHARS_PER_TOKEN = 64
PLAUSIBILITY_MIN_CHARS = 1024


def _estimate(text_chars: int) -> int:
    return -(-text_chars // CHARS_PER_TOKEN)


def _field(obj: Any, name: str) -> Any:
    """``name`` of an SDK object or of the same thing as parsed JSON (a Batch API line)."""
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _unusable(usage: Any, chars: dict[str, int]) -> str | None:
    """Why the reported counts cannot be used (``chars``: the text each counts), or None."""
    if usage is None:
        return "missing"
    for field, text_chars in chars.items():
        value = _field(usage, field)
        if value is None:
            return f"missing ({field})"
        if isinstance(value, bool) or not isinstance(value, int):
            return f"not an integer ({field} {value!r})"
        if value < 0:
            return f"negative ({field} {value})"
        if text_chars >= PLAUSIBILITY_MIN_CHARS and value * MAX_CHARS_PER_TOKEN < text_chars:
            return f"implausibly small ({field} {value} for {text_chars} characters)"
    return None


def checked_usage(resp: Any, request: dict[str, Any]) -> str | None:
    """Make the usage of ``resp`` (the SDK's reply, or a reply body as parsed JSON) usable:
    non-negative integers plausible for the text. None when the server's counts were kept,
    else why they were replaced by the estimate from the request's and the reply's text; the
    reason is also left on the reply as ``usage_estimated``."""
    import json

    prompt_chars = len(json.dumps(request.get("messages", []), default=str)) + len(
        json.dumps(request.get("tools", []), default=str)
    )
    reply_chars = 0
    for choice in _field(resp, "choices") or []:
        msg = _field(choice, "message")
        reply_chars += len(_field(msg, "content") or "")
        for call in _field(msg, "tool_calls") or []:
            fn = _field(call, "function")
            reply_chars += len(_field(fn, "name") or "") + len(str(_field(fn, "arguments") or ""))
    why = _unusable(
        _field(resp, "usage"), {"prompt_tokens": prompt_chars, "completion_tokens": reply_chars}
    )
    if why is None:
        return None
    estimate = {"prompt_tokens": _estimate(prompt_chars),
                "completion_tokens": _estimate(reply_chars)}  # fmt: skip
    if isinstance(resp, dict):
        resp["usage"] = {**estimate, "total_tokens": sum(estimate.values())}
        resp["usage_estimated"] = why
        return why
    resp.usage = ReplyUsage(**estimate, total_tokens=sum(estimate.values()))
    with contextlib.suppress(AttributeError, TypeError, ValueError):
        resp.usage_estimated = why  # a reply type that takes no new attribute: counters say it
    return why


class WireCounters(BaseModel):
    """What a client did: logical calls, HTTP requests (retries included), and their outcomes."""

    calls: int = 0
    requests: int = 0
    retries: int = 0
    reasks: int = 0
    responses: int = 0  # HTTP responses received, any status: the server was reached
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usage_estimated: int = 0  # replies whose token counts were estimated (see checked_usage)
    batch_requests: int = 0  # requests answered in Batch API jobs (spanproof.wire.batch)
    errors: dict[str, int] = Field(default_factory=dict)

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


def server_message(exc: APIStatusError | StatusError) -> str:
    """The server's own explanation from a status error (the SDK's or the client's own, JSON
    or not), one line."""
    body = exc.body
    text = ""
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            text = str(err.get("message") or err.get("detail") or err)
        else:
            text = str(err)
    elif isinstance(body, str):
        text = body
    if not text:
        try:
            text = exc.response.text
        except Exception:  # a body that cannot be read (streamed, closed): the error's own words
            text = str(exc)
    text = re.sub(r"<[^>]+>", " ", text)  # an HTML error page: keep its words
    text = " ".join(text.split())
    return text[:300] + ("…" if len(text) > 300 else "")


def response_format_for(
    mode: ResponseMode, schema: dict[str, Any], name: str
) -> dict[str, Any] | None:
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "strict": True, "schema": schema},
        }
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    if mode == "json_object":
        return {"type": "json_object"}
    return None


class ModelClient:
    """The one configured client for (endpoint, model); see the module docstring."""

    def __init__(self, model: str, endpoint: EndpointSettings) -> None:
        self.model = model
        self.settings = endpoint
        self.base_url = (endpoint.base_url or "https://api.openai.com/v1").rstrip("/")
        self.limiter = AdaptiveLimiter(endpoint.concurrency, timeout_s=endpoint.timeout_s)
        self.counters = WireCounters()
        self.notices: list[str] = []
        self.reported_model: str | None = None
        forced = endpoint.response_format
        self.mode: ResponseMode = "json_schema" if forced == "auto" else forced
        self.format_settled = forced != "auto"
        self.tools_mode: Literal["native", "content"] = "native"
        self._failures_in_row = 0
        self._open_cause: str | None = None
        self._senders: dict[int, ChatSender] = {}
        self._locks: dict[int, asyncio.Lock] = {}

    # --- plumbing ------------------------------------------------------------------------

    @property
    def label(self) -> str:
        return f"openai:{self.model} at {self.base_url}"

    @property
    def reached(self) -> bool:
        return self.counters.responses > 0

    @property
    def open_cause(self) -> str | None:
        """Why the circuit is open (no more calls are made), or None while it is closed."""
        return self._open_cause

    def _sender(self) -> ChatSender:
        key = id(asyncio.get_running_loop())
        sender = self._senders.get(key)
        if sender is None:
            sender = self._senders[key] = ChatSender(
                self.base_url, self.settings.api_key, timeout_s=self.settings.timeout_s,
                max_reply_bytes=self.settings.max_reply_bytes,
            )  # fmt: skip
        return sender

    def _lock(self) -> asyncio.Lock:
        key = id(asyncio.get_running_loop())
        if key not in self._locks:
            self._locks[key] = asyncio.Lock()
        return self._locks[key]

    async def aclose(self) -> None:
        """Close the HTTP client of the running loop (the others were closed with their loop)."""
        sender = self._senders.pop(id(asyncio.get_running_loop()), None)
        self._locks.pop(id(asyncio.get_running_loop()), None)
        if sender is not None:
            await sender.aclose()

    def notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    # --- one logical call ------------------------------------------------------------------

    def _classify(
        self, exc: Exception, progress: ReplyProgress | None = None
    ) -> WireError | tuple[str, float | None, str]:
        """A final error, or (kind, retry_after, message) for a retryable one."""
        timeout = self.settings.timeout_s
        # the transports raise TimeoutError for a timeout of theirs (spanproof.wire.send)
        if isinstance(exc, TimeoutError):
            if progress is not None and progress.headers:
                return EndpointFailed(
                    f"{self.label}: the reply did not finish within {timeout:g} s although the "
                    f"server had answered ({progress.bytes} bytes of it came): a server that "
                    "trickles its reply would hold every call for the whole --timeout",
                    kind="slow_reply",
                )
            return ("timeout", None, f"no answer within {timeout:g} s")
        cause = exc.__cause__ or exc.__context__
        if isinstance(exc, ReplyTooLarge) or isinstance(cause, ReplyTooLarge):
            big = exc if isinstance(exc, ReplyTooLarge) else cause
            return EndpointFailed(f"{self.label}: {big}", kind="reply_too_large")
        if isinstance(exc, SendFailed):
            cause = exc.__cause__ or exc
            return ("connection", None, f"connection error: {cause}")
        if not isinstance(exc, StatusError):
            return EndpointFailed(
                f"{self.label}: unreadable response ({type(exc).__name__}: {str(exc)[:200]})",
                kind="bad_response",
            )
        status = exc.status_code
        said = server_message(exc)
        if status in (401, 403):
            return EndpointConfigError(
                f"{self.label}: the endpoint refused the API key (HTTP {status}: {said}). "
                "Check OPENAI_API_KEY / --api-key and OPENAI_BASE_URL / --base-url.",
                status=status,
            )
        if status == 404:
            return EndpointConfigError(
                f"{self.label}: the endpoint does not know model {self.model!r} or the URL is "
                f"wrong (HTTP 404: {said}). Check the model name and OPENAI_BASE_URL / "
                "--base-url (it usually ends in /v1).",
                status=status,
            )
        if status >= 400 and _FORMAT_WORDS.search(said) and not _CONTEXT_WORDS.search(said):
            return EndpointRefused(
                f"{self.label}: the server does not accept this response_format (HTTP {status}: "
                f"{said})",
                kind="format_unsupported", status=status, server_message=said,
                format_unsupported=True,
            )  # fmt: skip
        if (
            status >= 400
            and _TOOL_WORDS.search(said)
            and status != 429
            and not _CONTEXT_WORDS.search(said)
        ):
            return EndpointRefused(
                f"{self.label}: the server does not accept tools (HTTP {status}: {said})",
                kind="tools_unsupported", status=status, server_message=said,
                tools_unsupported=True,
            )  # fmt: skip
        if status in (408, 429) or status >= 500:
            retry_after = _retry_after(exc)
            kind = "rate_limited" if status == 429 else f"http_{status}"
            return (kind, retry_after, f"HTTP {status}: {said}")
        if _CONTEXT_WORDS.search(said):
            return EndpointRefused(
                f"{self.label}: the request does not fit the model's context window "
                f"(HTTP {status}: {said})",
                kind="context_length", status=status, server_message=said,
            )  # fmt: skip
        return EndpointRefused(
            f"{self.label}: the server refused the request (HTTP {status}: {said})",
            kind=f"http_{status}", status=status, server_message=said,
        )  # fmt: skip

    async def chat(self, **kwargs: Any) -> Any:
        """One chat completion (``model`` and the client settings filled in), with retries."""
        if self._open_cause:
            raise CircuitOpen(self._open_cause)
        refuse_if_spent()
        kwargs.setdefault("model", self.model)
        kwargs.setdefault("stream", False)
        self.counters.calls += 1
        retries_left = self.settings.max_retries
        timeouts = 0
        attempt = 0
        # Made (and its modules imported) before the slot is taken and the clock starts: the
        # reply deadline and the limiter's first-reply reference are the server's time, not
        # this process's first-call setup.
        sender = self._sender()
        while True:
            async with self.limiter.slot() as outcome:
                try:
                    # under a dollar cap, the request's worst case is held until it is counted
                    give_back = reserve(self.model, kwargs, self.settings.max_reply_bytes)
                except SpendCapReached:
                    outcome["kind"] = "refused"  # never sent: it says nothing of the load
                    raise
                self.counters.requests += 1
                if attempt:
                    self.counters.retries += 1
                progress = ReplyProgress()
                token = REPLY.set(progress)
                try:
                    # The whole reply within timeout_s: httpx's own timeout is per read.
                    async with asyncio.timeout(self.settings.timeout_s):
                        resp = await sender.post(kwargs)
                except Exception as exc:
                    # any exception: only a status error carries a status code
                    if getattr(exc, "status_code", None) is not None or progress.headers:
                        self.counters.responses += 1
                    verdict = self._classify(exc, progress)
                    outcome.update(self._load_signal(verdict))
                else:
                    outcome["kind"] = "ok"
                    self.counters.responses += 1
                    # a server's non-JSON reply reaches here as text, or without choices
                    if not getattr(resp, "choices", None) or isinstance(resp, str | bytes):
                        self._failed("bad_response", "the response held no choices")
                        raise EndpointFailed(
                            f"{self.label}: the response held no choices (not a chat completion: "
                            f"{str(resp)[:120]!r})",
                            kind="bad_response",
                        )
                    self._succeeded(resp, kwargs)
                    return resp
                finally:
                    REPLY.reset(token)
                    give_back()
            if isinstance(verdict, EndpointConfigError):
                self.counters.error(verdict.kind)
                # Every later call would be refused the same way: stop calling, say why.
                self._open_cause = self._open_cause or str(verdict)
                raise verdict
            if isinstance(verdict, EndpointRefused):
                self.counters.error(verdict.kind)
                self._failures_in_row = 0  # the server answered; this request was the problem
                raise verdict
            if isinstance(verdict, WireError):
                self._failed(verdict.kind, str(verdict))
                if verdict.kind == "slow_reply":
                    # Each call would hold for the whole timeout again: stop calling at once.
                    self._open_cause = self._open_cause or (
                        f"{verdict} - stopped calling it. Check the server and the network "
                        "between it and this machine."
                    )
                raise verdict
            kind, retry_after, message = verdict
            if kind == "timeout":
                timeouts += 1
            too_long = retry_after is not None and retry_after > MAX_RETRY_AFTER_S
            # Nothing listening where nothing ever answered: a setup mistake, not a hiccup, so
            # no backoff (the breaker says so after NEVER_REACHED_AFTER calls, in a moment).
            nobody_home = kind == "connection" and not self.reached
            if retries_left <= 0 or too_long or timeouts > 1 or nobody_home:
                detail = message
                if too_long:
                    detail += (
                        f"; the server asked to retry after {retry_after:g} s, longer than "
                        f"{MAX_RETRY_AFTER_S:g} s"
                    )
                elif attempt:
                    detail += f" (after {attempt} retr{'y' if attempt == 1 else 'ies'})"
                self._failed(kind, detail)
                raise EndpointFailed(f"{self.label}: {detail}", kind=kind)
            retries_left -= 1
            attempt += 1
            delay = retry_after
            if delay is None:
                delay = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (attempt - 1))
                delay *= 0.5 + random.random() / 2
            await asyncio.sleep(delay)

    def _load_signal(self, verdict: WireError | tuple[str, float | None, str]) -> dict[str, Any]:
        """What a failed request tells the limiter about the server's load: a timeout, a
        connection refused by a server that had answered (restarting, or out of workers),
        429 / 503 / 504 and any Retry-After say "too much"; a request error says nothing."""
        if isinstance(verdict, WireError):
            return {"kind": "refused"}
        kind, retry_after, _ = verdict
        if kind == "timeout":
            return {"kind": "timeout"}
        if kind == "connection":
            return {"kind": "connection" if self.reached else "refused"}
        if kind in ("rate_limited", "http_503", "http_504") or retry_after is not None:
            # A wait longer than the client honours fails the call instead (see chat()); it
            # must not hold every other request that long either.
            honoured = retry_after if retry_after and retry_after <= MAX_RETRY_AFTER_S else None
            return {"kind": "overloaded", "retry_after": honoured}
        return {"kind": "refused"}

    def _succeeded(self, resp: Any, request: dict[str, Any]) -> None:
        self._failures_in_row = 0
        # unvalidated reply (see checked_usage): the model may be missing
        self.reported_model = getattr(resp, "model", None) or self.reported_model
        why = checked_usage(resp, request)
        if why:
            self.counters.usage_estimated += 1
            self.notice(
                f"{self.label}: the server's token counts were {why}; tokens (and what they "
                f"cost, and the token budget) are estimated from the text length, "
                f"{CHARS_PER_TOKEN} characters a token"
            )
        usage = resp.usage
        self.counters.prompt_tokens += usage.prompt_tokens
        self.counters.completion_tokens += usage.completion_tokens

    def _failed(self, kind: str, detail: str = "") -> None:
        self.counters.error(kind)
        last = f"{kind}: {detail.removeprefix(self.label + ': ')}" if detail else kind
        self._failures_in_row += 1
        limit = self.settings.breaker_after if self.reached else NEVER_REACHED_AFTER
        if self._failures_in_row >= limit and not self._open_cause:
            if self.reached:
                self._open_cause = (
                    f"{self.label}: {self._failures_in_row} calls in a row failed (last: {last}) "
                    "after the endpoint had answered; stopped calling it. Check the server (its "
                    "log, its load), raise --timeout for slow hardware, or lower --concurrency."
                )
            else:
                self._open_cause = (
                    f"{self.label}: the endpoint was never reached ({self._failures_in_row} calls "
                    f"in a row, last: {last}). Start the server, or set OPENAI_BASE_URL / "
                    "--base-url to where it listens (it usually ends in /v1)."
                )

    # --- structured output -------------------------------------------------------------

    async def structured(
        self,
        messages: list[dict[str, Any]],
        *,
        schema: dict[str, Any],
        name: str,
        max_tokens: int | None = None,
        temperature: float = 0,
        **extra: Any,
    ) -> Any:
        """A call whose reply must be JSON of ``schema``; the response format is negotiated.
        ``extra`` rides along unchanged (e.g. ``logprobs=True``)."""
        base: dict[str, Any] = {"messages": messages, "temperature": temperature, **extra}
        if max_tokens:
            base["max_tokens"] = max_tokens
        if not self.format_settled:
            async with self._lock():
                if not self.format_settled:
                    return await self._negotiate(base, schema, name)
        return await self.chat(**base, **self._format_kwargs(self.mode, schema, name))

    def request_body(
        self,
        messages: list[dict[str, Any]],
        *,
        schema: dict[str, Any],
        name: str,
        max_tokens: int | None = None,
        temperature: float = 0,
        **extra: Any,
    ) -> dict[str, Any]:
        """The body ``structured()`` sends in the endpoint's current response-format mode (no
        negotiation): a request that travels another way, as a Batch API line."""
        body: dict[str, Any] = {"model": self.model, "messages": messages,
                                "temperature": temperature, **extra}  # fmt: skip
        if max_tokens:
            body["max_tokens"] = max_tokens
        return {**body, **self._format_kwargs(self.mode, schema, name)}

    @staticmethod
    def _format_kwargs(mode: ResponseMode, schema: dict[str, Any], name: str) -> dict[str, Any]:
        fmt = response_format_for(mode, schema, name)
        return {"response_format": fmt} if fmt else {}

    async def _negotiate(self, base: dict[str, Any], schema: dict[str, Any], name: str) -> Any:
        start = NEGOTIATION_ORDER.index(self.mode)
        for i, mode in enumerate(NEGOTIATION_ORDER[start:], start):
            try:
                resp = await self.chat(**base, **self._format_kwargs(mode, schema, name))
            except EndpointRefused as exc:
                if exc.format_unsupported and i + 1 < len(NEGOTIATION_ORDER):
                    nxt = NEGOTIATION_ORDER[i + 1]
                    self.mode = nxt
                    self.notice(
                        f"{self.label}: response_format {mode} refused (HTTP {exc.status}: "
                        f"{exc.server_message}); trying {nxt}"
                    )
                    continue
                raise
            self.mode, self.format_settled = mode, True
            if i > 0:
                self.notice(f"{self.label}: structured output uses {mode} (negotiated once)")
            return resp
        raise AssertionError("unreachable: the prompt mode sends no response_format")

    def describe(self) -> str:
        c = self.counters
        errors = ", ".join(f"{k} {v}" for k, v in sorted(c.errors.items())) or "none"
        return (
            f"{self.label}: {c.calls} calls, {c.requests} HTTP requests ({c.retries} retries, "
            f"{c.reasks} re-asks)"
            f"{f', {c.batch_requests} requests in Batch API jobs' if c.batch_requests else ''}, "
            f"tokens {c.prompt_tokens} in / {c.completion_tokens} out"
            f"{f' ({c.usage_estimated} replies estimated)' if c.usage_estimated else ''}, "
            f"errors: {errors}; response format {self.mode}"
            f"{'' if self.format_settled else ' (not yet negotiated)'}; {self.limiter.describe()}"
        )


def _retry_after(exc: Any) -> float | None:
    # any exception: only the SDK's HTTP errors carry a response with headers
    headers = getattr(getattr(exc, "response", None), "headers", None) or {}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        raw = headers.get(name) if hasattr(headers, "get") else None
        if raw:
            try:
                return float(raw) * scale
            except ValueError:
                return None
    return None


# --- the process's clients -------------------------------------------------------------

_CLIENTS: dict[tuple[object, ...], ModelClient] = {}


def client_for(model: str, endpoint: EndpointSettings | None = None) -> ModelClient:
    """The one client for this endpoint and model (created on first use; SpecError if no key)."""
    settings = (endpoint or EndpointSettings()).resolved()
    key = (model, *settings.model_dump().values())
    client = _CLIENTS.get(key)
    if client is None:
        client = _CLIENTS[key] = ModelClient(model, settings)
    return client


def clients() -> list[ModelClient]:
    return list(_CLIENTS.values())


def forget_clients() -> None:
    """Drop every client (tests; a new command in the same process starts fresh)."""
    _CLIENTS.clear()


async def close_clients() -> None:
    for client in clients():
        await client.aclose()


def totals() -> WireCounters:
    """Counters summed over every client of the process."""
    summed: Counter[str] = Counter()
    errors: Counter[str] = Counter()
    for client in clients():
        summed.update(client.counters.model_dump(exclude={"errors"}))
        errors.update(client.counters.errors)
    return WireCounters(**summed, errors=dict(errors))


def monotonic() -> float:
    return time.monotonic()
