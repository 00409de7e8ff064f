"""Services: the one place that assembles the parts a command, the gate, the injection suite,
report grading or the viewer works with.

From a home, a store (``--db`` / ``$SPANPROOF_DB`` / SQLite under the home) and the model
endpoint's settings it gives the verdict cache, a verifier for judge specs, the run store
and the web environment (the offline corpus, or the live web through the egress policy).
It sits in the agent layer because the run store is the agent's; everything it builds is
from this layer or below (docs/architecture.md), so every layer above may use it.

Nothing is opened until it is asked for: a command that never judges never opens the
verdict cache, and a store error surfaces where the first part that needs the store is made.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from spanproof.core.specs import EndpointSettings
from spanproof.core.verdict import Judge
from spanproof.store.home import resolve_home

if TYPE_CHECKING:
    import httpx
    from spanproof.agent.runstore import RunStore
    from spanproof.graders.cache import VerdictCache
    from spanproof.graders.verify import FindingsSource, Verifier

    from spanproof.store.models import RunKind

    # the store (SQLAlchemy) is imported when it is first opened: `verify` without its cache
    # never opens one
    from spanproof.store.store import Store
    from spanproof.web.env import WebEnv
    from spanproof.web.search import SearchBackend
    from spanproof.web.snapshots import SnapshotStore


@dataclass
class Services:
    """The parts of one process's work, built from one home, store and endpoint.

    ``home``: as given (``--home``); None is $SPANPROOF_HOME, else the user's data folder. It
    is resolved when a part first needs it, so a command that opens nothing never fails on it.
    ``cache_verdicts=False`` (``--no-cache``) judges every pair afresh; ``track_used=False`` keeps the
    cache from remembering which keys a run read (only the gate's replay needs them);
    ``read_cached_verdicts=False`` judges every pair afresh and still stores what it judged
    (``gate --fresh`` with a local judge)."""

    home: str | Path | None = None
    db: str | None = None
    endpoint: EndpointSettings | None = None
    cache_verdicts: bool = True
    track_used: bool = True
    read_cached_verdicts: bool = True
    opened: Store | None = None  # a store already open (the viewer's); else opened on first use

    @cached_property
    def home_dir(self) -> Path:
        return resolve_home(self.home)

    @cached_property
    def store(self) -> Store:
        from spanproof.store.store import open_store

        return (
            self.opened if self.opened is not None else open_store(home=self.home_dir, db=self.db)
        )

    @cached_property
    def cache(self) -> VerdictCache | None:
        """The store's verdict cache, or None when verdicts are not cached."""
        if not self.cache_verdicts:
            return None
        from spanproof.graders.cache import VerdictCache

        return VerdictCache(self.store, track_used=self.track_used, reads=self.read_cached_verdicts)

    def judges(self, specs: Sequence[str]) -> list[Judge]:
        """A judge for each spec (``rules``, ``openai:<model>``, ...), on this endpoint.
        Raises SpecError (or ValueError) for a spec that names no judge."""
        from spanproof.graders.judges import make_judge

        return [make_judge(spec, endpoint=self.endpoint) for spec in specs]

    def verifier(
        self,
        judges: Sequence[str | Judge],
        *,
        concurrency: int = 8,
        policy: str = "all-must-support",
        findings: FindingsSource | None = None,
    ) -> Verifier:
        """A verifier over ``judges`` (specs or judges already built), through the cache;
        ``findings``: where the audit's costly part is computed (graders.audit_pool)."""
        from spanproof.graders.verify import Verifier

        built = [self.judges([j])[0] if isinstance(j, str) else j for j in judges]
        return Verifier(built, cache=self.cache, concurrency=concurrency, policy=policy,
                        findings=findings)  # fmt: skip

    def runs(self, kind: RunKind | None = None) -> RunStore:
        """The run store; ``kind`` (ask, gate, injection, grade) is stamped on what it saves."""
        # imported here: the run records' models are not needed by verify, which has no run
        from spanproof.agent.runstore import RunStore

        return RunStore(self.store, kind=kind)

    def offline_web(
        self, corpus_dir: str | Path | None = None, *, progress: Callable[[str], None] | None = None
    ) -> WebEnv:
        """The replayed corpus (default: the shipped one) behind the normal egress path.
        Raises FileNotFoundError, saying how to build one, when ``corpus_dir`` holds none."""
        from spanproof.web.env import offline_web

        return offline_web(self.home_dir, corpus_dir, progress=progress)

    def live_web(
        self,
        allow_hosts: list[str],
        search: SearchBackend,
        *,
        record_to: str | Path | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        allow_networks: list[str] | None = None,
        page_timeout_s: float | None = None,
        snapshots: SnapshotStore | None = None,
    ) -> WebEnv:
        """The live web through the egress policy (``allow_hosts``, public addresses only
        unless ``allow_networks`` names others). Raises ValueError for a bad network."""
        from spanproof.web.env import live_web

        return live_web(self.home_dir, allow_hosts, search, record_to, transport=transport,
                        allow_networks=allow_networks, page_timeout_s=page_timeout_s,
                        store=snapshots)  # fmt: skip
