"""What a `verify` run tells the person running it while it runs, as events.

The library never prints: ``verify_pairs`` hands each event to the caller's ``on_event``,
and the CLI turns them into lines on stderr and a progress bar.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel


class BadLines(BaseModel):
    """The pair file's bad lines ("line N: what is wrong"), before they stop the run or are
    skipped (--skip-invalid)."""

    path: Path
    problems: list[str]


class JudgingStarted(BaseModel):
    total: int  # pairs to judge (the first sample of each, with --repeat)


class PairJudged(BaseModel):
    """One more pair judged (in input order when streamed, as they finish otherwise)."""


class JudgingEnded(BaseModel):
    """The judging stopped, finished or not."""


class Notice(BaseModel):
    """A line for the person running it: a batch's progress, what an interrupted batch keeps."""

    message: str


class Stopped(BaseModel):
    """A run stopped half way: ``judged`` of ``total`` pairs had their rows written, kept in
    ``kept`` (``<out>.partial``; None without --out or with no row); ``cached``: their verdicts
    are in the verdict cache (False under --no-cache, where a rerun judges them again)."""

    judged: int
    total: int
    kept: Path | None
    cached: bool


VerifyEvent = BadLines | JudgingStarted | PairJudged | JudgingEnded | Notice | Stopped
EventSink = Callable[[VerifyEvent], None]


def ignore(_event: VerifyEvent) -> None:
    """The sink of a caller that wants no events."""
