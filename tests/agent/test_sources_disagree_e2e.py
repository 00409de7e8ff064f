"""Two real pages on a loopback server state different values for the slot a claim fills: the
agent's run (``run_question``, the path `spanproof ask` takes, with the real rules judge and
publication) fetches both over HTTP, holds the claim for a person and records both values
with their offsets in the stored run record."""

from __future__ import annotations

import asyncio
import re

from spanproof.agent.chat import ScriptedChatModel
from spanproof.agent.run import run_question
from spanproof.agent.runstore import RunStore, default_runstore_path
from spanproof.graders.judges import make_judge
from spanproof.graders.verify import Verifier

from spanproof.web.env import live_web
from spanproof.web.search import StaticSearch
from spanproof.web.snapshots import SnapshotStore
from tests.agent.scripting import call, calls, doc_id_for, draft, hit_url, span_ids

QUESTION = "How many loans did Thornbury Libraries record in 2024?"
COUNCIL = (
    "<html><head><title>Thornbury Libraries: annual report 2024</title></head><body>"
    "<p>Thornbury Libraries recorded 318,400 loans in 2024, the council's annual report says.</p>"
    "<p>The central library reopened in March after a roof repair.</p></body></html>"
)
NEWS = (
    "<html><head><title>Library loans fall in Thornbury</title></head><body>"
    "<p>Thornbury Libraries recorded 280,100 loans in 2024, the council's annual report says.</p>"
    "<p>Opening hours at the branch libraries are unchanged.</p></body></html>"
)


def _run(httpserver, tmp_path, pages: dict[str, str]):
    for path, page in pages.items():
        httpserver.expect_request(path).respond_with_data(page, content_type="text/html")
    served = [(httpserver.url_for(path), page) for path, page in pages.items()]
    env = live_web(
        tmp_path, ["localhost", "127.0.0.1"], StaticSearch.from_html(served),
        allow_networks=["127.0.0.0/8", "::1/128"],
    )  # fmt: skip
    store = RunStore(default_runstore_path(tmp_path))
    claim = "Thornbury Libraries recorded 318,400 loans in 2024."
    # a model that reads both pages, as a careful one does, and quotes the first
    model = ScriptedChatModel(
        [
            call("web_search", query="Thornbury Libraries loans 2024"),
            lambda m: calls(
                ("fetch_page", {"url": hit_url(m, "/council")}),
                ("fetch_page", {"url": hit_url(m, "/news")}),
            ),
            lambda m: call("extract_quote", doc_id=doc_id_for(m, "/council"),
                           locator="Thornbury Libraries recorded 318,400 loans"),
            lambda m: draft([{"text": claim, "span_ids": span_ids(m)[:1]}]),
        ]
    )  # fmt: skip

    async def go():
        try:
            return await run_question(
                QUESTION, env=env, policy="llm", model=model, convergence="off",
                targeted_round=False, verifier=Verifier([make_judge("rules")]), store=store,
            )  # fmt: skip
        finally:
            await env.aclose()

    record = asyncio.run(go())
    return record, store.get(record.run_id)


def _offsets(reason: str, value: str, url: str) -> tuple[int, int]:
    m = re.search(rf"'{re.escape(value)}' at {re.escape(url)} \[(\d+):(\d+)\]", reason)
    assert m, (value, url, reason)
    return int(m.group(1)), int(m.group(2))


def test_two_loopback_pages_that_disagree_hold_the_claim_with_both_values(httpserver, tmp_path):
    record, stored = _run(httpserver, tmp_path, {"/council": COUNCIL, "/news": NEWS})
    council, news = httpserver.url_for("/council"), httpserver.url_for("/news")
    # both pages were really fetched from the server
    assert {r.path for r, _ in httpserver.log} >= {"/council", "/news"}
    assert stored is not None and stored.needs_human and record.needs_human
    held = [c for c in stored.answer.claims if c.status == "held"]
    assert held, [(c.status, c.reason) for c in stored.answer.claims]
    assert not stored.answer.shown  # neither value reaches the reader
    reason = stored.needs_human_reason or ""
    assert "two sources disagree" in reason
    snapshots = SnapshotStore(tmp_path / "snapshots")
    stored_text = {d.url: snapshots.text(d.doc_id) for d in stored.documents}
    for value, url in (("318,400", council), ("280,100", news)):
        start, end = _offsets(reason, value, url)
        assert stored_text[url][start:end] == value  # the offsets point at the value itself
    # each held claim names both values and where they stand
    for claim in held:
        said = claim.needs_human_reason or ""
        assert "318,400" in said and "280,100" in said
    assert stored.metrics.claims_held == len(held) and stored.metrics.claims_dropped == 0


def test_the_same_pages_agreeing_publish_without_a_person(httpserver, tmp_path):
    agreeing = NEWS.replace("280,100", "318,400")
    _, stored = _run(httpserver, tmp_path, {"/council": COUNCIL, "/news": agreeing})
    assert stored is not None and not stored.needs_human
    assert stored.answer.shown and all(c.status != "held" for c in stored.answer.claims)
