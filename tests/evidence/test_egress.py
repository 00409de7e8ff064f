"""Egress: GET only, allowlisted hosts on every hop, size and type caps, every contact traced."""

from __future__ import annotations

import httpx
import pytest
from werkzeug import Response

from spanproof.core.tool_schema import ToolFailure
from spanproof.core.urls import normalise_url
from spanproof.web.egress import EgressPolicy, Fetcher, contacted, contacted_hosts
from spanproof.web.snapshots import SnapshotStore

HTML = "<html><head><title>Page</title></head><body><p>Allowed content here.</p></body></html>"


def make_fetcher(tmp_path, allow, **policy) -> Fetcher:
    policy.setdefault("allow_networks", ["127.0.0.0/8", "::1/128"])  # the test servers
    return Fetcher(EgressPolicy(allow_hosts=allow, **policy), SnapshotStore(tmp_path / "store"))


def hostport(httpserver) -> str:
    return f"{httpserver.host}:{httpserver.port}"


async def test_allowed_fetch_is_stored_and_traced(httpserver, tmp_path):
    httpserver.expect_request("/a", method="GET").respond_with_data(
        HTML, content_type="text/html; charset=utf-8"
    )
    fetcher = make_fetcher(tmp_path, [hostport(httpserver)])
    doc = await fetcher.fetch(httpserver.url_for("/a"))
    assert doc.title == "Page" and doc.text == "Allowed content here." and doc.status == 200
    assert fetcher.store.get(doc.doc_id) == doc
    [event] = fetcher.events
    assert (event.decision, event.method, event.status, event.bytes) == (
        "allowed",
        "GET",
        200,
        len(HTML),
    )


async def test_off_allowlist_host_is_refused_before_contact(httpserver, tmp_path):
    httpserver.expect_request("/a").respond_with_data(HTML, content_type="text/html")
    fetcher = make_fetcher(tmp_path, ["127.0.0.1", "*.example.org"])  # the server is on localhost
    with pytest.raises(ToolFailure) as exc:
        await fetcher.fetch(httpserver.url_for("/a"))
    assert exc.value.detail.error == "URL_NOT_ALLOWED"
    assert httpserver.log == []  # never contacted
    [event] = fetcher.events
    assert (
        event.decision == "refused"
        and event.status is None
        and event.reason.startswith("URL_NOT_ALLOWED")
    )


async def test_non_get_through_the_transport_is_refused(httpserver, tmp_path):
    httpserver.expect_request("/a").respond_with_data("ok")
    fetcher = make_fetcher(tmp_path, [hostport(httpserver)])
    assert not any(hasattr(fetcher, m) for m in ("post", "put", "request", "send"))
    for method in ("POST", "PUT", "DELETE"):
        with pytest.raises(ToolFailure) as exc:
            await fetcher.transport.handle_async_request(
                httpx.Request(method, httpserver.url_for("/a"), content=b"x")
            )
        assert exc.value.detail.error == "URL_NOT_ALLOWED"
    assert httpserver.log == []
    assert [e.method for e in fetcher.events] == ["POST", "PUT", "DELETE"]
    assert all(e.decision == "refused" for e in fetcher.events)


async def test_every_redirect_hop_is_rechecked(httpserver, tmp_path):
    port = httpserver.port
    httpserver.expect_request("/hop1").respond_with_data(
        "", status=302, headers={"Location": "/hop2"}
    )
    httpserver.expect_request("/hop2").respond_with_data(
        "", status=301, headers={"Location": f"http://127.0.0.1:{port}/secret"}
    )
    httpserver.expect_request("/secret").respond_with_data("leaked", content_type="text/html")
    fetcher = make_fetcher(tmp_path, [f"localhost:{port}"])
    with pytest.raises(ToolFailure) as exc:
        await fetcher.fetch(httpserver.url_for("/hop1"))
    assert exc.value.detail.error == "URL_NOT_ALLOWED"
    assert [r.path for r, _ in httpserver.log] == ["/hop1", "/hop2"]  # /secret never requested
    assert [(e.decision, e.status) for e in fetcher.events] == [
        ("allowed", 302),
        ("allowed", 301),
        ("refused", None),
    ]
    assert fetcher.events[-1].host == f"127.0.0.1:{port}"
    assert [contacted(e) for e in fetcher.events] == [True, True, False]
    assert contacted_hosts(fetcher.events) == {f"localhost:{port}"}


async def test_allowed_redirects_are_followed_and_final_url_kept(httpserver, tmp_path):
    httpserver.expect_request("/old").respond_with_data(
        "", status=302, headers={"Location": "/new"}
    )
    httpserver.expect_request("/new").respond_with_data(HTML, content_type="text/html")
    fetcher = make_fetcher(tmp_path, [hostport(httpserver)])
    doc = await fetcher.fetch(httpserver.url_for("/old"))
    assert doc.url == httpserver.url_for("/old") and doc.final_url == httpserver.url_for("/new")
    assert len(fetcher.events) == 2


async def test_redirect_loop_is_bounded(httpserver, tmp_path):
    httpserver.expect_request("/loop").respond_with_data(
        "", status=302, headers={"Location": "/loop"}
    )
    fetcher = make_fetcher(tmp_path, [hostport(httpserver)], max_redirects=3)
    with pytest.raises(ToolFailure) as exc:
        await fetcher.fetch(httpserver.url_for("/loop"))
    assert exc.value.detail.error == "FETCH_FAILED" and len(httpserver.log) == 4


async def test_oversized_bodies_are_refused_while_streaming(httpserver, tmp_path):
    def chunked(_request):
        # no Content-Length: the cap must hold while the body streams
        return Response(
            (b"<p>" + b"x" * 1000 + b"</p>" for _ in range(500)), content_type="text/html"
        )

    httpserver.expect_request("/stream").respond_with_handler(chunked)
    httpserver.expect_request("/declared").respond_with_data("y" * 5000, content_type="text/html")
    fetcher = make_fetcher(tmp_path, [hostport(httpserver)], max_bytes=4000)
    for path in ("/stream", "/declared"):
        with pytest.raises(ToolFailure) as exc:
            await fetcher.fetch(httpserver.url_for(path))
        assert exc.value.detail.error == "TOO_LARGE"
    streamed, declared = fetcher.events
    assert (
        streamed.reason.startswith("TOO_LARGE") and 4000 < streamed.bytes < 500 * 1007
    )  # stopped well before the end
    assert declared.bytes == 5000  # refused on the header, before reading
    assert len(fetcher.store) == 0


async def test_content_type_allowlist(httpserver, tmp_path):
    httpserver.expect_request("/doc.pdf").respond_with_data(
        b"%PDF-1.4", content_type="application/pdf"
    )
    httpserver.expect_request("/notes.txt").respond_with_data(
        "Plain [notes](http://x.example/y).", content_type="text/plain"
    )
    fetcher = make_fetcher(tmp_path, [hostport(httpserver)])
    with pytest.raises(ToolFailure) as exc:
        await fetcher.fetch(httpserver.url_for("/doc.pdf"))
    assert exc.value.detail.error == "UNSUPPORTED_CONTENT_TYPE"
    doc = await fetcher.fetch(httpserver.url_for("/notes.txt"))
    assert doc.text == "Plain notes."


async def test_http_errors_and_timeouts_are_fetch_failed(httpserver, tmp_path):
    import time

    httpserver.expect_request("/gone").respond_with_data(
        "nope", status=404, content_type="text/html"
    )

    def slow(_request):
        time.sleep(1.0)
        return Response(HTML, content_type="text/html")

    httpserver.expect_request("/slow").respond_with_handler(slow)
    fetcher = make_fetcher(tmp_path, [hostport(httpserver)], read_timeout_s=0.2)
    for path in ("/gone", "/slow"):
        with pytest.raises(ToolFailure) as exc:
            await fetcher.fetch(httpserver.url_for(path))
        assert exc.value.detail.error == "FETCH_FAILED"
    assert [e.decision for e in fetcher.events] == ["refused", "refused"]


@pytest.mark.parametrize(
    ("allow", "url", "ok"),
    [
        (["news.example"], "https://news.example/a", True),
        (["news.example"], "https://NEWS.example.:8443/a", True),  # no port in entry: any port
        (["news.example:443"], "https://news.example/a", True),
        (["news.example:443"], "https://news.example:8443/a", False),
        (["news.example"], "https://evil.news.example/a", False),
        (["*.news.example"], "https://a.b.news.example/a", True),
        (
            ["*.news.example"],
            "https://news.example/a",
            False,
        ),  # the suffix itself is not a subdomain
        (["*.news.example"], "https://evilnews.example/a", False),
        (["*.news.example:8123"], "http://a.news.example:8123/", True),
        (["127.0.0.1:8123"], "http://127.0.0.1:8124/", False),
        (["news.example"], "https://user:pw@news.example/a", False),
        (["news.example"], "ftp://news.example/a", False),
        (["news.example"], "https://news.example.evil.example/a", False),
    ],
)
def test_allowlist_matching(allow, url, ok):
    assert (EgressPolicy(allow_hosts=allow).check_url(url) is None) is ok


def test_normalise_url_rules():
    assert (
        normalise_url("HTTPS://News.Example:443/A/b?Q=1&a=2#frag")
        == "https://news.example/A/b?Q=1&a=2"
    )
    assert normalise_url("http://news.example:80") == "http://news.example/"
    assert normalise_url("http://news.example:8080/x") == "http://news.example:8080/x"
    assert normalise_url("https://news.example/a%2Fb/../c?x") == "https://news.example/a%2Fb/../c?x"
    assert normalise_url("https://news.example/a?b=1&a=2") != normalise_url(
        "https://news.example/a?a=2&b=1"
    )
    with pytest.raises(ValueError):
        normalise_url("javascript:alert(1)")
