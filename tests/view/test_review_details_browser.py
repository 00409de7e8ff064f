"""The viewer's review details in a real headless Chromium, on a real offline run: the answer
and the ledger number claims alike; the agent's draft confidence is labelled as the agent's;
an accepted edit shows everywhere and stays in the edit box; a refused edit gives the human
reason first; cached verdicts show on the judges page; a reviewer signs a run only when every
remaining claim is vouched for or decided, and the signature reaches the ledger exports."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from spanproof.agent.record import AnswerClaim, RunConfig, RunRecord
from spanproof.agent.runstore import RunStore, default_runstore_path

from spanproof.core.verdict import Flag, Verdict
from spanproof.store import open_store
from tests.view import homes
from tests.view.conftest import LiveServer, free_port
from tests.view.test_browser import _follow, _review, _supported, _text


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory):
    """A home with one real offline `ask` run, served on loopback."""
    from spanproof.view.settings import ViewSettings

    home = tmp_path_factory.mktemp("details-home")
    run_id = homes.ask_run(home)
    record = RunStore(default_runstore_path(home)).get(run_id)
    with LiveServer(ViewSettings(home=home, port=free_port(), reviewer="rev-three")) as server:
        yield server, home, record


def test_the_answer_and_the_ledger_number_claims_alike(reviewed, browser, screenshots):
    server, _, record = reviewed
    browser.get(f"{server.url}/runs/{record.run_id}")
    cited = re.findall(r"\[(\d+)\]", _text(browser, "#summary"))
    assert cited, "precondition: the answer cites its claims"
    numbers = [c.text for c in browser.find_elements(By.CSS_SELECTOR, "#ledger td.citation")]
    shown = [n for n in numbers if n != "dropped"]
    # the ledger lists claims in review order; its numbers are the answer's [1] .. [n]
    assert sorted(shown, key=lambda s: int(s[1:-1])) == [f"[{n}]" for n in range(1, len(shown) + 1)]
    assert {f"[{n}]" for n in cited} <= set(shown)
    first = next(c for c in record.answer.claims if c.status != "dropped")
    _follow(browser, browser.find_element(By.CSS_SELECTOR, f"#claim-row-{first.index} a"))
    assert _text(browser, "#claim-title") == "Claim [1]"
    assert browser.title.startswith("Claim [1] of ")


def test_the_draft_confidence_is_labelled_as_the_agents_not_the_judges(reviewed, browser):
    server, _, record = reviewed
    claim = record.answer.shown[0]
    browser.get(f"{server.url}/runs/{record.run_id}/claims/{claim.index}")
    mine = _text(browser, "#agent-draft")
    assert "The agent's own view" in mine and f"draft confidence {claim.confidence}" in mine
    assert "confidence" not in _text(browser, "#verifier-fields")


def test_a_refused_edit_gives_the_human_reason_before_the_judges_numbers(reviewed, browser):
    server, _, record = reviewed

    def bad(c: AnswerClaim) -> str:
        return c.text.rstrip(". ") + " in 1850."

    # a claim whose edit the verifier refuses (a year its span never states)
    claim = next(c for c in record.answer.shown
                 if not _supported(bad(c), record.span(c.supporting_span_id)))  # fmt: skip
    browser.get(f"{server.url}/runs/{record.run_id}/claims/{claim.index}")
    _review(browser, "edit", "adds a year", edited=bad(claim))
    card = browser.find_element(By.ID, "review-refused")
    reasons = card.find_element(By.ID, "refused-reasons")
    lines = reasons.text.splitlines()
    assert lines[0].startswith("verifier: ") and lines[1].startswith(("proof: ", "needs a look: "))
    assert "1850" in lines[1]
    checks = card.find_element(By.ID, "refused-checks")
    # the reasons come first; the judge's numbers are folded away below them
    assert reasons.location["y"] < checks.location["y"]
    assert checks.get_attribute("open") is None
    assert not any(e.is_displayed() for e in checks.find_elements(By.TAG_NAME, "div"))


def test_an_accepted_edit_shows_in_the_answer_the_ledger_and_the_edit_box(
    reviewed, browser, screenshots
):
    server, _, record = reviewed

    def narrowed(c: AnswerClaim) -> str:  # the claim without its middle clauses
        parts = c.text.split(", ")
        return f"{parts[0]} {parts[-1]}" if len(parts) > 2 else c.text

    # a claim whose narrowed wording the verifier supports (a different, good edit)
    claim = next(c for c in record.answer.shown if narrowed(c) != c.text
                 and _supported(narrowed(c), record.span(c.supporting_span_id)))  # fmt: skip
    good = narrowed(claim)
    browser.get(f"{server.url}/runs/{record.run_id}/claims/{claim.index}")
    _review(browser, "edit", "quote it exactly", edited=good)
    assert "Stored: edit" in _text(browser, "#review-done")
    assert _text(browser, "#claim-text") == good
    assert browser.find_element(By.ID, "edited-text").get_attribute("value") == good
    browser.refresh()
    assert browser.find_element(By.ID, "edited-text").get_attribute("value") == good
    browser.get(f"{server.url}/runs/{record.run_id}")
    assert good in _text(browser, "#summary") and claim.text not in _text(browser, "#summary")
    assert good in _text(browser, f"#claim-row-{claim.index} a.claim-link")
    browser.save_screenshot(str(screenshots / "run-after-edit.png"))


def test_the_judges_page_shows_verdicts_already_in_the_cache(tmp_path, browser):
    from spanproof.view.settings import ViewSettings

    # one viewer judges the shipped set with `rules` (the button), caching every verdict ...
    with LiveServer(ViewSettings(home=tmp_path, port=free_port())) as server:
        browser.get(f"{server.url}/judges?judge=rules")
        _follow(browser, browser.find_element(By.CSS_SELECTOR, "#run-judges button"))
        assert browser.find_elements(By.ID, "side-by-side")
    # ... and a viewer started later shows those verdicts on opening the page
    with LiveServer(ViewSettings(home=tmp_path, port=free_port())) as server:
        browser.get(f"{server.url}/judges?judge=rules")
        assert browser.find_elements(By.ID, "side-by-side")
        assert not browser.find_elements(By.ID, "run-judges")
        # a judge with nothing cached still waits for the button (no judge runs on a GET)
        browser.get(f"{server.url}/judges?judge=rules&judge=blind")
        assert "Not judged yet" in _text(browser, "#run-judges")
        assert not browser.find_elements(By.ID, "side-by-side")


def _needs_decisions(home) -> RunRecord:
    """A complete run whose brief holds a flagged claim and a narrowed PARTIAL one."""
    claims = [
        AnswerClaim(index=0, text="The museum opened in 1901.", draft_text="x", span_ids=[],
                    verdict=Verdict(verdict="SUPPORTED", judge="rules"), status="published"),
        AnswerClaim(index=1, text="It holds 4,000 paintings.", draft_text="x", span_ids=[],
                    verdict=Verdict(verdict="SUPPORTED", judge="rules",
                                    flags=[Flag(kind="number", reason="number not stated: 4,000")]),
                    status="flagged"),
        AnswerClaim(index=2, text="It is closed on Mondays and Tuesdays.", draft_text="x",
                    span_ids=[], verdict=Verdict(verdict="PARTIAL", judge="rules"),
                    status="narrowed"),
    ]  # fmt: skip
    record = RunRecord(run_id="run_to_sign", question="About the museum?", status="complete",
                       config=RunConfig(policy="extractive", judges=["rules"]))  # fmt: skip
    record.answer.claims = claims
    RunStore.default(home).save(record)
    return record


def test_a_run_is_signed_only_once_every_remaining_claim_is_decided(tmp_path, browser, screenshots):
    from spanproof.view.settings import ViewSettings

    record = _needs_decisions(tmp_path)
    store = open_store(home=tmp_path)
    with LiveServer(ViewSettings(home=tmp_path, port=free_port(), reviewer="rev-four")) as server:
        browser.get(f"{server.url}/runs/{record.run_id}")
        waiting = _text(browser, "#waiting-on")
        assert "claim [2] has no decision" in waiting and "claim [3] has no decision" in waiting
        _follow(browser, browser.find_element(By.ID, "btn-sign"))
        assert "cannot be signed yet" in _text(browser, "#sign-refused")
        assert store.signatures([record.run_id]) == {}
        store.add_review(record.run_id, 1, "approve", reviewer="rev-four")
        store.add_review(record.run_id, 2, "cut", reviewer="rev-four", label="PARTIAL")
        browser.get(f"{server.url}/runs/{record.run_id}")
        assert not browser.find_elements(By.ID, "waiting-on")
        name = browser.find_element(By.CSS_SELECTOR, "#sign-form input[name=reviewer]")
        name.clear()  # the browser remembers the last reviewer's name
        name.send_keys("rev-four")
        _follow(browser, browser.find_element(By.ID, "btn-sign"))
        assert "Signed by rev-four at " in _text(browser, "#signoff-state")
        assert not browser.find_elements(By.ID, "sign-form")
        browser.save_screenshot(str(screenshots / "run-signed.png"))
        with urllib.request.urlopen(f"{server.url}/runs/{record.run_id}/ledger.json") as r:
            rows = json.load(r)
        assert {row["signed_by"] for row in rows} == {"rev-four"}
        assert sorted(row["citation"] for row in rows) == [1, 2, 3]  # rows in review order
        with urllib.request.urlopen(f"{server.url}/runs/{record.run_id}/ledger.md") as r:
            assert r.read().decode().startswith("_Signed by rev-four at ")
        # a later decision puts the run back to waiting
        store.add_review(record.run_id, 0, "cut", reviewer="rev-four", label="NOT_SUPPORTED")
        browser.get(f"{server.url}/runs/{record.run_id}")
        assert "Waiting for a signature" in _text(browser, "#signoff-state")
        assert "a decision was recorded after the last signature" in _text(
            browser, "#signoff-state"
        )
