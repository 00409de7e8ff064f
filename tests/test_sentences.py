"""The one sentence splitter: abbreviations that end or do not end a sentence."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spanproof.agent.tools import Toolbox

from spanproof.core.evidence import Document, make_doc_id
from spanproof.core.sentences import sentence_ends, sentence_spans
from spanproof.core.tool_schema import ExtractQuoteArgs


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a clock time's a.m./p.m. followed by what continues the time stays in its sentence
        (
            "Soyuz MS-06 launched at 5:17 p.m. EDT on Sept. 12, 2017, from Baikonur. It docked.",
            ["Soyuz MS-06 launched at 5:17 p.m. EDT on Sept. 12, 2017, from Baikonur.", "It docked."],
        ),
        ("It opened at 9 a.m. Monday. Sales were good.", ["It opened at 9 a.m. Monday.", "Sales were good."]),
        ("Call before 5 p.m. Tuesday through Friday.", ["Call before 5 p.m. Tuesday through Friday."]),
        ("Doors open 7 p.m. ET, show at 8.", ["Doors open 7 p.m. ET, show at 8."]),
        ("The launch was at 11 a.m. on March 3. Fine.", ["The launch was at 11 a.m. on March 3.", "Fine."]),
        # ... and one followed by a new sentence still ends it
        ("The meeting ended at 5 p.m. The next day, he left.", ["The meeting ended at 5 p.m.", "The next day, he left."]),
        ("Watch at 8 p.m. CBS will air it.", ["Watch at 8 p.m.", "CBS will air it."]),
        # an initialism or address/company abbreviation that ends a sentence ends it
        (
            "The company is based in Brookings, S.D. The company was founded by Al Kurtenbach.",
            ["The company is based in Brookings, S.D.", "The company was founded by Al Kurtenbach."],
        ),
        ("He was born in Washington, D.C. He grew up there.", ["He was born in Washington, D.C.", "He grew up there."]),
        ("He lives on Main St. The house is red.", ["He lives on Main St.", "The house is red."]),
        ("Shares of Apple Inc. The company fell.", ["Shares of Apple Inc.", "The company fell."]),
        ("She met Martin Luther King Jr. He spoke first.", ["She met Martin Luther King Jr.", "He spoke first."]),
        # ... and one inside a sentence does not
        ("The U.S. Army said so. Then it left.", ["The U.S. Army said so.", "Then it left."]),
        ("He joined U.S. Steel in 1990.", ["He joined U.S. Steel in 1990."]),
        ("Daktronics Inc. makes signs in S.D. and Minn.", ["Daktronics Inc. makes signs in S.D. and Minn."]),
        ("Dr. Smith met Mr. Jones on Jan. 5. They talked.", ["Dr. Smith met Mr. Jones on Jan. 5.", "They talked."]),
        ("Inflation rose 3.5% in the U.S. in 2001.", ["Inflation rose 3.5% in the U.S. in 2001."]),
        ("See Smith v. The State of Ohio.", ["See Smith v. The State of Ohio."]),
        ("Washington, D.C. A. Smith wrote it.", ["Washington, D.C. A. Smith wrote it."]),
        # a paragraph break is never bridged by a clock time
        ("Meet at 5 p.m.\n\nnext block.", ["Meet at 5 p.m.", "next block."]),
    ],
)  # fmt: skip
def test_abbreviations(text, expected):
    assert sentences(text) == expected


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            ["5 p.m. ", "p.m. ", "EDT ", "S.D. ", "The ", "Inc. ", "U.S. ", "Monday. ", "word ", ". ", "\n\n", "a"]
        ),
        max_size=40,
    )
)  # fmt: skip
def test_spans_are_ordered_trimmed_and_disjoint(parts):
    text = "".join(parts)
    spans = sentence_spans(text)
    last = 0
    for a, b in spans:
        assert last <= a < b <= len(text)
        assert not text[a].isspace() and not text[b - 1].isspace()
        last = b
    assert sentence_ends(text) == [b for _, b in spans]
    # every non-blank character lies in exactly one sentence
    covered = {i for a, b in spans for i in range(a, b)}
    assert all(i in covered for i, ch in enumerate(text) if not ch.isspace())


def test_extract_quote_keeps_the_date_after_a_clock_time():
    text = (
        "The Soyuz MS-06 spacecraft launched at 5:17 p.m. EDT on Sept. 12, 2017, from the "
        "Baikonur Cosmodrome. It docked six hours later."
    )
    url = "https://news.wice.example/soyuz"
    doc = Document(
        doc_id=make_doc_id(url, text.encode()),
        url=url,
        final_url=url,
        status=200,
        content_type="text/plain",
        retrieved_at="2026-01-01T00:00:00Z",
        sha256="0" * 64,
        title="T",
        text=text,
    )
    box = Toolbox(env=None, question="q", max_spans=3)  # type: ignore[arg-type]
    box.admit(doc)
    res = box.extract_quote(
        ExtractQuoteArgs(doc_id=doc.doc_id, locator="The Soyuz MS-06 spacecraft", max_chars=110)
    )
    assert res.text.endswith("on Sept. 12, 2017, from the Baikonur Cosmodrome.")
    assert doc.text[res.char_start : res.char_end] == res.text
