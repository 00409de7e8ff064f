"""`grade` picks evidence, not leniency: relevant passages, never page chrome, and a
contradicted specific in the most relevant passages beats a vague PARTIAL elsewhere."""

from __future__ import annotations

from spanproof.bench.grade_judging import choose_passage
from spanproof.bench.grade_models import JudgedPassage
from spanproof.bench.grade_passages import PassageIndex
from spanproof.bench.grade_report import grade_report
from spanproof.bench.grade_sources import cited_hosts, make_fetcher
from spanproof.bench.report_input import parse_text
from spanproof.core.verdict import Verdict
from spanproof.web.snapshots import SnapshotStore

PAGE = (
    "<html><head><title>The Long Trail</title></head><body>"
    "<nav>Archive | Trail | Miles | About | Skip to content</nav>"
    "<p>Walkers like the trail, and some say it feels longer than it is.</p>"
    "<p>The trail runs 250 miles from the coast to the lakes. It was opened in 1932 by the "
    "park service, which still maintains it.</p>"
    "<p>Parking at the trailhead costs five dollars a day.</p></body></html>"
)


async def _grade(md, tmp_path):
    report = parse_text(md, "md")
    store = SnapshotStore(tmp_path / "snapshots")
    # the test server is on loopback, which a live grade reaches only when named
    fetcher = make_fetcher(
        store, cited_hosts(report.cited_urls), allow_networks=["127.0.0.0/8", "::1/128"]
    )
    try:
        result = await grade_report(report, fetcher=fetcher, store=store, judges=["rules"])
    finally:
        await fetcher.aclose()
    return result.judges[0], store


async def test_a_drifted_number_is_not_supported_with_the_deciding_passage(httpserver, tmp_path):
    httpserver.expect_request("/trail").respond_with_data(PAGE, content_type="text/html")
    md = f"The trail runs 350 miles from the coast [1].\n\n[1]: {httpserver.url_for('/trail')}\n"
    grade, store = await _grade(md, tmp_path)
    entry = grade.claims[0]
    assert entry.label == "NOT_SUPPORTED"
    assert entry.decided_by.startswith("contradiction")
    text = store.text(entry.span.doc_id)
    assert text[entry.span.char_start : entry.span.char_end] == entry.span.text
    assert "250 miles" in entry.span.text
    # the proof points at both values: the claim's, and the page's at its page offsets
    [(proof, (start, end))] = entry.proofs_on_page()
    assert proof.claim_value.text == "350 miles" and text[start:end] == "250 miles"
    # the ledger lists every judged passage with its offsets, rank and verdict
    assert entry.passages and entry.passages[0].rank == 0
    assert any("350" in c for p in entry.passages for c in p.contradicts)
    # and the headline counts it as a miss, not a citation pass
    assert grade.metrics.citation_precision == 0.0 and grade.metrics.citation_recall == 0.0

    right = f"The trail runs 250 miles from the coast [1].\n\n[1]: {httpserver.url_for('/trail')}\n"
    grade, _ = await _grade(right, tmp_path / "b")
    assert grade.claims[0].label == "SUPPORTED" and grade.metrics.citation_precision == 1.0


def test_chrome_passages_are_never_candidates():
    text = (
        "Archive | Trail | Miles | About | Skip to content\n"
        "Home > Trails > Long Trail > Miles\n"
        "The trail runs 250 miles from the coast to the lakes.\n"
    )
    index = PassageIndex(text)
    chosen = index.best("The trail is 250 miles long.", 3)
    assert chosen and all("|" not in text[s:e] and ">" not in text[s:e] for s, e in chosen)
    # a page of nothing but chrome has no candidate at all
    assert (
        PassageIndex("Archive | Trail | Miles | About\nHome > Trails > Miles\n").best("trail miles")
        == []
    )


def test_a_contradiction_among_the_most_relevant_beats_a_vague_partial_elsewhere():
    verdicts = [
        Verdict(verdict="NOT_SUPPORTED", judge="j"),
        Verdict(verdict="PARTIAL", judge="j"),
    ]
    judged = [
        JudgedPassage(char_start=0, char_end=10, rank=0, verdict="NOT_SUPPORTED",
                      contradicts=["350 miles"]),
        JudgedPassage(char_start=20, char_end=30, rank=1, verdict="PARTIAL"),
    ]  # fmt: skip
    assert choose_passage(verdicts, judged)[0] == 0
    # without a contradiction, the strongest verdict decides (the vaguer passage is kept)
    judged[0] = judged[0].model_copy(update={"contradicts": []})
    assert choose_passage(verdicts, judged)[0] == 1
    # and a passage that supports the claim always decides
    verdicts.append(Verdict(verdict="SUPPORTED", judge="j", quote_used="x"))
    judged.append(JudgedPassage(char_start=40, char_end=50, rank=2, verdict="SUPPORTED"))
    assert choose_passage(verdicts, judged) == (
        2,
        "the most relevant passage that supports the claim",
    )


async def test_a_source_that_does_not_name_the_subject_keeps_the_judges_verdict_with_a_flag(
    httpserver, tmp_path
):
    httpserver.expect_request("/trail").respond_with_data(PAGE, content_type="text/html")
    url = httpserver.url_for("/trail")
    md = f"Director Ann Okafor's park service opened the trail in 1932 [1].\n\n[1]: {url}\n"
    report = parse_text(md, "md")
    store = SnapshotStore(tmp_path / "snapshots")
    fetcher = make_fetcher(
        store, cited_hosts(report.cited_urls), allow_networks=["127.0.0.0/8", "::1/128"]
    )
    try:
        result = await grade_report(report, fetcher=fetcher, store=store, judges=["blind"])
    finally:
        await fetcher.aclose()
    entry = result.judges[0].claims[0]
    # the judge read the page and said SUPPORTED; code proves nothing against it. That the
    # page never names Ann Okafor is found (a signal the rules judge reads) but not shown as a
    # flag: pronoun flags did not beat the base rate (graders.audit.UNSHIPPED_FLAGS)
    assert entry.label == "SUPPORTED" and entry.verdict.proofs == []
    assert entry.verdict.flags == []
