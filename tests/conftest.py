"""Suite-wide guards: no test reaches beyond loopback, and no test writes to the user's home."""

from __future__ import annotations

import ipaddress
import socket

import pytest

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_loopback(address: object) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0] if isinstance(address, tuple) else address
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded(real):
    def connect(self, address):
        if not _is_loopback(address):
            raise ConnectionRefusedError(
                f"tests may only contact loopback addresses, not {address!r}"
            )
        return real(self, address)

    return connect


socket.socket.connect = _guarded(_real_connect)  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded(_real_connect_ex)  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory, monkeypatch):
    """Every test gets its own SPANPROOF_HOME and cache directory, and no real model
    credentials."""
    monkeypatch.setenv("SPANPROOF_HOME", str(tmp_path_factory.mktemp("home")))
    monkeypatch.setenv("SPANPROOF_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("SPANPROOF_DB", raising=False)


@pytest.fixture(autouse=True)
def _fresh_model_clients():
    """Each test starts with no model clients: negotiation, breakers and counters start over."""
    from spanproof.wire import forget_clients

    forget_clients()
    yield
    forget_clients()
