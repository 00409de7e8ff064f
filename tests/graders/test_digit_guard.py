"""The patterns the specifics skip on a text without a digit really need one.

Dates and numbers are read with many regular expressions, and most texts hold no digit; the
patterns that cannot match without one are not run on such a text (``dates.has_digit``).
That is a speed-up only if it changes nothing, so each skipped pattern is read here, branch
by branch, to show that every string it matches holds a character of ``\\d``, and the
skipping paths are compared with running every pattern.
"""

from __future__ import annotations

import re
import re._constants as C  # noqa: N812 - the names re's own compiler uses
import re._parser as sre
from typing import Any

import pytest
from spanproof.graders.specifics import dates, numbers, slots

_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)


def _digit_member(op: Any, av: Any) -> bool:
    if op is C.LITERAL:
        return chr(av).isdecimal()
    if op is C.RANGE:
        return all(chr(c).isdecimal() for c in range(av[0], av[1] + 1))
    return op is C.CATEGORY and av is C.CATEGORY_DIGIT


def _needs_digit(seq: Any) -> bool:
    """Does every string this parsed sequence matches hold a decimal digit?"""
    for op, av in seq:
        if op is C.LITERAL and chr(av).isdecimal():
            return True
        if op is C.IN and av and all(_digit_member(o, a) for o, a in av):
            return True
        if op is C.SUBPATTERN and _needs_digit(av[-1]):
            return True
        if op is C.ATOMIC_GROUP and _needs_digit(av):
            return True
        if op in _REPEATS and av[0] >= 1 and _needs_digit(av[2]):
            return True
        if op is C.BRANCH and all(_needs_digit(branch) for branch in av[1]):
            return True
    return False  # lookarounds, anchors and optional parts consume nothing for sure


def needs_digit(rx: re.Pattern[str]) -> bool:
    return _needs_digit(sre.parse(rx.pattern, rx.flags))


def test_the_reader_tells_patterns_apart() -> None:
    # it would be worthless if it said yes to everything
    assert needs_digit(re.compile(r"\d"))
    assert needs_digit(re.compile(r"(?:a|b)?x[0-9]{2,}"))
    assert needs_digit(re.compile(r"Q([1-4])|(\d+) quarters?"))
    assert not needs_digit(re.compile(r"\d?"))
    assert not needs_digit(re.compile(r"Q([1-4])|(first) quarter"))
    assert not needs_digit(re.compile(r"(?=\d)\w"))
    assert not needs_digit(re.compile(r"[0-9a]"))
    assert not needs_digit(re.compile(r"[^\d]"))
    assert not needs_digit(re.compile(r"x(\d)*"))


SKIPPED = {
    "dates._ISO": dates._ISO,
    "dates._DATE_MDY": dates._DATE_MDY,
    "dates._DATE_DMY": dates._DATE_DMY,
    "dates._DATE_MY": dates._DATE_MY,
    "dates._YEAR_RANGE": dates._YEAR_RANGE,
    "dates._DECADE": dates._DECADE,
    "dates._YEAR": dates._YEAR,
    "numbers._ORDINAL_DIGIT_RE": numbers._ORDINAL_DIGIT_RE,
    "numbers._NUM_RE": numbers._NUM_RE,
    **{f"dates._DATE_BLANKS[{i}]": rx for i, rx in enumerate(dates._DATE_BLANKS)
       if rx not in dates._DATE_BLANKS_WITHOUT_DIGITS},
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(SKIPPED))
def test_each_skipped_pattern_needs_a_digit(name: str) -> None:
    assert needs_digit(SKIPPED[name]), f"{name} can match a text without a digit"


def test_the_patterns_kept_for_texts_without_digits_do_not_need_one() -> None:
    # the reader is right about the two that are always run: a quarter and a holiday in words
    for rx in dates._DATE_BLANKS_WITHOUT_DIGITS:
        assert not needs_digit(rx)


TEXTS = [
    "Revenue rose by a third in the second quarter, to $4.5 million, on March 3, 2021.",
    "He was born on Christmas Day and died on the fourth of July.",
    "Twelve paintings and two-thirds of the sculptures were sold in the first quarter.",
    "The ١٢ members met at ３ p.m.",  # digits other than 0-9 are digits too
    "no numbers here at all",
    "",
]


@pytest.mark.parametrize("text", TEXTS)
def test_skipping_changes_nothing(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    guarded = (
        dates.dated.__wrapped__(text),
        numbers._extract_numbers.__wrapped__(text),
        slots._quantities(text),
    )
    monkeypatch.setattr(dates, "has_digit", lambda _text: True)
    monkeypatch.setattr(numbers, "has_digit", lambda _text: True)
    monkeypatch.setattr(slots, "has_digit", lambda _text: True)
    everything = (
        dates.dated.__wrapped__(text),
        numbers._extract_numbers.__wrapped__(text),
        slots._quantities(text),
    )
    assert guarded == everything
