"""The run-level tools over a live (local) web: search-gated fetch, duplicates, parallel fetch, schemas."""

from __future__ import annotations

import pytest
from spanproof.agent.tools import Toolbox, tool_schemas

from spanproof.core.tool_schema import (
    ExtractQuoteArgs,
    FetchPageArgs,
    FetchPageResult,
    ToolError,
    ToolFailure,
    WebSearchArgs,
)
from spanproof.web.env import live_web
from spanproof.web.search import StaticPage, StaticSearch


def page(title: str, body: str) -> str:
    return f"<html><head><title>{title}</title></head><body><p>{body}</p></body></html>"


@pytest.fixture
def site(httpserver):
    bodies = {
        "/rates": page(
            "Rates", "The central bank raised rates by 0.25 points in March. Markets fell."
        ),
        "/jobs": page("Jobs", "Unemployment fell to 3.9% in April. Wages rose."),
        "/weather": page("Weather", "It rained for nine days in a row. Rivers rose."),
    }
    for path, html in bodies.items():
        httpserver.expect_request(path, method="GET").respond_with_data(
            html, content_type="text/html"
        )
    httpserver.expect_request("/big").respond_with_data(
        "<p>" + "z" * 5000 + "</p>", content_type="text/html"
    )
    pages = [
        StaticPage(title=p.strip("/"), url=httpserver.url_for(p), text=bodies.get(p, "big page"))
        for p in [*bodies, "/big"]
    ]
    return httpserver, StaticSearch(pages)


def make_box(tmp_path, httpserver, search, question="What happened to rates?", **kw):
    env = live_web(
        tmp_path, [f"{httpserver.host}:{httpserver.port}"], search, allow_networks=["127.0.0.0/8"]
    )
    env.fetcher.policy.max_bytes = 3000
    return Toolbox(env, question, **kw)


async def test_fetch_needs_a_url_from_search_or_question(site, tmp_path):
    httpserver, search = site
    box = make_box(tmp_path, httpserver, search)
    rates = httpserver.url_for("/rates")
    with pytest.raises(ToolFailure) as exc:
        await box.fetch_page(FetchPageArgs(url=rates))
    assert exc.value.detail.error == "URL_NOT_FROM_SEARCH"
    assert httpserver.log == [] and box.events == []
    hits = (await box.web_search(WebSearchArgs(query="central bank rates"))).hits
    assert hits[0].url == rates
    # a model-composed query string on a seen host is still not from search
    with pytest.raises(ToolFailure) as composed:
        await box.fetch_page(FetchPageArgs(url=rates + "?leak=secret"))
    assert composed.value.detail.error == "URL_NOT_FROM_SEARCH"
    # normalisation: case of scheme/host and a fragment do not matter
    result = await box.fetch_page(
        FetchPageArgs(url=rates.replace("http://localhost", "HTTP://LOCALHOST") + "#top")
    )
    assert result.title == "Rates" and result.doc_id in box.documents and not result.truncated
    assert [e.decision for e in box.events] == ["allowed"]
    with pytest.raises(ToolFailure) as dup:
        await box.fetch_page(FetchPageArgs(url=rates))
    assert dup.value.detail.error == "DUPLICATE_FETCH" and result.doc_id in dup.value.detail.message
    quote = box.extract_quote(
        ExtractQuoteArgs(doc_id=result.doc_id, locator="The central bank raised")
    )
    assert quote.text == "The central bank raised rates by 0.25 points in March. Markets fell."


async def test_url_in_question_may_be_fetched(site, tmp_path):
    httpserver, search = site
    url = httpserver.url_for("/jobs")
    box = make_box(tmp_path, httpserver, search, question=f"Summarise {url}, please.")
    result = await box.fetch_page(FetchPageArgs(url=url))
    assert result.title == "Jobs"


async def test_fetch_pages_runs_together_and_reports_each_failure(site, tmp_path):
    httpserver, search = site
    box = make_box(tmp_path, httpserver, search)
    await box.web_search(WebSearchArgs(query="rates unemployment rained big page"))
    urls = [httpserver.url_for(p) for p in ("/rates", "/jobs", "/weather", "/big")]
    results = await box.fetch_pages(
        [FetchPageArgs(url=u) for u in [*urls, "http://localhost:1/unseen", urls[0]]]
    )
    assert [type(r) for r in results[:3]] == [FetchPageResult] * 3
    assert [r.error for r in results[3:]] == ["TOO_LARGE", "URL_NOT_FROM_SEARCH", "DUPLICATE_FETCH"]
    assert all(isinstance(r, ToolError) for r in results[3:])
    assert len(box.documents) == 3
    assert sorted(e.url for e in box.events) == sorted(urls)


async def test_preview_is_a_bounded_prefix(site, tmp_path):
    httpserver, _ = site
    long_text = " ".join(f"Sentence number {i} is here." for i in range(400))
    httpserver.expect_request("/long").respond_with_data(
        page("Long", long_text), content_type="text/html"
    )
    search = StaticSearch(
        [StaticPage(title="Long", url=httpserver.url_for("/long"), text="sentence number")]
    )
    box = make_box(tmp_path, httpserver, search, preview_chars=500)
    box.env.fetcher.policy.max_bytes = 100_000
    await box.web_search(WebSearchArgs(query="sentence number"))
    result = await box.fetch_page(FetchPageArgs(url=httpserver.url_for("/long")))
    assert result.truncated and len(result.preview) <= 500
    assert box.documents[result.doc_id].text.startswith(result.preview)


def test_tool_schemas_come_from_the_models():
    schemas = {s["function"]["name"]: s["function"] for s in tool_schemas()}
    assert set(schemas) == {"web_search", "fetch_page", "extract_quote"}
    quote = schemas["extract_quote"]["parameters"]
    assert (
        quote["properties"]["locator"]["minLength"] == 12
        and quote["properties"]["locator"]["maxLength"] == 240
    )
    assert quote["properties"]["max_chars"]["maximum"] == 900 and set(quote["required"]) == {
        "doc_id",
        "locator",
    }
    assert "NOT evidence" in schemas["web_search"]["description"]


async def test_call_dispatches_and_never_raises_for_model_mistakes(site, tmp_path):
    httpserver, search = site
    box = make_box(tmp_path, httpserver, search)
    hits = await box.call("web_search", '{"query": "central bank rates"}')
    assert hits.hits[0].url == httpserver.url_for("/rates")
    fetched = await box.call("fetch_page", {"url": httpserver.url_for("/rates")})
    quoted = await box.call(
        "extract_quote", {"doc_id": fetched.doc_id, "locator": "The central bank raised"}
    )
    assert quoted.span_id in box.spans
    for name, args in [
        ("extract_quote", {"doc_id": fetched.doc_id, "locator": "short"}),
        ("fetch_page", "{not json"),
        ("delete_everything", {}),
    ]:
        result = await box.call(name, args)
        assert isinstance(result, ToolError) and result.error == "INVALID_ARGUMENTS"
    refused = await box.call("fetch_page", {"url": "http://elsewhere.example/"})
    assert isinstance(refused, ToolError) and refused.error == "URL_NOT_FROM_SEARCH"
