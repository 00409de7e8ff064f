"""The chat completion's own HTTP/1.1 transport (spanproof.wire.lean) keeps what httpx gave:
a connection kept alive is reused, one the server closed while idle is replaced without
failing the call, TLS verified against the CA bundle (an untrusted certificate is a connection
error, never a reply), redirects followed with the key kept to its origin, a compressed
reply decoded; behind a proxy the requests go through httpx."""

from __future__ import annotations

import gzip
import json
import ssl
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from spanproof.core.specs import EndpointSettings
from spanproof.wire import EndpointFailed, ModelClient
from spanproof.wire.lean import LeanSender
from spanproof.wire.send import ChatSender, transport_for

from .server import completion

TLS = Path(__file__).parent / "tls"  # a self-signed certificate for localhost and 127.0.0.1


class KeepAliveServer:
    """An HTTP/1.1 server that keeps connections open (unless ``close_after`` each reply),
    recording each request's connection, path and headers. ``route(path, body, headers)``
    gives (status, headers, body); the default answers a chat completion. ``drop_after``: the
    connection is closed after each reply without saying so."""

    def __init__(self, *, tls: bool = False, close_after: bool = False, drop_after: bool = False,
                 route: Callable[[str, bytes, dict], tuple[int, dict, bytes]] | None = None):  # fmt: skip
        owner = self
        self.seen: list[tuple[int, str, dict]] = []  # (connection number, path, headers)
        self.connections = 0
        self.route = route or (
            lambda path, body, headers: (
                200,
                {"Content-Type": "application/json"},
                json.dumps(completion("hi")).encode(),
            )
        )

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self):
                super().setup()
                owner.connections += 1
                self.number = owner.connections

            def log_message(self, *args):
                pass

            def _answer(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                owner.seen.append((self.number, self.path, dict(self.headers)))
                status, headers, payload = owner.route(self.path, body, dict(self.headers))
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                if close_after:
                    self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(payload)
                if close_after or drop_after:
                    self.close_connection = True

            do_POST = do_GET = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls:
            ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
            ctx.load_cert_chain(TLS / "localhost.pem", TLS / "localhost.key")
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        scheme = "https" if tls else "http"
        self.base_url = f"{scheme}://127.0.0.1:{self.server.server_port}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> KeepAliveServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def client(base_url: str) -> ModelClient:
    return ModelClient("fake", EndpointSettings(base_url=base_url, api_key="k").resolved())


async def ask(model: ModelClient, n: int = 1) -> list:
    return [await model.chat(messages=[{"role": "user", "content": "x"}]) for _ in range(n)]


async def test_a_kept_alive_connection_is_reused():
    with KeepAliveServer() as server:
        model = client(server.base_url)
        replies = await ask(model, 4)
        await model.aclose()
    assert [r.choices[0].message.content for r in replies] == ["hi"] * 4
    assert [number for number, _, _ in server.seen] == [1, 1, 1, 1]


async def test_a_server_that_closes_each_connection_gets_a_new_one_each_time():
    with KeepAliveServer(close_after=True) as server:
        model = client(server.base_url)
        await ask(model, 3)
        await model.aclose()
    assert [number for number, _, _ in server.seen] == [1, 2, 3]
    assert model.counters.requests == 3 and model.counters.retries == 0


@pytest.mark.parametrize("loop_saw_it", [True, False])
async def test_a_connection_the_server_dropped_while_idle_is_replaced_without_an_error(
    monkeypatch, loop_saw_it
):
    # the server closes each connection after its reply without saying so (no Connection:
    # close): the client keeps it as idle; either its loop read the end of stream before the
    # next request (the connection is dropped from the pool) or not (the request fails on it
    # before any reply and goes once more on a new connection)
    if not loop_saw_it:
        from spanproof.wire import lean

        monkeypatch.setattr(lean._Connection, "stale", lambda self: False)
    with KeepAliveServer(drop_after=True) as server:
        model = client(server.base_url)
        replies = await ask(model, 3)
        await model.aclose()
    assert [r.choices[0].message.content for r in replies] == ["hi"] * 3
    assert [number for number, _, _ in server.seen] == [1, 2, 3]
    assert model.counters.requests == 3 and model.counters.retries == 0


async def test_tls_with_a_trusted_certificate_and_keep_alive(monkeypatch):
    monkeypatch.setenv("SSL_CERT_FILE", str(TLS / "localhost.pem"))
    with KeepAliveServer(tls=True) as server:
        model = client(server.base_url)
        replies = await ask(model, 3)
        await model.aclose()
    assert [r.choices[0].message.content for r in replies] == ["hi"] * 3
    assert [number for number, _, _ in server.seen] == [1, 1, 1]


async def test_an_untrusted_certificate_is_a_connection_error_not_a_reply(monkeypatch):
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    with KeepAliveServer(tls=True) as server:
        model = client(server.base_url)
        with pytest.raises(EndpointFailed, match="connection error.*CERTIFICATE_VERIFY_FAILED"):
            await ask(model)
        await model.aclose()
    assert server.seen == []


def test_a_redirect_keeps_the_post_and_the_key_stays_with_its_origin():
    with KeepAliveServer() as other:

        def route(path, body, headers):
            if path == "/v1/chat/completions":
                return 307, {"Location": "/v2/chat/completions"}, b""
            if path == "/v2/chat/completions":
                assert json.loads(body)["messages"]
                return 308, {"Location": f"{other.base_url}/chat/completions"}, b""
            raise AssertionError(path)

        with KeepAliveServer(route=route) as server:
            import asyncio

            model = client(server.base_url)
            (reply,) = asyncio.run(ask(model))
    assert reply.choices[0].message.content == "hi"
    assert [p for _, p, _ in server.seen] == ["/v1/chat/completions", "/v2/chat/completions"]
    assert all(h.get("Authorization") == "Bearer k" for _, _, h in server.seen)
    ((_, path, headers),) = other.seen
    assert path == "/v1/chat/completions" and "Authorization" not in headers


async def test_a_gzipped_reply_is_decoded():
    payload = gzip.compress(json.dumps(completion("zipped")).encode())
    headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}
    with KeepAliveServer(route=lambda *a: (200, headers, payload)) as server:
        model = client(server.base_url)
        (reply,) = await ask(model)
        await model.aclose()
    assert reply.choices[0].message.content == "zipped"


def test_behind_a_proxy_the_requests_go_through_httpx(monkeypatch):
    from spanproof.wire.send_httpx import HttpxTransport

    for name in ("http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.upper(), raising=False)
    url, headers = "http://127.0.0.1:9/v1/chat/completions", {"Accept": "application/json"}
    assert isinstance(transport_for(url, headers, timeout_s=5, max_reply_bytes=10), LeanSender)
    monkeypatch.setenv("HTTPS_PROXY", "http://proxy.invalid:3128")
    assert isinstance(transport_for(url, headers, timeout_s=5, max_reply_bytes=10), HttpxTransport)
    assert isinstance(ChatSender(url, None, timeout_s=5, max_reply_bytes=10).transport,
                      HttpxTransport)  # fmt: skip
