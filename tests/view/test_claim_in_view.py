"""On a claim page the highlighted span is in view when the page opens, whatever context is
shown around it: the snapshot box opens at the span, not at the top of the page's text."""

from __future__ import annotations

import asyncio

import pytest

from tests.view.conftest import LiveServer, free_port


def _deep_span_run(home):
    """A run whose one claim cites a sentence 6,000 characters into its page."""
    from spanproof.agent.record import (
        AnswerClaim,
        DocumentRecord,
        PairVerdict,
        RunConfig,
        RunRecord,
    )
    from spanproof.agent.runstore import RunStore
    from spanproof.graders.judges import make_judge
    from spanproof.graders.verify import Verifier

    from spanproof.core.evidence import Span, make_span_id
    from spanproof.core.verdict import SpanRef
    from spanproof.web.env import SNAPSHOT_DIR
    from spanproof.web.snapshots import SnapshotStore

    filler = "".join(f"Paragraph {i} of the council's minutes records routine business.\n\n"
                     for i in range(90))  # fmt: skip
    sentence = "The council approved the new bridge on 3 March 2024."
    body = filler + sentence + "\n\nThe meeting closed at nine.\n"
    doc = SnapshotStore(home / SNAPSHOT_DIR).put(
        "https://council.example/minutes", body.encode(), content_type="text/plain"
    )
    start = doc.text.index(sentence)
    span = Span(span_id=make_span_id(doc.doc_id, start, start + len(sentence)),
                doc_id=doc.doc_id, url=doc.url, text=sentence, char_start=start,
                char_end=start + len(sentence), retrieved_at=doc.retrieved_at)  # fmt: skip
    verdict = asyncio.run(Verifier([make_judge("rules")]).verify(
        sentence, SpanRef(text=sentence, url=span.url, retrieved_at=span.retrieved_at)))  # fmt: skip
    record = RunRecord(
        run_id="run_deep_span", question="When was the bridge approved?", status="complete",
        config=RunConfig(policy="extractive", judges=["rules"]), spans=[span],
        documents=[DocumentRecord(doc_id=doc.doc_id, url=doc.url, final_url=doc.final_url,
                                  retrieved_at=doc.retrieved_at, sha256=doc.sha256)],
        verdicts=[PairVerdict(claim_index=0, span_id=span.span_id, verdict=verdict)],
    )  # fmt: skip
    record.answer.claims = [
        AnswerClaim(index=0, text=sentence, draft_text=sentence, span_ids=[span.span_id],
                    supporting_span_id=span.span_id, verdict=verdict, status="published"),
    ]  # fmt: skip
    RunStore.default(home).save(record)
    return record.run_id, span


@pytest.mark.parametrize("context", [800, 200_000])  # the default window, and "whole page"
def test_the_highlighted_span_is_visible_in_its_box_without_scrolling(tmp_path, browser,
                                                                      context):  # fmt: skip
    from spanproof.view.settings import ViewSettings

    run_id, span = _deep_span_run(tmp_path)
    with LiveServer(ViewSettings(home=tmp_path, port=free_port())) as server:
        browser.get(f"{server.url}/runs/{run_id}/claims/0?context={context}")
        box_top, box_height, mark_top, mark_bottom = browser.execute_script(
            "const box = document.getElementById(arguments[0]);"
            "const mark = document.getElementById(arguments[1]);"
            "const b = box.getBoundingClientRect(), m = mark.getBoundingClientRect();"
            "return [b.top, box.clientHeight, m.top, m.bottom];",
            f"doc-{span.span_id}", f"hl-{span.span_id}",
        )  # fmt: skip
        text = browser.execute_script(
            "return document.getElementById(arguments[0]).textContent", f"doc-{span.span_id}"
        )
    # the whole highlight inside the part of the box shown when the page opens
    assert box_top <= mark_top and mark_bottom <= box_top + box_height, (
        f"the span ends {mark_bottom - box_top:.0f}px into a box showing {box_height}px"
    )
    # every character of the context is still there, folded above the span
    assert "Paragraph 89 of the council" in text and span.text in text
