"""Run independent pieces of work side by side, and hand their results on in their own order.

The gate answers its golden questions and the injection suite serves its hostile pages this
way: ``in_flight`` runs at once (each run's model calls still go through its endpoint's one
adaptive window, ``spanproof.wire.limiter``, shared by the whole process), and ``on_done``
sees every result in the order of the items, whatever order they finished in, so records,
views and progress lines read the same as a one-at-a-time run's.

Every way it ends keeps what finished:

- one piece raising stops the others at once (a task group cancels them) and the first error
  is raised, alone: a dead endpoint is one cause, not one per run still going;
- a cancellation (Ctrl-C, SIGTERM, a deadline) cancels every piece;
and in both cases ``on_done`` has been called, in item order, for every piece that finished,
including those that finished after a piece that never did.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


class _InOrder(Generic[Result]):
    """Results by position, released to ``on_done`` as soon as every earlier one is in."""

    def __init__(self, on_done: Callable[[int, Result], None]) -> None:
        self.on_done = on_done
        self.results: dict[int, Result] = {}
        self.released = 0

    def add(self, index: int, result: Result) -> None:
        self.results[index] = result
        while self.released in self.results:
            self.on_done(self.released, self.results[self.released])
            self.released += 1

    def release_the_rest(self) -> None:
        """After a stop: the pieces that finished behind one that never did, still in order."""
        for index in sorted(i for i in self.results if i >= self.released):
            self.on_done(index, self.results[index])
        self.released = max(self.results, default=self.released - 1) + 1


async def run_side_by_side(
    items: Sequence[Item],
    work: Callable[[int, Item], Awaitable[Result]],
    *,
    in_flight: int,
    on_done: Callable[[int, Result], None] = lambda index, result: None,
    check: Callable[[], None] = lambda: None,
) -> list[Result]:
    """``work(index, item)`` for every item, at most ``in_flight`` at once; the results in item
    order. ``check`` runs before each piece starts and after each finishes: raising there (an
    endpoint proved dead) stops every piece, the finished ones kept (module doc)."""
    if in_flight < 1:
        raise ValueError("in_flight must be at least 1")
    slots = asyncio.Semaphore(in_flight)
    order: _InOrder[Result] = _InOrder(on_done)

    async def one(index: int, item: Item) -> None:
        async with slots:
            check()
            result = await work(index, item)
        order.add(index, result)
        check()

    try:
        async with asyncio.TaskGroup() as group:
            for index, item in enumerate(items):
                group.create_task(one(index, item))
    except BaseExceptionGroup as errors:
        order.release_the_rest()
        raise _first_cause(errors) from None
    except BaseException:
        order.release_the_rest()
        raise
    return [order.results[i] for i in range(len(items))]


def _first_cause(errors: BaseExceptionGroup[BaseException]) -> BaseException:
    """The error that stopped the group (a cancelled sibling is its consequence, not a cause)."""
    flat: list[BaseException] = []
    pending: list[BaseException] = [errors]
    while pending:
        exc = pending.pop(0)
        if isinstance(exc, BaseExceptionGroup):
            pending[:0] = list(exc.exceptions)
        else:
            flat.append(exc)
    causes = [e for e in flat if not isinstance(e, asyncio.CancelledError)]
    return (causes or flat)[0]
