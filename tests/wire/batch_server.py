"""The test OpenAI-compatible server with the Batch API: ``/v1/files`` and ``/v1/batches``.

``BatchServer`` is ``ChatServer`` (tests/wire/server.py) plus the endpoints a batch job uses,
in the wire formats OpenAI documents and vLLM's ``run-batch`` reads and writes:

- ``POST /v1/files`` (multipart: ``file``, ``purpose``), ``GET /v1/files/{id}`` and
  ``GET /v1/files/{id}/content``;
- ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``, ``metadata``),
  ``GET /v1/batches`` (newest first, ``limit`` and ``after`` as OpenAI pages them),
  ``GET /v1/batches/{id}``, ``POST /v1/batches/{id}/cancel``.

The input file is JSONL, one request a line: ``{"custom_id", "method": "POST", "url":
"/v1/chat/completions", "body": {...}}``. A worker thread answers each line with the server's
*behaviour* (the same functions that answer /v1/chat/completions, so a batch and the online
path meet the same judge) and writes the results as JSONL lines ``{"id", "custom_id",
"response": {"status_code", "request_id", "body"}, "error"}``: status 200 lines go to the
output file, others to the error file (or, with ``errors_in_output``, to the output file as
vLLM's run-batch writes them). A line whose request is malformed fails the whole batch at
validation (status ``failed``, ``errors.data`` naming the line), as OpenAI does.

What a test can make happen:
- ``hold=True``: the batch stays ``in_progress`` until ``release_batches()`` (an interrupted
  command, then a resumed one);
- ``expire_after=N``: the batch expires after N lines; the rest go to the error file with
  code ``batch_expired``;
- ``cancel`` through the API: the batch stops; lines not run appear in no file;
- ``line_latency_s``: each line takes that long;
- ``hold_create=True``: ``POST /v1/batches`` creates the batch, then holds its reply until
  ``release_create()`` (a command stopped while it waits for the reply);
- ``status_script``: the first looks at each batch (the reply to its create, then each
  ``GET /v1/batches/{id}``) report these statuses, with no result files, before the batch's
  own state (a status the API does not define, such as ``paused_by_operator``);
- ``output_file``: makes the output file's bytes from its result rows (lines twice, padding).
Counters: ``uploads``, ``batches_created``, ``cancels``, ``lines_run``, ``lists``.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from werkzeug import Request, Response

from .server import Behaviour, ChatServer, error, honest_judge, json_response

ENDPOINT = "/v1/chat/completions"
RUNNING = ("validating", "in_progress", "finalizing", "cancelling")


class BatchServer(ChatServer):
    def __init__(
        self,
        behaviour: Behaviour = honest_judge,
        *,
        hold: bool = False,
        expire_after: int | None = None,
        line_latency_s: float = 0.0,
        errors_in_output: bool = False,
        hold_create: bool = False,
        status_script: Sequence[str] = (),
        output_file: Callable[[list[dict[str, Any]]], bytes] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(behaviour, **kwargs)
        self.expire_after = expire_after
        self.line_latency_s = line_latency_s
        self.errors_in_output = errors_in_output
        self.status_script = list(status_script)
        self.output_file = output_file or jsonl
        self.looks: dict[str, int] = {}  # per batch: its create reply, then each GET of it
        self.files: dict[str, dict[str, Any]] = {}
        self.contents: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.uploads = 0
        self.batches_created = 0
        self.cancels = 0
        self.lines_run = 0
        self.lists = 0
        self._go = threading.Event()
        if not hold:
            self._go.set()
        self._create_go = threading.Event()
        if not hold_create:
            self._create_go.set()
        self._ids = itertools.count(1)
        self._batch_lock = threading.Lock()

    def release_batches(self) -> None:
        self._go.set()

    def release_create(self) -> None:
        self._create_go.set()

    def __exit__(self, *exc: object) -> None:
        self._go.set()
        self._create_go.set()
        super().__exit__(*exc)

    # --- routes ------------------------------------------------------------------------

    def route(self, request: Request) -> Response:
        parts = request.path.strip("/").split("/")  # v1, files|batches, id?, content|cancel?
        if parts[:2] == ["v1", "files"]:
            if request.method == "POST" and len(parts) == 2:
                return self._upload(request)
            if request.method == "GET" and len(parts) == 3:
                meta = self.files.get(parts[2])
                return json_response(meta) if meta else error(404, f"no file {parts[2]}")
            if request.method == "GET" and len(parts) == 4 and parts[3] == "content":
                data = self.contents.get(parts[2])
                if data is None:
                    return error(404, f"no file {parts[2]}")
                return Response(data, content_type="application/octet-stream")
        if parts[:2] == ["v1", "batches"]:
            if request.method == "POST" and len(parts) == 2:
                return self._create(json.loads(request.get_data() or b"{}"))
            if request.method == "GET" and len(parts) == 2:
                return self._list(request)
            batch = self.batches.get(parts[2]) if len(parts) > 2 else None
            if batch is None:
                return error(404, f"no batch {request.path}")
            if request.method == "GET" and len(parts) == 3:
                return json_response(self._look(batch))
            if request.method == "POST" and len(parts) == 4 and parts[3] == "cancel":
                self.cancels += 1
                with self._batch_lock:
                    if batch["status"] in RUNNING:
                        batch["status"] = "cancelling"
                        batch["cancelling_at"] = int(time.time())
                    return json_response(batch)
        return error(404, f"no route {request.method} {request.path}")

    def _look(self, batch: dict[str, Any]) -> dict[str, Any]:
        """The batch as a client sees it now (``status_script`` first)."""
        with self._batch_lock:
            n = self.looks.get(batch["id"], 0)
            self.looks[batch["id"]] = n + 1
            if n < len(self.status_script):
                return {**batch, "status": self.status_script[n], "output_file_id": None,
                        "error_file_id": None}  # fmt: skip
            return dict(batch)

    def _list(self, request: Request) -> Response:
        """The batches newest first, a page of ``limit`` after the id ``after``."""
        self.lists += 1
        limit = int(request.args.get("limit", 20))
        with self._batch_lock:
            ids = sorted(self.batches, reverse=True)  # ids count up: the newest first
            after = request.args.get("after")
            if after in ids:
                ids = ids[ids.index(after) + 1 :]
            page = [dict(self.batches[i]) for i in ids[:limit]]
        return json_response({"object": "list", "data": page, "has_more": len(ids) > limit,
                              "first_id": page[0]["id"] if page else None,
                              "last_id": page[-1]["id"] if page else None})  # fmt: skip

    def _new_id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}"

    def _store_file(self, data: bytes, filename: str, purpose: str) -> str:
        file_id = self._new_id("file-")
        self.contents[file_id] = data
        self.files[file_id] = {"id": file_id, "object": "file", "bytes": len(data),
                               "created_at": int(time.time()), "filename": filename,
                               "purpose": purpose, "status": "processed"}  # fmt: skip
        return file_id

    def _upload(self, request: Request) -> Response:
        upload = request.files.get("file")
        purpose = request.form.get("purpose")
        if upload is None or purpose != "batch":
            return error(400, "a multipart upload needs a 'file' and purpose 'batch'")
        self.uploads += 1
        file_id = self._store_file(upload.read(), upload.filename or "input.jsonl", purpose)
        return json_response(self.files[file_id])

    def _create(self, params: dict[str, Any]) -> Response:
        input_id = params.get("input_file_id")
        if input_id not in self.contents:
            return error(404, f"no file {input_id}")
        if params.get("endpoint") != ENDPOINT or params.get("completion_window") != "24h":
            return error(400, f"endpoint must be {ENDPOINT} and completion_window 24h")
        self.batches_created += 1
        batch_id = self._new_id("batch_")
        now = int(time.time())
        self.batches[batch_id] = {
            "id": batch_id, "object": "batch", "endpoint": ENDPOINT, "errors": None,
            "input_file_id": input_id, "completion_window": "24h", "status": "validating",
            "output_file_id": None, "error_file_id": None, "created_at": now,
            "in_progress_at": None, "expires_at": now + 86400, "finalizing_at": None,
            "completed_at": None, "failed_at": None, "expired_at": None, "cancelling_at": None,
            "cancelled_at": None, "request_counts": {"total": 0, "completed": 0, "failed": 0},
            "metadata": params.get("metadata"),
        }  # fmt: skip
        threading.Thread(target=self._work, args=(batch_id,), daemon=True).start()
        reply = json_response(self._look(self.batches[batch_id]))
        self._create_go.wait()  # created; the reply waits (hold_create)
        return reply

    # --- the worker ----------------------------------------------------------------------

    def _work(self, batch_id: str) -> None:
        batch = self.batches[batch_id]
        lines = self.contents[batch["input_file_id"]].decode("utf-8").splitlines()
        requests, problems, seen = [], [], set()
        for n, text in enumerate(lines, 1):
            if not text.strip():
                continue
            try:
                line = json.loads(text)
                assert isinstance(line.get("custom_id"), str) and isinstance(line.get("body"), dict)
                assert line.get("method") == "POST" and line.get("url") == ENDPOINT
            except (ValueError, AssertionError):
                problems.append({"code": "invalid_request", "line": n,
                                 "message": "not a {custom_id, method POST, url, body} line"})  # fmt: skip
                continue
            if line["custom_id"] in seen:
                problems.append({"code": "duplicate_custom_id", "line": n,
                                 "message": f"custom_id {line['custom_id']} appears twice"})  # fmt: skip
            seen.add(line["custom_id"])
            requests.append(line)
        with self._batch_lock:
            if problems:
                batch.update(status="failed", failed_at=int(time.time()),
                             errors={"object": "list", "data": problems})  # fmt: skip
                return
            batch["request_counts"]["total"] = len(requests)
            if batch["status"] == "validating":
                batch.update(status="in_progress", in_progress_at=int(time.time()))
        self._go.wait()
        out, err = [], []
        ended = "completed"
        for i, line in enumerate(requests):
            with self._batch_lock:
                if batch["status"] == "cancelling":
                    ended = "cancelled"
                    break
            if self.expire_after is not None and i >= self.expire_after:
                ended = "expired"
                for rest in requests[i:]:
                    err.append({"id": self._new_id("batch_req_"), "custom_id": rest["custom_id"],
                                "response": None,
                                "error": {"code": "batch_expired", "message": "This request could "
                                          "not be executed before the completion window expired."}})  # fmt: skip
                break
            if self.line_latency_s:
                time.sleep(self.line_latency_s)
            reply = self.behaviour(line["body"], self)
            self.lines_run += 1
            result = {"id": self._new_id("batch_req_"), "custom_id": line["custom_id"],
                      "response": {"status_code": reply.status_code,
                                   "request_id": self._new_id("req_"),
                                   "body": json.loads(reply.get_data() or b"null")},
                      "error": None}  # fmt: skip
            (out if reply.status_code == 200 or self.errors_in_output else err).append(result)
            with self._batch_lock:
                key = "completed" if reply.status_code == 200 else "failed"
                batch["request_counts"][key] += 1
        with self._batch_lock:
            if ended == "expired":
                batch["request_counts"]["failed"] += len(requests) - self.expire_after
            batch["finalizing_at"] = int(time.time())
            if out:
                batch["output_file_id"] = self._store_file(
                    self.output_file(out), f"{batch_id}_output.jsonl", "batch_output"
                )
            if err:
                batch["error_file_id"] = self._store_file(
                    jsonl(err), f"{batch_id}_error.jsonl", "batch_output"
                )
            batch.update(status=ended, **{f"{ended}_at": int(time.time())})


def jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in rows).encode("utf-8")
