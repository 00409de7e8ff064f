"""The cited sources of a report, fetched now.

For each cited URL the source is fetched through the egress layer, with the allowlist set to
the hosts the report cites (replayed from an offline corpus, or live), and stored as a
snapshot (check 1: a fetch that fails or is redirected off the allowlist gives
``UNREACHABLE``, counted in every rate, never dropped)."""

from __future__ import annotations

import asyncio
from urllib.parse import urlsplit

import httpx

from spanproof.bench.grade_models import SourceResult
from spanproof.core.evidence import Document
from spanproof.core.tool_schema import ToolFailure
from spanproof.core.urls import host_of
from spanproof.web.egress import EgressPolicy, Fetcher
from spanproof.web.snapshots import SnapshotStore


def cited_hosts(urls: list[str]) -> list[str]:
    hosts = []
    for url in urls:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if not host:
            continue
        entry = f"{host}:{parts.port}" if parts.port else host
        if entry not in hosts:
            hosts.append(entry)
    return hosts


class SourceFetcher:
    """Fetches each cited URL once through the egress layer and keeps the snapshot."""

    def __init__(self, fetcher: Fetcher, store: SnapshotStore) -> None:
        self.fetcher = fetcher
        self.store = store
        self.results: dict[str, SourceResult] = {}
        self.documents: dict[str, Document] = {}

    async def fetch_all(self, urls: list[str]) -> dict[str, SourceResult]:
        todo = [u for u in dict.fromkeys(urls) if u not in self.results]
        await asyncio.gather(*(self._one(u) for u in todo))
        return self.results

    async def _one(self, url: str) -> None:
        try:
            doc = await self.fetcher.fetch(url)
        except ToolFailure as exc:
            self.results[url] = SourceResult(
                url=url, reachable=False, reason=f"{exc.detail.error}: {exc.detail.message}"
            )
            return
        if doc.status >= 400:
            self.results[url] = SourceResult(url=url, reachable=False, reason=f"HTTP {doc.status}")
            return
        if host_of(doc.final_url).lower() != host_of(url).lower():
            # Another host, even one the report cites elsewhere, is not the cited source.
            self.results[url] = SourceResult(
                url=url,
                reachable=False,
                reason=f"REDIRECTED_AWAY: {url} now redirects to {doc.final_url}",
                doc_id=doc.doc_id,
                final_url=doc.final_url,
                retrieved_at=doc.retrieved_at,
            )
            return
        self.documents[url] = doc
        self.results[url] = SourceResult(
            url=url,
            reachable=True,
            doc_id=doc.doc_id,
            final_url=doc.final_url,
            retrieved_at=doc.retrieved_at,
            title=doc.title,
        )


def make_fetcher(
    store: SnapshotStore,
    allow_hosts: list[str],
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    allow_networks: list[str] | None = None,
    page_timeout_s: float | None = None,
) -> Fetcher:
    """A Fetcher whose allowlist is exactly the cited hosts (``transport`` for replay/tests).

    Live, only public addresses are reached unless ``allow_networks`` (CIDRs) names others:
    a report is untrusted, and a citation of 127.0.0.1 or 169.254.169.254 is an SSRF.
    ``page_timeout_s`` bounds each whole page: a cited server may trickle its bytes."""
    timeout = {"page_timeout_s": page_timeout_s} if page_timeout_s else {}
    policy = EgressPolicy(allow_hosts=allow_hosts, allow_networks=allow_networks or [], **timeout)
    return Fetcher(policy, store, transport=transport)
