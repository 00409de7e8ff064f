"""A report's metrics, per judge:

- citation recall: share of atomic claims with at least one SUPPORTED citation (uncited
  and unreachable claims count against it);
- citation precision: share of (claim, citation) pairs SUPPORTED; PARTIAL is reported in its
  own column (``partial_citation_rate``) and in ``citation_precision_with_partial``, never
  counted as a pass in the headline;
- unreachable rate: share of (claim, citation) pairs whose source did not resolve;
- laundering: written citations shared by several atomic claims (a paragraph-final
  marker, or one marker on a sentence that splits) that SUPPORT only some of them.
"""

from __future__ import annotations

from collections import defaultdict

from spanproof.bench.grade_models import GradedClaim, GradeMetrics, LaunderingCase
from spanproof.core.verdict import Verdict


def ratio(a: int, b: int) -> float:
    # exact: JSON carries the figure as computed; tables round it once, for reading
    return a / b if b else 0.0


def compute_metrics(entries: list[GradedClaim]) -> GradeMetrics:
    by_claim: dict[str, list[GradedClaim]] = defaultdict(list)
    for e in entries:
        by_claim[e.id].append(e)
    n_claims = len(by_claim)
    full = sum(1 for es in by_claim.values() if any(e.supports for e in es))
    part = sum(1 for es in by_claim.values() if any(e.supports_part for e in es))
    cited = [e for e in entries if e.url is not None]
    n_cit = len(cited)
    strict = sum(1 for e in cited if e.supports)
    loose = sum(1 for e in cited if e.supports_part)
    unreachable = sum(1 for e in cited if e.verdict == "UNREACHABLE")
    errors = sum(1 for e in cited if isinstance(e.verdict, Verdict) and e.verdict.error)
    by_marker: dict[str, list[GradedClaim]] = defaultdict(list)
    for e in cited:
        by_marker[e.occurrence or f"{e.id}@{e.url}"].append(e)
    shared = {k: es for k, es in by_marker.items() if len({e.id for e in es}) > 1}
    laundered = []
    for k, es in shared.items():
        yes = [e.text for e in es if e.supports]
        no = [e.text for e in es if not e.supports]
        if yes and no:
            laundered.append(
                LaunderingCase(url=es[0].url or "", occurrence=k, supported=yes, unsupported=no)
            )
    return GradeMetrics(
        claims=n_claims,
        uncited_claims=sum(1 for es in by_claim.values() if es[0].url is None),
        citations=n_cit,
        citation_recall=ratio(full, n_claims),
        citation_recall_with_partial=ratio(part, n_claims),
        partial_claim_rate=ratio(part - full, n_claims),
        citation_precision=ratio(strict, n_cit),
        citation_precision_with_partial=ratio(loose, n_cit),
        partial_citation_rate=ratio(loose - strict, n_cit),
        unreachable=unreachable,
        unreachable_rate=ratio(unreachable, n_cit),
        judge_errors=errors,
        paragraph_level_citations=sum(1 for e in cited if e.scope == "paragraph"),
        shared_citations=len(shared),
        laundering=len(laundered),
        laundered=laundered,
    )
