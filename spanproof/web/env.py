"""A web environment: one search backend, one egress-checked fetcher, one snapshot store.

``offline_web`` is the embedded default: the shipped WiCE corpus
(goldens/corpus/), a local FTS5 index, and a replay transport behind the
SAME Fetcher, egress policy and snapshot store a live fetch uses. The
allowlist is exactly the corpus's hosts.

``live_web`` fetches over the network through the egress policy; with
``record_to`` every response (each redirect hop too) is also appended to a
WARC, which ``offline_web(corpus_dir=...)`` can replay later.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from spanproof.core.evidence import EgressEvent
from spanproof.web.corpus import ReplayTransport, corpus_hosts, warc_of
from spanproof.web.egress import EgressPolicy, Fetcher
from spanproof.web.search import LocalIndex, SearchBackend
from spanproof.web.snapshots import SnapshotStore

SNAPSHOT_DIR = "snapshots"


def default_corpus_dir() -> Path:
    """goldens/corpus/ as installed with the package."""
    import importlib

    # by name: the goldens/ folder is mapped into the namespace, where mypy cannot follow it
    goldens = importlib.import_module("spanproof.goldens")
    return Path(str(goldens.__file__)).resolve().parent / "corpus"


@dataclass
class WebEnv:
    search: SearchBackend
    fetcher: Fetcher
    store: SnapshotStore

    @property
    def events(self) -> list[EgressEvent]:
        """Every attempted contact through this environment (all runs)."""
        return self.fetcher.events

    @property
    def allow_hosts(self) -> list[str]:
        return list(self.fetcher.policy.allow_hosts)

    async def aclose(self) -> None:
        await self.fetcher.aclose()


def offline_web(
    home: Path | str,
    corpus_dir: Path | str | None = None,
    *,
    progress: Callable[[str], None] | None = None,
) -> WebEnv:
    """The replayed corpus (default: the shipped one) behind the normal egress path."""
    home = Path(home)
    corpus_dir = Path(corpus_dir) if corpus_dir is not None else default_corpus_dir()
    if not warc_of(corpus_dir).exists():
        raise FileNotFoundError(
            f"No corpus at {corpus_dir}: build one with "
            "`spanproof corpus build --from-wice PATH/dev.jsonl --out DIR`."
        )
    store = SnapshotStore(home / SNAPSHOT_DIR)
    policy = EgressPolicy(allow_hosts=corpus_hosts(corpus_dir))
    fetcher = Fetcher(policy, store, transport=ReplayTransport(corpus_dir))
    search = LocalIndex(corpus_dir, home=home, progress=progress)
    return WebEnv(search=search, fetcher=fetcher, store=store)


def live_web(
    home: Path | str,
    allow_hosts: list[str],
    search: SearchBackend,
    record_to: Path | str | None = None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    policy: EgressPolicy | None = None,
    allow_networks: list[str] | None = None,
    page_timeout_s: float | None = None,
    store: SnapshotStore | None = None,
) -> WebEnv:
    """The live web through the egress policy; ``record_to`` also writes a replayable WARC.

    Only public addresses are reached unless ``allow_networks`` (CIDRs) names others;
    ``page_timeout_s`` bounds each whole page (default: the policy's). ``store``: a snapshot
    store shared with other environments (its owner closes it); by default one of its own
    under ``home``."""
    home = Path(home)
    store = store if store is not None else SnapshotStore(home / SNAPSHOT_DIR)
    timeout: dict[str, Any] = {"page_timeout_s": page_timeout_s} if page_timeout_s else {}
    policy = policy or EgressPolicy(
        allow_hosts=allow_hosts, allow_networks=allow_networks or [], **timeout
    )
    fetcher = Fetcher(policy, store, transport=transport, record_to=record_to)
    return WebEnv(search=search, fetcher=fetcher, store=store)
