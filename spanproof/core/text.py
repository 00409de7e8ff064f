"""The project's one place for words: tokens, stopwords, stemming, accent folding, passage ranking.

Coverage in the rules judge, the audit's name matching, passage choice in ``grade``, the
atomic splitter's validation and the gate's fact matching all compare words. When each kept
its own stopword list and suffix stripper they disagreed on what "the same word" is, so they
all come here:

- ``words(text)``: lower-case word tokens (letters/digits, inner ``'`` ``-`` ``.`` kept:
  "U.S.", "don't", "3.5").
- ``STOPWORDS``: one list, shipped as data (``spanproof/core/data/stopwords.txt``).
- ``stem(word)``: a light suffix stripper, enough to meet "released"/"releases"/"release"
  and no more (an aggressive stemmer joins words a judge must keep apart).
- ``content_stems(text)``: the stems of the non-stopword words.
- ``fold(token)``: lower-case without accents, so "Bruzón" meets "Bruzon".
- ``block_at(text, pos)``: the blank-line-separated block (the sanitiser's paragraph, table
  row or caption) that holds a position.
- ``PassageIndex``: BM25 ranking of passages against a query with SQLite FTS5 in memory
  (the engine ``agent.search.LocalIndex`` already uses), over the same stems as above so
  ranking and coverage agree on words.
"""

from __future__ import annotations

import re
import sqlite3
import unicodedata
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources

from spanproof.core.memo import memo_list

__all__ = [
    "STOPWORDS",
    "PassageIndex",
    "content_stems",
    "fold",
    "normalise_ws",
    "stem",
    "words",
]

_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-\.]*[A-Za-z0-9]|[A-Za-z0-9]")


def _load_words(name: str) -> frozenset[str]:
    text = resources.files("spanproof.core").joinpath("data", name).read_text(encoding="utf-8")
    out = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return frozenset(out)


STOPWORDS: frozenset[str] = _load_words("stopwords.txt")


def normalise_ws(text: str) -> str:
    """Collapse every run of whitespace to one space (the only normalisation the quote check allows)."""
    return " ".join(text.split())


def _split_words(text: str) -> list[str]:
    return [w.strip(".'’-").lower() for w in _WORD_RE.findall(text)]


@memo_list(8192)  # every signal and audit check tokenises the same claim and span again
def words(text: str) -> list[str]:
    """Lower-case word tokens, outer ``.'’-`` stripped ("U.S." -> "u.s", "1990s" kept)."""
    return _split_words(text)


_SUFFIXES_LONG = ("ational", "ization", "iveness", "fulness", "ousness")
_SUFFIXES = ("ments", "ment", "ness", "ings", "ing", "edly", "ies", "ied", "ers", "ed",
             "es", "er", "ly", "s", "e", "y")  # fmt: skip


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A light suffix stripper: enough to match 'released'/'releases'/'release', no more."""
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 4:
        return w
    if w.endswith(_SUFFIXES_LONG):
        for suffix in _SUFFIXES_LONG:
            if w.endswith(suffix):
                return w[: -len(suffix)]
    if not w.endswith(_SUFFIXES):  # one test of every ending before trying them in turn
        return w
    for suffix in _SUFFIXES:
        if w.endswith(suffix) and len(w) - len(suffix) >= 3:
            return w[: -len(suffix)]
    return w


def _stems_of(ws: list[str]) -> list[str]:
    return [stem(w) for w in ws if w not in STOPWORDS and len(w) > 1]


@memo_list(8192)
def content_stems(text: str) -> list[str]:
    """Stems of the words that are not stopwords (single letters dropped), in text order."""
    return _stems_of(words(text))


def piece_stems(piece: str) -> list[str]:
    """``content_stems`` of a piece of a text no other reader asks about (one word of a span),
    read without the memos: kept there, the many pieces pushed out the whole texts that
    readers do share, and each paid for two look-ups it never used."""
    return _stems_of(_split_words(piece))


@lru_cache(maxsize=65536)
def fold(token: str) -> str:
    """Lower-case, curly apostrophe straightened, accents stripped: "Bruzón" -> "bruzon"."""
    if token.isascii():  # nothing to straighten or strip: NFKD leaves ASCII as it is
        return token.lower()
    token = unicodedata.normalize("NFKD", token.lower().replace("’", "'"))
    return "".join(c for c in token if not unicodedata.combining(c))


def _index_terms(text: str) -> list[str]:
    # FTS5's unicode61 tokenizer splits on anything but letters and digits; the stems are
    # reduced to those characters here so the index holds exactly the stems we compare.
    out = []
    for s in content_stems(text):
        t = "".join(c for c in fold(s) if c.isalnum())
        if t:
            out.append(t)
    return out


class PassageIndex:
    """BM25 ranking of a fixed list of passages (SQLite FTS5, in memory).

    ``rank(query)`` returns ``(passage index, score)`` best first. Passages are ordered by
    how many distinct query terms they hold, then by BM25 (on a handful of passages BM25's
    idf is near zero and would rank by length alone); the score is that count plus the BM25
    value scaled into (0, 1), so it is > 0 exactly for passages sharing a term with the
    query. Passages sharing none follow with score 0, in order.
    """

    def __init__(self, passages: Sequence[str]) -> None:
        self.n = len(passages)
        terms = [_index_terms(text) for text in passages]
        self._terms = [set(t) for t in terms]
        self._db = sqlite3.connect(":memory:", check_same_thread=False)
        self._db.execute("CREATE VIRTUAL TABLE p USING fts5(body, tokenize='unicode61')")
        self._db.executemany(
            "INSERT INTO p(rowid, body) VALUES (?, ?)",
            [(i, " ".join(t)) for i, t in enumerate(terms)],
        )

    def rank(self, query: str, limit: int | None = None) -> list[tuple[int, float]]:
        terms = list(dict.fromkeys(_index_terms(query)))
        scored: list[tuple[int, float]] = []
        if terms:
            match = " OR ".join(f'"{t}"' for t in terms)
            rows = self._db.execute(
                "SELECT rowid, bm25(p) FROM p WHERE p MATCH ? ORDER BY bm25(p), rowid", (match,)
            ).fetchall()
            wanted = set(terms)
            for i, bm25 in rows:
                bm = max(-float(bm25), 0.0)
                scored.append((int(i), len(wanted & self._terms[int(i)]) + bm / (1.0 + bm)))
            scored.sort(key=lambda item: (-item[1], item[0]))
        seen = {i for i, _ in scored}
        scored += [(i, 0.0) for i in range(self.n) if i not in seen]
        return scored[:limit] if limit is not None else scored

    def close(self) -> None:
        self._db.close()


_CHROME_SEP = re.compile(r"\s(?:\||»|›|•|·|/)\s|\s>\s")
# Pieces probed for prose in a passage with its line breaks folded to spaces: a cut at every
# end mark, abbreviations included. Not the shared splitter: this is a probe for any run of
# prose, not sentences anyone quotes; on the passage windows of the 349 WiCE development
# pages the shared one would call 161 of 125,958 windows otherwise (both ways: captions
# repeated on one line become chrome, "Gov. John Swainson" stays prose), which would change
# the passages report grading offers.
_PROSE_PROBE_BREAK = re.compile(r"(?<=[.!?])\s+")
_CHROME_PHRASES = re.compile(
    r"\b(?:skip to (?:main )?content|sign in|log in|subscribe|newsletter|cookie|privacy policy|"
    r"terms of (?:use|service)|all rights reserved|share (?:on|this)|follow us|menu|"
    r"read more|related (?:posts|articles|stories)|advertisement|back to top)\b",
    re.I,
)


def looks_like_chrome(passage: str) -> bool:
    """Navigation and page furniture rather than prose: "Archive | About | Skip to content",
    "Home > News > Economy", a run of menu words with no sentence in it.

    A passage is chrome when separators split it into three or more short pieces, or when no
    part of it reads as prose (eight words or more, three of them lower-case function words)
    and it holds page-furniture phrases or is mostly capitalised words (a heading, a menu)."""
    text = " ".join(passage.split())
    if not text:
        return True
    pieces = [p for p in _CHROME_SEP.split(text) if p.strip()]
    if len(pieces) >= 3 and sum(len(p.split()) <= 4 for p in pieces) >= 0.6 * len(pieces):
        return True
    if any(_is_prose(s) for s in _PROSE_PROBE_BREAK.split(text)):
        return False
    if _CHROME_PHRASES.search(text):
        return True
    toks = re.findall(r"[A-Za-z][\w'’-]*", text)
    return len(toks) >= 3 and sum(t[0].isupper() for t in toks) / len(toks) >= 0.6


def _is_prose(sentence: str) -> bool:
    toks = re.findall(r"[A-Za-z][\w'’-]*", sentence)
    return len(toks) >= 8 and sum(t in STOPWORDS for t in toks) >= 3


def block_at(text: str, pos: int) -> tuple[int, int]:
    """(start, end) of the blank-line-separated block of ``text`` that holds ``pos``: the
    sanitiser writes one paragraph, table row or caption per block."""
    a = text.rfind("\n\n", 0, pos)
    b = text.find("\n\n", pos)
    return (0 if a < 0 else a + 2), (len(text) if b < 0 else b)
