"""Skip a regular expression on a text that cannot hold a match of it.

Python's ``re`` tries a pattern at every position of a text; a pattern that opens with a word
boundary and a long alternation ("\\b(first|second|...)\\b", case-insensitive) finds no
literal to jump to, so every claim and span costs a full scan, once per pattern. Most texts
hold none of the words such a pattern is built from. ``guarded(rx)`` reads the pattern once
(its parse tree, as ``re`` itself does) for the words every match must contain, and answers
"no match" without scanning when a text holds none of them.

It changes no answer. The words are necessary, never sufficient: each string the pattern
matches contains one of them (a run of literal characters it must consume, in every
alternative; lookarounds and optional parts are never relied on). The test is on the
lower-cased text, and only when the text is ASCII: case-insensitive matching of other text
folds more than ``str.lower`` does (``"ſ"`` matches ``s``), so such a text is always scanned.
A pattern with no such words is always scanned. tests/test_prefilter.py holds the reading
to patterns of every shape and every guarded call equal to the plain one.
"""

from __future__ import annotations

import re

# re's own parser, the tree it compiles from; typeshed stubs only the deprecated sre_* aliases
import re._constants as C  # type: ignore[import-not-found]  # noqa: N812
import re._parser as sre  # type: ignore[import-not-found]
from collections.abc import Callable, Iterator
from typing import Any

_REPEATS = (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT)


def required_words(rx: re.Pattern[str]) -> frozenset[str] | None:
    """Lower-cased strings one of which every match of ``rx`` contains; None if unknown."""
    words = _sequence(sre.parse(rx.pattern, rx.flags))
    return None if not words or "" in words else frozenset(words)


def _sequence(items: Any) -> set[str] | None:
    """The best choice among a sequence's parts: each consumed in turn, so any part's words
    are necessary; the longest run of literals, or the alternatives with the longest
    shortest word."""
    best: set[str] | None = None
    run: list[str] = []

    def consider(words: set[str] | None) -> None:
        nonlocal best
        if words and (best is None or min(map(len, words)) > min(map(len, best))):
            best = words

    for op, av in items:
        if op is C.LITERAL and av < 128:
            # not another character: case-insensitive, "ſ" in a pattern matches "s" in a text
            run.append(chr(av).lower())
            continue
        consider({"".join(run)} if run else None)
        run = []
        consider(_part(op, av))
    consider({"".join(run)} if run else None)
    return best


def _part(op: Any, av: Any) -> set[str] | None:
    if op is C.SUBPATTERN:
        return _sequence(av[-1])
    if op is C.ATOMIC_GROUP:
        return _sequence(av)
    if op in _REPEATS:
        low, _high, item = av
        return _sequence(item) if low >= 1 else None
    if op is C.BRANCH:
        out: set[str] = set()
        for branch in av[1]:
            words = _sequence(branch)
            if not words:
                return None  # an alternative without words: nothing is required
            out |= words
        return out
    return None  # a class, an anchor, a lookaround, a back-reference: no word for sure


_LAST_LOWERED: tuple[str, str] = ("", "")


def _lowered(text: str) -> str:
    """``text.lower()``, kept for the last text: every guarded pattern of a reader asks of the
    same text in turn, and lowering a long span once per pattern was most of the guard's cost."""
    global _LAST_LOWERED
    last, low = _LAST_LOWERED
    if last is not text and last != text:
        low = text.lower()
        _LAST_LOWERED = (text, low)
    return low


class Guarded:
    """A compiled pattern that skips texts holding none of its required words; the methods
    the code uses, each answering exactly as the pattern's own."""

    def __init__(self, rx: re.Pattern[str]) -> None:
        self.rx = rx
        self.pattern = rx.pattern
        self.flags = rx.flags
        self.words = required_words(rx)
        self._words = tuple(sorted(self.words or ()))

    def could_match(self, text: str) -> bool:
        if not self._words or not text.isascii():
            return True
        low = _lowered(text)
        # a plain loop: asked for every guarded pattern of every text, a generator's frame
        # per call cost as much as the look-ups
        for w in self._words:  # noqa: SIM110 - any() over a generator is the dearer form
            if w in low:
                return True
        return False

    def finditer(self, text: str, *args: int) -> Iterator[re.Match[str]]:
        return self.rx.finditer(text, *args) if self.could_match(text) else iter(())

    def findall(self, text: str, *args: int) -> list[Any]:
        return self.rx.findall(text, *args) if self.could_match(text) else []

    def search(self, text: str, *args: int) -> re.Match[str] | None:
        return self.rx.search(text, *args) if self.could_match(text) else None

    def match(self, text: str, *args: int) -> re.Match[str] | None:
        return self.rx.match(text, *args) if self.could_match(text) else None

    def fullmatch(self, text: str, *args: int) -> re.Match[str] | None:
        return self.rx.fullmatch(text, *args) if self.could_match(text) else None

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str, count: int = 0) -> str:
        return self.rx.sub(repl, text, count) if self.could_match(text) else text


def guarded(rx: re.Pattern[str]) -> Guarded:
    return Guarded(rx)
