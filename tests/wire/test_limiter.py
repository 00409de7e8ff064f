"""The adaptive limiter against servers of known shape, in simulated time (tests/wire/simulated.py):
what each server saw and what the limiter did, never how long it took on this machine."""

from __future__ import annotations

import math
import random

from spanproof.wire.limiter import AdaptiveLimiter, LimiterReport

from .simulated import Reply, SimServer


def lognormal(median: float, sigma: float, seed: int):
    """The i-th reply's latency, the same for every run with this seed (a hosted API's shape)."""
    rng = random.Random(seed)
    drawn: list[float] = []

    def latency(i: int) -> float:
        while len(drawn) <= i:
            drawn.append(rng.lognormvariate(math.log(median), sigma))
        return drawn[i]

    return latency


async def test_a_slow_one_at_a_time_server_never_sees_more_than_two_requests():
    server = SimServer(lambda i: 10.0, workers=1)  # llama.cpp on two cores
    limiter = server.limiter(8, timeout_s=180)  # the defaults
    await server.run(limiter, 40)
    assert server.count == 40
    assert server.peak_in_flight == 2 == limiter.peak_in_flight
    # the first reply went alone; 8 of them queued would take 80 s of the 180 s timeout
    assert [c.window for c in limiter.history] == [2]
    assert limiter.history[0].why.startswith("probe")


async def test_a_first_reply_slowed_by_opening_the_connection_does_not_hide_the_queue():
    # the first reply also paid for the connection (0.35 s against 0.2 s): the round of two
    # sent together, one served after the other, is what says the server queues
    server = SimServer(lambda i: 0.35 if i == 0 else 0.2, workers=1)
    limiter = server.limiter(8, timeout_s=1.2)
    await server.run(limiter, 60)
    assert server.peak_in_flight == 2 and limiter.window == 2


async def test_a_fast_one_at_a_time_server_is_found_by_its_queue_and_backed_off():
    # 8 queued replies of 0.2 s fit well in the timeout, so the whole window opens at once;
    # the latency, eight times the first reply's, is then read as queueing
    server = SimServer(lambda i: 0.2, workers=1)
    limiter = server.limiter(8, timeout_s=180)
    await server.run(limiter, 100)
    assert limiter.backoffs["queueing"] >= 2
    assert limiter.window <= 2
    assert all(not c.why.startswith("restored") for c in limiter.history)


async def test_a_slow_parallel_server_gets_the_whole_window_after_the_probe():
    server = SimServer(lambda i: 10.0)  # as slow, but computes requests side by side
    limiter = server.limiter(8, timeout_s=180)
    await server.run(limiter, 60)
    assert [c.window for c in limiter.history] == [2, 4, 8]
    assert server.peak_in_flight == 8 and limiter.backoff_count == 0


async def test_the_noise_of_a_hosted_api_is_not_read_as_queueing():
    # 24 runs of 200 replies each at sigma 0.5: one reply in twenty is outside a factor of 2.3
    ended_below, backed_off = 0, 0
    for seed in range(12):
        for median in (0.2, 1.0):
            server = SimServer(lognormal(median, 0.5, seed))
            limiter = server.limiter(8, timeout_s=180)
            await server.run(limiter, 200)
            ended_below += limiter.window < 8
            backed_off += limiter.backoff_count > 0
    assert ended_below == 0
    # a lucky first reply can look like queueing, and is put right (one seed here: both of its
    # medians share the sequence)
    assert backed_off <= 2


async def test_a_back_off_that_does_not_lower_the_latency_is_undone():
    # The server gets three times slower after 40 replies, for everyone: fewer requests from
    # us do not make it faster, so the window comes back and the new latency is the norm.
    server = SimServer(lambda i: 0.2 if i < 40 else 1.0)
    limiter = server.limiter(8, timeout_s=180)
    await server.run(limiter, 200)
    whys = [c.why for c in limiter.history]
    assert any(w.startswith("queueing") for w in whys)
    assert any(w.startswith("restored") for w in whys)
    assert limiter.window == 8


async def test_one_slow_reply_changes_nothing():
    server = SimServer(lambda i: 30.0 if i == 50 else 0.2)
    limiter = server.limiter(8, timeout_s=180)
    await server.run(limiter, 200)
    assert limiter.history == [] and limiter.window == 8


async def test_a_rate_limit_halves_the_window_once_per_round_and_holds_new_requests():
    said_at: list[float] = []

    def reply(i: int, now: float) -> Reply:
        if 20 <= i < 28:  # a whole round told to wait 3 s
            said_at.append(now)
            return Reply("overloaded", retry_after=3.0)
        return Reply()

    server = SimServer(lambda i: 0.2, reply=reply)
    limiter = server.limiter(8, timeout_s=180)
    await server.run(limiter, 100)
    assert limiter.backoffs["overloaded"] == 1  # eight 429s of one round are one event
    assert min(c.window for c in limiter.history) == 4
    first = min(said_at)
    # nothing new was sent while the server's Retry-After ran
    assert not [t for t in server.arrivals if first < t < first + 3.0]


async def test_timeouts_and_refused_connections_halve_the_window_which_then_grows_back():
    kinds = {30: "timeout", 45: "connection", 60: "timeout"}
    server = SimServer(lambda i: 0.2, reply=lambda i, now: Reply(kinds.get(i, "ok")))
    limiter = server.limiter(8, timeout_s=180)
    await server.run(limiter, 120)
    assert dict(limiter.backoffs) == {"timeout": 2, "connection": 1}
    before = [8] + [c.window for c in limiter.history]
    halvings = [(b, c.window) for b, c in zip(before, limiter.history, strict=False)
                if c.why in ("timeout", "connection")]  # fmt: skip
    assert halvings == [(8, 4), (5, 2), (4, 2)]
    assert limiter.window == 8  # one more per quiet round


async def test_pressure_before_the_first_answer_keeps_requests_one_at_a_time():
    server = SimServer(lambda i: 0.2, reply=lambda i, now: Reply("overloaded" if i < 3 else "ok"))
    limiter = server.limiter(8, timeout_s=180)
    await server.run(limiter, 5)
    assert server.peak_in_flight == 1  # never more than one before a reply said it is fine


async def test_the_report_shows_the_window_over_time():
    server = SimServer(lambda i: 10.0, workers=1)
    limiter = server.limiter(8, timeout_s=180)
    await server.run(limiter, 6)
    report = LimiterReport.model_validate_json(limiter.report().model_dump_json())
    assert report.maximum == 8 and report.window == 2 and report.peak_in_flight == 2
    assert [(c.t_s, c.window) for c in report.window_over_time] == [(10.0, 2)]
    line = limiter.describe()
    assert "at most 8, window 2-8, peak 2 in flight, 0 back-off(s)" in line
    assert "window 8 -> 2 at 10s (probe: first reply 10 s)" in line


def test_without_changes_the_line_says_the_window_held():
    limiter = AdaptiveLimiter(8)
    assert limiter.describe().endswith("window 8 throughout")


async def test_a_busy_event_loop_is_not_read_as_a_queueing_server():
    # 64 in flight to a server that answers every request in 0.2 s, side by side, from a client
    # whose loop spends 12 ms on each reply: 64 replies take the loop 0.77 s, so each reply
    # waits for the loop about four times the server's latency. Fewer requests in flight would
    # not make the server faster; only the loop's own time grew.
    server = SimServer(lambda i: 0.2, loop_cost=0.012)
    limiter = server.limiter(64, timeout_s=180)
    await server.run(limiter, 1500)
    assert limiter.backoff_count == 0 and limiter.history == []
    assert server.peak_in_flight == 64


async def test_a_one_at_a_time_server_is_still_found_behind_a_busy_loop():
    # the same loop cost in front of a server that computes one request at a time
    for latency, timeout in ((10.0, 180), (0.2, 180)):
        server = SimServer(lambda i, latency=latency: latency, workers=1, loop_cost=0.012)
        limiter = server.limiter(8, timeout_s=timeout)
        await server.run(limiter, 60)
        assert limiter.window <= 2, (latency, limiter.describe())


async def _through(limiter: AdaptiveLimiter, n: int) -> int:
    """``n`` requests, all waiting at once, through ``limiter`` (each held for one loop turn);
    how many times a waiter was woken."""
    import asyncio

    woken = 0
    cond = limiter._condition()
    wait = cond.wait

    async def counted_wait() -> bool:
        nonlocal woken
        result = await wait()
        woken += 1
        return result

    cond.wait = counted_wait  # type: ignore[method-assign]

    async def one() -> None:
        async with limiter.slot() as outcome:
            await asyncio.sleep(0)
            outcome["kind"] = "ok"

    await asyncio.gather(*(one() for _ in range(n)))
    return woken


async def test_a_free_slot_wakes_one_waiter_not_every_waiter():
    # every reply woke every waiting request, which took the lock only to wait again: with 60
    # waiting behind a window of 4, thousands of wake-ups on the loop that reads the replies
    limiter = AdaptiveLimiter(4)
    woken = await _through(limiter, 64)
    assert limiter.peak_in_flight == 4  # the window still holds
    # a few wake-ups per request that waited (a slot freed before the last woken request ran
    # wakes another, which checks and waits again), not one per waiter per reply (528 here)
    assert woken < 3 * 64


async def test_a_woken_request_that_is_cancelled_passes_its_turn_on():
    # a wake-up taken by a request cancelled before it ran must not strand the others
    import asyncio

    limiter = AdaptiveLimiter(1)
    first_in = asyncio.Event()
    release = asyncio.Event()
    done: list[str] = []
    waiting: list[asyncio.Task] = []

    async def holder() -> None:
        async with limiter.slot() as outcome:
            first_in.set()
            await release.wait()
            outcome["kind"] = "ok"
        # leaving the slot woke the first waiter (the one free slot): cancel it before it runs
        waiting[0].cancel()

    async def waiter(name: str) -> None:
        async with limiter.slot() as outcome:
            outcome["kind"] = "ok"
            done.append(name)

    held = asyncio.create_task(holder())
    await first_in.wait()
    waiting += [asyncio.create_task(waiter("b")), asyncio.create_task(waiter("c"))]
    for _ in range(3):
        await asyncio.sleep(0)  # both wait now
    release.set()
    await held
    await asyncio.wait_for(waiting[1], timeout=5)  # c still gets the slot
    assert done == ["c"] and waiting[0].cancelled()
