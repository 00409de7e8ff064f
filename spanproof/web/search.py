"""Search backends: where web_search hits come from.

Every backend speaks ``SearchBackend``:
``async search(query, recency_days=None, limit=8) -> list[SearchHit]``.
Snippets are short, sanitised, written by the index — never page bodies,
never evidence.

- ``LocalIndex`` — SQLite FTS5 over a corpus WARC, bm25-ranked over title
  (weight 5) and text (weight 1), porter stemming; snippets from FTS5
  ``snippet()``. Chosen over bm25s/tantivy: it is in the standard library,
  builds the WiCE corpus in about a second and answers in milliseconds (see
  benchmarks/bench_evidence.py). The corpus has no publication dates, so
  ``recency_days`` is accepted and ignored.
- ``SearxngSearch`` — a SearXNG instance's JSON API (self-hostable, no key).
- ``StaticSearch`` — BM25 over an in-memory list of pages (fixtures, tests).
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import sqlite3
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import httpx
from pydantic import BaseModel

from spanproof.core.evidence import SearchHit
from spanproof.web.sanitise import flatten_markdown, html_to_text

SNIPPET_CHARS = 240

_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "how",
        "with",
        "did",
        "does",
        "do",
        "this",
        "these",
        "those",
        "than",
        "then",
    ]
)
_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


@runtime_checkable
class SearchBackend(Protocol):
    async def search(
        self, query: str, recency_days: int | None = None, limit: int = 8
    ) -> list[SearchHit]: ...


def _terms(query: str) -> list[str]:
    tokens = [t.lower() for t in _TOKEN.findall(query)]
    kept = [t for t in tokens if t not in _STOPWORDS] or tokens
    return list(dict.fromkeys(kept))


def clean_snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    text = re.sub(r"\s+", " ", flatten_markdown(text)).strip()
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    return text[: cut if cut > 0 else limit].rstrip() + " …"


# -- local FTS5 index -----------------------------------------------------------


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class LocalIndex:
    """bm25 search over a corpus, backed by SQLite FTS5.

    The index file is built on first use: at ``index_path`` if given, else
    under ``home/indexes/`` (keyed by the WARC's sha256, so a changed corpus
    gets a new index), else next to the corpus as ``index.sqlite``.
    """

    def __init__(
        self,
        corpus_dir: Path | str,
        *,
        home: Path | str | None = None,
        index_path: Path | str | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> None:
        from spanproof.web.corpus import warc_of

        self.corpus_dir = Path(corpus_dir)
        self.warc = warc_of(self.corpus_dir)
        if index_path is not None:
            self.index_path = Path(index_path)
        elif home is not None:
            digest = _file_digest(self.warc)[:16]
            self.index_path = Path(home) / "indexes" / f"{digest}.sqlite"
        else:
            self.index_path = self.corpus_dir / "index.sqlite"
        self.built_now = False
        if not self.index_path.exists():
            self.build(progress=progress)
        self._db = sqlite3.connect(
            f"file:{self.index_path}?mode=ro", uri=True, check_same_thread=False
        )

    def build(self, progress: Callable[[str], None] | None = None) -> int:
        from spanproof.web.corpus import iter_responses
        from spanproof.web.sanitise import document_text

        self.index_path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.index_path.with_name(self.index_path.name + f".{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        db = sqlite3.connect(tmp)
        db.execute(
            "CREATE VIRTUAL TABLE pages USING fts5(title, text, url UNINDEXED, tokenize='porter unicode61')"
        )
        count = 0
        for url, status, headers, body in iter_responses(self.warc):
            if status != 200:
                continue
            content_type = next((v for k, v in headers if k.lower() == "content-type"), "text/html")
            title, text = document_text(body, content_type)
            db.execute("INSERT INTO pages(title, text, url) VALUES (?,?,?)", (title, text, url))
            count += 1
        db.commit()
        db.close()
        os.replace(tmp, self.index_path)  # atomic: a half-built index is never used
        self.built_now = True
        if progress:
            progress(f"indexed {count} pages into {self.index_path}")
        return count

    def search_sync(self, query: str, limit: int = 8) -> list[SearchHit]:
        terms = _terms(query)
        if not terms:
            return []
        match = " OR ".join('"' + t.replace('"', '""') + '"' for t in terms)
        rows = self._db.execute(
            "SELECT title, url, snippet(pages, 1, '', '', ' … ', 32) FROM pages "
            "WHERE pages MATCH ? ORDER BY bm25(pages, 5.0, 1.0) LIMIT ?",
            (match, limit),
        ).fetchall()
        return [SearchHit(title=t, url=u, snippet=clean_snippet(s)) for t, u, s in rows]

    async def search(
        self, query: str, recency_days: int | None = None, limit: int = 8
    ) -> list[SearchHit]:
        return self.search_sync(query, limit)

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM pages").fetchone()[0])


# -- SearXNG --------------------------------------------------------------------


def _time_range(recency_days: int | None) -> str | None:
    if recency_days is None:
        return None
    if recency_days <= 1:
        return "day"
    if recency_days <= 7:
        return "week"
    if recency_days <= 31:
        return "month"
    return "year"


class SearxngSearch:
    """A SearXNG instance's JSON API: GET {base_url}/search?q=...&format=json.

    The instance must have ``json`` enabled in ``search.formats``. recency_days
    maps to SearXNG's ``time_range`` (day/week/month/year).
    """

    def __init__(
        self,
        base_url: str,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        timeout_s: float = 10.0,
        engines: str | None = None,
        language: str | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.transport = transport
        self.timeout_s = timeout_s
        self.engines = engines
        self.language = language

    async def search(
        self, query: str, recency_days: int | None = None, limit: int = 8
    ) -> list[SearchHit]:
        params: dict[str, str] = {"q": query, "format": "json"}
        if (tr := _time_range(recency_days)) is not None:
            params["time_range"] = tr
        if self.engines:
            params["engines"] = self.engines
        if self.language:
            params["language"] = self.language
        async with httpx.AsyncClient(transport=self.transport, timeout=self.timeout_s) as client:
            response = await client.get(f"{self.base_url}/search", params=params)
        if response.status_code == 403:
            raise RuntimeError(
                "SearXNG refused the JSON format (HTTP 403): add `json` to search.formats in its settings.yml"
            )
        response.raise_for_status()
        hits: list[SearchHit] = []
        seen: set[str] = set()
        for item in response.json().get("results", []):
            url = item.get("url")
            if (
                not isinstance(url, str)
                or not url.startswith(("http://", "https://"))
                or url in seen
            ):
                continue
            seen.add(url)
            hits.append(
                SearchHit(
                    title=clean_snippet(str(item.get("title") or ""), 200),
                    url=url,
                    snippet=clean_snippet(str(item.get("content") or "")),
                )
            )
            if len(hits) >= limit:
                break
        return hits


# -- static pages ---------------------------------------------------------------


class StaticPage(BaseModel):
    title: str
    url: str
    text: str


def _as_page(item: Any) -> StaticPage:
    if isinstance(item, StaticPage):
        return item
    # a dict or any object with the attributes (a search hit, a fixture's page): read either
    get = item.get if isinstance(item, dict) else (lambda k, d=None: getattr(item, k, d))
    text = get("text") or get("snippet") or ""
    return StaticPage(title=get("title") or "", url=get("url"), text=text)


class StaticSearch:
    """BM25 over a fixed list of pages (title, url, text); for fixtures and tests.

    Accepts StaticPage, SearchHit (its snippet is the text) or dicts with
    title/url and text or snippet. Snippets are a window of at most
    ``SNIPPET_CHARS`` around the best-matching words, never the whole body
    of a longer page.
    """

    def __init__(self, pages: Iterable[Any], *, k1: float = 1.2, b: float = 0.75):
        self.pages = [_as_page(p) for p in pages]
        self._tokens = [
            [t.lower() for t in _TOKEN.findall(p.title + " " + p.text)] for p in self.pages
        ]
        self._tf = [Counter(toks) for toks in self._tokens]
        n = len(self.pages)
        df: Counter[str] = Counter()
        for tf in self._tf:
            df.update(tf.keys())
        self._idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}
        self._avg = (sum(len(t) for t in self._tokens) / n) if n else 0.0
        self.k1, self.b = k1, b

    @classmethod
    def from_html(cls, pages: Iterable[tuple[str, str]]) -> StaticSearch:
        """From (url, html) pairs: title and text as the sanitiser sees them."""
        out = []
        for url, page_html in pages:
            title, text = html_to_text(page_html)
            out.append(StaticPage(title=title, url=url, text=text))
        return cls(out)

    def _score(self, i: int, terms: list[str]) -> float:
        tf, length = self._tf[i], len(self._tokens[i])
        score = 0.0
        for t in terms:
            f = tf.get(t, 0)
            if f:
                norm = (
                    f
                    * (self.k1 + 1)
                    / (f + self.k1 * (1 - self.b + self.b * length / (self._avg or 1)))
                )
                score += self._idf.get(t, 0.0) * norm
        return score

    def _snippet(self, text: str, terms: list[str]) -> str:
        words = text.split()
        if not words:
            return ""
        best, best_hits = 0, -1
        for i in range(len(words)):
            hits = sum(1 for w in words[i : i + 30] if w.lower().strip(".,;:!?\"'()") in terms)
            if hits > best_hits:
                best, best_hits = i, hits
        window = " ".join(words[best : best + 30])
        return clean_snippet(window, min(SNIPPET_CHARS, max(40, len(text) // 2)))

    async def search(
        self, query: str, recency_days: int | None = None, limit: int = 8
    ) -> list[SearchHit]:
        terms = _terms(query)
        scored = [(self._score(i, terms), i) for i in range(len(self.pages))]
        ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))[:limit]
        return [
            SearchHit(
                title=self.pages[i].title,
                url=self.pages[i].url,
                snippet=self._snippet(self.pages[i].text, terms),
            )
            for _, i in ranked
        ]
