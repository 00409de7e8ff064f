"""A real local OpenAI-compatible server for tests, with the behaviours real servers have.

``ChatServer`` is a threaded werkzeug HTTP server on 127.0.0.1 (a real socket, the real
Chat Completions wire format). A *behaviour* decides each reply from the request body; the
server counts requests and the requests in flight at once (``peak_in_flight``), and can
answer one request at a time with a fixed latency, like llama.cpp's server on a small CPU.

Behaviours that mimic what real servers were seen to do:
- ``llama_cpp_json_schema_500``: HTTP 500 on ``response_format: json_schema`` with
  llama-cpp-python's validation message, json_object (with or without a schema) accepted;
- ``context_400_for(marker)``: HTTP 400 context_length_exceeded for one pair only;
- ``no_tools``: a model that ignores ``tools`` and answers in prose;
- ``text_reply(text)``: non-JSON replies (a rubric judge that chats);
and the hostile ones: invalid JSON, wrong schema, a one-character quote, 500 forever, 429 with a
long Retry-After, a hang after the first success, 400 on json_schema, an HTML body, a reply
trickled one byte at a time (``trickle``), a reply of megabytes (``huge_reply``).
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from werkzeug import Request, Response
from werkzeug.serving import LISTEN_QUEUE, make_server
from werkzeug.test import EnvironBuilder, run_wsgi_app

Behaviour = Callable[[dict[str, Any], "ChatServer"], Response]

# Verbatim from llama-cpp-python 0.3.36's server (python -m llama_cpp.server), HTTP 500.
LLAMA_CPP_JSON_SCHEMA_MESSAGE = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': "
    "{'expected': \"'text' or 'json_object'\"}}\n\n  File \"llama_cpp/server/app.py\", line 376, "
    "in create_chat_completion\n    POST /v1/chat/completions"
)
CONTEXT_MESSAGE = (
    "This model's maximum context length is 2048 tokens. However, you requested 3245 tokens "
    "(3021 in the messages, 224 in the completion). Please reduce the length of the messages."
)


def completion(content: str | None, *, model: str = "fake-judge-1", tokens=(100, 20)) -> dict:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {"index": 0, "finish_reason": "stop",
             "message": {"role": "assistant", "content": content}}
        ],
        "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1],
                  "total_tokens": sum(tokens)},
    }  # fmt: skip


def json_response(payload: dict, status: int = 200, headers: dict | None = None) -> Response:
    return Response(
        json.dumps(payload), status=status, headers=headers, content_type="application/json"
    )


def error(
    status: int, message: str, *, kind: str = "invalid_request_error", code=None, headers=None
):
    return json_response(
        {"error": {"message": message, "type": kind, "code": code}}, status, headers
    )


_SPAN = re.compile(r"<untrusted_span[^>]*>\n(.*)\n</untrusted_span>", re.S)


def claim_and_span(body: dict) -> tuple[str, str]:
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    claim = user.split("CLAIM:\n", 1)[1].split("\n\nSPAN:", 1)[0] if "CLAIM:\n" in user else ""
    match = _SPAN.search(user)
    return claim, match.group(1) if match else ""


def verdict(body: dict, label: str = "SUPPORTED") -> Response:
    """A judge that says ``label`` with a real quote: the window of the span most like the
    claim (a quote must point where the span states the claim; graders.audit)."""
    from spanproof.graders.quoting import best_window

    claim, span = claim_and_span(body)
    quote = best_window(claim, span)
    payload = {"verdict": label, "unsupported_element": None, "quote_used": quote,
               "contains_instructions": False}  # fmt: skip
    return json_response(completion(json.dumps(payload)))


def honest_judge(body: dict, server: ChatServer) -> Response:
    return verdict(body)


def _tokens(text: str) -> list[str]:
    """Token-like pieces: words split into chunks of at most four characters (so a label such
    as SUPPORTED spans several tokens, as it does in real vocabularies), punctuation, spaces."""
    pieces = re.findall(r"\w+|[^\w\s]+|\s+", text)
    return [p[i : i + 4] for p in pieces for i in range(0, len(p), 4)]


def logprob_judge(label: str = "SUPPORTED", label_token_probs=(0.8, 0.9)) -> Behaviour:
    """A judge that returns token logprobs, like vLLM or OpenAI with ``logprobs: true``: the
    label's tokens have the given probabilities (the rest 1.0); without ``logprobs`` in the
    request, none are returned."""

    def behave(body: dict, server: ChatServer) -> Response:
        from spanproof.graders.quoting import best_window

        claim, span = claim_and_span(body)
        content = json.dumps({"verdict": label, "unsupported_element": None,
                              "quote_used": best_window(claim, span),
                              "contains_instructions": False})  # fmt: skip
        reply = completion(content)
        if body.get("logprobs"):
            start = content.index(f'"{label}"') + 1
            out, pos, k = [], 0, 0
            for tok in _tokens(content):
                p = 1.0
                if pos < start + len(label) and pos + len(tok) > start:
                    p = label_token_probs[k] if k < len(label_token_probs) else 1.0
                    k += 1
                out.append({"token": tok, "logprob": math.log(p), "bytes": list(tok.encode()),
                            "top_logprobs": []})  # fmt: skip
                pos += len(tok)
            reply["choices"][0]["logprobs"] = {"content": out}
        return json_response(reply)

    return behave


def refuses_logprobs(inner: Behaviour = honest_judge) -> Behaviour:
    """HTTP 400 when the request asks for logprobs (some servers and models do not offer them)."""

    def behave(body: dict, server: ChatServer) -> Response:
        if body.get("logprobs"):
            return error(400, "logprobs is not supported for this model")
        return inner(body, server)

    return behave


def llama_cpp_json_schema_500(inner: Behaviour = honest_judge) -> Behaviour:
    def behave(body: dict, server: ChatServer) -> Response:
        fmt = body.get("response_format") or {}
        if fmt.get("type") == "json_schema":
            return error(500, LLAMA_CPP_JSON_SCHEMA_MESSAGE, kind="internal_server_error")
        return inner(body, server)

    return behave


def json_schema_400(inner: Behaviour = honest_judge) -> Behaviour:
    def behave(body: dict, server: ChatServer) -> Response:
        if (body.get("response_format") or {}).get("type") == "json_schema":
            return error(400, "response_format json_schema is not supported by this server")
        return inner(body, server)

    return behave


def context_400_for(marker: str, inner: Behaviour = honest_judge) -> Behaviour:
    def behave(body: dict, server: ChatServer) -> Response:
        claim, _ = claim_and_span(body)
        if marker in claim:
            return error(400, CONTEXT_MESSAGE, code="context_length_exceeded")
        return inner(body, server)

    return behave


def text_reply(text: str) -> Behaviour:
    return lambda body, server: json_response(completion(text))


def no_tools(body: dict, server: ChatServer) -> Response:
    return json_response(completion("The bridge probably opened in 2021, as far as I know."))


def status_forever(status: int, message: str = "internal error", headers=None) -> Behaviour:
    return lambda body, server: error(status, message, kind="server_error", headers=headers)


def html_page(status: int = 502) -> Behaviour:
    page = "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><hr>nginx</body></html>"
    return lambda body, server: Response(page, status=status, content_type="text/html")


def hang_after_first(hang_s: float) -> Behaviour:
    def behave(body: dict, server: ChatServer) -> Response:
        if server.count > 1:
            server.release.wait(hang_s)
        return verdict(body)

    return behave


def trickle(interval_s: float, inner: Behaviour = honest_judge) -> Behaviour:
    """A server that sends its headers at once, then the reply one byte every ``interval_s``
    (what anyone can run to hold a client that only times out between reads)."""

    def behave(body: dict, server: ChatServer) -> Response:
        payload = inner(body, server).get_data()

        def drip():
            for i in range(len(payload)):
                if server.release.wait(interval_s):
                    return
                yield payload[i : i + 1]

        return Response(drip(), status=200, content_type="application/json",
                        direct_passthrough=True)  # fmt: skip

    return behave


def huge_reply(n_bytes: int, *, declare_length: bool = True) -> Behaviour:
    """A valid chat completion padded with ``n_bytes`` of whitespace inside the JSON, its
    usage small: a reply that would grow every later request that carries it."""

    def behave(body: dict, server: ChatServer) -> Response:
        data = json.dumps(completion("ok")).encode()
        padded = data[:-1] + b" " * n_bytes + b"}"
        if declare_length:
            return Response(padded, status=200, content_type="application/json")
        chunks = (padded[i : i + 65536] for i in range(0, len(padded), 65536))
        return Response(chunks, status=200, content_type="application/json",
                        direct_passthrough=True)  # fmt: skip

    return behave


class KeepAliveHandler(BaseHTTPRequestHandler):
    """HTTP/1.1 that keeps each connection open for the client's next request, as hosted
    OpenAI-compatible endpoints do, running the server's WSGI app (``server.app``) on each
    request. Werkzeug's own server cannot: it says ``Connection: close`` on every reply and,
    after each, reads whatever the client sent next to discard it (its source says it would
    break keep-alive). Here the request body is read by its length, so the next request line
    is where the handler reads next; every reply says its length."""

    protocol_version = "HTTP/1.1"
    # The headers and the body go out in two writes; with Nagle the body waited for the
    # client's (delayed, up to 40 ms) ACK of the headers, on every reused connection.
    disable_nagle_algorithm = True

    def _run(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        url = urlsplit(self.path)
        environ = EnvironBuilder(path=url.path, query_string=url.query, method=self.command,
                                 headers=list(self.headers.items()), data=body).get_environ()  # fmt: skip
        app_iter, status, headers = run_wsgi_app(self.server.app, environ, buffered=True)  # type: ignore[attr-defined]
        data = b"".join(app_iter)
        code, _, reason = status.partition(" ")
        self.send_response(int(code), reason)
        for key, value in headers.items():
            if key.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(key, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = _run

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet, as the tests' werkzeug server is (its log is at ERROR)."""


class _KeepAliveServer(ThreadingHTTPServer):
    # socketserver listens with an accept queue of 5: a client opening 64 connections at
    # once had the rest of its SYNs (or its handshakes' last ACKs) dropped by the kernel and
    # sent again after 1 s, 2 s, 4 s..., so the server's backlog, not the client, set the
    # wall time. Werkzeug's server (the closing side) listens with 128; so does this one.
    request_queue_size = LISTEN_QUEUE
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-connection (reset, broken pipe) is a client's choice,
        not the server's error; anything else is printed as socketserver does."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _keep_alive_server(app: Callable[..., Any]) -> ThreadingHTTPServer:
    server = _KeepAliveServer(("127.0.0.1", 0), KeepAliveHandler)
    server.app = app  # type: ignore[attr-defined]
    return server


class ChatServer:
    """A threaded HTTP server on 127.0.0.1 speaking /v1/chat/completions (see the module doc).

    ``keep_alive``: connections stay open between requests (``KeepAliveHandler``); by default
    the server closes each one after its reply, as werkzeug's does, so every request is a new
    TCP connection."""

    def __init__(self, behaviour: Behaviour = honest_judge, *, one_at_a_time: bool = False,
                 latency_s: float = 0.0, keep_alive: bool = False) -> None:  # fmt: skip
        self.behaviour = behaviour
        self.one_at_a_time = one_at_a_time
        self.latency_s = latency_s
        self.bodies: list[dict[str, Any]] = []
        self.count = 0
        self.in_flight = 0
        self.peak_in_flight = 0
        self.release = threading.Event()
        self._lock = threading.Lock()
        self._serial = threading.Lock()
        self._server = (
            _keep_alive_server(self._app)
            if keep_alive
            else make_server("127.0.0.1", 0, self._app, threaded=True)
        )
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self._server.shutdown()
        self._thread.join(5)

    def _app(self, environ, start_response):
        request = Request(environ)
        if request.path != "/v1/chat/completions":
            return self.route(request)(environ, start_response)
        body = json.loads(request.get_data() or b"{}")
        with self._lock:
            self.count += 1
            self.bodies.append(body)
            self.in_flight += 1
            self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            if self.one_at_a_time:
                with self._serial:  # the server computes one request at a time; others queue
                    time.sleep(self.latency_s)
                    response = self.behaviour(body, self)
            else:
                if self.latency_s:
                    time.sleep(self.latency_s)
                response = self.behaviour(body, self)
        finally:
            with self._lock:
                self.in_flight -= 1
        return response(environ, start_response)

    def route(self, request: Request) -> Response:
        """Any path but /v1/chat/completions (a subclass adds endpoints: batch_server.py)."""
        return error(404, f"no route {request.path}")

    def formats(self) -> list[str | None]:
        """The response_format type of each request, with '+schema' when a schema rode along."""
        out = []
        for body in self.bodies:
            fmt = body.get("response_format")
            out.append(None if not fmt else fmt["type"] + ("+schema" if "schema" in fmt else ""))
        return out
