"""The chat completion's HTTP through httpx, for an endpoint reached through a proxy.

The lean transport (spanproof.wire.lean) connects directly; httpx reads the proxy variables
(``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``, ``NO_PROXY``) and speaks to the proxy. The
behaviour a caller sees is the same: the reply's headers noted in ``REPLY`` progress, its
body capped while it streams, a timeout raised as ``TimeoutError``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx

from spanproof.wire.exchange import REPLY, ReplyProgress, ReplyTooLarge

# The SDK's pool limits: every request of a full window gets a connection of its own.
CONNECTION_LIMITS = httpx.Limits(max_connections=1000, max_keepalive_connections=100)


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


class HttpxTransport:
    """POSTs to one URL with httpx (proxies read from the environment, as httpx does)."""

    def __init__(self, url: str, headers: dict[str, str], *, timeout_s: float,
                 max_reply_bytes: int) -> None:  # fmt: skip
        self.url = url
        self.http = httpx.AsyncClient(
            transport=ReplyGuard(max_reply_bytes),
            headers=headers,
            timeout=httpx.Timeout(timeout_s),  # per read; the whole reply is the caller's
            follow_redirects=True,
        )

    async def request(self, content: bytes) -> httpx.Response:
        try:
            return await self.http.post(self.url, content=content)
        except httpx.TimeoutException as exc:
            raise TimeoutError(str(exc) or type(exc).__name__) from exc

    async def aclose(self) -> None:
        await self.http.aclose()
