"""Evidence-layer benchmark: parallel fetch, quoting a 1 MB document, corpus build, search latency.

Run: python benchmarks/bench_evidence.py [--wice PATH]
Everything is local: a loopback HTTP server that delays each response 200 ms,
a temporary home, and the WiCE development pages.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from spanproof.agent.tools import Toolbox
from tabulate import tabulate

from spanproof.core.evidence import make_doc_id
from spanproof.core.tool_schema import ExtractQuoteArgs, FetchPageArgs, WebSearchArgs
from spanproof.web.corpus import build_corpus_from_wice, corpus_info
from spanproof.web.env import live_web
from spanproof.web.search import LocalIndex, StaticPage, StaticSearch
from spanproof.web.snapshots import SnapshotStore

DELAY_S = 0.2
N_URLS = 8


class SlowHandler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802
        time.sleep(DELAY_S)
        body = f"<html><head><title>{self.path}</title></head><body><p>Page {self.path}. It is slow.</p></body></html>"
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


class _Server(ThreadingHTTPServer):
    # The stdlib default listen backlog is 5: with 8 simultaneous connects the
    # kernel drops SYNs and the client retries after 1 s, which would be measured
    # as "parallel fetch is slow". A real web server has a deep backlog.
    request_queue_size = 64
    daemon_threads = True


async def bench_fetch(home: Path) -> dict:
    server = _Server(("127.0.0.1", 0), SlowHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    base = f"http://127.0.0.1:{port}"
    try:

        async def one_run(prefix: str, parallel: bool) -> float:
            urls = [f"{base}/{prefix}/{i}" for i in range(N_URLS)]
            search = StaticSearch([StaticPage(title=u, url=u, text="slow page") for u in urls])
            env = live_web(
                home / prefix, [f"127.0.0.1:{port}"], search, allow_networks=["127.0.0.0/8"]
            )
            box = Toolbox(env, "bench")
            await box.web_search(WebSearchArgs(query="slow page"))
            started = time.perf_counter()
            if parallel:
                results = await box.fetch_pages([FetchPageArgs(url=u) for u in urls])
                assert all(hasattr(r, "doc_id") for r in results), results
            else:
                for u in urls:
                    await box.fetch_page(FetchPageArgs(url=u))
            elapsed = time.perf_counter() - started
            await env.aclose()
            return elapsed

        sequential = await one_run("seq", parallel=False)
        parallel = await one_run("par", parallel=True)
    finally:
        server.shutdown()
    return {"sequential_s": sequential, "parallel_s": parallel, "ratio": sequential / parallel}


def bench_quote(home: Path) -> dict:
    sentences = [
        "The committee met on 14 March 2025 and approved the budget of $3.5 million.",
        "Dr. Alvarez, who chairs the U.S. panel, said the figure rose 12% from last year.",
        "Critics argued that the plan was rushed, but most members voted in favour.",
        "A final report is expected in the autumn, according to the minutes.",
    ]
    paragraphs, size, i = [], 0, 0
    while size < 1_000_000:
        para = f"<p>Item {i}. " + " ".join(sentences[(i + k) % 4] for k in range(6)) + "</p>"
        paragraphs.append(para)
        size += len(para)
        i += 1
    html = (
        "<html><head><title>Minutes</title></head><body>" + "".join(paragraphs) + "</body></html>"
    )
    store = SnapshotStore(home / "quote-store")
    raw = html.encode()
    url = "https://minutes.example/big"
    started = time.perf_counter()
    doc = store.put(url, raw)
    store_s = time.perf_counter() - started
    assert doc.doc_id == make_doc_id(url, raw)
    box = Toolbox(env=None, question="", max_spans=1000)  # type: ignore[arg-type]
    box.admit(doc)

    def locator(n: int) -> str:
        # "Item n. " plus the words after it: unique, since "Item 12. " is not inside "Item 112. "
        pos = doc.text.find(f"Item {n}. ")
        return doc.text[pos : pos + 40]

    picks = list(range(i - 1, 0, -max(1, i // 25)))[:25]
    timings = []
    for n in picks:
        t0 = time.perf_counter()
        res = box.extract_quote(
            ExtractQuoteArgs(doc_id=doc.doc_id, locator=locator(n), max_chars=600)
        )
        timings.append(time.perf_counter() - t0)
        assert doc.text[res.char_start : res.char_end] == res.text
    t0 = time.perf_counter()
    box.extract_quote(ExtractQuoteArgs(doc_id=doc.doc_id, locator=locator(picks[0]), max_chars=600))
    repeat = time.perf_counter() - t0
    return {
        "doc_chars": len(doc.text),
        "store_s": store_s,
        "first_quote_s": timings[0],
        "median_quote_s": statistics.median(timings),
        "repeat_quote_s": repeat,
        "quotes": len(timings),
    }


def bench_corpus(wice: Path, home: Path) -> dict:
    out = home / "corpus"
    t0 = time.perf_counter()
    build_corpus_from_wice(wice, out)
    build_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    index = LocalIndex(out, home=home)
    index_s = time.perf_counter() - t0
    info = corpus_info(out)
    queries = [json.loads(line)["claim"] for line in wice.read_text().splitlines()[:30]]
    for q in queries[:3]:
        index.search_sync(q, 8)  # warm the page cache
    timings = []
    for q in queries:
        t0 = time.perf_counter()
        index.search_sync(q, 8)
        timings.append(time.perf_counter() - t0)
    return {
        "pages": info.pages,
        "warc_mb": info.warc_bytes / 1e6,
        "html_mb": info.html_bytes / 1e6,
        "build_s": build_s,
        "index_s": index_s,
        "search_median_ms": statistics.median(timings) * 1000,
        "search_max_ms": max(timings) * 1000,
        "queries": len(queries),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--wice",
        type=Path,
        default=Path(__file__).resolve().parents[2] / "shared/data/wice/dev.jsonl",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        fetch = asyncio.run(bench_fetch(home))
        quote = bench_quote(home)
        corpus = bench_corpus(args.wice, home) if args.wice.exists() else None
    rows = [
        [
            "fetch 8 URLs (200 ms each), sequential",
            f"{fetch['sequential_s']:.3f} s",
            "one after another",
        ],
        [
            "fetch 8 URLs (200 ms each), parallel",
            f"{fetch['parallel_s']:.3f} s",
            "Toolbox.fetch_pages",
        ],
        ["sequential / parallel", f"{fetch['ratio']:.1f}x", "ideal: 8x"],
        [
            "store a 1 MB HTML document",
            f"{quote['store_s'] * 1000:.0f} ms",
            f"{quote['doc_chars']:,} chars of text",
        ],
        [
            "extract_quote, 1 MB doc, first call",
            f"{quote['first_quote_s'] * 1000:.1f} ms",
            "segments only the paragraphs it touches",
        ],
        [
            "extract_quote, 1 MB doc, median",
            f"{quote['median_quote_s'] * 1000:.1f} ms",
            f"{quote['quotes']} locators across the doc",
        ],
        [
            "extract_quote, repeated locator",
            f"{quote['repeat_quote_s'] * 1000:.2f} ms",
            "segmentation cached",
        ],
    ]
    if corpus:
        rows += [
            [
                "corpus build (WiCE dev)",
                f"{corpus['build_s']:.2f} s",
                f"{corpus['pages']} pages, {corpus['warc_mb']:.2f} MB WARC ({corpus['html_mb']:.2f} MB HTML)",
            ],
            ["index build (FTS5)", f"{corpus['index_s']:.2f} s", "title + text, porter stemming"],
            [
                "search latency, median",
                f"{corpus['search_median_ms']:.1f} ms",
                f"{corpus['queries']} WiCE claims as queries",
            ],
            ["search latency, max", f"{corpus['search_max_ms']:.1f} ms", ""],
        ]
    else:
        rows.append(["corpus build", "skipped", f"{args.wice} not found"])
    print(tabulate(rows, headers=["measure", "value", "note"], tablefmt="github"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
