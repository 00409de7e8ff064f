"""Fixtures for the agent tests: a small in-process web (mock transport, static search)."""

from __future__ import annotations

import httpx
import pytest
from spanproof.graders.judges import make_judge
from spanproof.graders.verify import Verifier

from spanproof.web.egress import EgressPolicy, Fetcher
from spanproof.web.env import WebEnv
from spanproof.web.search import StaticSearch
from spanproof.web.snapshots import SnapshotStore

PAGES = {
    "https://news.example.org/larkspur-bridge": (
        "<html><head><title>Larkspur Bridge opens to traffic</title></head><body>"
        "<nav>Home | News | Contact</nav>"
        "<p>The Larkspur Bridge opened to traffic on 14 March 2021 after four years of work. "
        "The bridge spans 1,240 metres across the Vell estuary.</p>"
        "<p>It was designed by the engineering firm Halden and Moor, which also built the "
        "Carrow viaduct. Construction cost 310 million euros, according to the regional "
        "transport authority.</p></body></html>"
    ),
    "https://transport.example.gov/larkspur-facts": (
        "<html><head><title>Larkspur Bridge: facts and figures</title></head><body>"
        "<p>The Larkspur Bridge carries about 42,000 vehicles a day. Tolls on the Larkspur "
        "Bridge were abolished in 2023 by the regional assembly.</p>"
        "<p>The main span of the Larkspur Bridge is 480 metres long.</p></body></html>"
    ),
    "https://blog.example.net/estuary-birds": (
        "<html><head><title>Birds of the Vell estuary</title></head><body>"
        "<p>The Vell estuary hosts thousands of wading birds every winter. Curlews and "
        "redshanks are the most common species seen from the shore.</p></body></html>"
    ),
}


def build_env(
    home, pages: dict[str, str] | None = None, *, hits: dict[str, str] | None = None
) -> WebEnv:
    pages = dict(PAGES if pages is None else pages)
    served = dict(pages)
    if hits:
        served.update(hits)

    def handler(request: httpx.Request) -> httpx.Response:
        body = served.get(str(request.url))
        if body is None:
            return httpx.Response(404, text="not found", headers={"content-type": "text/html"})
        return httpx.Response(200, text=body, headers={"content-type": "text/html; charset=utf-8"})

    hosts = sorted({httpx.URL(u).host for u in served})
    store = SnapshotStore(home / "snapshots")
    fetcher = Fetcher(
        EgressPolicy(allow_hosts=hosts), store, transport=httpx.MockTransport(handler)
    )
    search = StaticSearch.from_html(list(served.items()))
    return WebEnv(search=search, fetcher=fetcher, store=store)


@pytest.fixture
def env(tmp_path):
    return build_env(tmp_path)


@pytest.fixture
def rules_verifier():
    return Verifier([make_judge("rules")])
