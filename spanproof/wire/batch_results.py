"""Reading a Batch API job's result files: as a stream, under caps, one result per request.

A result file is JSONL, one line a request: ``{"custom_id", "response": {"status_code",
"body"}, "error"}``. What a server sends is not trusted to be what the documentation says:

- **Size.** The file is read as it streams, never whole: memory holds one line at a time and
  the results of the job's own requests. The bytes of the job's files together may not pass
  ``max_total`` (``OutputTooLarge``, whose message says how to raise the cap); a line longer
  than ``max_line`` (a reply over the client's reply cap, plus its envelope) is an error
  result for its request, read from the line's head, as the online path refuses such a reply.
- **One request, one result.** A request answered twice by lines that say the same (the same
  status, error and choices) is one result; answered twice differently, it is an error
  result naming both lines, never the first line's word.
- **Usage.** A reply's token counts are checked as the online path checks them
  (``checked_usage``): missing, negative or implausibly small counts are replaced by the
  estimate from the text, and the reply says so (``usage_estimated``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncIterable, AsyncIterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from spanproof.wire.client import checked_usage

# The first bytes of a line too long to read: enough to find which request it answers.
HEAD_BYTES = 4096
_CUSTOM_ID = re.compile(rb'"custom_id"\s*:\s*"([^"\\]{1,64})"')


class BatchError(RuntimeError):
    """The batch could not be submitted or read (the message says what to do)."""


class OutputTooLarge(BatchError):
    """The job's result files passed their size cap while they streamed."""


class BatchResult(BaseModel):
    """What came back for one request: a reply body with its HTTP status, or an error."""

    custom_id: str
    status_code: int | None = None
    body: Any = None
    error: str | None = None  # set for every request that got no usable reply


@dataclass(frozen=True, slots=True)
class Line:
    number: int  # 1-based, in its file
    data: bytes  # the whole line, or only its head when it was too long
    cut: bool = False  # too long to read: ``data`` is its head


class ByteBudget:
    """The bytes the job's result files may take together; ``take`` raises past the cap."""

    def __init__(self, cap: int, too_large: str) -> None:
        self.cap = cap
        self.used = 0
        self._too_large = too_large  # the message: what passed the cap and how to fix it

    def take(self, n: int) -> None:
        self.used += n
        if self.used > self.cap:
            raise OutputTooLarge(self._too_large)


async def lines_of(
    chunks: AsyncIterable[bytes], *, max_line: int, budget: ByteBudget
) -> AsyncIterator[Line]:
    """The lines of a streamed file; a line longer than ``max_line`` is given as its head only
    (``cut``) and the rest of it is skipped, not kept."""
    buf = bytearray()
    number = 0
    cut = False  # the line being read passed max_line: only its head is kept
    async for chunk in chunks:
        budget.take(len(chunk))
        start = 0
        while True:
            end = chunk.find(b"\n", start)
            if not cut:
                buf += chunk[start : end if end >= 0 else len(chunk)]
                if len(buf) > max_line:
                    cut = True
                    del buf[HEAD_BYTES:]
            if end < 0:
                break
            number += 1
            yield Line(number, bytes(buf), cut)
            buf.clear()
            cut = False
            start = end + 1
    if buf or cut:
        yield Line(number + 1, bytes(buf), cut)


def read_line(line: Line, *, max_line: int) -> BatchResult | None:
    """The result one line states; None for a line that names no request (the request it
    belonged to is then reported as having no result)."""
    if line.cut:
        named = _CUSTOM_ID.search(line.data)
        if named is None:
            return None
        return BatchResult(
            custom_id=named.group(1).decode("utf-8", "replace"),
            error=f"the batch's line for this request passed {max_line} bytes (the reply cap "
            "and its envelope); refused unread, as the online path refuses such a reply",
        )
    if not line.data.strip():
        return None
    try:
        data = json.loads(line.data)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("custom_id"), str):
        return None
    custom_id = data["custom_id"]
    response = data.get("response") if isinstance(data.get("response"), dict) else None
    err = data.get("error")
    status = response.get("status_code") if response else None
    body = response.get("body") if response else None
    if err:
        message = (err.get("message") or err.get("code")) if isinstance(err, dict) else err
        return BatchResult(custom_id=custom_id, status_code=status, body=body,
                           error=f"the batch reported an error: {message}")  # fmt: skip
    if response is None:
        return BatchResult(custom_id=custom_id,
                           error="the batch returned neither a response nor an error")  # fmt: skip
    if status != 200:
        return BatchResult(custom_id=custom_id, status_code=status, body=body,
                           error=f"HTTP {status} in the batch: {_error_message(body)}")  # fmt: skip
    return BatchResult(custom_id=custom_id, status_code=status, body=body)


def _error_message(body: Any) -> str:
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict):
            return str(err.get("message") or err)[:300]
        return str(err)[:300]
    return str(body)[:300]


def _what_it_says(result: BatchResult) -> str:
    """A digest of what a result says (status, error, the reply's choices), so two lines for
    one request compare without keeping both: ids and timestamps may differ between copies."""
    body = result.body
    said = body.get("choices", body) if isinstance(body, dict) else body
    text = json.dumps([result.status_code, result.error, said], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Results:
    """The results of one job's requests (``requests``: custom_id -> its request body), one
    per request, as its files' lines come."""

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        self.requests = requests
        self.results: dict[str, BatchResult] = {}
        self.usage_estimated = 0  # replies whose token counts were replaced by the estimate
        self._first: dict[str, tuple[str, str]] = {}  # custom_id -> (digest, where)
        self._conflicting: set[str] = set()

    def add(self, result: BatchResult | None, where: str) -> None:
        """``where``: the line, for the person ("line 7 of file-abc")."""
        if result is None or result.custom_id not in self.requests:
            return
        custom_id = result.custom_id
        if custom_id in self._conflicting:
            return
        said = _what_it_says(result)
        first = self._first.get(custom_id)
        if first is None:
            self._first[custom_id] = (said, where)
            self.results[custom_id] = self._checked(result)
        elif first[0] != said:
            self._conflicting.add(custom_id)
            self.results[custom_id] = BatchResult(
                custom_id=custom_id,
                error=f"the batch returned two different results for this request ({first[1]} "
                f"and {where}); neither is taken. Run it again",
            )

    def _checked(self, result: BatchResult) -> BatchResult:
        body = result.body
        if (
            result.error is None
            and isinstance(body, dict)
            and checked_usage(body, self.requests[result.custom_id])
        ):
            self.usage_estimated += 1
        return result

    def tokens(self) -> tuple[int, int]:
        """(prompt, completion) tokens of the replies kept, as checked."""
        prompt = completion = 0
        for r in self.results.values():
            usage = r.body.get("usage") if r.error is None and isinstance(r.body, dict) else None
            if isinstance(usage, dict):
                prompt += usage.get("prompt_tokens") or 0
                completion += usage.get("completion_tokens") or 0
        return prompt, completion
