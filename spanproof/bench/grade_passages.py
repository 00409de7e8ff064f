"""Candidate passages of a stored page: sentence windows of the stored text, at most 900
characters, ranked by relevance to the claim (BM25, ``spanproof.core.text.PassageIndex``);
navigation and page furniture ("Archive | About | Skip to content", headings, menus) are
never candidates."""

from __future__ import annotations

import re

from spanproof.core.sentences import sentence_spans
from spanproof.core.text import PassageIndex as TextIndex
from spanproof.core.text import looks_like_chrome

MAX_PASSAGE_CHARS = 900
DEFAULT_PASSAGES = 3


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """Sentence (start, end) offsets of a stored text; blocks (lines) never share a sentence."""
    out: list[tuple[int, int]] = []
    for block in re.finditer(r"[^\n]+", text):
        base = block.start()
        body = block.group(0)
        if len(body) < 200 and not re.search(r"[.!?]\s", body):
            out.append((base, block.end()))  # a short line is its own unit (headings, items)
            continue
        out.extend((base + start, base + end) for start, end in sentence_spans(body))
    return [b for b in out if text[b[0] : b[1]].strip()]


class PassageIndex:
    """Sentence windows (1-3 sentences, <= 900 chars) of one document, ranked by BM25
    (``spanproof.core.text.PassageIndex``: SQLite FTS5 over the project's stems)."""

    def __init__(self, text: str, max_chars: int = MAX_PASSAGE_CHARS) -> None:
        self.text = text
        bounds = sentence_bounds(text)
        windows: list[tuple[int, int]] = []
        for i, (start, end) in enumerate(bounds):
            if end - start > max_chars:
                windows.append((start, _cut(text, start, max_chars)))
                continue
            for j in range(i, min(i + 3, len(bounds))):
                stop = bounds[j][1]
                if stop - start > max_chars:
                    break
                windows.append((start, stop))
        # navigation and page furniture are never evidence: they are not candidates at all
        self.windows = [(s, e) for s, e in windows if not looks_like_chrome(text[s:e])]
        self._index = TextIndex([text[s:e] for s, e in self.windows])

    def best(self, claim: str, n: int = DEFAULT_PASSAGES) -> list[tuple[int, int]]:
        """The ``n`` most relevant windows sharing a word with the claim, best first."""
        chosen: list[tuple[int, int]] = []
        for k, score in self._index.rank(claim):
            if score <= 0:
                break  # the rest share no word with the claim
            s, e = self.windows[k]
            # A window mostly inside one already chosen adds little for the judge.
            if any(min(e, ce) - max(s, cs) > 0.5 * (e - s) for cs, ce in chosen):
                continue
            chosen.append((s, e))
            if len(chosen) == n:
                break
        return chosen


def _cut(text: str, start: int, max_chars: int) -> int:
    """End of a window that must be cut: the last space before max_chars."""
    end = start + max_chars
    space = text.rfind(" ", start, end)
    return space if space > start + max_chars // 2 else end
