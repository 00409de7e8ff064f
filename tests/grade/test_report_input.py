"""Citation parsing for every markdown style and for JSON, and errors that name the line."""

from __future__ import annotations

import json

import pytest

from spanproof.bench.report_input import ReportFormatError, parse_report, parse_text


def _cites(report):
    return [(s.text, [(c.url, c.style, c.scope) for c in s.citations]) for s in report.sentences]


def test_inline_link_over_prose_keeps_words():
    r = parse_text("The [annual report](https://a.example/ar) shows revenue grew 12%.", "md")
    assert _cites(r) == [
        (
            "The annual report shows revenue grew 12%.",
            [("https://a.example/ar", "inline", "sentence")],
        )
    ]


def test_inline_link_as_source_label_is_dropped_from_text():
    r = parse_text(
        "Revenue grew 12% ([Reuters](https://r.example/a)). Margin fell. [Source](https://b.example/)",
        "md",
    )
    assert r.sentences[0].text == "Revenue grew 12%."
    assert r.sentences[0].citations[0].url == "https://r.example/a"
    assert r.sentences[1].text == "Margin fell."
    assert r.sentences[1].citations[0].url == "https://b.example/"


def test_reference_links_full_collapsed_and_titled():
    md = 'See [the filing][f] and the [Ledger][] for detail.\n\n[f]: https://f.example/q4 "Q4"\n[ledger]: <https://l.example/>\n'
    r = parse_text(md, "md")
    assert r.sentences[0].text == "See the filing and the Ledger for detail."
    assert [(c.url, c.style) for c in r.sentences[0].citations] == [
        ("https://f.example/q4", "reference"),
        ("https://l.example/", "reference"),
    ]


def test_caret_footnotes_with_text_definitions():
    md = "Sales rose.[^a] Costs fell.[^2]\n\n[^a]: Company filing, 2023, https://f.example/x.\n[^2]: <https://g.example/y>\n"
    r = parse_text(md, "md")
    assert _cites(r) == [
        ("Sales rose.", [("https://f.example/x", "footnote", "sentence")]),
        ("Costs fell.", [("https://g.example/y", "footnote", "sentence")]),
    ]


def test_numbered_footnotes_lists_and_ranges():
    md = "Sales rose [1]. Costs fell [2, 3]. Profit doubled [1-3].\n\n[1] https://one.example/\n[2]: https://two.example/\n[3]: https://three.example/\n"
    r = parse_text(md, "md")
    assert [s.text for s in r.sentences] == ["Sales rose.", "Costs fell.", "Profit doubled."]
    assert [len(s.citations) for s in r.sentences] == [1, 2, 3]
    assert r.sentences[1].citations[1].url == "https://three.example/"


def test_bracketed_numbers_without_sources_are_text():
    r = parse_text("Index [3] is the third <https://a.example/>.", "md")
    assert r.sentences[0].text == "Index [3] is the third."
    assert r.sentences[0].citations[0].style == "autolink"


def test_autolinks():
    r = parse_text("Revenue grew 12% <https://a.example/p>.", "md")
    assert _cites(r) == [("Revenue grew 12%.", [("https://a.example/p", "autolink", "sentence")])]


def test_paragraph_final_citation_covers_uncited_sentences_and_is_marked():
    md = "Revenue grew. Margin fell. Costs were flat.[1]\n\nOwn cite [2]. Then the end [1].\n\n[1]: https://a.example/\n[2]: https://b.example/\n"
    r = parse_text(md, "md")
    first = r.sentences[:3]
    assert all(s.citations[0].url == "https://a.example/" for s in first)
    assert all(s.citations[0].scope == "paragraph" for s in first)
    assert len({s.citations[0].occurrence for s in first}) == 1  # one written marker, shared
    # a paragraph whose sentences cite for themselves keeps sentence scope
    second = r.sentences[3:]
    assert [(s.citations[0].url, s.citations[0].scope) for s in second] == [
        ("https://b.example/", "sentence"),
        ("https://a.example/", "sentence"),
    ]


def test_mid_sentence_citation_does_not_cover_paragraph():
    md = "Sales rose. According to [Reuters](https://r.example/), costs fell.\n"
    r = parse_text(md, "md")
    assert r.sentences[0].citations == []
    assert r.sentences[1].citations[0].scope == "sentence"


def test_headings_lists_code_tables_are_structure_not_claims():
    md = "# Title\n\n- Item one [1].\n- Item two.\n\n```\nnot [a](https://x.example/) claim\n```\n\n| a | b |\n\n[1]: https://a.example/\n"
    r = parse_text(md, "md")
    assert [s.text for s in r.sentences] == ["Item one.", "Item two."]
    assert r.sentences[1].citations == []  # list items are separate paragraphs


def test_sentence_lines_are_recorded():
    r = parse_text("# T\n\nFirst line.\nSecond line [1].\n\n[1]: https://a.example/\n", "md")
    assert [s.line for s in r.sentences] == [3, 4]


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("Fine.\n\nBad [x](foo) link.\n", 3, "not an absolute http(s) URL"),
        ("Fine.\nSee [^3] here.\n\n[^1]: https://a.example/\n", 2, "[^3]"),
        ("A [1].\n\nB [4].\n\n[1]: https://a.example/\n", 3, "[4]"),
        ("One.\nOpen [link](https://a.example/ here.\n", 2, "never closed"),
        ("A [r][nope].\n", 1, "no definition"),
        ("A [1].\n\n[1]: see the annual report\n", 3, "has no URL"),
    ],
)
def test_malformed_markdown_names_the_line(text, line, fragment):
    with pytest.raises(ReportFormatError) as err:
        parse_text(text, "md")
    assert err.value.line == line
    assert f"line {line}" in str(err.value) and fragment in str(err.value)


def test_report_that_cites_nothing_is_an_error():
    with pytest.raises(ReportFormatError, match="cites nothing"):
        parse_text("Just prose.", "md")


def test_json_claims():
    data = {
        "claims": [
            {"text": "Sales rose.", "citations": ["https://a.example/"]},
            {"text": "Costs fell.", "citations": []},
        ]
    }
    r = parse_text(json.dumps(data, indent=2), "json")
    assert _cites(r) == [
        ("Sales rose.", [("https://a.example/", "json", "sentence")]),
        ("Costs fell.", []),
    ]
    assert r.sentences[1].line == 10


def test_json_wrapping_markdown():
    r = parse_text(json.dumps({"report": "Sales rose [1].\n\n[1]: https://a.example/"}), "json")
    assert r.format == "json" and r.sentences[0].citations[0].url == "https://a.example/"


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ('{\n  "claims": [\n    {"text": "x",\n  ]\n}', 4, "not valid JSON"),
        (
            '{\n  "claims": [\n    {"text": "Sales rose.", "citations": "https://a.example/"}\n  ]\n}',
            3,
            "citations",
        ),
        (
            '{\n  "claims": [\n    {"text": "Sales rose.", "citations": ["nope"]}\n  ]\n}',
            3,
            "'nope'",
        ),
        ('{"answer": "x"}', 1, '{"claims"'),
    ],
)
def test_malformed_json_names_the_line(text, line, fragment):
    with pytest.raises(ReportFormatError) as err:
        parse_text(text, "json")
    assert err.value.line == line and fragment in str(err.value)


def test_parse_report_detects_format(tmp_path):
    md = tmp_path / "r.md"
    md.write_text("Sales rose [1].\n\n[1]: https://a.example/\n")
    js = tmp_path / "r.json"
    js.write_text(
        json.dumps({"claims": [{"text": "Sales rose.", "citations": ["https://a.example/"]}]})
    )
    assert parse_report(md).format == "md" and parse_report(js).format == "json"
    with pytest.raises(ReportFormatError, match="no such report"):
        parse_report(tmp_path / "missing.md")


def test_bare_urls_cite_and_sources_sections_are_not_claims():
    md = (
        "Revenue grew 12% https://a.example/x. Costs fell (https://b.example/y).\n\n"
        "## Sources\n\n1. Reuters, https://a.example/x\n2. https://b.example/y\n\n"
        "## Outlook\n\nProfit will rise [1].\n\n[1]: https://c.example/\n"
    )
    r = parse_text(md, "md")
    assert _cites(r) == [
        ("Revenue grew 12%.", [("https://a.example/x", "autolink", "sentence")]),
        ("Costs fell.", [("https://b.example/y", "autolink", "sentence")]),
        ("Profit will rise.", [("https://c.example/", "footnote", "sentence")]),
    ]


def test_link_opening_a_sentence_keeps_its_words():
    r = parse_text(
        "Sales rose. [Reuters](https://r.example/) reported a loss. Costs fell. [AP](https://ap.example/)",
        "md",
    )
    assert [s.text for s in r.sentences] == [
        "Sales rose.",
        "Reuters reported a loss.",
        "Costs fell.",
    ]
    assert r.sentences[2].citations[0].url == "https://ap.example/"
