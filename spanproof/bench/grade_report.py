"""Grade another agent's cited report: every (atomic claim, cited URL) against the page itself.

``grade_report`` puts the parts together, each in a module of its own:

- ``grade_sources``   each cited page fetched now, through the egress layer (check 1)
- ``grade_passages``  candidate passages of a page: sentence windows ranked by relevance
- ``grade_judging``   each (claim, citation) pair judged on its best passages; which decides
- ``grade_metrics``   citation recall and precision, unreachable sources, laundering
- ``grade_planting``  report-level planted failures and each grader's sensitivity to them
- ``grade_models``    the typed parts of the result (``GradeResult``, here, gathers them)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

from spanproof.bench.atomic import AtomicClaim
from spanproof.bench.grade_judging import ReportGrader
from spanproof.bench.grade_models import JudgeGrade, SourceResult
from spanproof.bench.grade_planting import PlantedSummary, run_plant
from spanproof.bench.grade_sources import SourceFetcher, cited_hosts
from spanproof.bench.presence import PRESENCE_ID, PresenceGrader
from spanproof.bench.report_input import ParsedReport
from spanproof.core.evidence import EgressEvent
from spanproof.core.specs import EndpointSettings
from spanproof.web.egress import Fetcher
from spanproof.web.snapshots import SnapshotStore

if TYPE_CHECKING:
    from spanproof.graders.cache import VerdictCache
    from spanproof.graders.verify import Verifier


class GradeResult(BaseModel):
    report: str
    format: str
    judges: list[JudgeGrade]
    sources: list[SourceResult] = Field(default_factory=list)
    egress: list[EgressEvent] = Field(default_factory=list)
    planted: PlantedSummary | None = None

    def review_order(self) -> list[int]:
        """The claims' indexes in review order (``graders.review_queue``): each (claim,
        citation) pair placed by the judge that ranks it most likely wrong; an unreachable
        source, which no judge could read, first."""
        from spanproof.graders.review_queue import review_key

        if not self.judges:
            return []

        def key(k: int) -> tuple[int, int, float]:
            return min(
                review_key(None if isinstance(c.verdict, str) else c.verdict)
                for c in (g.claims[k] for g in self.judges)
            )

        return sorted(range(len(self.judges[0].claims)), key=key)


def build_graders(
    specs: list[str],
    allow_hosts: list[str],
    *,
    cache: VerdictCache | None = None,
    endpoint: EndpointSettings | None = None,
) -> dict[str, Verifier | PresenceGrader]:
    """Grader id -> Verifier (for judge specs) or PresenceGrader (for ``presence``)."""
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    out: dict[str, Verifier | PresenceGrader] = {}
    for spec in specs:
        if spec.strip() == PRESENCE_ID:
            out[PRESENCE_ID] = PresenceGrader(allow_hosts)
            continue
        judge = make_judge(spec, endpoint=endpoint)
        out[judge.id if judge.id not in out else spec] = Verifier([judge], cache=cache)
    return out


async def grade_report(
    report: ParsedReport,
    *,
    fetcher: Fetcher,
    store: SnapshotStore,
    judges: list[str],
    allow_hosts: list[str] | None = None,
    plant: bool = False,
    seed: int = 0,
    cache: VerdictCache | None = None,
    endpoint: EndpointSettings | None = None,
    claims: list[AtomicClaim] | None = None,
    progress: Callable[[str], None] | None = None,
) -> GradeResult:
    """Grade ``report`` with every spec in ``judges`` (side by side), optionally planting."""
    hosts = allow_hosts if allow_hosts is not None else cited_hosts(report.cited_urls)
    graders = build_graders(judges, hosts, cache=cache, endpoint=endpoint)
    sources = SourceFetcher(fetcher, store)
    grader = ReportGrader(sources, graders, progress=progress)
    grades = await grader.grade(report, claims)
    planted = await run_plant(grader, report, grades, seed=seed) if plant else None
    return GradeResult(
        report=report.source,
        format=report.format,
        judges=grades,
        sources=[sources.results[u] for u in report.cited_urls if u in sources.results],
        egress=list(fetcher.events),
        planted=planted,
    )
