"""Concurrency limits that belong to one event loop, and the adaptive limit for model servers.

``LoopSemaphore`` is an ``asyncio.Semaphore`` that is created anew for each running event
loop: a long-lived object (a verifier, a fetcher, a model client) may serve several
``asyncio.run()`` calls, and a semaphore bound to a closed loop would raise.

``AdaptiveLimiter`` bounds the requests in flight to one model server by a window that
starts at 1 and grows by one after a window's worth of requests answered at the usual
latency, up to the configured maximum; when latency climbs well above the fastest answer
seen (the server queues instead of computing in parallel), on 429/503 and on timeouts the
window halves. A server that answers one request at a time therefore sees one or two
requests in flight, never a queue of abandoned calls that the client gave up on and
retried.
"""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager

# A completed request counts as "slow" when it took this many times the fastest answer seen.
SLOW_FACTOR = 1.5
# Latencies below this are scheduling noise, not a sign of queueing (a loopback server
# answers in a millisecond and jitters by more than that).
NOISE_FLOOR_S = 0.05


class LoopSemaphore:
    """A semaphore per running event loop (one object can serve several asyncio.run calls)."""

    def __init__(self, value: int) -> None:
        if value < 1:
            raise ValueError("a concurrency limit must be at least 1")
        self.value = value
        self._sem: asyncio.Semaphore | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def get(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        if self._sem is None or self._loop is not loop:
            self._sem, self._loop = asyncio.Semaphore(self.value), loop
        return self._sem

    async def __aenter__(self) -> None:
        await self.get().acquire()

    async def __aexit__(self, *exc: object) -> None:
        self.get().release()


class AdaptiveLimiter:
    """Additive increase, multiplicative decrease on latency, with a hard maximum."""

    def __init__(self, maximum: int, *, start: int = 1) -> None:
        if maximum < 1:
            raise ValueError("concurrency must be at least 1")
        self.maximum = maximum
        self.window = max(1, min(start, maximum))
        self.in_flight = 0
        self.peak_in_flight = 0
        self.lowest_window = self.window
        self.highest_window = self.window
        self.backoffs = 0
        self._fastest: float | None = None
        self._good_streak = 0
        self._cond: asyncio.Condition | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _condition(self) -> asyncio.Condition:
        loop = asyncio.get_running_loop()
        if self._cond is None or self._loop is not loop:
            self._cond, self._loop = asyncio.Condition(), loop
            self.in_flight = 0
        return self._cond

    @asynccontextmanager
    async def slot(self):
        """Hold one request slot; yields a callable to report how the request went."""
        cond = self._condition()
        async with cond:
            await cond.wait_for(lambda: self.in_flight < self.window)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        outcome: dict[str, object] = {}
        t0 = time.monotonic()
        try:
            yield outcome
        finally:
            elapsed = time.monotonic() - t0
            async with cond:
                self.in_flight -= 1
                self._observe(elapsed, str(outcome.get("kind", "ok")))
                cond.notify_all()

    def _observe(self, elapsed: float, kind: str) -> None:
        if kind in ("overloaded", "timeout"):
            self._shrink()
            return
        if kind != "ok":
            return  # a refused request says nothing about the server's speed
        if self._fastest is None or elapsed < self._fastest:
            self._fastest = elapsed
        if elapsed > SLOW_FACTOR * max(self._fastest, NOISE_FLOOR_S):
            self._shrink()
            return
        self._good_streak += 1
        if self._good_streak >= self.window and self.window < self.maximum:
            self.window += 1
            self._good_streak = 0
            self.highest_window = max(self.highest_window, self.window)

    def _shrink(self) -> None:
        self._good_streak = 0
        if self.window > 1:
            self.window = max(1, self.window // 2)
            self.backoffs += 1
        self.lowest_window = min(self.lowest_window, self.window)

    def describe(self) -> str:
        return (
            f"adaptive concurrency: at most {self.maximum}, window {self.lowest_window}-"
            f"{self.highest_window}, peak {self.peak_in_flight} in flight, {self.backoffs} back-off(s)"
        )
