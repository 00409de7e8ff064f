"""Word-level reading of a claim against a span: content keys, coverage, navigation lines. Words, stopwords and stems come from ``spanproof.core.text``."""

from __future__ import annotations

import re
from functools import lru_cache

from spanproof.graders.specifics import century_established, extract

from spanproof.core.text import content_stems, normalise_ws, stem


def key(stem_: str) -> str:
    # A 5-letter prefix of the stem joins derived forms the light stemmer leaves apart
    # ("announce"/"announcement", "publicized"/"publicity").
    return stem_[:5]


def periods_met(claim: str, span_text: str) -> set[str]:
    """Keys of the claim's period words a year in the span establishes.

    "in the later fifteenth century" is stated by a span that says "1455" and "1485": the
    words "fifteenth" and "century" are then covered, as the audit already accepts them."""
    if "centur" not in claim.lower():
        return set()
    c = extract(claim)
    if not any(q.kind == "ordinal" for q in c.numbers):
        return set()
    s = extract(span_text)
    out: set[str] = set()
    for q in c.numbers:
        if century_established(q, claim, s):
            out |= {key(st) for st in content_stems(f"{q.surface} century")}
    return out


# Common relational and reporting words a page says in another word of the same meaning.
_SYNONYM_GROUPS = (
    ("find", "discover"),
    ("tell", "told", "describe", "recount"),
    ("show", "depict", "display", "portray"),
    ("release", "publish", "post"),
    ("allow", "enable", "permit", "let"),
    ("provide", "offer", "give", "supply"),
    ("begin", "began", "start", "commence"),
    ("buy", "bought", "purchase", "acquire"),
    ("large", "big", "largest", "biggest"),
    ("video", "footage"),
)
_CANON = {key(stem(w)): key(stem(group[0])) for group in _SYNONYM_GROUPS for w in group}


def keys(text: str) -> list[str]:
    """Content keys of a text, in order: stems cut to 5 letters, synonyms joined."""
    return list(_keys(text))


@lru_cache(maxsize=65536)
def _keys(text: str) -> tuple[str, ...]:
    return tuple(_CANON.get(k, k) for k in (key(s) for s in content_stems(text)))


@lru_cache(maxsize=65536)
def key_set(text: str) -> frozenset[str]:
    return frozenset(_keys(text))


def coverage(claim: str, span_text: str) -> tuple[float, list[str]]:
    """Share of the claim's distinct content keys present in the span, and the missing ones."""
    cov, missing = _coverage(claim, span_text)
    return cov, list(missing)


@lru_cache(maxsize=65536)
def _coverage(claim: str, span_text: str) -> tuple[float, tuple[str, ...]]:
    claim_keys = list(dict.fromkeys(_keys(claim)))
    if not claim_keys:
        # nothing but stopwords: covered only if the span says the very same words
        same = normalise_ws(claim).lower().strip(" .!?") in normalise_ws(span_text).lower()
        return (1.0 if same and claim.strip(" .!?") else 0.0), ()
    span_keys = key_set(span_text) | periods_met(claim, span_text)
    missing = tuple(s for s in claim_keys if s not in span_keys)
    return 1 - len(missing) / len(claim_keys), missing


def shared_words(claim: str, span_text: str) -> int:
    """How many of the claim's distinct content keys the span holds."""
    n = len(key_set(claim))
    return round(n * coverage(claim, span_text)[0]) if n else 0


def missing_words(claim: str, missing_keys: list[str], n: int = 3) -> str:
    """The claim's own words behind the first missing keys (a readable unsupported_element)."""
    out: list[str] = []
    wanted = set(missing_keys)
    for word in claim.split():
        w = word.strip(".,;:!?\"'()“”’")
        if set(keys(w)) & wanted and w not in out:
            out.append(w)
        if len(out) >= n:
            break
    return " ".join(out) or " ".join(missing_keys[:n])


_CRUMB_SEP = re.compile(r"\s[>»›|]\s")


def is_breadcrumb(line: str) -> bool:
    """ "Home > News > Economy > Inflation figures": short segments joined by > » › or |."""
    parts = _CRUMB_SEP.split(line)
    return len(parts) >= 3 and all(0 < len(p.split()) <= 8 for p in parts)
