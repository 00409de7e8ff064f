"""The test server's two connection behaviours, which the verify benchmark compares side by
side: werkzeug's default closes every connection after its reply; ``keep_alive`` keeps it
open for the next request, as hosted OpenAI-compatible endpoints do."""

from __future__ import annotations

import http.client
import json
import socket
import struct
import threading
import time
from urllib.parse import urlsplit

import pytest

from .server import ChatServer, json_response

BODY = json.dumps({"messages": [{"role": "user", "content": "x"}]})


def said(body, server):
    return json_response({"n": server.count})


def two_requests(server: ChatServer) -> tuple[list[str | None], bool]:
    """Two POSTs on one http.client connection: each reply's Connection header, and whether
    the connection was still open after the first reply was read."""
    url = urlsplit(server.base_url)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
    headers, open_after_first = [], False
    try:
        for i in range(2):
            conn.request("POST", "/v1/chat/completions", BODY, {"Content-Type": "application/json"})
            reply = conn.getresponse()
            assert json.loads(reply.read()) == {"n": i + 1}
            headers.append(reply.getheader("Connection"))
            if i == 0:
                open_after_first = conn.sock is not None
    finally:
        conn.close()
    return headers, open_after_first


def test_by_default_every_reply_closes_its_connection():
    with ChatServer(said) as server:
        headers, open_after_first = two_requests(server)
    assert headers == ["close", "close"] and not open_after_first


def test_keep_alive_serves_the_next_request_on_the_same_connection():
    with ChatServer(said, keep_alive=True) as server:
        headers, open_after_first = two_requests(server)
    assert headers == [None, None] and open_after_first


@pytest.mark.parametrize("path", ["/v1/nothing", "/v1/chat/completions"])
def test_keep_alive_reads_a_body_it_does_not_use_before_the_next_request(path):
    # a route that ignores its body must still read it: left on the connection, the bytes
    # would be read as the next request line
    with ChatServer(said, keep_alive=True) as server:
        url = urlsplit(server.base_url)
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=5)
        try:
            conn.request("POST", path, BODY)
            first = conn.getresponse()
            first.read()
            conn.request("POST", "/v1/chat/completions", BODY)
            second = conn.getresponse()
            assert second.status == 200 and json.loads(second.read())["n"] >= 1
            assert first.status == (404 if path != "/v1/chat/completions" else 200)
        finally:
            conn.close()


def _retransmits(sock: socket.socket) -> int:
    """Segments this connection sent again (Linux ``tcp_info.tcpi_total_retrans``). A server
    whose accept queue is full drops a SYN (sent again a second later, then after 2 s, 4 s,
    ...), or the last ACK of a handshake, so the client's first data goes to a connection the
    server has not yet established and is sent again as well."""
    info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    return struct.unpack_from("<I", info, 100)[0]


def _answered(sock: socket.socket, deadline: float) -> bool:
    sock.settimeout(max(0.01, deadline - time.monotonic()))
    try:
        return sock.recv(12).startswith(b"HTTP/1.1 200")
    except TimeoutError:
        return False


@pytest.mark.skipif(not hasattr(socket, "TCP_INFO"), reason="tcp_info is Linux's")
def test_keep_alive_queues_as_many_simultaneous_connects_as_a_client_opens():
    # A client with 64 requests in flight opens 64 connections at once. With socketserver's
    # accept queue of 5 the kernel dropped the SYNs beyond it, and each of those connections
    # (and its request) waited for the SYN sent again a second later: the keep-alive server
    # measured its own backlog, not the client. The connects all start before the server
    # accepts any, as they do when a client's first 64 requests go out together.
    server = ChatServer(said, keep_alive=True)
    url = urlsplit(server.base_url)
    socks = []
    try:
        for _ in range(64):
            sock = socket.socket()
            sock.setblocking(False)
            sock.connect_ex((url.hostname, url.port))
            socks.append(sock)
        with server:
            for sock in socks:
                sock.setblocking(True)
                sock.settimeout(5)
                sock.sendall(
                    b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: "
                    b"application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(BODY), BODY.encode())
                )
            deadline = time.monotonic() + 5  # one bound for all: a failing run ends soon
            answered = sum(_answered(sock, deadline) for sock in socks)
            resent = [n for n in map(_retransmits, socks) if n]
    finally:
        for sock in socks:
            sock.close()
    assert resent == [], f"{len(resent)} of 64 connections sent segments again"
    assert answered == 64


def test_keep_alive_sends_a_reply_without_waiting_for_the_ack_of_its_headers():
    # The handler writes the headers, then the body: with Nagle on, the body waited on every
    # reused connection for the client's delayed ACK of the headers (up to 40 ms a request).
    # The socket the server answered on must have TCP_NODELAY set; it is read in the
    # handler's thread as the server ends the connection, before it closes the socket.
    server = ChatServer(said, keep_alive=True)
    nodelay: list[int] = []
    ended = threading.Event()
    shutdown_request = server._server.shutdown_request

    def record(request):
        nodelay.append(request.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        ended.set()
        shutdown_request(request)

    server._server.shutdown_request = record  # type: ignore[method-assign]
    with server:
        two_requests(server)
        assert ended.wait(5), "the server never ended the connection the client closed"
    assert len(nodelay) == 1 and nodelay[0]
