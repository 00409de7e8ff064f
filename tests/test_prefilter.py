"""A guarded pattern answers exactly as the pattern itself, only sooner on texts that cannot
hold a match (spanproof.core.prefilter)."""

from __future__ import annotations

import importlib
import json
import re
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from spanproof.goldens import shipped

from spanproof.core.prefilter import Guarded, guarded, required_words


def words(pattern: str, flags: int = 0) -> set[str] | None:
    found = required_words(re.compile(pattern, flags))
    return None if found is None else set(found)


def test_required_words_of_each_shape() -> None:
    assert words(r"\bfoo\b") == {"foo"}
    assert words(r"(?:first|second)\s+quarter", re.I) == {"quarter"}  # the longest part
    assert words(r"\b(?:Q[1-4]|third quarter)\b") == {"q", "third quarter"}
    assert words(r"Abc", re.I) == {"abc"}
    assert words(r"(?:ab)+x") == {"ab"}
    assert words(r"st\.? patrick") == {" patrick"}


def test_nothing_is_required_where_a_match_may_go_without() -> None:
    assert words(r"(?:foo)?bar?") == {"ba"}
    assert words(r"foo|\d+") is None  # one alternative has no word
    assert words(r"(?:foo)*") is None
    assert words(r"(?=foo)\w+") is None  # a lookahead consumes nothing
    assert words(r"(?<=by )\w+") is None
    assert words(r"[ab]c?") is None  # a class is not a word
    assert words(r"") is None


def test_a_letter_other_than_ascii_is_never_a_required_word() -> None:
    # case-insensitive, the long s of a pattern matches the "s" of a text
    rx = re.compile("ſtop", re.I)
    assert rx.search("stop")
    assert words("ſtop", re.I) == {"top"}
    assert guarded(rx).search("stop")


def test_a_text_other_than_ascii_is_always_scanned() -> None:
    rx = re.compile(r"\bstop\b", re.I)
    assert rx.search("ſtop now")  # re folds ſ to s; str.lower() does not
    assert guarded(rx).search("ſtop now")
    assert guarded(rx).could_match("ſtop now")


def test_a_text_without_the_words_is_not_scanned() -> None:
    g = guarded(re.compile(r"\b(?:first|second)\b", re.I))
    assert not g.could_match("the third one")
    assert g.finditer("the third one") is not None and list(g.finditer("the third one")) == []
    assert g.sub("X", "the third one") == "the third one"
    assert g.could_match("The FIRST one") and g.sub("X", "The FIRST one") == "The X one"


def _project_guards() -> list[tuple[str, Guarded]]:
    importlib.import_module("spanproof.graders.rules.judge")  # loads every reader
    out: dict[int, tuple[str, Guarded]] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("spanproof"):
            continue
        for attr, value in vars(module).items():
            if isinstance(value, Guarded):
                out.setdefault(id(value), (f"{name}.{attr}", value))
    return sorted(out.values(), key=lambda kv: kv[0])


GUARDS = _project_guards()


def _texts() -> list[str]:
    rows = [json.loads(line) for line in shipped("wice_dev_pairs.jsonl").read_text().splitlines()]
    texts = [t for r in rows for t in (r["claim"], r["span"])]
    return list(dict.fromkeys(texts)) + [
        "Revenue fell by a third in the second quarter, on March 3, 2021, since May.",
        "New Year's Day, St Patrick's Day 1999 and a dozen first-quarter results",
        "according to his spokesman, in my view, columnist, the plan is set to",
        "twenty-one hundred and five Ninth Q3 QUARTER Since April 2004",
        "built in the late sixties, half a century ago, by a firm of a quarter of a million",
    ]


def test_the_project_guards_patterns() -> None:
    assert len(GUARDS) >= 10, [n for n, _ in GUARDS]
    assert all(g.words for _, g in GUARDS), "a guard without words is a pattern always scanned"


@pytest.mark.parametrize(("name", "guard"), GUARDS, ids=[n for n, _ in GUARDS])
def test_every_guarded_call_answers_as_the_pattern(name: str, guard: Guarded) -> None:
    rx = guard.rx
    matched = 0
    for text in _texts():
        plain = [m.span() for m in rx.finditer(text)]
        assert [m.span() for m in guard.finditer(text)] == plain, (name, text[:80])
        assert guard.sub("#", text) == rx.sub("#", text)
        assert guard.findall(text) == rx.findall(text)
        for m in rx.finditer(text):
            matched += 1
            if text.isascii():
                low = m.group(0).lower()
                assert any(w in low for w in guard.words or ()), (name, m.group(0))
    assert matched, f"{name} matched none of the texts: the check above proved nothing"


_ALPHABET = st.sampled_from(list("abcdefghijklmnopqrstuvwxyz ABCQ0123.-'’ſK\n"))


@settings(max_examples=300, deadline=None)
@given(st.lists(_ALPHABET, max_size=40).map("".join), st.data())
def test_random_texts_and_project_patterns(text: str, data: st.DataObject) -> None:
    name, guard = data.draw(st.sampled_from(GUARDS))
    # words of the pattern itself, cut and joined, make matches likely
    pieces = sorted(guard.words or ())
    text = text + " " + " ".join(data.draw(st.lists(st.sampled_from(pieces), max_size=3)))
    assert [m.span() for m in guard.finditer(text)] == [m.span() for m in guard.rx.finditer(text)]
    assert bool(guard.search(text)) == bool(guard.rx.search(text))
