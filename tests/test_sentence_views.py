"""Every user of sentences cuts real pages where the shared splitter does.

The span boundaries (``extract_quote``), the extractive policy's candidate sentences, the
rules judge's and the audit's span sentences, report parsing's passages and the atomic
splitter's sentences are views of ``spanproof.core.sentences.sentence_spans``: these tests
hold each view to the splitter's own cuts on WiCE development pages, in the two shapes pages
reach them (one paragraph; one sentence a line, as the offline corpus serves them).
"""

from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path

import pytest
from spanproof.agent.extractive import _sentences_of
from spanproof.graders.clauses import split_text

from spanproof.bench.grade_passages import sentence_bounds
from spanproof.core.sentences import (
    first_sentence,
    sentence_ends,
    sentence_spans,
    sentence_texts,
    sentences_of,
)

ROOT = Path(__file__).resolve().parent.parent


def _pages(n: int) -> list[str]:
    with gzip.open(ROOT / "goldens" / "wice_dev_pages.jsonl.gz", "rt", encoding="utf-8") as f:
        pages = [json.loads(line)["sentences"] for line in f]
    # the page's prose as one paragraph (a page's menus and headings hold few sentence ends),
    # and the page as served, menus included, one line a sentence
    prose = [[s for s in p if s.endswith(".") and len(s.split()) >= 6][:40] for p in pages]
    picked = random.Random(25).sample([i for i, p in enumerate(prose) if len(p) >= 20], n)
    return [" ".join(prose[i]) for i in picked] + ["\n".join(pages[i][:40]) for i in picked]


PAGES = _pages(4)


def _cuts(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


def _line_cuts(text: str) -> list[str]:
    return [s for line in text.splitlines() for s in _cuts(line)]


def test_the_pages_hold_many_sentences():
    # a view that agreed only because a page had one sentence would prove nothing
    assert all(len(sentence_spans(p)) >= 10 for p in PAGES[: len(PAGES) // 2])


@pytest.mark.parametrize("text", PAGES)
def test_ends_texts_and_first_sentence_are_the_spans(text):
    assert sentence_ends(text) == [b for _, b in sentence_spans(text)]
    assert sentence_texts(text) == _cuts(text)
    assert first_sentence(text) == _cuts(text.strip())[0][:400].strip()


@pytest.mark.parametrize("text", PAGES)
def test_judge_and_audit_sentences_are_the_spans_line_by_line(text):
    assert list(sentences_of(text)) == [s for s in _line_cuts(text) if s.strip()]


@pytest.mark.parametrize("text", PAGES)
def test_extractive_candidates_are_the_spans_block_by_block(text):
    expected = []
    for block in text.split("\n\n"):
        for s in _cuts(block):
            # the policy drops a closing quote pysbd leaves at a sentence's front
            s = re.sub(r'^\s*(?:["”’\']\s+)?', "", s).strip()
            if s:
                expected.append(s)
    got = _sentences_of(text, False)
    assert [s for _, s in got] == expected
    assert all(text[o : o + len(s)] == s for o, s in got)


@pytest.mark.parametrize("text", PAGES)
def test_report_passages_cut_long_lines_at_the_spans(text):
    expected = []
    for m in re.finditer(r"[^\n]+", text):
        line = m.group(0)
        if len(line) < 200 and not re.search(r"[.!?]\s", line):
            expected.append(line)  # a short line is its own unit (a heading, a list item)
        else:
            expected += _cuts(line)
    assert [text[a:b] for a, b in sentence_bounds(text)] == [e for e in expected if e.strip()]


def test_atomic_claims_never_cross_a_sentence_end():
    sentences = _cuts(PAGES[0])
    claims = split_text(" ".join(sentences[:8]))
    assert len(claims) >= 8
    starts = [s.split()[0] for s in sentences[:8]]
    # every sentence opens at least one claim of its own
    assert all(any(c.startswith(w) for c in claims) for w in starts)
