"""A model server in simulated time, to test the adaptive limiter's decisions exactly.

``SimServer`` is a discrete-event simulation: a request that arrives at virtual time ``now``
waits for one of ``workers`` (FIFO, like a server's queue) and is answered ``latency(i)``
seconds after it starts; ``run`` lets the clients' coroutines go as far as they can, then jumps
the clock to the next reply. The limiter under test gets the simulation's ``clock`` and
``sleep``, so a 10 s server costs no real time and nothing depends on how busy the machine
is. No timing is asserted; what the server saw (peak in flight) and what the limiter did are.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Callable
from dataclasses import dataclass

from spanproof.wire.limiter import AdaptiveLimiter


@dataclass
class Reply:
    kind: str = "ok"  # what the client tells the limiter: ok / overloaded / timeout / ...
    retry_after: float | None = None


class SimServer:
    def __init__(
        self,
        latency: Callable[[int], float],
        *,
        workers: int = 10_000,
        reply: Callable[[int, float], Reply] | None = None,
        loop_cost: float = 0.0,
    ) -> None:
        """``loop_cost``: seconds the client's one event loop spends on each reply (reading it,
        auditing it); nothing else on the loop runs meanwhile, so every other reply and timer
        due then is handled late, and the time is counted on the loop's ``busy`` clock."""
        self.latency = latency
        self.loop_cost = loop_cost
        self.busy_s = 0.0
        self.reply = reply or (lambda i, now: Reply())
        self.now = 0.0
        self.count = 0
        self.in_flight = 0
        self.peak_in_flight = 0
        self.arrivals: list[float] = []
        self._free = [0.0] * workers
        self._events: list[tuple[float, int, asyncio.Future]] = []
        self._seq = itertools.count()

    def clock(self) -> float:
        return self.now

    def _at(self, t: float) -> asyncio.Future:
        fut = asyncio.get_running_loop().create_future()
        heapq.heappush(self._events, (t, next(self._seq), fut))
        return fut

    async def sleep(self, seconds: float) -> None:
        await self._at(self.now + max(0.0, seconds))

    async def request(self) -> Reply:
        i = self.count
        self.count += 1
        self.arrivals.append(self.now)
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        start = max(self.now, heapq.heappop(self._free))
        done = start + self.latency(i)
        heapq.heappush(self._free, done)
        try:
            await self._at(done)
        finally:
            self.in_flight -= 1
        # the client's work on this reply holds the loop: later events are delivered after it
        self.now += self.loop_cost
        self.busy_s += self.loop_cost
        return self.reply(i, self.now)

    def busy(self) -> float:
        return self.busy_s

    def limiter(self, maximum: int = 8, timeout_s: float | None = 180.0) -> AdaptiveLimiter:
        return AdaptiveLimiter(maximum, timeout_s=timeout_s, clock=self.clock, sleep=self.sleep,
                               busy=self.busy)  # fmt: skip

    async def run(self, limiter: AdaptiveLimiter, requests: int) -> None:
        """``requests`` clients at once, each sending one request through ``limiter``."""

        async def one() -> None:
            async with limiter.slot() as outcome:
                answer = await self.request()
                outcome["kind"] = answer.kind
                if answer.retry_after is not None:
                    outcome["retry_after"] = answer.retry_after

        tasks = [asyncio.ensure_future(one()) for _ in range(requests)]
        while True:
            for _ in range(25):  # let every coroutine run until it waits on the clock
                await asyncio.sleep(0)
            if all(t.done() for t in tasks):
                break
            if not self._events:
                raise AssertionError("the clients wait on nothing: the limiter deadlocked")
            t, _, fut = heapq.heappop(self._events)
            self.now = max(self.now, t)
            fut.set_result(None)
        for t in tasks:
            t.result()
