"""What `spanproof view` serves and how it may be reached.

The viewer binds to loopback by default. Binding anywhere else exposes every
stored run, span and gate result to the network, so it is refused unless a
token protects every request (`check_bind`); the token is printed at start.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from pathlib import Path

from pydantic import BaseModel, Field

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")
MIN_TOKEN_CHARS = 16


class BindError(ValueError):
    """A bind the viewer refuses; the message says how to fix it."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def resolve_token(token: str | None) -> str | None:
    """`auto` makes a random token; anything else is used as given (None: no token)."""
    if token is None or token == "":
        return None
    if token == "auto":
        return secrets.token_urlsafe(24)
    return token


def check_bind(host: str, token: str | None) -> None:
    """Refuse a non-loopback bind without a token, and any token too short to resist guessing."""
    if token is not None and len(token) < MIN_TOKEN_CHARS:
        raise BindError(
            f"the access token is {len(token)} characters; use at least {MIN_TOKEN_CHARS}, "
            "or --token auto for a random one printed at start"
        )
    if not is_loopback(host) and token is None:
        raise BindError(
            f"refusing to bind to {host}: that exposes every stored run and span to the network. "
            "Add --token auto (a random token, printed at start, that every request must carry), "
            "or drop --host to stay on 127.0.0.1."
        )


def default_reviewer() -> str:
    return os.environ.get("SPANPROOF_REVIEWER") or os.environ.get("USER") or "reviewer"


class ViewSettings(BaseModel):
    home: Path
    db: str | None = None  # a store URL, once the shared store takes them
    host: str = "127.0.0.1"
    port: int = Field(8765, ge=0, le=65535)
    token: str | None = None
    reviewer: str = Field(default_factory=default_reviewer)
    # Judges and calibration sets the judges page may run (a page never names a file or a
    # spec the command line did not allow).
    judges: list[str] = Field(default_factory=lambda: ["rules", "blind"])
    sets: list[Path] = Field(default_factory=list)
    base_url: str | None = None
    api_key: str | None = None
    per_page: int = Field(50, ge=1, le=500)

    def allowed_hosts(self) -> set[str] | None:
        """Host headers accepted on a loopback bind (DNS-rebinding guard); None: any (token-guarded)."""
        if not is_loopback(self.host):
            return None
        names = {"127.0.0.1", "localhost", "[::1]", self.host}
        return {f"{n}:{self.port}" for n in names} | names
