"""A dollar cap over every model call of the process: ``spanproof gate --max-cost``.

A run's own dollar budget (``ask --max-cost``) is the agent's; a gate makes many runs and
judges many pairs, side by side, so its cap sits where every call passes: ``ModelClient.chat``
asks ``reserve`` before each request is sent. What has been spent is the caller's to say
(``spent``: the price table lives above this layer, and so does ``price``, a call's dollars
for its tokens), read from the clients' token counters.

Calls side by side are in flight together, so a cap that only looked at what replies had
already cost would let every request in flight when it was crossed finish above it. Instead
each request, before it is sent, holds its worst-case price against the cap (``worst_tokens``:
at least one byte of the request a prompt token, and the reply's ``max_tokens``), and gives it
back once its reply is counted. A request whose worst case does not fit beside what is spent
and what the requests in flight hold is refused with ``SpendCapReached``, and so is every call
after it: the spend never exceeds the cap. A Batch API job's requests bypass
``ModelClient.chat``; the job holds all of them at once before it submits (``reserve_all``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any


class SpendCapReached(RuntimeError):
    """The process's dollar cap is spent: no further model call is made."""


@dataclass
class _Cap:
    limit_usd: float
    spent: Callable[[], float]
    price: Callable[[str, int, int], float]
    option: str
    held: dict[object, float] = field(default_factory=dict)  # a request in flight -> its worst case
    refused: str | None = None  # why a call was refused: every later call is refused too


_CAP: list[_Cap] = []  # the cap in force (at most one)


@contextmanager
def spend_cap(
    limit_usd: float,
    spent: Callable[[], float],
    price: Callable[[str, int, int], float],
    *,
    option: str = "--max-cost",
) -> Iterator[None]:
    """Refuse every model call whose worst-case price does not fit under ``limit_usd`` beside
    ``spent()`` and the requests in flight, inside the block. ``price(model, prompt_tokens,
    completion_tokens)``: a call's dollars."""
    if limit_usd <= 0:
        raise ValueError(f"{option} must be more than 0")
    _CAP.append(_Cap(limit_usd, spent, price, option))
    try:
        yield
    finally:
        _CAP.pop()


def cap_spent() -> str | None:
    """Why no more calls may be made (the cap and what was spent), or None."""
    if not _CAP:
        return None
    cap = _CAP[-1]
    if cap.refused:
        return cap.refused
    spent = cap.spent()
    if spent < cap.limit_usd:
        return None
    return (
        f"{cap.option} {cap.limit_usd:g} was spent (${spent:.4f} by the price table); "
        f"raise {cap.option}, or spend less: --max-questions, a cheaper model, the verdict cache"
    )


def refuse_if_spent() -> None:
    why = cap_spent()
    if why:
        raise SpendCapReached(why)


def worst_tokens(request: dict[str, Any], reply_bytes: int) -> tuple[int, int]:
    """The most (prompt, completion) tokens a chat request can be billed: a token is at least
    one byte of text, so the prompt is at most the bytes of everything sent (its messages,
    tools and response format, with their JSON around them, more than the chat template adds);
    the reply is at most its ``max_tokens`` (``max_completion_tokens``), or without one, at most
    ``reply_bytes``, the largest reply the client reads."""
    sent = {k: v for k, v in request.items() if k not in ("model", "stream", "temperature")}
    prompt = len(json.dumps(sent, ensure_ascii=False, default=str).encode())
    limit = request.get("max_completion_tokens") or request.get("max_tokens")
    return prompt, int(limit) if limit else reply_bytes


def reserve(model: str, request: dict[str, Any], reply_bytes: int) -> Callable[[], object]:
    """Hold one request's worst-case price (``worst_tokens``) against the cap while it is in
    flight (module doc); ``SpendCapReached`` when it does not fit. Returns what gives the hold
    back: call it once the reply's tokens are counted (or the request failed). Without a cap
    nothing is computed."""
    return reserve_all(model, [request], reply_bytes)


def reserve_all(
    model: str, requests: list[dict[str, Any]], reply_bytes: int
) -> Callable[[], object]:
    """``reserve`` for requests sent together, as one Batch API job: the job is paid for as a
    whole once submitted, so it is held (and refused) as a whole, before anything is sent."""
    if not _CAP:
        return lambda: None
    cap = _CAP[-1]
    refuse_if_spent()
    worst = sum(cap.price(model, *worst_tokens(r, reply_bytes)) for r in requests)
    spent, held = cap.spent(), sum(cap.held.values())
    if spent + held + worst > cap.limit_usd:
        cap.refused = (
            f"{cap.option} {cap.limit_usd:g} was reached (${spent:.4f} spent by the price "
            f"table, ${held:.4f} held for the replies in flight, and the next call could cost "
            f"up to ${worst:.4f}); raise {cap.option}, or spend less: --max-questions, a "
            "cheaper model, the verdict cache"
        )
        raise SpendCapReached(cap.refused)
    token = object()
    cap.held[token] = worst
    return lambda: cap.held.pop(token, None)
