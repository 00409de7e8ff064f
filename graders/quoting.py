"""The quote an offline judge points at: the verbatim window of the span that shares the most
content words with the claim, so a reader (and the audit's quote check) sees the evidence."""

from __future__ import annotations

from functools import lru_cache

from spanproof.core.text import content_stems, piece_stems

QUOTE_MAX_WORDS = 25


def _keys(text: str) -> frozenset[str]:
    return frozenset(s[:5] for s in content_stems(text))


@lru_cache(maxsize=65536)  # asked for every word of every span: words repeat across spans
def _word_keys(word: str) -> frozenset[str]:
    return frozenset(s[:5] for s in piece_stems(word))


def best_window(claim: str, span_text: str, max_words: int = QUOTE_MAX_WORDS) -> str:
    """The verbatim window of <= max_words span words sharing the most content stems with the claim."""
    toks = span_text.split()
    if len(toks) <= max_words:
        return " ".join(toks)
    wanted = _keys(claim)
    scores = [0 if wanted.isdisjoint(_word_keys(t)) else 1 for t in toks]
    best, best_i = -1, 0
    run = sum(scores[:max_words])
    for i in range(len(toks) - max_words + 1):
        if i:
            run += scores[i + max_words - 1] - scores[i - 1]
        if run > best:
            best, best_i = run, i
    return " ".join(toks[best_i : best_i + max_words])
