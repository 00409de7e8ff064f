"""The HTTP of one chat completion: a POST of a JSON body, its reply read into a typed object.

Why not the openai SDK's ``chat.completions.create``: before every request it walks the
parameters through its type-driven transform (a recursive pass over every message, some
2.5 ms of CPU a request), which changes nothing in a body of plain JSON such as every
caller here sends. On the one event loop that drives 64 requests in flight that is most of the
client's own cost, and the loop's lag then reads as the server's latency. So the body is
encoded once, as it is, and sent with httpx (the SDK's own HTTP library), and the reply is
read as the SDK reads it, into the client's own reply type (spanproof.wire.reply: the SDK's
types are a second of imports):

- a JSON object becomes a ``ChatReply`` (no validation, as the SDK builds replies: every
  reader of a reply checks what it uses);
- JSON that is not an object, or a body that is not JSON under a non-JSON content type,
  comes back as itself (a caller sees a reply without choices: a bad response);
- a JSON content type whose body does not parse raises ``json.JSONDecodeError``;
- a status of 400 or more raises ``StatusError`` (status, the body as JSON or text, the
  response with its headers: what the SDK's ``APIStatusError`` carries);
- anything that stops the exchange other than a timeout (``httpx.TimeoutException``) or an
  oversized reply (``ReplyTooLarge``) raises ``SendFailed`` from its cause: the connection
  failed, as the SDK's ``APIConnectionError`` says.

The transport notes when a reply's headers came (``REPLY`` progress, for the whole-reply
deadline) and caps its body while it streams (``max_reply_bytes``).
"""

from __future__ import annotations

import contextvars
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx

from spanproof.wire.reply import read_reply

# The SDK's pool limits: every request of a full window gets a connection of its own.
CONNECTION_LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100)
USER_AGENT = "spanproof"


class ReplyTooLarge(Exception):
    """A reply body passed the size cap while it streamed (or declared a larger length)."""

    def __init__(self, limit: int, seen: int):
        super().__init__(f"the reply passed {limit} bytes ({seen} read); refused")
        self.limit, self.seen = limit, seen


class StatusError(Exception):
    """The server answered with a status of 400 or more; ``body`` is its JSON, or its text."""

    def __init__(self, response: httpx.Response, body: object) -> None:
        super().__init__(f"Error code: {response.status_code}")
        self.response, self.status_code, self.body = response, response.status_code, body


class SendFailed(Exception):
    """The exchange stopped before a reply was read (refused, reset, a broken reply)."""


class ReplyProgress:
    """How far the current request's reply came: its headers, and the bytes of its body."""

    def __init__(self) -> None:
        self.headers = False
        self.bytes = 0


REPLY: contextvars.ContextVar[ReplyProgress | None] = contextvars.ContextVar(
    "model_reply_progress", default=None
)


class _CappedBody(httpx.AsyncByteStream):
    def __init__(self, inner: Any, progress: ReplyProgress | None, limit: int) -> None:
        self.inner, self.progress, self.limit = inner, progress, limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self.inner:
            seen += len(chunk)
            if self.progress is not None:
                self.progress.bytes = seen
            if seen > self.limit:
                raise ReplyTooLarge(self.limit, seen)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class ReplyGuard(httpx.AsyncBaseTransport):
    """Notes when a reply's headers came and caps its body while it streams."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.inner = httpx.AsyncHTTPTransport(limits=CONNECTION_LIMITS)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        progress = REPLY.get()
        if progress is not None:
            progress.headers = True
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > self.limit:
            await response.aclose()
            raise ReplyTooLarge(self.limit, int(declared))
        response.stream = _CappedBody(response.stream, progress, self.limit)
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


class ChatSender:
    """POSTs chat-completion bodies to one endpoint from one event loop."""

    def __init__(self, base_url: str, api_key: str | None, *, timeout_s: float,
                 max_reply_bytes: int) -> None:  # fmt: skip
        self.url = f"{base_url.rstrip('/')}/chat/completions"
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": USER_AGENT}  # fmt: skip
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self.http = httpx.AsyncClient(
            transport=ReplyGuard(max_reply_bytes),
            headers=headers,
            timeout=httpx.Timeout(timeout_s),  # per read; the whole reply is the caller's
            follow_redirects=True,
        )

    async def post(self, body: dict[str, Any]) -> Any:
        """The reply to ``body`` (see the module docstring for what comes back or is raised)."""
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        try:
            response = await self.http.post(self.url, content=content)
        except (httpx.TimeoutException, ReplyTooLarge):
            raise
        except Exception as exc:  # any other failure of the exchange: the connection's
            raise SendFailed(f"{type(exc).__name__}: {exc}") from exc
        if response.status_code >= 400:
            raise StatusError(response, _error_body(response))
        return self._read(response)

    def _read(self, response: httpx.Response) -> Any:
        content_type = response.headers.get("content-type", "*").split(";")[0]
        try:
            data = response.json()
        except ValueError:
            if content_type.endswith("json"):
                raise
            return response.text
        if isinstance(data, dict):
            return read_reply(data)
        return data

    async def aclose(self) -> None:
        await self.http.aclose()


def _error_body(response: httpx.Response) -> object:
    text = response.text.strip()
    try:
        return json.loads(text)
    except ValueError:
        return text
