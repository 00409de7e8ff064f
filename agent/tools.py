"""The agent's read-side tools: web_search, fetch_page(s), extract_quote.

One ``Toolbox`` per run. It owns the run's memory of which URLs were seen
in search hits (or given in the question), which documents were fetched,
and which spans were made; nothing here survives into another run.

extract_quote, exactly:

- ``locator`` is verbatim text (12..240 chars) that must occur exactly once
  in the stored document text (overlapping occurrences count).
- The span starts at the locator and ends at the last sentence end at or
  before ``char_start + max_chars``. Sentence ends come from pysbd
  (``char_span=True``) run on the stored text one block (paragraph, the
  ``"\\n\\n"``-separated unit the sanitiser emits) at a time; a block end is
  always a sentence end, and a span may run on into later blocks when they
  fit. Segmentations are cached per (document, block), so
  a quote in a 1 MB document segments only the paragraph it lands in.
  Blocks longer than ``WINDOW_CHARS`` are segmented in a window that starts
  at the locator (deterministic for the same document and locator).
- If no sentence end fits, nothing is quoted: the call fails with
  ``NO_SENTENCE_END`` (retryable), whose message says how large ``max_chars``
  would have to be to reach the sentence's end (when 900 is enough) or that a
  locator nearer the sentence needed is the way. A span longer than the cap
  means the sentence has not been found yet; cutting it on a word instead
  would let a narrow span carry a page's claim without the instruction that
  follows it in the same sentence, and the verifier sees only the span.
  The end of the document counts as a sentence end. Trailing whitespace is
  never part of a span.
- ``span_id`` derives from (doc_id, char_start, char_end): stable across
  processes. Quoting the same range again returns the same span and does not
  spend budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

from spanproof.core.evidence import Document, EgressEvent, Span, make_span_id
from spanproof.core.sentences import sentence_ends  # re-exported: the span boundaries
from spanproof.core.tool_schema import (
    READ_TOOL_ARGS,
    ExtractQuoteArgs,
    ExtractQuoteResult,
    FetchPageArgs,
    FetchPageResult,
    ToolError,
    ToolFailure,
    WebSearchArgs,
    WebSearchResult,
    json_schema_of,
    validation_text,
)
from spanproof.core.untrusted import render_untrusted  # re-exported: the one envelope
from spanproof.wire.limiter import LoopSemaphore

if TYPE_CHECKING:
    from spanproof.web.env import WebEnv

WINDOW_CHARS = 20_000
MAX_QUOTE_CHARS = 900  # ExtractQuoteArgs.max_chars's upper bound
PREVIEW_CHARS = 4_000
OPTION_WORDS = 8
MAX_OPTIONS = 10


class _Segmentation:
    """Lazily segmented sentence ends of one document, block by block."""

    def __init__(self, text: str):
        self.text = text
        self._blocks: dict[int, list[int]] = {}

    def block_bounds(self, pos: int) -> tuple[int, int]:
        start = self.text.rfind("\n\n", 0, pos)
        start = 0 if start < 0 else start + 2
        end = self.text.find("\n\n", pos)
        end = len(self.text) if end < 0 else end
        return start, end

    def ends_between(self, lo: int, hi: int) -> list[int]:
        """Sentence ends e with lo < e <= hi, in order, from every block the range touches."""
        found: list[int] = []
        pos = lo
        while True:
            block_start, block_end = self.block_bounds(pos)
            if block_end - block_start > WINDOW_CHARS:
                window_start = max(block_start, lo)
                window_end = min(block_end, hi + 1)
                ends = [window_start + e for e in sentence_ends(self.text[window_start:window_end])]
                if window_end == block_end:
                    ends.append(block_end)
            else:
                cached = self._blocks.get(block_start)
                if cached is None:
                    cached = [
                        block_start + e for e in sentence_ends(self.text[block_start:block_end])
                    ]
                    cached.append(block_end)
                    self._blocks[block_start] = cached
                ends = cached
            found.extend(e for e in ends if lo < e <= hi)
            if block_end >= hi or block_end >= len(self.text):
                break
            pos = block_end + 2
        return sorted(set(found))


_SEGMENTATION_CACHE = 32


def _segmentation(doc: Document) -> _Segmentation:
    # A doc_id names the raw bytes; the text is what the sanitiser made of them, which a
    # different sanitiser (another version, or one switched off in a test) makes differently:
    # so the text is part of the key.
    return _segmentation_of(doc.doc_id, doc.text)


@functools.lru_cache(maxsize=_SEGMENTATION_CACHE)
def _segmentation_of(doc_id: str, text: str) -> _Segmentation:
    return _Segmentation(text)


def _occurrences(text: str, needle: str) -> list[int]:
    found: list[int] = []
    pos = text.find(needle)
    while pos >= 0:
        found.append(pos)
        pos = text.find(needle, pos + 1)
    return found


def _following_words(text: str, pos: int, n: int) -> str:
    words = re.findall(r"\S+", text[pos : pos + 400])
    return " ".join(words[:n])


def _options(text: str, locator: str, positions: list[int]) -> list[str]:
    """The words after each occurrence; grown until they tell the occurrences apart."""
    for n in (OPTION_WORDS, 16, 32):
        opts = [_following_words(text, p + len(locator), n) for p in positions]
        if len(set(opts)) == len(opts):
            break
    return [o if o else "(end of document)" for o in opts[:MAX_OPTIONS]]


def locate_span(doc: Document, locator: str, max_chars: int = 600) -> tuple[int, int]:
    """(char_start, char_end) of the quote starting at ``locator``; raises ToolFailure."""
    text = doc.text
    if not locator.strip():
        # Whitespace occurs everywhere and quotes nothing; no span can start there.
        raise ToolFailure(
            "INVALID_ARGUMENTS",
            "The locator is only whitespace. Copy 12-240 characters of the sentence itself, "
            "verbatim from the preview.",
            retryable=True,
        )
    positions = _occurrences(text, locator)
    if not positions:
        raise ToolFailure(
            "LOCATOR_NOT_FOUND",
            f"The locator does not occur verbatim in {doc.doc_id}. Do not guess another "
            "locator from memory: copy 12-240 characters exactly as they appear in the "
            "preview (same spelling, punctuation and quotation marks), or fetch the page "
            "again if the passage is beyond the preview.",
            retryable=True,
        )
    if len(positions) > 1:
        raise ToolFailure(
            "LOCATOR_AMBIGUOUS",
            f"The locator occurs {len(positions)} times in {doc.doc_id}. Extend it with the "
            "words that follow the occurrence you mean; `options` lists those words for each "
            "occurrence, in document order"
            + (f" (the first {MAX_OPTIONS})." if len(positions) > MAX_OPTIONS else "."),
            retryable=True,
            options=_options(text, locator, positions),
        )
    start = positions[0]
    limit = min(len(text), start + max_chars)

    def trimmed(end: int) -> int:
        while end > start and text[end - 1].isspace():
            end -= 1
        return end

    for candidate in reversed(_segmentation(doc).ends_between(start, limit)):
        if trimmed(candidate) > start:
            return start, trimmed(candidate)
    if limit == len(text) and trimmed(limit) > start:
        return start, trimmed(limit)
    raise no_sentence_end(doc, start, max_chars)


def no_sentence_end(doc: Document, start: int, max_chars: int) -> ToolFailure:
    """The refusal when the sentence at ``start`` runs past ``max_chars``, with the way out."""
    text = doc.text
    reach = min(len(text), start + MAX_QUOTE_CHARS)
    ends = [e for e in _segmentation(doc).ends_between(start, reach) if e > start + max_chars]
    if reach == len(text) and not ends:
        ends = [len(text)]
    if ends and max_chars < MAX_QUOTE_CHARS:
        needed = ends[0] - start
        advice = (
            f"Raise max_chars to {needed} (it may go up to {MAX_QUOTE_CHARS}; that is where the "
            "sentence ends), or choose a locator nearer the sentence needed."
        )
    else:
        advice = (
            f"Raising max_chars (up to {MAX_QUOTE_CHARS}) reaches no sentence end either: choose "
            "a locator nearer the sentence needed, copied verbatim from the preview."
        )
    return ToolFailure(
        "NO_SENTENCE_END",
        f"No sentence of {doc.doc_id} ends within max_chars={max_chars} characters of the "
        "locator, so no span was made (a span longer than the cap means the sentence has not "
        f"been found yet). {advice}",
        retryable=True,
    )


def render_span(span: Span) -> str:
    return render_untrusted(span.text, span.url, span.retrieved_at, span.span_id)


_URL_IN_TEXT = re.compile(r"https?://[^\s<>\"'\])}]+", re.IGNORECASE)


def urls_in(text: str) -> list[str]:
    """URLs a person wrote into a question (trailing punctuation trimmed)."""
    return [u.rstrip(".,;:!?") for u in _URL_IN_TEXT.findall(text)]


def preview_of(text: str, limit: int = PREVIEW_CHARS) -> tuple[str, bool]:
    """A prefix of the stored text (so locators copied from it are verbatim), cut on a word."""
    if len(text) <= limit:
        return text, False
    cut = text.rfind(" ", 0, limit)
    cut = max(cut, text.rfind("\n", 0, limit))
    return text[: cut if cut > 0 else limit].rstrip(), True


def _schema(model) -> dict:
    schema = json_schema_of(model)
    schema.pop("title", None)
    for prop in schema.get("properties", {}).values():
        prop.pop("title", None)
    return schema


TOOL_DESCRIPTIONS = {
    "web_search": "Search the web. Returns titles, URLs and snippets. Search snippets are NOT "
    "evidence: fetch a page and extract a quote before stating anything.",
    "fetch_page": "Fetch a page whose URL appeared in a search hit of this run or in the "
    "question. Returns doc_id, title, a preview of the stored text and whether it was "
    "truncated. Never fetch the same URL twice.",
    "extract_quote": "Quote an exact span of a fetched document. `locator` is 12-240 "
    "characters copied verbatim from the document; the span starts there and ends at the "
    "last sentence end within max_chars (up to 900); if no sentence ends within max_chars "
    "nothing is quoted (NO_SENTENCE_END). Returns span_id, the text and its offsets.",
}


def tool_schemas() -> list[dict]:
    """OpenAI function-tool schemas of the read-side tools, generated from the pydantic models."""
    return [
        {
            "type": "function",
            "function": {
                "name": name,
                "description": TOOL_DESCRIPTIONS[name],
                "parameters": _schema(model),
            },
        }
        for name, model in READ_TOOL_ARGS.items()
    ]


class Toolbox:
    """The tools of one run, over a WebEnv."""

    def __init__(
        self,
        env: WebEnv,
        question: str,
        max_spans: int = 11,
        *,
        preview_chars: int = PREVIEW_CHARS,
        fetch_concurrency: int = 8,
        search_limit: int = 8,
    ):
        from spanproof.core.urls import normalise_url

        self.env = env
        self.question = question
        self.max_spans = max_spans
        self.preview_chars = preview_chars
        self.search_limit = search_limit
        self.spans: dict[str, Span] = {}
        self.documents: dict[str, Document] = {}
        self.events: list[EgressEvent] = []  # this run's, in order
        self.question_urls: set[str] = set()
        for url in urls_in(question):
            try:
                self.question_urls.add(normalise_url(url))
            except ValueError:
                continue
        self.seen_urls: set[str] = set(self.question_urls)
        self.fetched_urls: dict[str, str] = {}  # normalised url -> doc_id
        self._in_flight: set[str] = set()
        self._fetch_concurrency = fetch_concurrency
        self._fetch_slots = LoopSemaphore(fetch_concurrency)

    # -- search -----------------------------------------------------------

    async def web_search(self, args: WebSearchArgs) -> WebSearchResult:
        from spanproof.core.urls import normalise_url

        try:
            hits = await self.env.search.search(
                args.query, recency_days=args.recency_days, limit=self.search_limit
            )
        except ToolFailure:
            raise
        except Exception as exc:
            raise ToolFailure(
                "FETCH_FAILED",
                f"The search backend failed ({type(exc).__name__}: {exc}). Try once more "
                "with different terms, or draft with what you have.",
                retryable=True,
            ) from exc
        for hit in hits:
            try:
                self.seen_urls.add(normalise_url(hit.url))
            except ValueError:
                continue
        return WebSearchResult(hits=hits)

    # -- fetch ------------------------------------------------------------

    async def fetch_page(self, args: FetchPageArgs) -> FetchPageResult:
        from spanproof.core.urls import normalise_url

        try:
            key = normalise_url(args.url)
        except ValueError as exc:
            raise ToolFailure(
                "URL_NOT_FROM_SEARCH",
                f"{args.url!r} is not a valid http(s) URL ({exc}). Copy a URL exactly from a "
                "search hit of this run.",
                retryable=False,
            ) from exc
        if key not in self.seen_urls:
            raise ToolFailure(
                "URL_NOT_FROM_SEARCH",
                "Only URLs that appeared in a search hit of this run or in the question may be "
                "fetched, copied exactly. Do not compose or edit URLs; search first.",
                retryable=False,
            )
        if key in self.fetched_urls or key in self._in_flight:
            doc_id = self.fetched_urls.get(key, "")
            raise ToolFailure(
                "DUPLICATE_FETCH",
                "This URL was already fetched in this run"
                + (f" as {doc_id}" if doc_id else "")
                + ": quote from that doc_id instead of fetching again.",
                retryable=False,
            )
        self._in_flight.add(key)
        try:
            async with self._fetch_slots:
                doc = await self.env.fetcher.fetch(args.url, sink=self.events)
        finally:
            self._in_flight.discard(key)
        self.fetched_urls[key] = doc.doc_id
        with contextlib.suppress(ValueError):  # a final URL is always http(s); belt and braces
            self.fetched_urls.setdefault(normalise_url(doc.final_url), doc.doc_id)
        self.documents[doc.doc_id] = doc
        preview, truncated = preview_of(doc.text, self.preview_chars)
        return FetchPageResult(
            doc_id=doc.doc_id,
            url=doc.final_url,
            title=doc.title,
            preview=preview,
            truncated=truncated,
        )

    async def fetch_pages(self, items: list[FetchPageArgs]) -> list[FetchPageResult | ToolError]:
        """Fetch several pages at once; each slot holds a result or the error for that URL."""

        async def one(args: FetchPageArgs) -> FetchPageResult | ToolError:
            try:
                return await self.fetch_page(args)
            except ToolFailure as failure:
                return failure.detail

        return list(await asyncio.gather(*(one(a) for a in items)))

    def admit(self, doc: Document) -> None:
        """Make an already stored document quotable in this run (a person chose it, e.g. the CLI)."""
        self.documents[doc.doc_id] = doc

    # -- quote ------------------------------------------------------------

    def extract_quote(self, args: ExtractQuoteArgs) -> ExtractQuoteResult:
        doc = self.documents.get(args.doc_id)
        if doc is None:
            raise ToolFailure(
                "UNKNOWN_DOC_ID",
                f"{args.doc_id} was not fetched in this run. Fetch the page first and use the "
                "doc_id fetch_page returns; ids from other runs are invalid.",
                retryable=False,
            )
        start, end = locate_span(doc, args.locator, args.max_chars)
        span_id = make_span_id(doc.doc_id, start, end)
        span = self.spans.get(span_id)
        if span is None:
            if len(self.spans) >= self.max_spans:
                raise ToolFailure(
                    "SPAN_BUDGET_EXCEEDED",
                    f"This run may extract at most {self.max_spans} spans and has used them all. "
                    "Draft your answer with the spans you have.",
                    retryable=False,
                )
            span = Span(
                span_id=span_id,
                doc_id=doc.doc_id,
                url=doc.final_url,
                title=doc.title,
                text=doc.text[start:end],
                char_start=start,
                char_end=end,
                retrieved_at=doc.retrieved_at,
                purpose=args.purpose,
            )
            self.spans[span_id] = span
        return ExtractQuoteResult(
            span_id=span.span_id,
            text=span.text,
            char_start=span.char_start,
            char_end=span.char_end,
            doc_url=span.url,
            doc_retrieved_at=span.retrieved_at,
        )

    def render_span(self, span: Span) -> str:
        return render_span(span)

    async def call(self, name: str, arguments: dict | str) -> BaseModel:
        """One read-side call outside a run: validated arguments in, a result or a ToolError out.

        No budgets and no trace: a run's calls go through `agent.dispatch.Dispatcher`,
        which checks both before it calls these tools. Never raises for anything the model did wrong: bad JSON, unknown tool and
        schema violations come back as INVALID_ARGUMENTS with the fix.
        """
        models = READ_TOOL_ARGS
        if name not in models:
            return ToolError(
                error="INVALID_ARGUMENTS",
                message=f"Unknown tool {name!r}; the tools are {', '.join(models)}.",
                retryable=True,
            )
        try:
            if isinstance(arguments, str):
                args = models[name].model_validate_json(arguments or "{}")
            else:
                args = models[name].model_validate(arguments)
        except ValidationError as exc:
            problems = validation_text(exc)
            return ToolError(
                error="INVALID_ARGUMENTS",
                message=f"{name} arguments do not match its schema ({problems}). Fix them and call again.",
                retryable=True,
            )
        try:
            if isinstance(args, WebSearchArgs):
                return await self.web_search(args)
            if isinstance(args, FetchPageArgs):
                return await self.fetch_page(args)
            if isinstance(args, ExtractQuoteArgs):
                return self.extract_quote(args)
            raise TypeError(f"no tool reads {type(args).__name__}")  # READ_TOOL_ARGS names three
        except ToolFailure as failure:
            return failure.detail

    def tool_schemas(self) -> list[dict]:
        return tool_schemas()
