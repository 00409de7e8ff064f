"""Planted failures at report level: ``plant_variants`` makes them from the good sentences of a
report, and ``run_plant`` (``grade_report(..., plant=True)``) reports each grader's
sensitivity on them.

Two kinds belong to a report's structure: a citation swapped for another page the report
cites (``swap_citation``), and a foreign sentence slipped under a paragraph's citation
(``append_claim``). Every other kind is a claim kind of the planted-failure registry
(``spanproof.planted_failures``: the same mutators ``sensitivity`` and the gate plant), applied
to the sentence as the claim, under the registry's name.
"""

from __future__ import annotations

import random
import re

from pydantic import BaseModel, Field

from spanproof.bench.atomic import atomic_claims
from spanproof.bench.grade_judging import ReportGrader
from spanproof.bench.grade_metrics import ratio
from spanproof.bench.grade_models import GradeError, JudgeGrade
from spanproof.bench.presence import PresenceGrader
from spanproof.bench.report_input import ParsedReport, ReportSentence
from spanproof.core.verdict import Verdict


class PlantedVariant(BaseModel):
    id: str
    kind: str  # a REPORT_KINDS kind, or a claim kind of the planted-failure registry
    sentence_index: int
    before: str
    after: str
    targets: list[str]  # "claim text @ url" pairs the plant must make fail
    detected: dict[str, bool] = Field(default_factory=dict)
    # passed by the verdict but flagged for a person: never counted as detected
    flagged_only: dict[str, bool] = Field(default_factory=dict)


class PlantedSummary(BaseModel):
    eligible_sentences: list[int]  # sentences all of whose pairs every span judge SUPPORTED
    variants: list[PlantedVariant]
    sensitivity: dict[str, float]
    sensitivity_by_kind: dict[str, dict[str, float]]
    original_pass_rate: dict[str, float]  # share of the original report's pairs SUPPORTED
    # share of variants each grader's verdict passed but a flag would hold back for a person
    flag_only: dict[str, float] = Field(default_factory=dict)


REPORT_KINDS = ("swap_citation", "append_claim")


def plant_kinds() -> tuple[str, ...]:
    """The report's structural kinds, then every claim kind of the registry."""
    from spanproof.planted_failures import mutators

    return (*REPORT_KINDS, *(k for k, m in mutators().items() if m.target == "claim"))


def _replace_sentence(report: ParsedReport, index: int, **update: object) -> ParsedReport:
    sentences = [s.model_copy(update=update) if s.index == index else s for s in report.sentences]
    return report.model_copy(update={"sentences": sentences})


def _claim_mutation(
    kind: str, text: str, rng: random.Random, others: list[str]
) -> tuple[str, str, str] | None:
    """(new sentence, before, after) by the registry's claim mutator ``kind``; ``others``: the
    report's other sentences, the pool a mutator may draw from."""
    from spanproof.planted_failures import mutators

    from spanproof.core.verdict import Pair

    pool = [Pair(id=f"s{i}", claim=o, span="", label="SUPPORTED") for i, o in enumerate(others)]
    planted = mutators()[kind](Pair(id="report", claim=text, span="", label="SUPPORTED"), rng, pool)
    if planted is None or planted.claim == text:
        return None
    change = planted.changes[0] if planted.changes else None
    return (
        planted.claim,
        change.before if change else text,
        change.after if change else planted.claim,
    )


def plant_variants(
    report: ParsedReport,
    eligible: list[int],
    *,
    seed: int = 0,
    per_kind: int = 3,
    reachable: set[str] | None = None,
    page_texts: dict[str, str] | None = None,
) -> list[tuple[PlantedVariant, ParsedReport]]:
    """Corrupt good sentences of a report in every known way; each variant has one change.

    Swapped-in citations and appended sentences come only from pages that resolved and
    sentences that were good, so a variant is wrong in content, never merely broken.
    """
    rng = random.Random(seed)
    by_index = {s.index: s for s in report.sentences}
    good = set(eligible)
    cited_urls = [u for u in report.cited_urls if reachable is None or u in reachable]
    out: list[tuple[PlantedVariant, ParsedReport]] = []

    def targets_of(
        variant: ParsedReport, sentence_index: int, only_new_vs: set[str] | None
    ) -> list[str]:
        claims = [c for c in atomic_claims(variant) if c.sentence_index == sentence_index]
        found = []
        for c in claims:
            if only_new_vs is not None and c.text in only_new_vs:
                continue
            for cit in c.citations:
                found.append(f"{c.text} @ {cit.url}")
        return found

    original_texts = {c.text for c in atomic_claims(report)}
    order = list(eligible)
    for kind in plant_kinds():
        made = 0
        candidates = order[:]
        rng.shuffle(candidates)
        for idx in candidates:
            if made >= per_kind:
                break
            s = by_index[idx]
            if kind == "swap_citation":
                own = {c.url for c in s.citations}
                others = [u for u in cited_urls if u not in own]
                if not others or not s.citations:
                    continue
                new_url = rng.choice(others)
                old = s.citations[0]
                # The swapped marker is this sentence's own: others sharing it keep the old URL.
                cits = [
                    old.model_copy(update={"url": new_url, "occurrence": old.occurrence + "-swap"})
                ] + s.citations[1:]
                variant = _replace_sentence(report, idx, citations=cits)
                targets = [
                    f"{c.text} @ {new_url}"
                    for c in atomic_claims(variant)
                    if c.sentence_index == idx
                ]
                pv = PlantedVariant(
                    id=f"{kind}-{idx}",
                    kind=kind,
                    sentence_index=idx,
                    before=old.url,
                    after=new_url,
                    targets=targets,
                )
            elif kind not in REPORT_KINDS:
                others = [o.text for o in report.sentences if o.index != idx]
                mutated = _claim_mutation(kind, s.text, rng, others)
                if mutated is None:
                    continue
                new_text, before, after = mutated
                urls = [c.url for c in s.citations]
                if any(ch.isdigit() for ch in after) and _stated_on_pages(
                    after, urls, page_texts or {}
                ):
                    continue  # "1991 -> 1992" on a page that says "1991 - 1992" is no failure
                variant = _replace_sentence(report, idx, text=new_text)
                targets = targets_of(variant, idx, original_texts)
                if not targets:
                    continue
                pv = PlantedVariant(
                    id=f"{kind}-{idx}",
                    kind=kind,
                    sentence_index=idx,
                    before=before,
                    after=after,
                    targets=targets,
                )
            else:  # append_claim
                if not s.citations:
                    continue
                host_cits = s.citations
                foreign = [
                    o for o in report.sentences
                    if o.paragraph != s.paragraph and o.citations and o.index in good
                    and not ({c.url for c in o.citations} & {c.url for c in host_cits})
                ]  # fmt: skip
                if not foreign:
                    continue
                donor = rng.choice(foreign)
                variant, new_index = _append_under_citation(report, s, donor)
                targets = targets_of(variant, new_index, None)
                pv = PlantedVariant(
                    id=f"{kind}-{idx}",
                    kind=kind,
                    sentence_index=new_index,
                    before="",
                    after=donor.text,
                    targets=targets,
                )
            out.append((pv, variant))
            made += 1
    return out


def _stated_on_pages(value: str, urls: list[str], page_texts: dict[str, str]) -> bool:
    pattern = re.compile(rf"(?<![\w.,]){re.escape(value)}(?![\w]|[.,]\d)")
    return any(pattern.search(page_texts.get(u, "")) for u in urls)


def _append_under_citation(
    report: ParsedReport, host: ReportSentence, donor: ReportSentence
) -> tuple[ParsedReport, int]:
    """Insert ``donor``'s words, uncited, just before ``host``'s closing citation."""
    shared = [c.model_copy(update={"scope": "paragraph"}) for c in host.citations]
    new_sentences: list[ReportSentence] = []
    new_index = -1
    for s in report.sentences:
        if s.index == host.index:
            new_index = len(new_sentences)
            new_sentences.append(
                ReportSentence(
                    index=new_index,
                    paragraph=s.paragraph,
                    text=donor.text,
                    line=s.line,
                    citations=shared,
                )
            )
            new_sentences.append(
                s.model_copy(update={"index": len(new_sentences), "citations": shared})
            )
        else:
            new_sentences.append(s.model_copy(update={"index": len(new_sentences)}))
    return report.model_copy(update={"sentences": new_sentences}), new_index


def _detected(grade: JudgeGrade, targets: list[str]) -> bool:
    wanted = set(targets)
    hits = [e for e in grade.claims if f"{e.text} @ {e.url}" in wanted]
    return any(not e.supports for e in hits)


def _flagged_only(grade: JudgeGrade, targets: list[str]) -> bool:
    wanted = set(targets)
    hits = [e for e in grade.claims if f"{e.text} @ {e.url}" in wanted]
    return not any(not e.supports for e in hits) and any(
        isinstance(e.verdict, Verdict) and e.verdict.flagged for e in hits
    )


async def run_plant(
    grader: ReportGrader,
    report: ParsedReport,
    original: list[JudgeGrade],
    *,
    seed: int = 0,
    per_kind: int = 3,
) -> PlantedSummary:
    span_judges = [g for g in original if not isinstance(grader.judges[g.judge], PresenceGrader)]
    reference = span_judges or original
    bad_sentences = {e.sentence_index for g in reference for e in g.claims if not e.supports}
    eligible = sorted({s.index for s in report.sentences if s.citations} - bad_sentences)
    if not eligible:
        raise GradeError(
            "--plant needs a good report: no sentence had all of its claims SUPPORTED by "
            f"{', '.join(g.judge for g in reference)}. Plant from a report whose claims hold."
        )
    reachable = {u for u, r in grader.sources.results.items() if r.reachable}
    texts = {u: d.text for u, d in grader.sources.documents.items()}
    variants = plant_variants(
        report, eligible, seed=seed, per_kind=per_kind, reachable=reachable, page_texts=texts
    )
    for pv, variant in variants:
        grades = await grader.grade(variant)
        for g in grades:
            pv.detected[g.judge] = _detected(g, pv.targets)
            pv.flagged_only[g.judge] = _flagged_only(g, pv.targets)
    judges = [g.judge for g in original]
    sensitivity = {
        j: ratio(sum(pv.detected[j] for pv, _ in variants), len(variants)) for j in judges
    }
    by_kind: dict[str, dict[str, float]] = {}
    for kind in plant_kinds():
        of_kind = [pv for pv, _ in variants if pv.kind == kind]
        if of_kind:
            by_kind[kind] = {
                j: ratio(sum(pv.detected[j] for pv in of_kind), len(of_kind)) for j in judges
            }
    pass_rate = {
        g.judge: ratio(sum(1 for e in g.claims if e.supports), len(g.claims)) for g in original
    }
    return PlantedSummary(
        eligible_sentences=eligible,
        variants=[pv for pv, _ in variants],
        sensitivity=sensitivity,
        sensitivity_by_kind=by_kind,
        original_pass_rate=pass_rate,
        flag_only={
            j: ratio(sum(pv.flagged_only.get(j, False) for pv, _ in variants), len(variants))
            for j in judges
        },
    )
