"""What a chat completion's exchange says happened, whichever transport carried it: the reply's
progress (``REPLY``), its errors (too large, a status of 400 or more, the exchange failed)
and the shape of a whole reply."""

from __future__ import annotations

import contextvars
from typing import Any, Protocol


class ReplyTooLarge(Exception):
    """A reply body passed the size cap while it streamed (or declared a larger length)."""

    def __init__(self, limit: int, seen: int):
        super().__init__(f"the reply passed {limit} bytes ({seen} read); refused")
        self.limit, self.seen = limit, seen


class StatusError(Exception):
    """The server answered with a status of 400 or more; ``body`` is its JSON, or its text."""

    def __init__(self, response: WireReply, body: object) -> None:
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


class WireReply(Protocol):
    """A whole reply as a transport gives it (httpx's ``Response`` and the lean ``Reply``)."""

    @property
    def status_code(self) -> int: ...
    @property
    def headers(self) -> Any: ...  # ``get(name)`` in any case
    @property
    def text(self) -> str: ...
    def json(self) -> Any: ...
