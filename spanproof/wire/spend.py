"""A dollar cap over every model call of the process: ``spanproof gate --max-cost``.

A run's own dollar budget (``ask --max-cost``) is the agent's; a gate makes many runs and
judges many pairs, side by side, so its cap sits where every call passes: ``ModelClient.chat``
asks ``refuse_if_spent`` before each request. What has been spent is the caller's to say
(``spent``: the price table lives above this layer), read from the clients' token counters.
A call refused here raises ``SpendCapReached``; requests already in flight when the cap is
crossed still finish, so the overshoot is at most one window of replies.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass


class SpendCapReached(RuntimeError):
    """The process's dollar cap is spent: no further model call is made."""


@dataclass(frozen=True)
class _Cap:
    limit_usd: float
    spent: Callable[[], float]
    option: str


_CAP: list[_Cap] = []  # the cap in force (at most one)


@contextmanager
def spend_cap(
    limit_usd: float, spent: Callable[[], float], *, option: str = "--max-cost"
) -> Iterator[None]:
    """Refuse every model call once ``spent()`` dollars reach ``limit_usd``, inside the block."""
    if limit_usd <= 0:
        raise ValueError(f"{option} must be more than 0")
    _CAP.append(_Cap(limit_usd, spent, option))
    try:
        yield
    finally:
        _CAP.pop()


def cap_spent() -> str | None:
    """Why no more calls may be made (the cap and what was spent), or None."""
    if not _CAP:
        return None
    cap = _CAP[-1]
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
