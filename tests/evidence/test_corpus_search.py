"""Offline web: deterministic WiCE corpus, FTS5 search, replay through egress, record mode, other backends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from spanproof.agent.tools import Toolbox

from spanproof.core.tool_schema import ExtractQuoteArgs, FetchPageArgs, ToolFailure, WebSearchArgs
from spanproof.web.corpus import (
    ReplayTransport,
    build_corpus_from_wice,
    iter_responses,
    load_manifest,
)
from spanproof.web.env import default_corpus_dir, live_web, offline_web
from spanproof.web.search import LocalIndex, SearxngSearch, StaticPage, StaticSearch

# shared/ sits beside the clone, for developers and CI alike.
WICE = Path(__file__).resolve().parents[3] / "shared" / "data" / "wice" / "dev.jsonl"


@pytest.fixture(scope="module")
def small_jsonl(tmp_path_factory) -> Path:
    rows = [
        {
            "meta": {"id": "a1"},
            "evidence": [
                "(meta data) TITLE: Rates & Markets",
                "Skip to content",
                "# Monetary policy",
                "The bank raised rates by 0.25 points. <b>Markets</b> fell.",
                "Analysts expected it.",
                "(meta data) AUTHOR: Jane Doe",
                "See http://tracker.example/x for more.",
            ],
        },
        {
            "meta": {"id": "a2"},
            "evidence": [
                "(meta data) TITLE: Rates & Markets",
                "Skip to content",
                "# Monetary policy",
                "The bank raised rates by 0.25 points. <b>Markets</b> fell.",
                "Analysts expected it.",
                "(meta data) AUTHOR: Jane Doe",
                "See http://tracker.example/x for more.",
            ],
        },
        {
            "meta": {"id": "b1"},
            "evidence": [
                "(meta data) TITLE: Volcano erupts",
                "The volcano erupted on Tuesday.",
                "Ash fell on three towns.",
            ],
        },
        {
            "meta": {"id": "c1"},
            "evidence": ["## Untitled heading page", "It has no title line.", "Only a heading."],
        },
    ]
    path = tmp_path_factory.mktemp("wice") / "mini.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_build_is_deterministic_and_dedupes(small_jsonl, tmp_path):
    one = build_corpus_from_wice(small_jsonl, tmp_path / "one")
    two = build_corpus_from_wice(small_jsonl, tmp_path / "two")
    for name in ("corpus.warc.gz", "manifest.jsonl", "README.md"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    assert one.pages == two.pages == 3
    manifest = load_manifest(tmp_path / "one")
    assert manifest[0].wice_ids == ["a1", "a2"] and manifest[0].title == "Rates & Markets"
    assert manifest[2].title == "Untitled heading page"
    assert all(m.url.startswith("https://") and m.host.endswith(".wice.example") for m in manifest)
    assert "WiCE" in (tmp_path / "one" / "README.md").read_text()


def test_page_html_is_structured_and_text_is_verbatim(small_jsonl, tmp_path):
    build_corpus_from_wice(small_jsonl, tmp_path / "c")
    url, status, headers, body = next(iter_responses(tmp_path / "c"))
    html = body.decode()
    for tag in (
        "<title>Rates &amp; Markets</title>",
        "<nav>",
        "<h2>Monetary policy</h2>",
        "<footer>",
        '<p class="byline">By Jane Doe</p>',
    ):
        assert tag in html
    assert status == 200 and dict(headers)["Content-Type"].startswith("text/html")
    from spanproof.web.sanitise import html_to_text

    _, text = html_to_text(html)
    assert (
        "The bank raised rates by 0.25 points. <b>Markets</b> fell. Analysts expected it." in text
    )
    assert "tracker.example" not in text


def test_shipped_corpus_is_the_build_of_the_wice_dev_pages(tmp_path):
    if not WICE.exists():
        pytest.skip("WiCE dev split not present")
    build_corpus_from_wice(WICE, tmp_path / "fresh")
    shipped = default_corpus_dir()
    assert (tmp_path / "fresh" / "corpus.warc.gz").read_bytes() == (
        shipped / "corpus.warc.gz"
    ).read_bytes()
    assert (tmp_path / "fresh" / "manifest.jsonl").read_bytes() == (
        shipped / "manifest.jsonl"
    ).read_bytes()


async def test_offline_web_searches_fetches_and_quotes_through_egress(tmp_path):
    env = offline_web(tmp_path)
    assert env.search.index_path.is_relative_to(tmp_path)
    box = Toolbox(env, "Who is the publisher of Media Play News?")
    hits = (
        await box.web_search(WebSearchArgs(query="Media Play News publisher editorial director"))
    ).hits
    assert hits and hits[0].title == "About Us \u2013 Media Play News"
    assert all(len(h.snippet) <= 245 for h in hits)
    fetched = await box.fetch_page(FetchPageArgs(url=hits[0].url))
    body = env.store.get(fetched.doc_id).text
    assert len(hits[0].snippet) < len(body) / 4  # snippets are never bodies
    quote = box.extract_quote(
        ExtractQuoteArgs(doc_id=fetched.doc_id, locator="Thomas K. Arnold has been covering")
    )
    assert body[quote.char_start : quote.char_end] == quote.text
    assert [(e.decision, e.status, e.host) for e in box.events] == [
        ("allowed", 200, hits[0].url.split("/")[2])
    ]
    # a doc_id from another run is unknown here, even on the same web
    other_run = Toolbox(env, "another question")
    with pytest.raises(ToolFailure) as foreign:
        other_run.extract_quote(
            ExtractQuoteArgs(doc_id=fetched.doc_id, locator="Thomas K. Arnold has been covering")
        )
    assert foreign.value.detail.error == "UNKNOWN_DOC_ID"
    # a corpus host that lacks the page answers 404 through the same path
    box.seen_urls.add("https://news.wice.example/no-such-page")
    with pytest.raises(ToolFailure) as missing:
        await box.fetch_page(FetchPageArgs(url="https://news.wice.example/no-such-page"))
    assert missing.value.detail.error == "FETCH_FAILED"
    # the allowlist is the corpus's hosts, nothing else
    box.seen_urls.add("https://evil.example/x")
    with pytest.raises(ToolFailure) as off:
        await box.fetch_page(FetchPageArgs(url="https://evil.example/x"))
    assert off.value.detail.error == "URL_NOT_ALLOWED" and box.events[-1].status is None


async def test_local_index_ranks_by_bm25(small_jsonl, tmp_path):
    build_corpus_from_wice(small_jsonl, tmp_path / "c")
    index = LocalIndex(tmp_path / "c")
    assert index.index_path == tmp_path / "c" / "index.sqlite" and len(index) == 3
    hits = await index.search("volcano erupted ash")
    assert hits[0].title == "Volcano erupts" and "volcano" in hits[0].snippet.lower()
    assert (
        len(await index.search("the of and")) == 3
    )  # a stopword-only query falls back to its words
    assert await index.search("zzzxqj") == []


async def test_record_then_replay(httpserver, tmp_path):
    html = "<html><head><title>Live</title></head><body><p>Recorded once. Replayed forever.</p></body></html>"
    httpserver.expect_request("/r").respond_with_data("", status=302, headers={"Location": "/live"})
    httpserver.expect_request("/live").respond_with_data(html, content_type="text/html")
    url = httpserver.url_for("/r")
    record_dir = tmp_path / "recorded"
    search = StaticSearch([StaticPage(title="Live", url=url, text="recorded replayed")])
    live = live_web(
        tmp_path / "live-home",
        [f"{httpserver.host}:{httpserver.port}"],
        search,
        record_to=record_dir / "corpus.warc.gz",
        allow_networks=["127.0.0.0/8", "::1/128"],
    )
    live_doc = await live.fetcher.fetch(url)
    assert len(httpserver.log) == 2
    replay = ReplayTransport(record_dir)
    assert sorted(replay.urls()) == sorted([url, httpserver.url_for("/live")])
    offline = offline_web(tmp_path / "offline-home", corpus_dir=record_dir)
    replayed = await offline.fetcher.fetch(url)
    assert len(httpserver.log) == 2  # nothing went to the server
    assert (replayed.doc_id, replayed.text, replayed.final_url) == (
        live_doc.doc_id,
        live_doc.text,
        live_doc.final_url,
    )
    assert [e.status for e in offline.events] == [302, 200]


async def test_searxng_json_api(httpserver):
    payload = {
        "query": "q",
        "results": [
            {
                "title": "First",
                "url": "https://a.example/1",
                "content": "About [rates](https://x.example) " + "word " * 100,
            },
            {"title": "Dup", "url": "https://a.example/1", "content": "again"},
            {"title": "Not web", "url": "ftp://b.example/2", "content": "skip"},
            {"title": "Second", "url": "https://b.example/2", "content": "Second hit"},
            {"title": "Third", "url": "https://c.example/3", "content": "Third hit"},
        ],
    }
    httpserver.expect_request(
        "/search", query_string={"q": "interest rates", "format": "json", "time_range": "week"}
    ).respond_with_json(payload)
    hits = await SearxngSearch(httpserver.url_for("/")).search(
        "interest rates", recency_days=5, limit=2
    )
    assert [h.url for h in hits] == ["https://a.example/1", "https://b.example/2"]
    assert hits[0].snippet.startswith("About rates word") and len(hits[0].snippet) <= 245
    assert "x.example" not in hits[0].snippet


async def test_searxng_without_json_format_says_how_to_fix(httpserver):
    httpserver.expect_request("/search").respond_with_data("Forbidden", status=403)
    with pytest.raises(RuntimeError, match="search.formats"):
        await SearxngSearch(httpserver.url_for("/")).search("x")


async def test_static_search_ranks_and_bounds_snippets():
    long = "filler " * 300 + "The injection page talks about cats and dogs. " + "filler " * 300
    search = StaticSearch(
        [
            {"title": "Dogs", "url": "http://127.0.0.1:1/dogs", "text": "Dogs bark. Dogs run."},
            StaticPage(title="Mixed", url="http://127.0.0.1:1/mixed", text=long),
            {"title": "Birds", "url": "http://127.0.0.1:1/birds", "snippet": "Birds fly."},
        ]
    )
    hits = await search.search("dogs bark")
    assert [h.title for h in hits] == ["Dogs", "Mixed"]
    mixed = (await search.search("cats"))[0]
    assert "cats" in mixed.snippet and len(mixed.snippet) <= 245
    assert await search.search("elephants") == []
    from_html = StaticSearch.from_html(
        [
            (
                "http://127.0.0.1:1/p",
                "<title>T</title><p>Hello <a href='http://x.example'>world</a></p>",
            )
        ]
    )
    assert (await from_html.search("hello"))[0].snippet == "Hello world"
