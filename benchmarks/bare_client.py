"""The floor of bench_verify_model.py: a client that does nothing but the requests.

    python benchmarks/bare_client.py BASE_URL PAIRS.jsonl --n 1000 --concurrency 64 [--keep-alive]

Sends the chat request of each pair (its claim and span in the prompt, as `verify` sends them,
so the benchmark's server does the same work for each) over raw asyncio streams: the first
request alone, then ``--concurrency`` in flight, each slot refilled the moment it frees. With
``--keep-alive`` each slot keeps its connection open and reads replies by their
Content-Length; otherwise every request is a new connection read to its end, as the closing
server wants. No imports beyond the standard library, no parsing of the replies beyond their
status, no audit, no output rows: the wall time of this process against the same server is
what any client would take at best on this machine, start-up included, so the benchmark can
say how much of `verify`'s wall time is its own. Prints one JSON line: requests, failures,
CPU seconds of this process.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys
from urllib.parse import urlsplit


def bodies(pairs: str, n: int, model: str) -> list[bytes]:
    out = []
    with open(pairs, encoding="utf-8") as f:
        for line in f:
            if len(out) == n:
                break
            if not line.strip():
                continue
            p = json.loads(line)
            prompt = (
                f"CLAIM:\n{p['claim']}\n\nSPAN:\n<untrusted_span>\n{p['span']}\n</untrusted_span>"
            )
            out.append(json.dumps({"model": model, "messages": [
                {"role": "user", "content": prompt}]}).encode())  # fmt: skip
    return out


def request(host: str, path: str, body: bytes, keep_alive: bool) -> bytes:
    connection = "keep-alive" if keep_alive else "close"
    head = (f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: {connection}\r\n\r\n")  # fmt: skip
    return head.encode() + body


async def read_reply(reader: asyncio.StreamReader, keep_alive: bool) -> bool:
    """Read one reply; True for a 200."""
    if not keep_alive:
        data = await reader.read()
        return data.startswith(b"HTTP/1.1 200") or data.startswith(b"HTTP/1.0 200")
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    await reader.readexactly(length)
    return head.startswith(b"HTTP/1.1 200") or head.startswith(b"HTTP/1.0 200")


async def run(url: str, payloads: list[bytes], concurrency: int, keep_alive: bool) -> int:
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    path = parts.path.rstrip("/") + "/chat/completions"
    queue = list(reversed(payloads))
    failures = 0

    async def slot(first_only: bool = False) -> None:
        nonlocal failures
        conn = None
        while queue:
            body = queue.pop()
            if conn is None:
                conn = await asyncio.open_connection(host, port)
            reader, writer = conn
            writer.write(request(host, path, body, keep_alive))
            ok = await read_reply(reader, keep_alive)
            failures += not ok
            if not keep_alive:
                writer.close()
                conn = None
            if first_only:
                break
        if conn is not None:
            conn[1].close()

    await slot(first_only=True)  # the first alone, as every client here learns the format
    await asyncio.gather(*(slot() for _ in range(concurrency)))
    return failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("base_url")
    ap.add_argument("pairs")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--keep-alive", action="store_true")
    ap.add_argument("--model", default="bench-judge")
    args = ap.parse_args()
    payloads = bodies(args.pairs, args.n, args.model)
    failures = asyncio.run(run(args.base_url, payloads, args.concurrency, args.keep_alive))
    r = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"requests": len(payloads), "failures": failures,
                      "cpu": r.ru_utime + r.ru_stime}))  # fmt: skip
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
