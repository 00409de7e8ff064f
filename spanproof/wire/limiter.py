"""Concurrency limits that belong to one event loop, and the adaptive limit for model servers.

``LoopSemaphore`` is an ``asyncio.Semaphore`` that is created anew for each running event
loop: a long-lived object (a verifier, a fetcher, a model client) may serve several
``asyncio.run()`` calls, and a semaphore bound to a closed loop would raise.

``AdaptiveLimiter`` bounds the requests in flight to one model server by a *window* that
starts at the configured concurrency and moves only on evidence about the server, never on
the noise of one reply:

- **Opening.** The first request goes alone (it also settles the response format), so its
  reply time is the server's latency with nothing queued. When a full window of such replies
  queued one behind another would take more than a quarter of the timeout (a 10 s CPU server
  at 8 in flight and 180 s), the window opens at 2 and doubles each round whose requests,
  sent together, also come back together: on a server that computes one request at a time
  the second of two takes twice as long, so it never sees more than two requests. Any faster
  server gets the whole window at once.
- **What a server says.** 429, 503, 504, a ``Retry-After``, a timeout or a refused connection
  halve the window, at most once per round (the requests already in flight when the server
  said so are one event, not eight); a ``Retry-After`` also holds every new request until it
  has passed, not only the one that was told.
- **Sustained queueing**, as TCP Vegas reads it: latency well above the latency of the server
  with nothing queued means requests wait behind each other. The statistic is robust: a
  *round* is the replies to ``window`` requests sent while the window had its current value,
  its latency is their median (one slow reply moves it by one rank), and the reference is
  the lowest round median seen (and the opening reply). Two rounds in a row over
  ``QUEUE_TOLERANCE`` times the reference halve the window; if the next round's latency
  does not fall with it, the wait was the server's own (it got slower for everyone, or the
  reference was one lucky reply): that latency becomes the reference and the window comes
  back. A round back near the reference grows the window by one. A hosted API whose replies
  scatter by a factor of two or three keeps its whole window; a server that queues eight
  requests (eight times the latency) is backed off within two rounds.

**The server's time, not the loop's.** A reply is read on the client's one event loop; when
that loop is busy (parsing other replies, auditing verdicts, starting worker processes) a
reply that came back in 0.2 s may be read 0.6 s later, and that wait is the client's, not a
queue at the server: sending fewer requests would not shorten it. So every request also
measures the CPU time the loop's thread spent while it was out (``busy``, the thread's CPU
clock): the server's latency is taken as the elapsed time less that, since a reply waits
for the loop only while the loop runs something else. The estimate errs towards a fast
server (busy time while the request was still at the server is subtracted too), which can
only keep the window open, never close it on the client's account. The spread that says
"one request at a time" must likewise be more than the loop's time can explain.

``describe()`` is the ``model traffic:`` line's account of it and ``report()`` the same for
``--json``: the window over time (each change with the second it happened and why), the peak
of requests in flight, and the back-offs by cause.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from pydantic import BaseModel, Field

# Latencies below this are scheduling noise, not a sign of queueing (a loopback server
# answers in a millisecond and jitters by more than that).
NOISE_FLOOR_S = 0.05
# A round's median latency above this many times the reference is queueing. Hosted APIs
# scatter their replies (a lognormal spread of sigma 0.5 puts one reply in twenty outside a
# factor of 2.3 of the median); the median of a round, against the lowest median seen,
# stays inside 3 unless requests really wait for each other.
QUEUE_TOLERANCE = 3.0
# A round this close to the reference shows no queue: the window may grow.
GROW_BELOW = 1.3
# Requests sent together that come back spread by more than this were served one after
# another (on a one-at-a-time server the second takes twice as long as the first).
SERIAL_SPREAD = 1.5
# Before filling the window, a full window queued one behind another on a server that
# computes one request at a time must finish within this share of the timeout.
QUEUE_SHARE_OF_TIMEOUT = 0.25
# The window history kept for reports: the first changes and the latest.
HISTORY_KEEP = 40
# Outcomes that are the server saying it has too much to do.
PRESSURE = ("overloaded", "timeout", "connection")


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


class WindowChange(BaseModel):
    """The window took ``window`` at ``t_s`` seconds after the first request, because ``why``."""

    t_s: float
    window: int
    why: str


class LimiterReport(BaseModel):
    """What the limiter did, for ``--json``."""

    maximum: int
    window: int  # now
    lowest_window: int
    highest_window: int
    peak_in_flight: int
    backoffs: dict[str, int] = Field(default_factory=dict)  # by cause
    window_over_time: list[WindowChange] = Field(default_factory=list)
    changes_not_shown: int = 0


class AdaptiveLimiter:
    """The window of requests in flight to one server; see the module docstring."""

    def __init__(
        self,
        maximum: int,
        *,
        timeout_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        busy: Callable[[], float] = time.thread_time,
    ) -> None:
        """``timeout_s``: the client's timeout for one reply (it decides whether the window
        opens at once); ``clock`` and ``sleep`` are injectable so tests can run simulated time,
        and ``busy``, the seconds the loop's thread has spent running (its CPU clock), with
        them."""
        if maximum < 1:
            raise ValueError("concurrency must be at least 1")
        self.maximum = maximum
        self.timeout_s = timeout_s
        self._clock = clock
        self._sleep = sleep
        self._busy = busy
        self.window = maximum  # what the limit is once open; see _admits()
        self.in_flight = 0
        self.peak_in_flight = 0
        self.lowest_window = maximum
        self.highest_window = maximum
        self.backoffs: Counter[str] = Counter()
        self.history: list[WindowChange] = []
        self._dropped_changes = 0
        self._t0: float | None = None
        self._opened = False  # the first reply is in
        self._slow_start = False  # doubling per clean round until the first back-off
        # Bumps whenever the window changes: a reply to a request sent under an earlier window
        # speaks of that window, so it neither fills a round nor causes a second back-off.
        self._epoch = 0
        self._round: list[float] = []  # the server's latency of each reply (loop time taken out)
        self._round_raw: list[float] = []  # as the client saw them
        self._round_busy = 0.0  # the most loop time any reply of the round waited behind
        self._round_size = maximum
        self._reference = 0.0  # round latency with nothing queued (set by the first reply)
        self._shrunk_from: tuple[float, int] | None = None  # (round median, window) before
        self._hot_rounds = 0
        self._paused_until = 0.0
        self._cond: asyncio.Condition | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    @property
    def backoff_count(self) -> int:
        return sum(self.backoffs.values())

    def _condition(self) -> asyncio.Condition:
        loop = asyncio.get_running_loop()
        if self._cond is None or self._loop is not loop:
            self._cond, self._loop = asyncio.Condition(), loop
            self.in_flight = 0
        return self._cond

    def _admits(self) -> bool:
        limit = self.window if self._opened else 1
        return self.in_flight < limit

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[dict[str, object]]:
        """Hold one request slot; yields a dict in which the caller says how the request went:
        ``kind`` ok / overloaded / timeout / connection / refused, and ``retry_after`` (s)."""
        cond = self._condition()
        async with cond:
            while True:
                wait = self._paused_until - self._clock()
                if wait > 0:
                    # The server asked everyone to wait; the condition is released meanwhile.
                    cond.release()
                    try:
                        await self._sleep(wait)
                    finally:
                        await cond.acquire()
                    continue
                if self._admits():
                    break
                try:
                    await cond.wait()
                except asyncio.CancelledError:
                    # A wake-up given to this waiter would leave with it (the condition does
                    # not pass it on): hand it to the next waiter, which checks for itself.
                    cond.notify(1)
                    raise
            if self._t0 is None:
                self._t0 = self._clock()
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            epoch = self._epoch
        outcome: dict[str, object] = {}
        t0, busy0 = self._clock(), self._busy()
        try:
            yield outcome
        finally:
            elapsed = self._clock() - t0
            busy = min(elapsed, max(0.0, self._busy() - busy0))
            async with cond:
                self.in_flight -= 1
                retry_after = outcome.get("retry_after")
                self._observe(
                    elapsed,
                    str(outcome.get("kind", "ok")),
                    epoch,
                    float(retry_after) if isinstance(retry_after, int | float) else None,
                    busy,
                )
                # Wake as many waiters as may start now (each checks again), not all of them:
                # while the window opens dozens wait, and waking all for one free slot had
                # each take the lock and wait again, on the loop every reply is read on.
                free = (self.window if self._opened else 1) - self.in_flight
                if free > 0:
                    cond.notify(free)

    # --- decisions ---------------------------------------------------------------------

    def _observe(
        self, elapsed: float, kind: str, epoch: int, retry_after: float | None, busy: float = 0.0
    ) -> None:
        if retry_after is not None and retry_after > 0:
            self._paused_until = max(self._paused_until, self._clock() + retry_after)
        if kind in PRESSURE:
            # One back-off per round: replies to requests sent before the last change say
            # what the server thought of the old window, which is already gone.
            if epoch == self._epoch:
                self._slow_start = False
                self._set(max(1, self.window // 2), kind)
            return
        if kind != "ok":
            return  # a refused request says nothing about the server's load
        if not self._opened:
            self._open(elapsed - busy)
            return
        if epoch != self._epoch:
            return  # sent under another window; its latency belongs to that window
        self._round.append(elapsed - busy)
        self._round_raw.append(elapsed)
        self._round_busy = max(self._round_busy, busy)
        if len(self._round) >= self._round_size:
            self._close_round()

    def _open(self, first: float) -> None:
        self._opened = True
        self._reference = max(first, NOISE_FLOOR_S)
        queue_s = self.maximum * first
        if (
            self.timeout_s is not None
            and self.maximum > 2
            and queue_s > QUEUE_SHARE_OF_TIMEOUT * self.timeout_s
        ):
            self._slow_start = True
            self._set(2, f"probe: first reply {first:.2g} s")
        else:
            self._new_round()

    def _close_round(self) -> None:
        median = max(statistics.median(self._round), NOISE_FLOOR_S)
        reference = self._reference
        if self._shrunk_from is not None:
            before, window_before = self._shrunk_from
            self._shrunk_from = None
            # Half the window should have brought the latency close to half; if it did not
            # fall even to three quarters, the wait was the server's own (it got slower, or
            # the reference was one lucky reply), not a queue of ours: that latency is the
            # new normal, and the window goes back.
            if median > 0.75 * before:
                self._reference = median
                self._set(window_before, "restored: latency did not fall with the window")
                return
        self._reference = min(reference, median)
        ratio = median / reference
        if ratio > QUEUE_TOLERANCE:
            self._hot_rounds += 1
            if self._hot_rounds >= 2 and self.window > 1:
                self._hot_rounds = 0
                self._slow_start = False
                self._shrunk_from = (median, self.window)
                self._set(max(1, self.window // 2), f"queueing: {ratio:.1f}x unqueued")
                return
        else:
            self._hot_rounds = 0
            if self._slow_start and self._served_in_turn():
                # The requests of this round went out together; on a server that computes
                # one at a time they come back one after another (the second twice as late),
                # and the first of them is the latency with nothing queued (the first reply
                # of all may have paid for opening the connection too).
                self._slow_start = False
                self._reference = min(self._reference, max(min(self._round), NOISE_FLOOR_S))
                self._new_round()
                return
            if ratio <= GROW_BELOW and self.window < self.maximum:
                grown = self.window * 2 if self._slow_start else self.window + 1
                self._set(min(self.maximum, grown), "no queue")
                return
        self._new_round()

    def _served_in_turn(self) -> bool:
        """Did the round's requests, sent together, come back one after another? The last
        reply later than ``SERIAL_SPREAD`` times the first by more than the loop's own time."""
        raw = self._round_raw
        return max(raw) - self._round_busy > SERIAL_SPREAD * min(raw)

    def _new_round(self) -> None:
        self._round = []
        self._round_raw = []
        self._round_busy = 0.0
        self._round_size = self.window

    def _set(self, window: int, why: str) -> None:
        if window == self.window:
            self._new_round()
            return
        self._epoch += 1
        self.window = window
        self.lowest_window = min(self.lowest_window, window)
        self.highest_window = max(self.highest_window, window)
        if why.startswith(("queueing", *PRESSURE)):
            self.backoffs[why.split(":")[0]] += 1
        t = 0.0 if self._t0 is None else self._clock() - self._t0
        change = WindowChange(t_s=round(t, 2), window=window, why=why)
        if len(self.history) < HISTORY_KEEP:
            self.history.append(change)
        else:  # keep the first half and the latest changes
            self.history.pop(HISTORY_KEEP // 2)
            self.history.append(change)
            self._dropped_changes += 1
        self._new_round()

    # --- reports -----------------------------------------------------------------------

    def report(self) -> LimiterReport:
        return LimiterReport(
            maximum=self.maximum,
            window=self.window,
            lowest_window=self.lowest_window,
            highest_window=self.highest_window,
            peak_in_flight=self.peak_in_flight,
            backoffs=dict(self.backoffs),
            window_over_time=list(self.history),
            changes_not_shown=self._dropped_changes,
        )

    def describe(self) -> str:
        causes = ", ".join(f"{k} {v}" for k, v in sorted(self.backoffs.items()))
        over_time = " -> ".join(f"{c.window} at {c.t_s:g}s ({c.why})" for c in self.history)
        if self._dropped_changes:
            over_time += f" ({self._dropped_changes} earlier changes not shown)"
        return (
            f"adaptive concurrency: at most {self.maximum}, window {self.lowest_window}-"
            f"{self.highest_window}, peak {self.peak_in_flight} in flight, "
            f"{self.backoff_count} back-off(s){f' ({causes})' if causes else ''}; window "
            + (f"{self.maximum} -> {over_time}" if over_time else f"{self.maximum} throughout")
        )
