"""The one envelope in which fetched text reaches any model: ``<untrusted_span ...>``.

A security boundary is written once. The agent's tool results and the verifier's user
message both wrap span text here, so they cannot drift apart in how they escape it:

- the body cannot close (or open) an envelope: any ``<untrusted_span`` or
  ``</untrusted_span`` look-alike, whatever its case or inner whitespace
  (``< / UNTRUSTED_span``), has its ``<`` turned into ``&lt;``;
- attribute values (URL, retrieval time, span id) are HTML-escaped with quotes, so a URL
  cannot end its attribute and add another; a missing value is written ``unknown``.
"""

from __future__ import annotations

import html
import re

_TAG = re.compile(r"<(\s*/?\s*untrusted_span)", re.IGNORECASE)


def _attr(value: str | None) -> str:
    return html.escape(value if value else "unknown", quote=True)


def render_untrusted(
    text: str, url: str | None, retrieved_at: str | None, span_id: str | None = None
) -> str:
    """``text`` inside its envelope; the content cannot end the envelope early."""
    attrs = f'url="{_attr(url)}" retrieved_at="{_attr(retrieved_at)}"'
    if span_id:
        attrs = f'span_id="{_attr(span_id)}" ' + attrs
    body = _TAG.sub(r"&lt;\1", text)
    return f"<untrusted_span {attrs}>\n{body}\n</untrusted_span>"
