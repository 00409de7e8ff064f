"""What `verify` is asked to do, how its judging is run, and how it refuses.

``VerifyRequest`` is every option of the command as the library reads it (the CLI turns its
click options into one). ``Runner`` runs the judging's coroutine: ``asyncio.run``, or the
CLI's, which adds Ctrl-C, SIGTERM and --deadline. ``VerifyFailed`` is a run that could not
start or could not go on (bad input or options, a judge spec that names no judge, a worker
process that died): the command says its message and exits 2.
"""

from __future__ import annotations

from collections.abc import Coroutine
from pathlib import Path
from typing import Any, Literal, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from spanproof.bench.verify.events import Stopped
from spanproof.core.specs import EndpointSettings
from spanproof.wire.batch import DEFAULT_MAX_OUTPUT_MB

T = TypeVar("T")


class VerifyRequest(BaseModel):
    """One `verify` run's input and options."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    pairs: Path  # the JSONL pair file, read once
    judges: tuple[str, ...] = ("rules",)  # judge specs; several are a panel
    policy: Literal["all-must-support"] = "all-must-support"
    out: Path | None = None  # per-pair verdict rows (JSONL), written atomically
    # hand the rows back with the outcome when no --out takes them (the --json document)
    keep_rows: bool = False
    cache: bool = True  # read and write the verdict cache
    concurrency: int = Field(8, ge=1, le=256)  # judge calls in flight at once
    skip_invalid: bool = False  # judge the good lines of a file that has bad ones
    workers: int | None = Field(None, ge=1, le=64)  # None: one per core for a large file
    repeat: int = Field(1, ge=1, le=20)  # samples of every pair
    batch: bool = False  # openai: judges' uncached pairs as one Batch API job first
    batch_poll_s: float = Field(30.0, gt=0)
    batch_max_output_mb: float = Field(DEFAULT_MAX_OUTPUT_MB, gt=0)  # a batch's result files
    home: str | None = None
    endpoint: EndpointSettings | None = None  # where openai: judges send their calls


class Runner(Protocol):
    """Runs a coroutine to its end and returns its result (or raises what stopped it)."""

    def __call__(self, coro: Coroutine[Any, Any, T], /) -> T: ...


class VerifyFailed(Exception):
    """The run could not start or go on; the message says why and what to do. ``stopped``:
    what a run that had started kept (its rows so far), to be said after the message."""

    def __init__(self, message: str, *, stopped: Stopped | None = None) -> None:
        super().__init__(message)
        self.stopped = stopped
