"""On a claim page the highlighted span is in view when the page opens, whatever context is
shown around it: the snapshot box opens at the span, not at the top of the page's text."""

from __future__ import annotations

from spanproof.agent.runstore import RunStore, default_runstore_path


def test_the_highlighted_span_is_visible_in_its_box_without_scrolling(built_home, live_view,
                                                                      browser):  # fmt: skip
    home, run_id = built_home["home"], built_home["ask_run"]
    record = RunStore(default_runstore_path(home)).get(run_id)
    shown = [c for c in record.answer.claims if c.supporting_span_id]
    # the claim whose span sits deepest in its page: the one most likely to open out of view
    claim = max(shown, key=lambda c: record.span(c.supporting_span_id).char_start)
    span = record.span(claim.supporting_span_id)
    assert span.char_start > 1000, "precondition: a span far enough down its page"
    for context in (800, 200_000):  # the default window, and "whole page"
        browser.get(f"{live_view.url}/runs/{run_id}/claims/{claim.index}?context={context}")
        box_top, box_height, mark_top, mark_bottom = browser.execute_script(
            "const box = document.getElementById(arguments[0]);"
            "const mark = document.getElementById(arguments[1]);"
            "const b = box.getBoundingClientRect(), m = mark.getBoundingClientRect();"
            "return [b.top, box.clientHeight, m.top, m.bottom];",
            f"doc-{span.span_id}", f"hl-{span.span_id}",
        )  # fmt: skip
        assert box_top <= mark_top and mark_top - box_top < box_height / 2, (
            f"context {context}: the span starts {mark_top - box_top:.0f}px into a box "
            f"{box_height}px tall"
        )
        # every character of the context is still there, folded above the span
        text = browser.execute_script(
            "return document.getElementById(arguments[0]).textContent", f"doc-{span.span_id}"
        )
        assert span.text in text
