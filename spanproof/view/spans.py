"""A span shown where it sits: the stored snapshot text around it, cut at the span's own
offsets, with the judge's `quote_used` located inside it.

The highlight is taken from the snapshot (`text[char_start:char_end]`), never from the
copy of the span kept in the run record; when the two differ the page says so, since
that is a span-fidelity failure.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from spanproof.core.evidence import Span

DEFAULT_CONTEXT = 800
MAX_CONTEXT = 200_000
LEAD_CHARS = 240  # context shown open right above the span (about three lines) ...
LEAD_LINES = 3  # ... and at most this many line breaks

_QUOTE_CLASS = {
    '"': '["“”„‟«»]',
    "'": "['‘’‚‛]",
}
for _c in "“”„‟«»":
    _QUOTE_CLASS[_c] = _QUOTE_CLASS['"']
for _c in "‘’‚‛":
    _QUOTE_CLASS[_c] = _QUOTE_CLASS["'"]


class SpanContext(BaseModel):
    """The pieces a page renders in order; `span_*` pieces concatenate to the span exactly."""

    before: str
    span_before_quote: str
    quote: str
    span_after_quote: str
    after: str
    char_start: int
    char_end: int
    window_start: int
    window_end: int
    doc_length: int
    matches_record: bool  # snapshot[start:end] equals the span text kept in the record
    quote_found: bool | None  # None: the verdict named no quote

    @property
    def highlighted(self) -> str:
        return self.span_before_quote + self.quote + self.span_after_quote

    @property
    def lead(self) -> str:
        """The last few lines before the span, shown open above it: the box opens at the span,
        not at the top of the context (which could put the span below the box's fold)."""
        lead = self.before
        if len(lead) > LEAD_CHARS:
            cut = len(lead) - LEAD_CHARS
            space = lead.find(" ", cut)
            lead = lead[space + 1 if 0 <= space < cut + 40 else cut :]
        # at most a few lines: a page of short paragraphs would push the span down again
        breaks = [i for i, ch in enumerate(lead) if ch == "\n"]
        if len(breaks) > LEAD_LINES:
            lead = lead[breaks[-LEAD_LINES - 1] + 1 :]
        return lead

    @property
    def earlier(self) -> str:
        """The rest of the context before the span, folded away (one click shows it)."""
        return self.before[: len(self.before) - len(self.lead)]


def _quote_pattern(quote: str) -> re.Pattern[str]:
    """Whitespace and quotation-mark styles may differ, as in the audit's substring check."""
    parts = []
    for word in quote.split():
        parts.append("".join(_QUOTE_CLASS.get(ch, re.escape(ch)) for ch in word))
    return re.compile(r"\s+".join(parts))


def locate_quote(span_text: str, quote: str | None) -> tuple[int, int] | None:
    if not quote or not quote.strip():
        return None
    at = span_text.find(quote)
    if at >= 0:
        return at, at + len(quote)
    m = _quote_pattern(quote).search(span_text)
    return (m.start(), m.end()) if m else None


def span_context(
    stored_text: str, span: Span, quote_used: str | None, context: int = DEFAULT_CONTEXT
) -> SpanContext:
    context = max(0, min(int(context), MAX_CONTEXT))
    cs, ce = span.char_start, span.char_end
    if not (0 <= cs <= ce <= len(stored_text)):
        raise ValueError(
            f"span {span.span_id} [{cs}:{ce}] lies outside its document ({len(stored_text)} chars)"
        )
    ws, we = max(0, cs - context), min(len(stored_text), ce + context)
    highlighted = stored_text[cs:ce]
    where = locate_quote(highlighted, quote_used)
    if where is None:
        pre, quote, post = highlighted, "", ""
    else:
        pre, quote, post = (
            highlighted[: where[0]],
            highlighted[where[0] : where[1]],
            highlighted[where[1] :],
        )
    return SpanContext(
        before=stored_text[ws:cs],
        span_before_quote=pre,
        quote=quote,
        span_after_quote=post,
        after=stored_text[ce:we],
        char_start=cs,
        char_end=ce,
        window_start=ws,
        window_end=we,
        doc_length=len(stored_text),
        matches_record=highlighted == span.text,
        quote_found=None if not (quote_used or "").strip() else where is not None,
    )
