import socket

import pytest


def test_non_loopback_connection_is_refused():
    with pytest.raises(ConnectionRefusedError, match="loopback"):
        socket.create_connection(("192.0.2.1", 80), timeout=0.1)


def test_loopback_is_allowed(httpserver):
    httpserver.expect_request("/").respond_with_data("ok")
    import httpx

    assert httpx.get(httpserver.url_for("/")).text == "ok"
