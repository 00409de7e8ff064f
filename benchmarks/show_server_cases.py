"""What a user sees from `spanproof verify` against each server behaviour of tests/wire/server.py.

Not a test (tests/wire asserts these); a table for people: per case the exit code, the last
message on stderr and the figures of the summary. Every server is a real HTTP server on
127.0.0.1. Run from the repository root:

    python benchmarks/show_server_cases.py
"""

from __future__ import annotations

import json
import socket
import sys
import tempfile
from pathlib import Path

from click.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import spanproof.wire.client as client  # noqa: E402
from spanproof.cli import cli  # noqa: E402
from tests.wire import server as S  # noqa: E402
from tests.wire.conftest import write_pairs  # noqa: E402

client.BACKOFF_BASE_S, client.BACKOFF_CAP_S = 0.01, 0.05  # same shape, scaled down


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{s.getsockname()[1]}/v1"


CASES = [
    ("llama-cpp-python: 500 on json_schema", S.llama_cpp_json_schema_500(), 8, {}, ()),
    ("400 on json_schema, concurrency 8", S.json_schema_400(), 7, {"latency_s": 0.05},
     ("--concurrency", "8")),
    ("400 context error on one pair", S.context_400_for("LONGLONG"), 6, {}, ()),
    ("one request at a time, 0.2 s each", S.honest_judge, 8,
     {"one_at_a_time": True, "latency_s": 0.2}, ("--timeout", "1.2")),
    ("invalid JSON reply", S.text_reply("Sure! It is supported."), 2, {}, ()),
    ("wrong schema", S.text_reply('{"verdict": "SUPPORTED"}'), 2, {}, ()),
    ("one-character quote",
     S.text_reply(json.dumps({"verdict": "SUPPORTED", "unsupported_element": None,
                              "quote_used": "t", "contains_instructions": False})), 2, {}, ()),
    ("500 forever", S.status_forever(500, "model crashed"), 40, {}, ()),
    ("429, Retry-After 3600", S.status_forever(429, "Rate limit reached",
                                               headers={"Retry-After": "3600"}), 20, {},
     ("--concurrency", "1")),
    ("hang after first success", S.hang_after_first(30), 12, {}, ("--concurrency", "1", "--timeout", "0.3")),
    ("HTML 502 page", S.html_page(502), 6, {}, ("--concurrency", "1")),
    ("nothing listening", None, 30, {}, ("--concurrency", "1")),
]  # fmt: skip


def main() -> int:
    work = Path(tempfile.mkdtemp())
    rows = []
    for name, behaviour, n, server_kw, extra in CASES:
        pairs = write_pairs(work / f"{len(rows)}.jsonl", n, marker_at=2 if "context" in name else None,
                            marker="LONG" * 50)  # fmt: skip
        args = ["verify", "--pairs", str(pairs), "--judge", "openai:m", "--api-key", "local",
                "--no-cache", "--json", *extra]  # fmt: skip
        if behaviour is None:
            result = CliRunner().invoke(cli, [*args, "--base-url", closed_port_url()])
            seen = 0
        else:
            with S.ChatServer(behaviour, **server_kw) as srv:
                result = CliRunner().invoke(cli, [*args, "--base-url", srv.base_url])
                seen = srv.count
        client.forget_clients()
        figures = ""
        if result.stdout.strip().startswith("{"):
            s = json.loads(result.stdout)
            h = s.get("http") or {}
            figures = (f"{s['pairs']} pairs, {s['errors']} judge errors, verdicts {s['verdicts']}, "
                       f"{h.get('requests')} requests ({h.get('retries')} retries, {h.get('reasks')} re-asks)")  # fmt: skip
            if s["errors"]:
                first = next(r["error"] for r in s["results"] if r.get("error"))
                figures += f"; first error: {first[:160]}"
        stderr = [line for line in result.stderr.splitlines() if line.strip()]
        message = next(
            (line for line in reversed(stderr) if line.startswith(("error", "note"))), ""
        )
        rows.append((name, result.exit_code, seen, message[:260], figures))
    for name, code, seen, message, figures in rows:
        print(f"## {name}\nexit {code}; server saw {seen} requests\nstderr: {message or '(none)'}\n"
              f"figures: {figures or '(no summary)'}\n")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
