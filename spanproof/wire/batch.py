"""One OpenAI Batch API job: upload the requests, create the batch, poll it, read its results.

The Batch API (``/v1/files`` + ``/v1/batches``; OpenAI, and servers that implement it over
vLLM's ``run-batch``) answers Chat Completions requests within a completion window instead of
on an open connection, at half the price on OpenAI. The input is JSONL, one request a line
(``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``); the results are
JSONL lines ``{"custom_id", "response": {"status_code", "body"}, "error"}`` in the batch's
output file and error file (a server may put failed lines in either).

Resuming instead of resubmitting: a job is keyed by what was submitted (the endpoint and the
sha256 of its request lines, in ``custom_id`` order), and its batch id is written under the
state directory the moment the server has created it. A command that runs again with the same
requests - after Ctrl-C, a crash, a deadline - finds the id and collects that batch; nothing
is uploaded or created again. The caller removes the record (``BatchJob.forget``) once the
results are stored where they belong.

Failing closed: a batch that ``failed`` (the server refused its input) raises ``BatchFailed``
with the server's reasons; ``expired`` and ``cancelled`` batches return the results they have,
and every request without a result is reported as such (``BatchResult.error``), never dropped.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from pydantic import BaseModel, Field

from spanproof.core.files import write_atomic
from spanproof.core.specs import EndpointSettings

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types import Batch

ENDPOINT: Final = "/v1/chat/completions"
RUNNING = ("validating", "in_progress", "finalizing", "cancelling")
FIRST_POLL_S = 1.0
STATE_DIR = "batches"


class BatchError(RuntimeError):
    """The batch could not be submitted or read (the message says what to do)."""


class BatchFailed(BatchError):
    """The server refused the batch as a whole (status ``failed``)."""


class BatchRequest(BaseModel):
    """One input line."""

    custom_id: str = Field(max_length=64)
    method: Literal["POST"] = "POST"
    url: str = ENDPOINT
    body: dict[str, Any]


class BatchResult(BaseModel):
    """What came back for one request: a reply body with its HTTP status, or an error."""

    custom_id: str
    status_code: int | None = None
    body: Any = None
    error: str | None = None  # set for every request that got no usable reply


class BatchRecord(BaseModel):
    """What is kept under the state directory while a job is not finished."""

    key: str
    batch_id: str
    input_file_id: str
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
    earlier command submitted), polls until it ends and returns every request's result."""

    def __init__(
        self,
        requests: list[BatchRequest],
        *,
        endpoint: EndpointSettings,
        model: str,
        state_dir: Path,
        poll_s: float = 30.0,
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
        self.progress = progress
        self.notice = notice or (lambda _m: None)
        self._sleep = sleep

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
            from spanproof.wire.client import server_message

            said = f"HTTP {exc.status_code}: {server_message(exc)}"
            if exc.status_code == 404:
                said += "; does this server implement the Batch API (/v1/files, /v1/batches)? "
                said += "If not, run without --batch"
        return BatchError(f"{self.base_url}: {what} failed ({said})")

    async def run(self) -> BatchOutcome:
        import openai

        client = self._client()
        try:
            record = self._read_record()
            resumed = record is not None
            batch: Batch | None = None
            if record is not None:
                try:
                    batch = await client.batches.retrieve(record.batch_id)
                except openai.NotFoundError:
                    self.notice(
                        f"the server no longer knows batch {record.batch_id} (recorded in "
                        f"{self.record_path}); submitting the requests again"
                    )
                    self.forget()
                    resumed = False
                except openai.OpenAIError as exc:
                    raise self._fail(f"reading batch {record.batch_id}", exc) from exc
            if batch is None:  # none recorded, or the server no longer knows it
                for other in self.others_pending():
                    self.notice(
                        f"batch {other.batch_id} ({other.requests} requests, submitted by an "
                        "earlier command for other pairs) is still recorded as running; run "
                        "that command again to collect it"
                    )
                batch = await self._submit(client)
            batch = await self._poll(client, batch, resumed)
            return await self._collect(client, batch, resumed)
        finally:
            await client.close()

    async def _submit(self, client: AsyncOpenAI) -> Batch:
        import openai

        try:
            uploaded = await client.files.create(
                file=("spanproof-batch.jsonl", jsonl(self.requests)), purpose="batch"
            )
            batch = await client.batches.create(
                input_file_id=uploaded.id,
                endpoint=ENDPOINT,
                completion_window="24h",
                metadata={"spanproof_key": self.key[:32]},
            )
        except openai.OpenAIError as exc:
            raise self._fail("submitting the batch", exc) from exc
        record = BatchRecord(
            key=self.key, batch_id=batch.id, input_file_id=uploaded.id, base_url=self.base_url,
            model=self.model, requests=len(self.requests), submitted_at=time.time(),
        )  # fmt: skip
        self._write_record(record)
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
        while True:
            self._say(batch, t0, resumed)
            if batch.status not in RUNNING:
                return batch
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
        results: dict[str, BatchResult] = {}
        for file_id in (batch.output_file_id, batch.error_file_id):
            if not file_id:
                continue
            try:
                content = await client.files.content(file_id)
            except Exception as exc:
                raise self._fail(f"downloading {file_id} of batch {batch.id}", exc) from exc
            for result in parse_results(content.text):
                results.setdefault(result.custom_id, result)
        why = {
            "expired": "the batch expired (its 24 h window ended) before this request ran",
            "cancelled": "the batch was cancelled before this request ran",
        }.get(batch.status, f"the batch ended {batch.status} without a result for this request")
        wanted = {r.custom_id for r in self.requests}
        for custom_id in wanted - results.keys():
            results[custom_id] = BatchResult(custom_id=custom_id, error=why)
        return BatchOutcome(
            batch_id=batch.id, status=batch.status, resumed=resumed, requests=len(wanted),
            results={k: v for k, v in results.items() if k in wanted},
            record_path=str(self.record_path),
        )  # fmt: skip


def parse_results(text: str) -> list[BatchResult]:
    """Result lines of an output or error file; a line that is not a result is an error
    result for its custom_id when it names one (and is skipped otherwise: the request it
    belonged to is then reported as having no result)."""
    out = []
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except json.JSONDecodeError:
            continue
        if not isinstance(line, dict) or not isinstance(line.get("custom_id"), str):
            continue
        response = line.get("response") if isinstance(line.get("response"), dict) else None
        err = line.get("error")
        status = response.get("status_code") if response else None
        body = response.get("body") if response else None
        if err:
            message = err.get("message") or err.get("code") if isinstance(err, dict) else err
            out.append(BatchResult(custom_id=line["custom_id"], status_code=status, body=body,
                                   error=f"the batch reported an error: {message}"))  # fmt: skip
        elif response is None:
            out.append(BatchResult(custom_id=line["custom_id"],
                                   error="the batch returned neither a response nor an error"))  # fmt: skip
        elif status != 200:
            said = _error_message(body)
            out.append(BatchResult(custom_id=line["custom_id"], status_code=status, body=body,
                                   error=f"HTTP {status} in the batch: {said}"))  # fmt: skip
        else:
            out.append(BatchResult(custom_id=line["custom_id"], status_code=status, body=body))
    return out


def _error_message(body: Any) -> str:
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("message") or err)[:300]
        return str(err)[:300]
    return str(body)[:300]
