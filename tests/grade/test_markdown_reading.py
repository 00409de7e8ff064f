"""grade reads markdown as CommonMark does (markdown-it-py): code is not prose, a setext
"Sources" heading is a heading, and links are what the syntax says they are."""

from __future__ import annotations

from spanproof.bench.report_input import parse_text


def _cites(report):
    return [(s.text, [c.url for c in s.citations]) for s in report.sentences]


def test_a_link_inside_a_code_span_is_not_a_citation():
    md = "Run `curl [docs](https://evil.example/x)` to fetch it [1].\n\n[1]: https://a.example/\n"
    r = parse_text(md, "md")
    assert _cites(r) == [
        ("Run curl [docs](https://evil.example/x) to fetch it.", ["https://a.example/"])
    ]


def test_an_indented_code_block_is_not_graded_as_prose():
    md = "Sales rose [1].\n\n    Costs fell 90% [2].\n\n[1]: https://a.example/\n[2]: https://b.example/\n"
    r = parse_text(md, "md")
    assert [s.text for s in r.sentences] == ["Sales rose."]


def test_a_setext_sources_heading_is_a_heading_not_a_claim():
    md = (
        "Sales rose [1].\n\nSources\n-------\n\nReuters, https://a.example/x\n\n"
        "[1]: https://a.example/\n"
    )
    r = parse_text(md, "md")
    assert [s.text for s in r.sentences] == ["Sales rose."]


def test_a_link_destination_in_angle_brackets_may_hold_spaces():
    r = parse_text("Sales rose [per the filing](<https://a.example/q4 report.pdf>).", "md")
    assert _cites(r) == [("Sales rose per the filing.", ["https://a.example/q4%20report.pdf"])]


def test_emphasis_and_html_do_not_leak_markup_into_claims():
    r = parse_text("Sales **rose** 12% in *2023* [1].\n\n[1]: https://a.example/\n", "md")
    assert r.sentences[0].text == "Sales rose 12% in 2023."
