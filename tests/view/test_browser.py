"""End to end in a real headless Chromium: read a run, review its claims, compare gate results."""

from __future__ import annotations

import asyncio
import re

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from spanproof.agent.runstore import RunStore, default_runstore_path
from spanproof.graders.judges import make_judge
from spanproof.graders.verify import Verifier

from spanproof.core.verdict import SpanRef
from spanproof.web.env import SNAPSHOT_DIR
from spanproof.web.snapshots import SnapshotStore


def _text(driver, css: str) -> str:
    return driver.find_element(By.CSS_SELECTOR, css).get_attribute("textContent")


def _left_document(element) -> bool:
    """True once the old page's element is gone. Chromium reports a node of an unloaded
    document either as stale or as "does not belong to the document"; both mean the same."""
    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return True
        raise
    return False


def _follow(driver, element) -> None:
    """Click a link or button and wait for the page it leads to (never read the old one)."""
    element.click()
    WebDriverWait(driver, 30).until(lambda _driver: _left_document(element))


def _review(driver, decision: str, note: str, edited: str | None = None) -> None:
    form = driver.find_element(By.ID, "review-form")
    box = form.find_element(By.NAME, "note")
    box.clear()
    box.send_keys(note)
    if edited is not None:
        area = form.find_element(By.ID, "edited-text")
        area.clear()
        area.send_keys(edited)
    _follow(driver, form.find_element(By.ID, f"btn-{decision}"))


def _supported(claim: str, span) -> bool:
    verifier = Verifier([make_judge("rules")])
    ref = SpanRef(text=span.text, url=span.url, retrieved_at=span.retrieved_at)
    return asyncio.run(verifier.verify(claim, ref)).supported


def test_review_a_run_and_compare_gates_in_chromium(built_home, live_view, browser, screenshots):
    home, run_id = built_home["home"], built_home["ask_run"]
    record = RunStore(default_runstore_path(home)).get(run_id)
    shown = [c for c in record.answer.claims if c.status != "dropped"]
    assert len(shown) >= 3, f"the offline ask run needs 3 shown claims to review, got {len(shown)}"
    approve, edit, cut = shown[0], shown[1], shown[2]

    # The run list links to the run; the run page shows its claim ledger.
    browser.get(live_view.url + "/runs")
    _follow(browser, browser.find_element(By.LINK_TEXT, run_id))
    assert _text(browser, "#question") == record.question
    assert len(browser.find_elements(By.CSS_SELECTOR, "#ledger tbody tr")) == len(
        record.answer.claims
    )
    browser.save_screenshot(str(screenshots / "run.png"))

    # Open a claim: the highlight is the snapshot's text at the span's exact offsets.
    _follow(browser, browser.find_element(By.CSS_SELECTOR, f"#claim-row-{edit.index} a.claim-link"))
    span = record.span(edit.supporting_span_id)
    stored = SnapshotStore(home / SNAPSHOT_DIR).text(span.doc_id)
    mark = browser.find_element(By.ID, f"hl-{span.span_id}")
    assert mark.get_attribute("textContent") == stored[span.char_start : span.char_end]
    assert int(mark.get_attribute("data-char-start")) == span.char_start
    quote = edit.verdict.quote_used
    if quote:
        assert _text(browser, f"#hl-{span.span_id} mark.quote") in span.text
    assert _text(browser, "#span-url") == span.url
    assert _text(browser, "#span-retrieved") == span.retrieved_at

    # A bad edit (a year the span never states) is refused by the verifier, and nothing is stored.
    bad = edit.text.rstrip(". ") + " in 1850."
    assert not _supported(bad, span), "precondition: the verifier must refuse the bad edit"
    _review(browser, "edit", "adds a date", edited=bad)
    assert "did not support the edited claim" in _text(browser, "#review-refused")
    assert "not reviewed" in _text(browser, "#decision-in-force")

    # A good edit (the span's own words) passes the same verifier and is stored.
    good = " ".join(span.text.split())
    assert _supported(good, span), "precondition: the verifier must support the span's own words"
    _review(browser, "edit", "quote it exactly", edited=good)
    assert "Stored: edit" in _text(browser, "#review-done")
    browser.save_screenshot(str(screenshots / "claim.png"))

    # Approve one claim, cut another.
    browser.get(f"{live_view.url}/runs/{run_id}/claims/{approve.index}")
    _review(browser, "approve", "checked against the page")
    assert "Stored: approve" in _text(browser, "#review-done")
    browser.get(f"{live_view.url}/runs/{run_id}/claims/{cut.index}")
    _review(browser, "cut", "off the question")
    assert "Stored: cut" in _text(browser, "#review-done")

    # Reload the run: every decision persisted, with the reviewer's name.
    browser.get(f"{live_view.url}/runs/{run_id}")
    browser.refresh()
    for claim, decision in ((approve, "approve"), (edit, "edit"), (cut, "cut")):
        cell = _text(browser, f"#claim-row-{claim.index} .review-cell")
        assert cell.startswith(decision) and "rev-one" in cell, cell
    assert len(browser.find_elements(By.CSS_SELECTOR, "#review-log tbody tr")) == 3

    # Gate results: open one (checks, plots, calibration cell to its pairs), then compare two.
    browser.get(live_view.url + "/gates")
    rows = browser.find_elements(By.CSS_SELECTOR, "#gates tbody tr")
    assert len(rows) == 3
    # one word each: a broken floor, a regression against the baseline, a pass
    outcomes = {r.find_element(By.CSS_SELECTOR, "td.outcome").text: r for r in rows}
    assert set(outcomes) == {"FAILED", "REGRESSED", "PASSED"}
    colours = {r.find_element(By.CSS_SELECTOR, "td.outcome").value_of_css_property("color")
               for r in rows}  # fmt: skip
    assert len(colours) == 3, colours  # told apart at a glance, not only by the word
    browser.save_screenshot(str(screenshots / "gates.png"))
    _follow(browser, outcomes["REGRESSED"].find_element(By.CSS_SELECTOR, "a"))
    regressed = browser.find_element(By.ID, "row-calibration.agreement")
    assert regressed.find_element(By.TAG_NAME, "td").text == "REGRESSED"
    assert "moved the wrong way" in regressed.text  # the pairs that moved are named
    browser.back()
    passed = next(r for r in browser.find_elements(By.CSS_SELECTOR, "#gates tbody tr")
                  if r.find_element(By.CSS_SELECTOR, "td.outcome").text == "PASSED")  # fmt: skip
    _follow(browser, passed.find_element(By.CSS_SELECTOR, "a"))
    assert browser.find_elements(By.CSS_SELECTOR, "#checks tbody tr")
    assert browser.find_elements(By.CSS_SELECTOR, "figure img")
    browser.save_screenshot(str(screenshots / "gate.png"))
    cell = browser.find_element(By.CSS_SELECTOR, "table.confusion a.disagreement")
    expected = int(cell.text)
    _follow(browser, cell)
    assert _text(browser, "#item-count").startswith(f"{expected} pair")
    gold, said = re.search(r"gold=([A-Z_]+)&verdict=([A-Z_]+)", browser.current_url).groups()
    for row in browser.find_elements(By.CSS_SELECTOR, "#calibration-items tbody tr"):
        cells = row.find_elements(By.TAG_NAME, "td")
        assert (cells[5].text, cells[6].text) == (gold, said)

    browser.get(live_view.url + "/gates")
    _follow(browser, browser.find_element(By.ID, "btn-compare"))
    moved = browser.find_elements(By.CSS_SELECTOR, "#check-moves tr.moved")
    names = {r.get_attribute("data-check") for r in moved}
    assert "calibration.agreement" in names, names  # rules vs the blind canary must move
    assert re.match(r"\d+ of \d+ checks moved", _text(browser, "#moved-count"))
    browser.save_screenshot(str(screenshots / "compare.png"))


def test_markup_in_a_page_is_shown_as_text_and_never_runs(markup_view, browser):
    from tests.view.homes import HOSTILE_MARKUP

    run_id = markup_view.run_id
    for path in ("/runs", f"/runs/{run_id}", f"/runs/{run_id}/claims/0"):
        browser.get(markup_view.url + path)
        assert browser.title != "pwned", path
        assert browser.execute_script("return document.querySelectorAll('script').length") == 0
        assert (
            browser.execute_script("return document.querySelectorAll('img[onerror]').length") == 0
        )
        assert HOSTILE_MARKUP in browser.find_element(By.TAG_NAME, "body").get_attribute(
            "textContent"
        )
