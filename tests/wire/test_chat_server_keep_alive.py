"""The test server's two connection behaviours, which the verify benchmark compares side by
side: werkzeug's default closes every connection after its reply; ``keep_alive`` keeps it
open for the next request, as hosted OpenAI-compatible endpoints do."""

from __future__ import annotations

import http.client
import json
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
