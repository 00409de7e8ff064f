"""HTTP/1.1 for chat completions straight over asyncio streams and h11.

Why not httpx for every request: its stack (the client's request and response models,
cookies, auth and redirect machinery, then httpcore's pool over anyio, with a cancel scope
around every read and write) cost about 1.5 ms of CPU a request, more than the rest of a
judged pair's work on the event loop that drives 64 requests in flight, and importing it
imported its command line's rich and pygments too. A chat completion needs little of that: one
POST of a JSON body, its reply read whole. h11 (httpx's own HTTP/1.1 parser) reads the
protocol, the asyncio stream carries the bytes, TLS comes from the ``ssl`` module.

What it keeps of httpx's behaviour, so a caller sees the same outcomes:

- keep-alive: a connection whose exchange ended cleanly goes back to an idle pool per origin
  and the next request reuses it; one the server closed meanwhile is dropped, and a request
  that fails on a reused connection before any byte of a reply came is sent once more on a
  new one (the server closed it as the request went out, so it never read it);
- TLS with the CA bundle httpx uses (``SSL_CERT_FILE``, else ``SSL_CERT_DIR``, else
  certifi's), built only for an https endpoint;
- redirects followed as httpx follows them (307/308 keep the POST and its body, 301/302/303
  turn it into a GET), at most ``MAX_REDIRECTS``, the API key never sent to another origin;
- a gzip or deflate body decoded (none is asked for);
- the reply's headers noted in ``REPLY`` progress as they come, its body capped while it
  streams (and refused at once when it declares a larger length).

Timeouts are the caller's: ``spanproof.wire.client`` bounds the whole reply (connect, send,
every read) with one deadline, which is what httpx's per-read timeout was inside of.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
import zlib
from collections.abc import Iterable
from typing import Any
from urllib.parse import urljoin, urlsplit

import h11

from spanproof.wire.exchange import REPLY, ReplyTooLarge, SendFailed

MAX_REDIRECTS = 20  # httpx's default
KEEP_IDLE = 100  # idle connections kept per origin (httpx's max_keepalive_connections)
READ_CHUNK = 65536

Origin = tuple[str, str, int]  # scheme, host, port


class Headers:
    """A reply's headers: ``get`` by name in any case (what readers of a reply use)."""

    def __init__(self, raw: Iterable[tuple[bytes, bytes]]) -> None:
        self._items = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in raw]

    def get(self, name: str, default: str | None = None) -> str | None:
        name = name.lower()
        for key, value in self._items:
            if key == name:
                return value
        return default

    def items(self) -> list[tuple[str, str]]:
        return list(self._items)


class Reply:
    """A whole reply: status, headers, body (the attributes a status error's reader uses)."""

    def __init__(self, status_code: int, headers: Headers, content: bytes) -> None:
        self.status_code, self.headers, self.content = status_code, headers, content

    @property
    def text(self) -> str:
        charset = "utf-8"
        for part in (self.headers.get("content-type") or "").split(";")[1:]:
            key, _, value = part.strip().partition("=")
            if key.lower() == "charset" and value:
                charset = value.strip('"')
        try:
            return self.content.decode(charset, errors="replace")
        except LookupError:  # a charset Python does not know: read it as UTF-8
            return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        import json

        return json.loads(self.content)  # bytes: UTF-8, -16 or -32, as the JSON RFC allows


class _Connection:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(h11.CLIENT)

    def stale(self) -> bool:
        """Closed by the server while idle (the loop read its end of stream), or unusable."""
        return (
            self.writer.is_closing() or self.reader.at_eof() or self.h11.our_state is not h11.IDLE
        )

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.writer.close()


class _NoReply(Exception):
    """A reused connection failed before any byte of a reply: the request may be sent again."""


def tls_context() -> ssl.SSLContext:
    """The CA bundle httpx verifies with (it reads the same two variables)."""
    if os.environ.get("SSL_CERT_FILE"):
        ctx = ssl.create_default_context(cafile=os.environ["SSL_CERT_FILE"])
    elif os.environ.get("SSL_CERT_DIR"):
        ctx = ssl.create_default_context(capath=os.environ["SSL_CERT_DIR"])
    else:
        import certifi

        ctx = ssl.create_default_context(cafile=certifi.where())
    ctx.set_alpn_protocols(["http/1.1"])
    return ctx


class LeanSender:
    """POSTs chat-completion bodies to one endpoint from one event loop (see the module doc)."""

    def __init__(self, url: str, headers: dict[str, str], *, max_reply_bytes: int) -> None:
        self.url = url
        self.headers = headers
        self.limit = max_reply_bytes
        self._idle: dict[Origin, list[_Connection]] = {}
        self._tls: ssl.SSLContext | None = None

    async def request(self, content: bytes) -> Reply:
        """The reply to a POST of ``content``, redirects followed."""
        method, url, body = "POST", self.url, content
        headers = dict(self.headers)
        start = _origin(url)
        for _ in range(MAX_REDIRECTS + 1):
            reply = await self._exchange(method, url, headers, body)
            location = reply.headers.get("location")
            if reply.status_code not in (301, 302, 303, 307, 308) or not location:
                return reply
            url = urljoin(url, location)
            if reply.status_code in (301, 302, 303) and method != "HEAD":
                method, body = "GET", b""  # as httpx (and browsers) follow them
                headers.pop("Content-Type", None)
            if _origin(url) != start:
                headers.pop("Authorization", None)  # the key is for the endpoint only
        raise SendFailed(f"more than {MAX_REDIRECTS} redirects, the last to {url}")

    async def _exchange(self, method: str, url: str, headers: dict[str, str], body: bytes) -> Reply:
        origin = _origin(url)
        conn = self._reuse(origin)
        if conn is not None:
            try:
                return await self._on(conn, origin, method, url, headers, body, reused=True)
            except _NoReply:
                pass  # the server had closed it: once more on a new connection
        conn = await self._connect(origin)
        return await self._on(conn, origin, method, url, headers, body, reused=False)

    def _reuse(self, origin: Origin) -> _Connection | None:
        idle = self._idle.get(origin, [])
        while idle:
            conn = idle.pop()
            if not conn.stale():
                return conn
            conn.close()
        return None

    async def _connect(self, origin: Origin) -> _Connection:
        scheme, host, port = origin
        tls = None
        if scheme == "https":
            if self._tls is None:
                self._tls = tls_context()
            tls = self._tls
        reader, writer = await asyncio.open_connection(
            host, port, ssl=tls, server_hostname=host if tls else None
        )
        return _Connection(reader, writer)

    async def _on(
        self,
        conn: _Connection,
        origin: Origin,
        method: str,
        url: str,
        headers: dict[str, str],
        body: bytes,
        *,
        reused: bool,
    ) -> Reply:
        got_bytes = False
        try:
            parts = urlsplit(url)
            target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            fields = [("Host", parts.netloc.rpartition("@")[2]), *headers.items()]
            if body or method == "POST":
                fields.append(("Content-Length", str(len(body))))
            h = conn.h11
            out = h.send(h11.Request(method=method, target=target, headers=fields)) or b""
            if body:
                out += h.send(h11.Data(data=body)) or b""
            out += h.send(h11.EndOfMessage()) or b""
            conn.writer.write(out)
            await conn.writer.drain()
            status, reply_headers, chunks, seen = 0, Headers(()), [], 0
            progress = REPLY.get()
            while True:
                event = h.next_event()
                if event is h11.NEED_DATA:
                    data = await conn.reader.read(READ_CHUNK)
                    got_bytes = got_bytes or bool(data)
                    h.receive_data(data)
                    continue
                if isinstance(event, h11.InformationalResponse):
                    continue
                if isinstance(event, h11.Response):
                    status, reply_headers = event.status_code, Headers(event.headers)
                    if progress is not None:
                        progress.headers = True
                    declared = reply_headers.get("content-length") or ""
                    if declared.isdigit() and int(declared) > self.limit:
                        raise ReplyTooLarge(self.limit, int(declared))
                elif isinstance(event, h11.Data):
                    seen += len(event.data)
                    if progress is not None:
                        progress.bytes = seen
                    if seen > self.limit:
                        raise ReplyTooLarge(self.limit, seen)
                    chunks.append(bytes(event.data))
                elif isinstance(event, h11.EndOfMessage):
                    break
                else:  # ConnectionClosed before the reply ended, or PAUSED
                    raise h11.RemoteProtocolError("the server closed the connection mid-reply")
        except BaseException as exc:
            conn.close()
            if reused and not got_bytes and isinstance(exc, OSError | h11.ProtocolError):
                raise _NoReply from exc
            raise
        self._release(conn, origin)
        content = b"".join(chunks)
        encoding = (reply_headers.get("content-encoding") or "").strip().lower()
        if encoding in ("gzip", "deflate"):
            content = _decoded(content, encoding, self.limit)
        return Reply(status, reply_headers, content)

    def _release(self, conn: _Connection, origin: Origin) -> None:
        h = conn.h11
        if h.our_state is h11.DONE and h.their_state is h11.DONE:
            h.start_next_cycle()
            idle = self._idle.setdefault(origin, [])
            if len(idle) < KEEP_IDLE:
                idle.append(conn)
                return
        conn.close()

    async def aclose(self) -> None:
        conns = [c for idle in self._idle.values() for c in idle]
        self._idle.clear()
        for conn in conns:
            conn.close()
        for conn in conns:
            with contextlib.suppress(Exception):
                await conn.writer.wait_closed()


def _origin(url: str) -> Origin:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https") or not parts.hostname:
        raise SendFailed(f"not an http(s) URL: {url!r}")
    return scheme, parts.hostname, parts.port or (443 if scheme == "https" else 80)


def _decoded(content: bytes, encoding: str, limit: int) -> bytes:
    """A gzip or deflate body, decoded up to ``limit`` bytes (a small body may inflate a lot)."""
    wbits = 16 + zlib.MAX_WBITS if encoding == "gzip" else zlib.MAX_WBITS
    try:
        inflate = zlib.decompressobj(wbits)
        out = inflate.decompress(content, limit + 1)
    except zlib.error:
        if encoding != "deflate":
            raise
        inflate = zlib.decompressobj(-zlib.MAX_WBITS)  # raw deflate, as some servers send it
        out = inflate.decompress(content, limit + 1)
    if len(out) > limit:
        raise ReplyTooLarge(limit, len(out))
    return out
