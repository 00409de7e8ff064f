"""The one sentence splitter: pysbd (English, character offsets), whitespace trimmed, with
two corrections for abbreviations it gets wrong.

Span boundaries, report parsing, passage windows, the atomic splitter and the planted
failures must all agree on where a sentence ends, so they all cut text here. pysbd keeps
"U.S.", "Dr." and "3.5%" inside one sentence, but news text trips it twice:
- it ends a sentence at "p.m." even when the time goes on ("5:17 p.m. EDT on Sept. 12",
  "9 a.m. Monday"), which cuts a date off the sentence that holds it;
- it runs on past an initialism or a street/company abbreviation that does end a
  sentence ("... in Brookings, S.D. The company was founded ..."), which makes one
  quoted "sentence" out of two.
Both are repaired here, on offsets, so every user of the splitter gets the same
boundaries.
"""

from __future__ import annotations

import re

# re's own parser, the tree it compiles from (as spanproof.core.prefilter reads it)
import re._constants as _C  # type: ignore[import-not-found]
import re._parser as _sre  # type: ignore[import-not-found]
from functools import lru_cache
from typing import Any

import pysbd
from pysbd.between_punctuation import BetweenPunctuation as PysbdBetweenPunctuation
from pysbd.exclamation_words import ExclamationWords
from pysbd.lang.english import English
from pysbd.lists_item_replacer import ListItemReplacer
from pysbd.processor import Processor as PysbdProcessor
from pysbd.utils import Text

from spanproof.core.memo import memo_list

_segmenter: pysbd.Segmenter | None = None

# pysbd compiles a pattern for each abbreviation it meets in a text (several hundred in all),
# with ``re``'s module-level functions; with the patterns of the judge and the audit that is
# more than ``re`` keeps (512), and once full it drops the oldest, so every span compiled
# hundreds of patterns again (a quarter of the rules judge's time). A larger cache holds them
# all; what it holds is bounded by the patterns the code can build.
_RE_CACHE = 4096
# re._MAXCACHE is private (absent from typeshed and maybe from another Python): read with
# getattr, and set with an ignore for the same reason.
if getattr(re, "_MAXCACHE", _RE_CACHE) < _RE_CACHE:
    re._MAXCACHE = _RE_CACHE  # type: ignore[attr-defined]

# A clock time's "a.m."/"p.m." ends a sentence only when what follows could start one.
_CLOCK_SUFFIX = re.compile(r"\b\d{1,2}(?::\d{2})?\s*[ap]\.m\.$", re.I)
_TIME_ZONES = (
    "ET|EST|EDT|CT|CST|CDT|MT|MST|MDT|PT|PST|PDT|AKST|AKDT|HST|GMT|UTC|BST|CET|CEST|EET|EEST"
    "|WET|IST|JST|KST|AEST|AEDT|ACST|AWST|NZST|NZDT|local"
)
_MONTHS = (
    "January|February|March|April|May|June|July|August|September|October|November|December"
    "|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec"
)
_DAYS = "Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tue|Tues|Wed|Thu|Thurs|Fri|Sat|Sun"
_TIME_GOES_ON = re.compile(
    rf"(?:[a-z0-9(,;–—-]|(?:{_TIME_ZONES}|{_DAYS}|{_MONTHS})\b)",
)

# An initialism ("S.D.", "D.C.", "U.S.") or an address/company abbreviation, then a word
# that only starts a sentence. Titles before a name (Dr., Mr., Gov.) and "v."/"No." are not
# listed: they are followed by what they introduce, never by the end of a sentence.
_ENDING_ABBREVIATION = r"(?:\b(?:[A-Z]\.){2,}|\b(?:St|Ave|Blvd|Rd|Co|Corp|Inc|Ltd|Jr|Sr|Bros)\.)"
_SENTENCE_STARTERS = (
    "The|He|She|It|They|We|His|Her|Its|Their|Our|This|These|Those|There|But|However|"
    "After|When|While|Although|In|On|At|A|An|I"
)
_MISSED_BOUNDARY = re.compile(rf"{_ENDING_ABBREVIATION}(\s+)(?=(?:{_SENTENCE_STARTERS})\b[^.])")


class _English(English):
    """pysbd's English, with its abbreviation and list passes skipping what cannot change
    the text.

    For every line, pysbd tries each of its ~190 abbreviations that occurs in the line at
    all ("a", "no", "st" occur inside most words), with two regular expressions and a
    substitution per occurrence. Every substitution it can make replaces the period right
    after the abbreviation, so an abbreviation of letters and digits that the line never
    writes with a period after it changes nothing, and is skipped here. The abbreviations
    holding a period themselves ("e.g", "ph.d") take pysbd's own path, and so do the lines
    holding one of the four characters that match an ASCII letter case-insensitively without
    being one (then an abbreviation found in the line is not an ASCII word, and the line's
    lowercase need not show it).

    pysbd's list pass runs seven scans of the whole text; it is run only where it can change
    it (``_may_hold_list``). Its other passes that search every sentence for a pattern
    holding one character or two (an opening quote or bracket, "!", the abbreviation mark
    "∯", two periods) are run only on a text that holds them: without them the pattern finds
    nothing, and the pass gives the text back as it was."""

    class AbbreviationReplacer(English.AbbreviationReplacer):
        def search_for_abbreviations_in_string(self, text: str) -> str:
            if not text.isascii() and _FOLDS_TO_ASCII.search(text):
                return super().search_for_abbreviations_in_string(text)
            for stripped in _written_with_period(text.lower()):
                found = re.findall(rf"(?:^|\s|\r|\n){stripped}", text, flags=re.IGNORECASE)
                if not found:
                    continue
                next_chars = re.findall(r"(?<={" + re.escape(stripped) + "} ).{1}", text)
                for i, match in enumerate(found):
                    text = self.scan_for_replacements(text, match, i, next_chars)
            return text

        def replace_multi_period_abbreviations(self) -> None:
            if self.text.count(".") > 1:  # each match ("u.s.a.", "e.g.") holds two periods
                super().replace_multi_period_abbreviations()

        def replace_abbreviation_as_sentence_boundary(self) -> str:
            if "∯" in self.text:  # each match is an abbreviation whose period pysbd marked
                return super().replace_abbreviation_as_sentence_boundary()
            return self.text

    class BetweenPunctuation(PysbdBetweenPunctuation):
        def sub_punctuation_between_quotes_and_parens(self, txt: str) -> str:
            # pysbd's order; each pass's matches open with the characters beside it
            for opening, sub in (
                ("'", self.sub_punctuation_between_single_quotes),
                ("‘", self.sub_punctuation_between_single_quote_slanted),
                ('"', self.sub_punctuation_between_double_quotes),
                ("[", self.sub_punctuation_between_square_brackets),
                ("(", self.sub_punctuation_between_parens),
                ("«", self.sub_punctuation_between_quotes_arrow),
                ("--", self.sub_punctuation_between_em_dashes),
                ("“", self.sub_punctuation_between_quotes_slanted),
            ):
                if opening in txt:
                    txt = sub(txt)
            return txt

    class Processor(PysbdProcessor):
        text: str

        def process(self) -> list[str] | str:
            # pysbd's own, but for the list pass
            if not self.text:
                return self.text
            self.text = self.text.replace("\n", "\r")
            if _may_hold_list(self.text):
                self.text = ListItemReplacer(self.text).add_line_break()
            self.replace_abbreviations()
            self.replace_numbers()
            self.replace_continuous_punctuation()
            self.replace_periods_before_numeric_references()
            self.text = Text(self.text).apply(
                self.lang.Abbreviation.WithMultiplePeriodsAndEmailRule,
                self.lang.GeoLocationRule,
                self.lang.FileFormatRule,
            )
            return self.split_into_segments()

        def process_text(self, txt: str) -> list[str]:
            # pysbd's own, but for the exclamation words and the numerals in parentheses,
            # searched for only in a text holding what each of their matches holds
            if txt[-1] not in self.lang.Punctuations:
                txt += "ȸ"
            if "!" in txt or "ǃ" in txt:
                txt = ExclamationWords.apply_rules(txt)
            txt = self.between_punctuation(txt)
            if not re.match(self.lang.DoublePunctuationRules.DoublePunctuation, txt):
                txt = Text(txt).apply(*self.lang.DoublePunctuationRules.All)
            txt = Text(txt).apply(
                self.lang.QuestionMarkInQuotationRule, *self.lang.ExclamationPointRules.All
            )
            if "(" in txt:
                txt = ListItemReplacer(txt).replace_parens()
            return self.sentence_boundary_punctuation(txt)


# The characters besides ASCII letters that re.IGNORECASE matches with an ASCII letter or
# digit (all of them, by a scan of Unicode: "İ" and "K" lowercase to ASCII, "ı" and "ſ" are
# re's own equivalences of "i" and "s").
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")

# pysbd's abbreviations in its order, each with whether it holds a period itself
_ABBREVIATIONS = [(a.strip(), "." in a) for a in English.Abbreviation.ABBREVIATIONS]
_WORD_LENGTHS = sorted({len(a) for a, dotted in _ABBREVIATIONS if not dotted})


def _written_with_period(lowered: str) -> list[str]:
    """pysbd's abbreviations, in its order, that ``lowered`` writes with a period after them
    (those holding a period: that it writes at all). Read off the few characters before each
    period rather than by searching the line for each of them."""
    if "." not in lowered:
        return []
    before: set[str] = set()
    at = lowered.find(".")
    while at >= 0:
        before.update(lowered[max(at - n, 0) : at] for n in _WORD_LENGTHS)
        at = lowered.find(".", at + 1)
    return [a for a, dotted in _ABBREVIATIONS if (a in lowered if dotted else a in before)]


# pysbd's list pass (ListItemReplacer.add_line_break) changes a text only where one of its
# patterns finds two markers or more ("a." and "b.", "1." and "2.", "(a)" and "(b)", "1)" and
# "2)": with one, it compares the marker with itself and finds no list), or at its own marks
# "♨" and "☝". Each "1." its numbered pattern finds is a digit, a period and a space or ")".
_LIST_MARKERS = [
    re.compile(ListItemReplacer.ALPHABETICAL_LIST_WITH_PERIODS),
    re.compile(r"\d\.[\s)]"),
    # the two that need a ")"
    re.compile(ListItemReplacer.ALPHABETICAL_LIST_WITH_PARENS),
    re.compile(ListItemReplacer.NUMBERED_LIST_PARENS_REGEX),
]


def _may_hold_list(text: str) -> bool:
    if "♨" in text or "☝" in text:
        return True
    markers = _LIST_MARKERS if ")" in text else _LIST_MARKERS[:2]
    return any(len(m.findall(text)) > 1 for m in markers)


# What pysbd reacts to besides closing punctuation that ends the text: other sentence
# punctuation, line breaks, ")" (lists "1) a 2) b", numerals "(iv)"), and the private
# characters it marks its work with (which it turns back into punctuation or line breaks).
_TERMINATORS = "。．.！!?？"
_REACTIVE = re.compile("[" + re.escape(_TERMINATORS + "\n\r)♨∯☝∮ȸȹ☉☈☇☄ᓴᓷᓰᓱᓳᓸ✂⌬⎋♬♭☏ƪ♟♝") + "]")
# A closing mark or a hyphen, a quote, a space and a capital: pysbd splits after the quote,
# closing mark or none ("the pro-' Movement").
_QUOTE_THEN_CAPITAL = re.compile(English.QUOTATION_AT_END_OF_SENTENCE_REGEX)


def _unsplittable(text: str) -> bool:
    """Whether pysbd keeps all of ``text`` (not empty) as one sentence, the whitespace around
    it aside: most claims and many spans, which then skip its hundred-odd substitutions.

    A text holding nothing that ``_REACTIVE`` or ``_QUOTE_THEN_CAPITAL`` finds, but for a
    closing mark as its very last character, is one: pysbd's substitutions at a period all
    need a character after it, its list pass two list markers, and its sentence pattern,
    tried first at the first character that is not a space, runs from there to the closing
    mark, unless that character opens a quote or a bracket (then a quoted "sentence" before
    a capital is tried first). Its exclamation words ("Yahoo!") it puts back whole at the
    end of a text. tests/test_sentences_pysbd_search.py holds this against pysbd."""
    end = len(text) - 1 if text[-1] in _TERMINATORS else len(text)
    if _REACTIVE.search(text, 0, end) or _QUOTE_THEN_CAPITAL.search(text):
        return False
    return end == len(text) or text.lstrip()[0] not in "（「('\"“"


# pysbd applies its rules with ``Text.apply``: ``re.sub(rule.pattern, rule.replacement, text)``
# rule by rule, over ten thousand calls for a page. Each looks its pattern up in ``re``'s
# cache again, and most rules are one of pysbd's own marker characters ("∯", "&ᓰ&"), written
# back into punctuation in every sentence, which holds none. ``_apply`` makes the same
# substitutions with each pattern compiled once, and a rule of literal characters (without
# flags, whose replacement holds no backslash: no group or escape in it) by ``str.replace``,
# which replaces the same leftmost non-overlapping occurrences and returns the text when
# there is none. Both answer an exact ``str``, as ``re.sub`` does.
_pysbd_apply = Text.apply
# each rule's pattern compiled, the text it is when it is literal, and the characters every
# text it matches in holds (``_needed``)
_RULES: dict[str, tuple[re.Pattern[str], str | None, str]] = {}
# the characters with a meaning in a pattern: a pattern of none of them matches itself
_PATTERN_SYNTAX = frozenset(".^$*+?{}[]\\|()")


def _needed(rx: re.Pattern[str]) -> str:
    """The longest run of characters that every text ``rx`` matches in holds ("" when none is
    known): a text without them is left as it is by the rule, which is then not scanned for.
    Most of pysbd's rules open with a lookbehind ("(?<=a∯m)∯", "(?<=[a-zA-z]°)\\."), which
    ``re`` tries at every position of every sentence; the characters a positive lookaround
    needs stand in the text beside the match, so they count. Only case-sensitive patterns are
    read (pysbd's are): matched exactly, their literal characters are in the text as written."""
    if rx.flags & re.IGNORECASE:
        return ""
    runs = _needed_runs(_sre.parse(rx.pattern, rx.flags))
    return max(runs, key=len, default="")


def _needed_runs(items: Any) -> list[str]:
    """Runs of literal characters a sequence of the parse tree consumes (or asserts) in turn."""
    runs: list[str] = []
    run: list[str] = []
    for op, av in items:
        if op is _C.LITERAL:
            run.append(chr(av))
            continue
        runs.append("".join(run))
        run = []
        if op is _C.SUBPATTERN and not av[1] & re.IGNORECASE:  # not a "(?i:...)" group
            runs += _needed_runs(av[-1])
        elif op is _C.ASSERT:  # positive, either way: its characters stand next to the match
            runs += _needed_runs(av[1])
        elif op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT) and av[0] >= 1:
            runs += _needed_runs(av[2])  # one repetition at least: its characters are there
        # anything else (a class, an anchor, a branch, a negative lookaround) needs nothing sure
    runs.append("".join(run))
    return [r for r in runs if r]


def _literal(rx: re.Pattern[str]) -> str | None:
    """The text ``rx`` matches when it is a run of plain characters without flags, else None."""
    if rx.flags != re.UNICODE or not rx.pattern or _PATTERN_SYNTAX & set(rx.pattern):
        return None
    return rx.pattern


def _apply(text: str, *rules: Any) -> str:
    if not rules:
        return text
    out = str(text)
    for rule in rules:
        found = _RULES.get(rule.pattern)
        if found is None:
            rx = re.compile(rule.pattern)
            found = _RULES[rule.pattern] = (rx, _literal(rx), _needed(rx))
        rx, literal, needed = found
        if literal is not None and "\\" not in rule.replacement:
            out = out.replace(literal, rule.replacement)
        elif needed in out:  # else the rule finds no match: the text is kept as it is
            out = rx.sub(rule.replacement, out)
    return out


def _pysbd_segments(text: str) -> list[str]:
    r"""What ``pysbd.Segmenter(language="en", clean=False).segment(text)`` returns: each
    sentence with the whitespace after it.

    pysbd finds each sentence again in the text by compiling a regular expression of the
    sentence itself (``re.escape(sentence) + r"\s*"``). Every sentence is a new pattern, so
    besides the compiling, each one pushes a pattern out of ``re``'s cache, pysbd's own rules
    and the audit's included, which are then compiled again and again. The same search is
    done here with ``str.find``: the first occurrence, scanning without overlaps from the
    start, that ends after the previous one (``\s`` in a ``str`` pattern is ``str.isspace``).
    tests/test_sentences_pysbd_search.py holds it equal to pysbd's own on real pages."""
    global _segmenter
    if _segmenter is None:  # built on first use: nothing pays for it at import
        _segmenter = pysbd.Segmenter(language="en", clean=False)
        _segmenter.language_module = _English
    if not text:
        return []
    if _unsplittable(text):
        start = len(text) - len(text.lstrip())
        return [text[start:]] if start < len(text) else []
    # pysbd's rules applied by _apply while it runs, its own apply put back after
    setattr(Text, "apply", _apply)  # noqa: B010 - a method replaced: mypy refuses a plain assignment
    try:
        segments = _segmenter.processor(text).process()
    finally:
        setattr(Text, "apply", _pysbd_apply)  # noqa: B010
    out: list[str] = []
    prior_end = 0
    for sent in segments:
        if not sent:  # rare: pysbd's own search for an empty segment, exactly as it does it
            for m in re.finditer(r"\s*", text):
                if m.end() > prior_end:
                    out.append(m.group())
                    prior_end = m.end()
                    break
            continue
        at = 0
        while (found := text.find(sent, at)) >= 0:
            end = found + len(sent)
            while end < len(text) and text[end].isspace():
                end += 1
            if end > prior_end:
                out.append(text[found:end])
                prior_end = end
                break
            at = end
    return out


def _pysbd_spans(text: str) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    pos = 0
    for sent in _pysbd_segments(text):
        # Offsets are found from where the last segment ended: pysbd's own char_span searches
        # from the start and lands on an earlier repeat of the same characters.
        found = text.find(sent, pos)
        if found < 0:
            found = text.find(sent.strip(), pos)
            sent = sent.strip()
        if found < 0:
            continue
        start, end = found, found + len(sent)
        pos = end
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if end > start:
            out.append((start, end))
    return out


def _join_clock_times(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if out:
            prev_start, prev_end = out[-1]
            gap = text[prev_end:start]
            if (
                _CLOCK_SUFFIX.search(text[prev_start:prev_end])
                and "\n" not in gap
                and _TIME_GOES_ON.match(text, start)
            ):
                out[-1] = (prev_start, end)
                continue
        out.append((start, end))
    return out


def _period_then_space(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] holds a period followed by whitespace, which every match of
    _MISSED_BOUNDARY holds: a sentence's own period ends it, so most sentences hold none."""
    at = text.find(".", start, end)
    while at >= 0:
        if at + 1 < end and text[at + 1].isspace():
            return True
        at = text.find(".", at + 1, end)
    return False


def _split_missed(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in spans:
        if not _period_then_space(text, start, end):
            out.append((start, end))
            continue
        for m in _MISSED_BOUNDARY.finditer(text, start, end):
            cut = m.start(1)
            if cut > start:
                out.append((start, cut))
            start = m.end(1)
        out.append((start, end))
    return out


@memo_list(4096)  # the agent splits the same page blocks again for every sub-question and run
def sentence_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of every non-blank sentence of ``text``, surrounding whitespace excluded."""
    return _split_missed(text, _join_clock_times(text, _pysbd_spans(text)))


def sentence_texts(text: str) -> list[str]:
    """The sentences of ``text`` as strings; ``[text.strip()]`` when none is found (a claim
    without closing punctuation is still one sentence)."""
    return [text[a:b] for a, b in sentence_spans(text)] or [text.strip()]


def sentence_ends(text: str) -> list[int]:
    """End offsets (exclusive) of every non-blank sentence of ``text``."""
    return [end for _, end in sentence_spans(text)]


def first_sentence(text: str, limit: int = 400) -> str:
    """The first sentence of ``text`` (at most ``limit`` characters): a claim restating a span."""
    text = text.strip()
    ends = sentence_ends(text[:2000])
    sentence = text[: ends[0]] if ends else text
    return sentence[:limit].strip()


@lru_cache(maxsize=4096)
def sentences_of(text: str) -> tuple[str, ...]:
    """The sentences of ``text``, line by line (a line break always ends one); ``(text,)``
    when none is found. Cached: the judge and the audit ask for the same span's many times."""
    out: list[str] = []
    for line in text.splitlines():
        out += [line[a:b] for a, b in sentence_spans(line)]
    return tuple(s for s in out if s.strip()) or (text,)
