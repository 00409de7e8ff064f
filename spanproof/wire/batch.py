"""One OpenAI Batch API job: upload the requests, create the batch, poll it, read its results.

The Batch API (``/v1/files`` + ``/v1/batches``; OpenAI, and servers that implement it over
vLLM's ``run-batch``) answers Chat Completions requests within a completion window instead of
on an open connection, at half the price on OpenAI. The input is JSONL, one request a line
(``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``); the results are
JSONL lines ``{"custom_id", "response": {"status_code", "body"}, "error"}`` in the batch's
output file and error file (a server may put failed lines in either), read as they stream
(spanproof.wire.batch_results: size caps, one result per request, usage checked).

Resuming instead of resubmitting: a job is keyed by what was submitted (the endpoint and the
sha256 of its request lines, in ``custom_id`` order), and its record is written under the
state directory *before* anything reaches the server, then again with the uploaded file's id
and with the batch's id as each comes back. A command that runs again with the same requests -
after Ctrl-C, SIGTERM, a crash, a deadline - collects the recorded batch; when the record has
no batch id (the command stopped while ``batches.create`` waited for its reply, so the server
may have created the batch), it first lists the server's batches and takes the one carrying
the job's key in its metadata, and submits only when there is none. ``batches.create`` is
never retried by the SDK for the same reason. The caller removes the record
(``BatchJob.forget``) once the results are stored where they belong.

Waiting: only the API's documented terminal statuses (completed, failed, expired, cancelled)
end a wait. validating, in_progress, finalizing and cancelling are steps on the way; any other
status (a server's own, such as ``paused_by_operator``) is neither an end nor a success: the
job keeps polling, says so once, and the command's --deadline (or Ctrl-C) is what stops it.

Failing closed: a batch that ``failed`` (the server refused its input) raises ``BatchFailed``
with the server's reasons; ``expired`` and ``cancelled`` batches return the results they have,
and every request without a result is reported as such (``BatchResult.error``), never dropped.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import BaseModel, Field

from spanproof.core.files import write_atomic
from spanproof.core.specs import EndpointSettings
from spanproof.wire.batch_results import (
    BatchError,
    BatchResult,
    ByteBudget,
    Results,
    lines_of,
    read_line,
)
from spanproof.wire.client import WireCounters, server_message
from spanproof.wire.spend import reserve_all

if TYPE_CHECKING:  # the SDK loads when a job runs, not when this module is imported
    from openai import AsyncOpenAI
    from openai.types import Batch

ENDPOINT: Final = "/v1/chat/completions"
ENDED = ("completed", "failed", "expired", "cancelled")  # the documented terminal statuses
UNDERWAY = ("validating", "in_progress", "finalizing", "cancelling")  # documented, not ended
FIRST_POLL_S = 1.0
STATE_DIR = "batches"
KEY_METADATA = "spanproof_key"  # the batch's metadata key holding the job's key
# A batch carrying the job's key counts as the stopped submission's when the server created it
# at most this long before the submission started by this machine's clock (clocks differ).
CLOCK_SLACK_S = 600.0
DEFAULT_MAX_OUTPUT_MB = 256  # the result files of one job, together
LINE_ENVELOPE_BYTES = 16 * 1024  # a result line is one reply plus its custom_id, ids, status


class BatchFailed(BatchError):
    """The server refused the batch as a whole (status ``failed``)."""


class BatchRequest(BaseModel):
    """One input line."""

    custom_id: str = Field(max_length=64)
    method: Literal["POST"] = "POST"
    url: str = ENDPOINT
    body: dict[str, Any]


class BatchRecord(BaseModel):
    """What is kept under the state directory while a job is not finished. Written before
    anything reaches the server (no ids yet), again once the input file is uploaded, and again
    once the server has created the batch."""

    key: str
    batch_id: str | None = None  # None: submitting; the server may have created it unseen
    input_file_id: str | None = None
    base_url: str
    model: str
    requests: int
    submitted_at: float


class BatchProgress(BaseModel):
    batch_id: str
    status: str
    total: int
    completed: int
    failed: int
    elapsed_s: float
    resumed: bool


class BatchOutcome(BaseModel):
    """A finished job: its final status and one result per submitted request."""

    batch_id: str
    status: str
    resumed: bool  # collected a batch submitted by an earlier command
    requests: int
    results: dict[str, BatchResult]
    record_path: str

    @property
    def failed(self) -> int:
        return sum(1 for r in self.results.values() if r.error)


def batch_key(base_url: str, requests: list[BatchRequest]) -> str:
    digest = hashlib.sha256(base_url.encode("utf-8"))
    for r in sorted(requests, key=lambda r: r.custom_id):
        digest.update(b"\n" + r.model_dump_json().encode("utf-8"))
    return digest.hexdigest()


def jsonl(requests: list[BatchRequest]) -> bytes:
    return "".join(r.model_dump_json() + "\n" for r in requests).encode("utf-8")


class BatchJob:
    """The job for ``requests`` at ``endpoint``: ``run()`` submits it (or finds the batch an
    earlier command submitted), polls until it ends and returns every request's result.

    ``max_output_mb``: the most the result files may take together (``OutputTooLarge`` past
    it). ``counters``: the endpoint's client's, which then count the job's requests and the
    tokens of its replies (the ``model traffic:`` line)."""

    def __init__(
        self,
        requests: list[BatchRequest],
        *,
        endpoint: EndpointSettings,
        model: str,
        state_dir: Path,
        poll_s: float = 30.0,
        max_output_mb: float = DEFAULT_MAX_OUTPUT_MB,
        counters: WireCounters | None = None,
        progress: Callable[[BatchProgress], None] | None = None,
        notice: Callable[[str], None] | None = None,
        sleep: Callable[[float], Any] = asyncio.sleep,
    ) -> None:
        ids = [r.custom_id for r in requests]
        if len(set(ids)) != len(ids):
            raise ValueError("every request of a batch needs its own custom_id")
        self.requests = requests
        self.settings = endpoint.resolved()
        self.base_url = (self.settings.base_url or "https://api.openai.com/v1").rstrip("/")
        self.model = model
        self.key = batch_key(self.base_url, requests)
        self.record_path = Path(state_dir) / STATE_DIR / f"{self.key}.json"
        self.poll_s = poll_s
        self.max_output_mb = max_output_mb
        self.counters = counters
        self.progress = progress
        self.notice = notice or (lambda _m: None)
        self._sleep = sleep

    @property
    def tag(self) -> str:
        """What the job's batch carries in its metadata (``KEY_METADATA``) to be found again."""
        return self.key[:32]

    # --- the record of a submitted job -----------------------------------------------------

    def _read_record(self) -> BatchRecord | None:
        try:
            return BatchRecord.model_validate_json(self.record_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise BatchError(
                f"the batch record {self.record_path} is unreadable ({exc}); if no batch for "
                "these pairs is running, delete it and run again"
            ) from exc

    def _write_record(self, record: BatchRecord) -> None:
        write_atomic(self.record_path, record.model_dump_json(indent=1))

    def forget(self) -> None:
        """The results are stored: a later command with the same requests submits anew."""
        self.record_path.unlink(missing_ok=True)

    def others_pending(self) -> list[BatchRecord]:
        """Records of other unfinished jobs at this endpoint (for a notice: they still run)."""
        out = []
        for path in sorted(self.record_path.parent.glob("*.json")):
            if path == self.record_path:
                continue
            try:
                rec = BatchRecord.model_validate_json(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if rec.base_url == self.base_url:
                out.append(rec)
        return out

    # --- talking to the server -----------------------------------------------------------

    def _client(self) -> AsyncOpenAI:
        import openai

        return openai.AsyncOpenAI(
            api_key=self.settings.api_key,
            base_url=self.settings.base_url,
            timeout=self.settings.timeout_s,
            max_retries=self.settings.max_retries,
        )

    def _fail(self, what: str, exc: Exception) -> BatchError:
        import openai

        said = str(exc)
        if isinstance(exc, openai.APIStatusError):
            said = f"HTTP {exc.status_code}: {server_message(exc)}"
            if exc.status_code == 404:
                said += "; does this server implement the Batch API (/v1/files, /v1/batches)? "
                said += "If not, run without --batch"
        return BatchError(f"{self.base_url}: {what} failed ({said})")

    async def run(self) -> BatchOutcome:
        client = self._client()
        give_back: Callable[[], object] | None = None  # the job's hold under --max-cost
        try:
            record = self._read_record()
            batch: Batch | None = None
            if record is not None and record.batch_id is not None:
                batch = await self._retrieve_recorded(client, record.batch_id)
                if batch is None:
                    record = None
            elif record is not None:  # stopped while submitting: the batch may exist
                batch = await self._find_submitted(client, record)
            resumed = batch is not None
            if batch is None:
                for other in self.others_pending():
                    self.notice(
                        f"batch {other.batch_id or '(being submitted)'} ({other.requests} "
                        "requests, submitted by an earlier command for other pairs) is still "
                        "recorded as running; run that command again to collect it"
                    )
                # a --max-cost in force holds the whole job's worst case before it is paid for;
                # refused, nothing is sent (a resumed batch is already paid: it is collected)
                give_back = reserve_all(self.model, [r.body for r in self.requests],
                                        self.settings.max_reply_bytes)  # fmt: skip
                batch = await self._submit(client, record)
            batch = await self._poll(client, batch, resumed)
            return await self._collect(client, batch, resumed)  # counts its tokens
        finally:
            if give_back is not None:
                give_back()
            await client.close()

    async def _retrieve_recorded(self, client: AsyncOpenAI, batch_id: str) -> Batch | None:
        """The recorded batch, or None when the server no longer knows it (record forgotten)."""
        import openai

        try:
            return await client.batches.retrieve(batch_id)
        except openai.NotFoundError:
            self.notice(
                f"the server no longer knows batch {batch_id} (recorded in "
                f"{self.record_path}); submitting the requests again"
            )
            self.forget()
            return None
        except openai.OpenAIError as exc:
            raise self._fail(f"reading batch {batch_id}", exc) from exc

    async def _find_submitted(self, client: AsyncOpenAI, record: BatchRecord) -> Batch | None:
        """The batch an earlier command created without seeing the reply: the newest batch
        carrying this job's key, created since that command began submitting (the server
        lists batches newest first). None when there is none: nothing was created."""
        import openai

        since = record.submitted_at - CLOCK_SLACK_S
        found = []
        try:
            async for batch in client.batches.list(limit=100):
                if batch.created_at < since:
                    break
                if (batch.metadata or {}).get(KEY_METADATA) == self.tag:
                    found.append(batch)
        except openai.OpenAIError as exc:
            raise self._fail(
                "listing batches, to find the one an earlier command may have created before "
                f"it stopped (recorded in {self.record_path}; if you know the server never "
                "created it, delete that file and run again)",
                exc,
            ) from exc
        if not found:
            return None
        batch, *others = found
        self._write_record(
            record.model_copy(update={"batch_id": batch.id, "input_file_id": batch.input_file_id})
        )
        self.notice(
            f"found batch {batch.id} ({batch.status}), created for these requests by an "
            "earlier command that stopped before the server's reply; collecting it instead of "
            "submitting again"
        )
        for other in others:
            self.notice(
                f"batch {other.id} ({other.status}) carries these requests too; it is not "
                "collected: cancel it if it still runs"
            )
        return batch

    async def _submit(self, client: AsyncOpenAI, stopped: BatchRecord | None) -> Batch:
        """Upload (unless a stopped submission already did) and create the batch, the record
        written before each step reaches the server."""
        import openai

        record = BatchRecord(
            key=self.key, input_file_id=stopped.input_file_id if stopped else None,
            base_url=self.base_url, model=self.model, requests=len(self.requests),
            submitted_at=time.time(),
        )  # fmt: skip
        self._write_record(record)
        try:
            file_id = record.input_file_id
            if file_id is None:
                uploaded = await client.files.create(
                    file=(f"spanproof-{self.tag}.jsonl", jsonl(self.requests)), purpose="batch"
                )
                file_id = uploaded.id
                record = record.model_copy(update={"input_file_id": file_id})
                self._write_record(record)
            # Never retried: a create whose reply was lost may have made the batch, and a
            # retry would make a second one. The record lets the next command find it.
            batch = await client.with_options(max_retries=0).batches.create(
                input_file_id=file_id,
                endpoint=ENDPOINT,
                completion_window="24h",
                metadata={KEY_METADATA: self.tag},
            )
        except openai.APIStatusError as exc:
            self.forget()  # the server answered: it created nothing
            raise self._fail("submitting the batch", exc) from exc
        except openai.OpenAIError as exc:
            raise self._fail(
                "submitting the batch (the server may have created it without answering: run "
                "the same command again, which looks for it before submitting anything)",
                exc,
            ) from exc
        self._write_record(record.model_copy(update={"batch_id": batch.id}))
        self.notice(
            f"submitted batch {batch.id} ({len(self.requests)} requests); its id is kept in "
            f"{self.record_path}: if this command stops, run it again to collect the batch"
        )
        return batch

    async def _poll(self, client: AsyncOpenAI, batch: Batch, resumed: bool) -> Batch:
        import openai

        t0 = time.monotonic()
        wait = min(FIRST_POLL_S, self.poll_s)
        errors_in_row = 0
        told: set[str] = set()
        while True:
            self._say(batch, t0, resumed)
            if batch.status in ENDED:
                return batch
            if batch.status not in UNDERWAY and batch.status not in told:
                told.add(batch.status)
                self.notice(
                    f"batch {batch.id} reports status {batch.status!r}, which the Batch API "
                    "does not define: not taken as finished, still waiting (--deadline or "
                    "Ctrl-C stops the wait; the same command run again collects the batch)"
                )
            await self._sleep(wait)
            wait = min(self.poll_s, wait * 2)
            try:
                batch = await client.batches.retrieve(batch.id)
                errors_in_row = 0
            except openai.OpenAIError as exc:
                errors_in_row += 1  # a hiccup while polling; the batch runs on regardless
                if errors_in_row >= 5:
                    raise self._fail(
                        f"polling batch {batch.id} (its id is kept in {self.record_path}; "
                        "run again to resume)",
                        exc,
                    ) from exc

    def _say(self, batch: Batch, t0: float, resumed: bool) -> None:
        if self.progress is None:
            return
        counts = batch.request_counts
        self.progress(BatchProgress(
            batch_id=batch.id, status=batch.status, total=counts.total if counts else 0,
            completed=counts.completed if counts else 0, failed=counts.failed if counts else 0,
            elapsed_s=time.monotonic() - t0, resumed=resumed,
        ))  # fmt: skip

    async def _collect(self, client: AsyncOpenAI, batch: Batch, resumed: bool) -> BatchOutcome:
        if batch.status == "failed":
            reasons = [
                f"line {e.line}: {e.message}" if e.line else str(e.message)
                for e in ((batch.errors.data or []) if batch.errors else [])
            ]
            self.forget()  # resubmitting the same input would fail the same way
            raise BatchFailed(
                f"{self.base_url}: batch {batch.id} failed: "
                + ("; ".join(reasons[:5]) or "the server gave no reason")
                + (f" (and {len(reasons) - 5} more)" if len(reasons) > 5 else "")
            )
        results = Results({r.custom_id: r.body for r in self.requests})
        budget = ByteBudget(
            int(self.max_output_mb * 2**20),
            f"{self.base_url}: the result files of batch {batch.id} passed the cap of "
            f"{self.max_output_mb:g} MB ({len(self.requests)} requests; a judge's reply takes "
            "about 1 kB). If the server is right, raise the cap (verify --batch-max-output MB; "
            "the gate's batch_max_output_mb) and run the same command again: the batch stays "
            "recorded and is collected, not submitted again",
        )
        for file_id in (batch.output_file_id, batch.error_file_id):
            if file_id:
                await self._read_file(client, batch.id, file_id, results, budget)
        why = {
            "expired": "the batch expired (its 24 h window ended) before this request ran",
            "cancelled": "the batch was cancelled before this request ran",
        }.get(batch.status, f"the batch ended {batch.status} without a result for this request")
        got = results.results
        for r in self.requests:
            got.setdefault(r.custom_id, BatchResult(custom_id=r.custom_id, error=why))
        self._count(results)
        return BatchOutcome(
            batch_id=batch.id, status=batch.status, resumed=resumed, requests=len(self.requests),
            results=got, record_path=str(self.record_path),
        )  # fmt: skip

    async def _read_file(
        self,
        client: AsyncOpenAI,
        batch_id: str,
        file_id: str,
        results: Results,
        budget: ByteBudget,
    ) -> None:
        """Every line of one result file into ``results``, as it streams."""
        max_line = self.settings.max_reply_bytes + LINE_ENVELOPE_BYTES
        try:
            async with client.files.with_streaming_response.content(file_id) as response:
                async for line in lines_of(response.iter_bytes(), max_line=max_line,
                                           budget=budget):  # fmt: skip
                    results.add(read_line(line, max_line=max_line),
                                f"line {line.number} of {file_id}")  # fmt: skip
        except BatchError:
            raise
        except Exception as exc:
            raise self._fail(f"downloading {file_id} of batch {batch_id}", exc) from exc

    def _count(self, results: Results) -> None:
        """The job's requests and its replies' tokens, on the endpoint's counters."""
        if results.usage_estimated:
            self.notice(
                f"{results.usage_estimated} batch replies' token counts were missing, invalid "
                "or implausibly small for their text; their tokens are estimated from the text "
                "length"
            )
        if self.counters is None:
            return
        prompt, completion = results.tokens()
        self.counters.batch_requests += len(self.requests)
        self.counters.prompt_tokens += prompt
        self.counters.completion_tokens += completion
        self.counters.usage_estimated += results.usage_estimated
