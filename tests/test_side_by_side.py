"""Runs side by side (spanproof.core.side_by_side): results in item order whatever order the work
finishes in, a bound on what is in flight, and every finished result kept when it stops."""

from __future__ import annotations

import asyncio

import pytest

from spanproof.core.side_by_side import run_side_by_side


class Tracker:
    def __init__(self) -> None:
        self.in_flight = 0
        self.peak = 0
        self.finished: list[int] = []
        self.released: list[tuple[int, str]] = []

    async def work(self, index: int, delay: float) -> str:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            await asyncio.sleep(delay)
        finally:
            self.in_flight -= 1
        self.finished.append(index)
        return f"r{index}"

    def on_done(self, index: int, result: str) -> None:
        self.released.append((index, result))


async def test_results_keep_item_order_when_work_finishes_in_reverse():
    t = Tracker()
    delays = [0.25, 0.2, 0.15, 0.1, 0.05, 0.0]
    results = await run_side_by_side(delays, t.work, in_flight=6, on_done=t.on_done)
    assert t.finished == [5, 4, 3, 2, 1, 0]  # they really finished the other way round
    assert results == [f"r{i}" for i in range(6)]
    assert t.released == [(i, f"r{i}") for i in range(6)]
    assert t.peak == 6


async def test_never_more_in_flight_than_allowed():
    t = Tracker()
    await run_side_by_side([0.02] * 9, t.work, in_flight=3, on_done=t.on_done)
    assert t.peak == 3
    assert [i for i, _ in t.released] == list(range(9))


async def test_a_cancelled_run_keeps_every_finished_result_in_order():
    t = Tracker()
    delays = [60.0, 0.0, 0.01, 60.0, 0.02]  # 1, 2 and 4 finish; 0 and 3 never do
    task = asyncio.create_task(run_side_by_side(delays, t.work, in_flight=5, on_done=t.on_done))
    while len(t.finished) < 3:
        await asyncio.sleep(0.01)
    assert t.released == []  # held behind item 0, which has not finished
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert t.released == [(1, "r1"), (2, "r2"), (4, "r4")]
    assert t.in_flight == 0  # the unfinished ones were cancelled, not left running


class Dead(RuntimeError):
    pass


async def test_one_failure_stops_every_piece_at_once_with_one_cause():
    t = Tracker()
    started: list[int] = []

    async def work(index: int, delay: float) -> str:
        started.append(index)
        if index == 2:
            await asyncio.sleep(0.01)
            raise Dead("the endpoint refused the key")
        return await t.work(index, delay)

    with pytest.raises(Dead, match="refused the key"):  # the cause itself, not a group of 40
        await run_side_by_side([0.0, 60.0, 0.0, 60.0, 60.0, 60.0], work, in_flight=3,
                               on_done=t.on_done)  # fmt: skip
    assert t.in_flight == 0  # the slow ones were stopped, not waited for
    assert 5 not in started  # and what had not started never did
    assert t.released == [(0, "r0")]


async def test_a_check_that_raises_after_a_run_keeps_that_run_and_stops_the_rest():
    t = Tracker()
    dead = False

    def check() -> None:
        if dead:
            raise Dead("circuit open")

    async def work(index: int, delay: float) -> str:
        nonlocal dead
        result = await t.work(index, delay)
        dead = dead or index == 0  # the run finished, and proved the endpoint dead
        return result

    with pytest.raises(Dead):
        await run_side_by_side([0.0, 60.0, 60.0, 0.0], work, in_flight=2, on_done=t.on_done,
                               check=check)  # fmt: skip
    assert t.released == [(0, "r0")]
    assert t.in_flight == 0


async def test_in_flight_must_be_positive():
    with pytest.raises(ValueError, match="at least 1"):
        await run_side_by_side([1], Tracker().work, in_flight=0)
