"""The splitter's faster use of pysbd gives what pysbd's own ``segment`` gives.

``spanproof.core.sentences`` runs pysbd's processor with an abbreviation pass that skips the
abbreviations a line never writes with a period, and finds each sentence in the text with
``str.find`` instead of pysbd's one compiled pattern per sentence (which also evicted every
other pattern from ``re``'s cache), and answers for a text pysbd cannot split without
running pysbd. These tests hold the three equal to stock pysbd on real pages and on texts
built to repeat, start and end with whitespace, mix cases and scripts around abbreviations,
hold the oddities pysbd keeps, or differ by a character from a text it cannot split.
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pysbd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spanproof.core.sentences import _pysbd_segments, _unsplittable
from tests.recording import record_calls

ROOT = Path(__file__).resolve().parent.parent
_PYSBD = pysbd.Segmenter(language="en", clean=False)


def _pages(n: int) -> list[str]:
    with gzip.open(ROOT / "goldens" / "wice_dev_pages.jsonl.gz", "rt", encoding="utf-8") as f:
        pages = [json.loads(line)["sentences"] for line in f]
    picked = random.Random(22).sample(pages, n)
    # the two ways pages reach the splitter: one paragraph, and one sentence a line
    return [" ".join(p[:60]) for p in picked] + ["\n".join(p[:60]) for p in picked]


@pytest.mark.parametrize("text", _pages(6))
def test_same_segments_as_pysbd_on_real_pages(text):
    assert _pysbd_segments(text) == _PYSBD.segment(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        " ",
        "a",
        "Hi.  Hi.  Hi.",  # the same sentence three times: each found after the last
        "\n\n  Leading space. Trailing space.   \n",
        "Dr. Who. Dr. Who. Dr. Who.",
        "He said “Go.” “Go.” Then left.",
        "x. . . y . . . z",
        "'' '' ''",
        "A.\n\nA.\n\nB. A.",
        "The U.S. Army was there.\u00a0The U.S. Army left.\u2003Done.",
        "1. First item 2. Second item 3. Third item",
        "It cost $3.5 million (about 3.5%). It rose 3.5% again.",
        # "ſ" matches "s" case-insensitively: pysbd takes "ſt." for "St." (the line has "st")
        "The first café on Main ſt. near the park.",
        # "e.g" in a line: pysbd's pattern for it ("." any character) also takes "eag."
        "See e.g the eag. then more.",
    ],
)
def test_same_segments_as_pysbd_on_awkward_texts(text):
    assert _pysbd_segments(text) == _PYSBD.segment(text)


_PIECES = ["The cat sat.", "Dr.", "U.S.", "p.m.", " ", "  ", "\n", "\u00a0", "“", "”", "'", "...",
           "It rose 3.5%.", "He left!", "Why?", "a", "(see above)", "e.g.", "No.", "1.", "St. ",
           "Mr. Smith", "ST.", "dR.", "no. 5", "Inc. ", "Ph.D.", "a.m. ", "Jan. ", "approx. ",
           "Bruzón.", "K.", "ſt.", "Fig. 2", "vs. ", "Co."]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=25).map("".join))
def test_same_segments_as_pysbd_on_repeats(text):
    assert _pysbd_segments(text) == _PYSBD.segment(text)


# Texts one character away from what the splitter takes as one sentence without asking pysbd
# (``_unsplittable``): pysbd splits each of them, or drops some of the text, so a shortcut
# taking every text with one closing mark at its end would get them wrong.
@pytest.mark.parametrize(
    "text",
    [
        '"Stop" Then he left.',  # a quoted "sentence" before a capital, at the start
        "'Stop' Then he left.",
        "(Stop here) Then he left.",
        "「Stop」 Then he left.",
        "1) apples 2) pears.",  # a list, closing mark or none
        "a) apples b) pears",
        "The pro-' Movement grew.",  # hyphen, quote, capital: split even with no closing mark
        'The pro-" Movement grew',
        "Foo\nbar.",
        "Foo\rbar.",
        "Mark ȸ here.",  # pysbd's own marks, written in the text
        "Mark ∯ here.",
        "x ☝ y.",
        "Wait. what!",  # a second closing mark
    ],
)
def test_texts_pysbd_splits_are_not_taken_whole(text):
    assert _PYSBD.segment(text) != [text.lstrip()]
    assert not _unsplittable(text)
    assert _pysbd_segments(text) == _PYSBD.segment(text)


@pytest.mark.parametrize(
    "text",
    [
        "He met the Gov.",  # an abbreviation before the only period
        "Plan B.",
        "Plan a.",
        "It rose by 3.",
        "  Leading spaces.",
        "  .",
        "No closing mark  ",
        "   ",
        "I love Yahoo!",  # one of pysbd's exclamation words, put back at the end
        "Why?",
        "全角！",
        "Go… on.",  # an ellipsis character is not a closing mark to pysbd
        "A 'quoted' Word here.",
        'He said "no" Then.',
        "Em—dash and [brackets] and «arrows» here.",
    ],
)
def test_one_sentence_texts_skip_pysbd_with_its_answer(text):
    assert _unsplittable(text)
    assert _pysbd_segments(text) == _PYSBD.segment(text)


# pysbd's list pass is skipped where its patterns find fewer than two markers of a kind; each
# of these has exactly two (or one of its marks), and pysbd breaks it up (or drops some).
@pytest.mark.parametrize(
    "text",
    [
        "Pick a. red b. blue.",
        "Pick one: a. red b. blue",
        "Do 1. this 2. that.",
        "Do 1) this 2) that.",
        "Steps: (a) mix (b) bake.",
        "Go (i) left (ii) right.",
        "It is x 1♨ y.",
        "x ☝ y 2) z.",
    ],
)
def test_two_list_markers_break_as_pysbd_breaks_them(text):
    assert _PYSBD.segment(text) != [text]
    assert _pysbd_segments(text) == _PYSBD.segment(text)


_WORDS = ["He", "met", "the", "Gov", "a", "B", "I", "3", "12", "Yahoo", "word", "'s", "'", '"', "“", "”",
          "(", ")", "[", "]", "-", "--", "…", ",", ":", "é", "ſt", "\u00a0", "\t", "  ", ".", "!", "?", "。", "\n"]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["", " ", "  "]),
    st.lists(st.sampled_from(_WORDS), min_size=1, max_size=8).map(" ".join),
    st.sampled_from(["", ".", "!", "?", "。", " ", ". "]),
)
def test_same_segments_as_pysbd_on_near_one_sentence_texts(lead, body, end):
    text = lead + body + end
    assert _pysbd_segments(text) == _PYSBD.segment(text)


def _english_rules() -> list:
    """Every rule pysbd's English applies (its rule classes, nested, and their lists)."""
    from pysbd.lang.english import English
    from pysbd.utils import Rule

    found: dict[tuple[str, str], Rule] = {}

    def walk(obj: object, depth: int) -> None:
        for name in dir(obj):
            value = getattr(obj, name, None)
            for item in value if isinstance(value, (list, tuple)) else [value]:
                if isinstance(item, Rule):
                    found[(item.pattern, item.replacement)] = item
            if isinstance(value, type) and value.__module__.startswith("pysbd") and depth < 3:
                walk(value, depth + 1)

    walk(English, 0)
    return list(found.values())


_MARKED = [
    "It rose∯ 5∯5 percent ♬ then ♭ fell&ᓰ&&ᓱ&&ᓳ& x &ᓴ&&ᓷ&&ᓸ& ☉☇☈☄ &✂&a&⌬& ȸ endȹ next",
    "Dr. Smith met the U.S. team at 5 p.m. on Jan. 3.",
    'He said "Go." (It was 3.5 km.) Then: left! Yes?! No... "Why?" she asked.',
    "&⎋&quoted&⎋& and 'single' words, e.g. this; i.e. that",
]


@pytest.mark.parametrize("text", _MARKED + _pages(2))
def test_the_splitters_rule_application_is_pysbds(text):
    from pysbd.utils import Text

    from spanproof.core.sentences import _apply, _pysbd_apply

    rules = _english_rules()
    assert len(rules) > 40  # every rule class was walked
    for rule in rules:
        got, want = _apply(Text(text), rule), _pysbd_apply(Text(text), rule)
        assert got == want and type(got) is type(want) is str
    assert _apply(Text(text), *rules) == _pysbd_apply(Text(text), *rules)


def test_a_marker_rule_is_applied_without_re_and_pysbds_apply_is_put_back(monkeypatch):
    import re

    from pysbd.lang.english import English
    from pysbd.utils import Text

    from spanproof.core.sentences import _pysbd_apply

    subbed = record_calls(monkeypatch, re, "sub")
    text = "He met Dr. Reyes at 5 p.m. on Jan. 3. They spoke (briefly). She left!"
    assert _pysbd_segments(text) == _PYSBD.segment(text)
    markers = {r.pattern for r in English.SubSymbolsRules.All}
    # stock pysbd (the reference, run after the splitter) still applies them with re
    assert markers <= set(subbed)
    subbed.clear()
    _pysbd_segments(text)
    assert not markers & set(subbed)
    assert Text.apply is _pysbd_apply


@pytest.mark.parametrize("text", _MARKED + _pages(2))
def test_every_match_of_a_rule_is_in_a_text_holding_what_the_rule_needs(text):
    """``_needed``: the characters a rule is skipped without lie in every text it matches in,
    on each of pysbd's English rules, the text as pysbd reads it and as it marks it."""
    import re

    from spanproof.core.sentences import _needed

    read = 0
    for rule in _english_rules():
        rx = re.compile(rule.pattern)
        needed = _needed(rx)
        for seen in (text, text.replace(".", "∯"), text.replace(" ", "\r")):
            if rx.search(seen):
                assert needed in seen, (rule.pattern, needed)
                read += bool(needed)
    assert read  # some rule that needs characters matched, and was checked


@pytest.mark.parametrize(
    ("pattern", "needed"),
    [
        (r"(?<= P∯M)∯(?=\s[A-Z])", " P∯M"),  # a lookbehind's characters stand before the match
        (r"(?<=[a-zA-z]°)\.(?=\s*\d+)", "°"),
        (r"(?<=Co)\.(?=\sKG)", "Co"),
        (r"(\s\.){3}\s", "."),  # a repeated group's characters, once at least
        (r"(?<!x)abc|d", ""),  # either branch: nothing is sure
        (r"(?i:abc)d", "d"),  # case-insensitive characters may be written otherwise
        (r"(?i)abc", ""),
        (r"(?<!q)x(?!y)", "x"),  # a negative lookaround needs no character
        (r"a*b?", ""),  # may match the empty text
    ],
)
def test_what_a_rule_needs_is_read_from_its_pattern(pattern, needed):
    import re

    from spanproof.core.sentences import _needed

    assert _needed(re.compile(pattern)) == needed


def test_a_rule_is_not_scanned_for_in_a_text_without_what_it_needs(monkeypatch):
    import re

    from pysbd.utils import Rule, Text

    from spanproof.core import sentences

    scanned: list[str] = []
    real = re.compile

    class Recording:
        def __init__(self, rx):  # type: ignore[no-untyped-def]
            self._rx = rx

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            value = getattr(self._rx, name)
            if name == "sub":
                scanned.append(self._rx.pattern)
            return value

    monkeypatch.setattr(sentences, "_RULES", {})
    monkeypatch.setattr(re, "compile", lambda p, flags=0: Recording(real(p, flags)))
    degree = Rule(r"(?<=[a-zA-z]°)\.(?=\s*\d+)", "∯")
    text = "It was 40. 5 were there."
    assert sentences._apply(Text(text), degree) == text
    assert scanned == []
    # with the degree sign it is scanned, and the period after it replaced
    assert sentences._apply(Text("It was 40 C°. 5 rose."), degree) == "It was 40 C°∯ 5 rose."
    assert scanned == [degree.pattern]


_PASS_TEXTS = [
    "He said 'Go now.' and left. She stayed.",
    "He said ‘Go now.’ and left. She stayed.",
    'He said "Go now. Quickly." and left. She stayed.',
    "The figure [see p. 3. below] rose. It fell.",
    "The figure (see p. 3. below) rose. It fell.",
    "He said «Go now. Quickly.» and left. She stayed.",
    "He paused -- then. Went on -- and left. She stayed.",
    "He said “Go now. Quickly.” and left. She stayed.",
    "Yahoo! bought it. The !Kung live there. ǃXo is spoken. Yum! Brands grew. Y!J rose.",
    "The clause (iv) Applies here. It ends (ii) Then more.",
    "The U.S.A. team met the U.S. team. Then the E.U. Board met. I.V. drips were used.",
    "It was e.g. a test. Also i.e. another. Done.",
]


@pytest.mark.parametrize("text", _PASS_TEXTS)
def test_the_passes_run_only_where_they_can_match_give_pysbds_sentences(text):
    assert _pysbd_segments(text) == _PYSBD.segment(text)


def test_every_exclamation_word_holds_an_exclamation_mark():
    from pysbd.exclamation_words import ExclamationWords

    assert all("!" in w or "ǃ" in w for w in ExclamationWords.EXCLAMATION_WORDS)


def test_the_passes_are_not_run_on_a_text_without_what_their_matches_hold(monkeypatch):
    from pysbd import abbreviation_replacer, between_punctuation, exclamation_words
    from pysbd.lists_item_replacer import ListItemReplacer

    plain = "The council met on Tuesday. It approved 42 homes"
    # stock pysbd, read before its passes are recorded (it runs every one of them)
    expected = {text: _PYSBD.segment(text) for text in [plain, *_PASS_TEXTS]}
    ran: list[str] = []

    def recording(owner, name):  # type: ignore[no-untyped-def]
        real = getattr(owner, name)

        def run(*args, **kwargs):  # type: ignore[no-untyped-def]
            ran.append(name)
            return real(*args, **kwargs)

        monkeypatch.setattr(owner, name, run)

    base = between_punctuation.BetweenPunctuation
    for name in [n for n in vars(base) if n.startswith("sub_punctuation_between_")]:
        if name != "sub_punctuation_between_quotes_and_parens":
            recording(base, name)
    recording(exclamation_words.ExclamationWords, "apply_rules")
    recording(ListItemReplacer, "replace_parens")
    abbreviations = abbreviation_replacer.AbbreviationReplacer
    recording(abbreviations, "replace_multi_period_abbreviations")
    recording(abbreviations, "replace_abbreviation_as_sentence_boundary")
    # two sentences, so pysbd reads the text; no quote, bracket, dash, "!", abbreviation
    assert _pysbd_segments(plain) == expected[plain]
    assert ran == []
    for text in _PASS_TEXTS:
        assert _pysbd_segments(text) == expected[text]
    assert {
        "sub_punctuation_between_single_quotes",
        "sub_punctuation_between_single_quote_slanted",
        "sub_punctuation_between_double_quotes",
        "sub_punctuation_between_square_brackets",
        "sub_punctuation_between_parens",
        "sub_punctuation_between_quotes_arrow",
        "sub_punctuation_between_em_dashes",
        "sub_punctuation_between_quotes_slanted",
        "apply_rules",
        "replace_parens",
        "replace_multi_period_abbreviations",
        "replace_abbreviation_as_sentence_boundary",
    } <= set(ran)
