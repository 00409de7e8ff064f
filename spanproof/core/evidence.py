"""Typed evidence the tools produce and everything downstream reads.

Identifiers are derived from content, never from counters, so the same page
and the same character range give the same ids in any process.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

DOC_ID_PATTERN = r"^doc_[0-9a-f]{16}$"
SPAN_ID_PATTERN = r"^span_[0-9a-f]{16}$"

Purpose = Literal["support_claim", "check_contradiction", "identify_source_date", "identify_author"]


def utc_now_iso() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def make_doc_id(url: str, raw: bytes) -> str:
    """A document is its URL plus the bytes served there: same page, same id."""
    digest = hashlib.sha256(url.encode("utf-8") + b"\x00" + raw).hexdigest()
    return "doc_" + digest[:16]


def warc_record_id(*parts: str | bytes) -> str:
    """A WARC-Record-ID derived from content, so rebuilding a WARC gives the same bytes."""
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode("utf-8") if isinstance(part, str) else part)
        h.update(b"\x00")
    d = h.hexdigest()
    return f"<urn:uuid:{d[:8]}-{d[8:12]}-{d[12:16]}-{d[16:20]}-{d[20:32]}>"


def make_span_id(doc_id: str, char_start: int, char_end: int) -> str:
    digest = hashlib.sha256(f"{doc_id}:{char_start}:{char_end}".encode()).hexdigest()
    return "span_" + digest[:16]


class Document(BaseModel):
    """One stored fetch: the raw record lives in WARC, the text is what tools read."""

    doc_id: str = Field(pattern=DOC_ID_PATTERN)
    url: str
    final_url: str
    status: int
    content_type: str
    retrieved_at: str
    sha256: str  # of the raw bytes
    title: str = ""
    text: str  # sanitised text; every span offset indexes into this string
    # agent.sanitise.SANITISER_VERSION that made `text` (None: stored before versions were kept)
    sanitiser_version: str | None = None


class Span(BaseModel):
    """An exact character range of a stored document: text == document.text[start:end]."""

    span_id: str = Field(pattern=SPAN_ID_PATTERN)
    doc_id: str = Field(pattern=DOC_ID_PATTERN)
    url: str
    title: str = ""
    text: str
    char_start: int = Field(ge=0)
    char_end: int = Field(ge=0)
    retrieved_at: str
    purpose: Purpose = "support_claim"


class SearchHit(BaseModel):
    title: str
    url: str
    snippet: str  # never evidence: written by the index, not quoted from a fetched page


class EgressEvent(BaseModel):
    """One attempted contact with a host, allowed or refused; the trace holds them all."""

    kind: Literal["egress"] = "egress"
    host: str
    method: str
    url: str
    decision: Literal["allowed", "refused"]
    reason: str = ""
    status: int | None = None
    bytes: int = 0
    ms: float = 0.0
    at: str = Field(default_factory=utc_now_iso)
