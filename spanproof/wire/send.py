"""The HTTP of one chat completion: a POST of a JSON body, its reply read into a typed object.

Why not the openai SDK's ``chat.completions.create``: before every request it walks the
parameters through its type-driven transform (a recursive pass over every message, some
2.5 ms of CPU a request), which changes nothing in a body of plain JSON such as every
caller here sends. On the one event loop that drives 64 requests in flight that is most of the
client's own cost, and the loop's lag then reads as the server's latency. So the body is
encoded once, as it is, and sent over plain HTTP/1.1 (spanproof.wire.lean: h11 over asyncio
streams; httpx, the SDK's own HTTP library, when a proxy is set), and the reply is read as
the SDK reads it, into the client's own reply type (spanproof.wire.reply: the SDK's
types are a second of imports):

- a JSON object becomes a ``ChatReply`` (no validation, as the SDK builds replies: every
  reader of a reply checks what it uses);
- JSON that is not an object, or a body that is not JSON under a non-JSON content type,
  comes back as itself (a caller sees a reply without choices: a bad response);
- a JSON content type whose body does not parse raises ``json.JSONDecodeError``;
- a status of 400 or more raises ``StatusError`` (status, the body as JSON or text, the
  response with its headers: what the SDK's ``APIStatusError`` carries);
- anything that stops the exchange other than a timeout (``TimeoutError``) or an
  oversized reply (``ReplyTooLarge``) raises ``SendFailed`` from its cause: the connection
  failed, as the SDK's ``APIConnectionError`` says.

The transport notes when a reply's headers came (``REPLY`` progress, for the whole-reply
deadline) and caps its body while it streams (``max_reply_bytes``).
"""

from __future__ import annotations

import json
import os
from typing import Any, Protocol

from spanproof.wire.exchange import (
    REPLY,
    ReplyProgress,
    ReplyTooLarge,
    SendFailed,
    StatusError,
    WireReply,
)
from spanproof.wire.lean import LeanSender
from spanproof.wire.reply import read_reply

__all__ = ["REPLY", "ChatSender", "ReplyProgress", "ReplyTooLarge", "SendFailed", "StatusError"]

USER_AGENT = "spanproof"


class Transport(Protocol):
    """Sends one POST of a body and returns the whole reply (a status of 400 or more too)."""

    async def request(self, content: bytes) -> WireReply: ...

    async def aclose(self) -> None: ...


# Where httpx reads a proxy from (trust_env): with one set, requests go through httpx, which
# speaks to proxies (and reads NO_PROXY); the lean transport connects directly.
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def proxied() -> bool:
    return any(os.environ.get(v) or os.environ.get(v.upper()) for v in PROXY_VARIABLES)


def transport_for(url: str, headers: dict[str, str], *, timeout_s: float,
                  max_reply_bytes: int) -> Transport:  # fmt: skip
    """The lean HTTP/1.1 transport (spanproof.wire.lean), or httpx's behind a proxy."""
    if proxied():
        from spanproof.wire.send_httpx import HttpxTransport

        return HttpxTransport(url, headers, timeout_s=timeout_s, max_reply_bytes=max_reply_bytes)
    return LeanSender(url, headers, max_reply_bytes=max_reply_bytes)


class ChatSender:
    """POSTs chat-completion bodies to one endpoint from one event loop."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        timeout_s: float,
        max_reply_bytes: int,
        transport: Transport | None = None,
    ) -> None:
        """``transport``: what carries the bytes (default: ``transport_for`` the endpoint)."""
        self.url = f"{base_url.rstrip('/')}/chat/completions"
        headers = {"Content-Type": "application/json", "Accept": "application/json",
                   "User-Agent": USER_AGENT}  # fmt: skip
        if api_key:
            headers["Authorization"] = f"Bearer {api_key}"
        self.transport = transport or transport_for(
            self.url, headers, timeout_s=timeout_s, max_reply_bytes=max_reply_bytes
        )

    async def post(self, body: dict[str, Any]) -> Any:
        """The reply to ``body`` (see the module docstring for what comes back or is raised)."""
        content = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        try:
            response = await self.transport.request(content)
        except (TimeoutError, ReplyTooLarge):
            raise
        except Exception as exc:  # any other failure of the exchange: the connection's
            raise SendFailed(f"{type(exc).__name__}: {exc}") from exc
        if response.status_code >= 400:
            raise StatusError(response, _error_body(response))
        return self._read(response)

    def _read(self, response: WireReply) -> Any:
        content_type = (response.headers.get("content-type") or "*").split(";")[0]
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
        await self.transport.aclose()


def _error_body(response: WireReply) -> object:
    text = response.text.strip()
    try:
        return json.loads(text)
    except ValueError:
        return text
