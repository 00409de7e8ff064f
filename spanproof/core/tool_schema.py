"""The agent-facing tool contract: argument and result models, and error codes.

These models are the product's tool schema: their JSON schemas are what a
model sees, and the runtime validates every call against them.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from spanproof.core.evidence import DOC_ID_PATTERN, SPAN_ID_PATTERN, Purpose, SearchHit

ErrorCode = Literal[
    # extract_quote
    "LOCATOR_NOT_FOUND",  # retryable: re-read the preview or fetch again; never guess from memory
    "LOCATOR_AMBIGUOUS",  # retryable: `options` holds the words after each occurrence
    "UNKNOWN_DOC_ID",  # not retryable: fetch first; ids from other runs are invalid
    "SPAN_BUDGET_EXCEEDED",  # not retryable: draft with what you have
    "NO_SENTENCE_END",  # retryable: raise max_chars (<= 900) or pick a locator nearer the sentence
    # fetch_page / egress
    "URL_NOT_ALLOWED",
    "URL_NOT_FROM_SEARCH",
    "DUPLICATE_FETCH",
    "TOO_LARGE",
    "UNSUPPORTED_CONTENT_TYPE",
    "FETCH_FAILED",
    # any tool
    "BUDGET_EXCEEDED",
    "INVALID_ARGUMENTS",
]


class WebSearchArgs(BaseModel):
    """Search the web. Returns titles, URLs and snippets. Snippets are NOT evidence."""

    query: str = Field(min_length=1, max_length=300)
    recency_days: int | None = Field(default=None, ge=1)


class WebSearchResult(BaseModel):
    hits: list[SearchHit]


class FetchPageArgs(BaseModel):
    """Fetch a page whose URL appeared in a search hit of this run or in the question."""

    url: str = Field(min_length=1, max_length=2000)


class FetchPageResult(BaseModel):
    doc_id: str = Field(pattern=DOC_ID_PATTERN)
    url: str
    title: str
    preview: str
    truncated: bool


class ExtractQuoteArgs(BaseModel):
    """Quote an exact span of a fetched document, starting at a verbatim locator."""

    doc_id: str = Field(pattern=DOC_ID_PATTERN)
    locator: str = Field(min_length=12, max_length=240)
    max_chars: int = Field(default=600, ge=40, le=900)
    purpose: Purpose = "support_claim"


class ExtractQuoteResult(BaseModel):
    span_id: str = Field(pattern=SPAN_ID_PATTERN)
    text: str
    char_start: int
    char_end: int
    doc_url: str
    doc_retrieved_at: str


# The read-side tools and the schema each call's arguments are validated against, in the
# order a model is shown them. draft_answer's schema is `agent.record.Draft`.
READ_TOOL_ARGS: dict[str, type[BaseModel]] = {
    "web_search": WebSearchArgs,
    "fetch_page": FetchPageArgs,
    "extract_quote": ExtractQuoteArgs,
}


class ToolError(BaseModel):
    """A refusal the agent can act on: what went wrong and what to do next."""

    error: ErrorCode
    message: str
    retryable: bool
    options: list[str] = Field(default_factory=list)


class ToolFailure(Exception):
    """Raised inside the runtime; surfaced to the model as a ToolError, never a crash."""

    def __init__(
        self, error: ErrorCode, message: str, *, retryable: bool, options: list[str] | None = None
    ):
        super().__init__(f"{error}: {message}")
        self.detail = ToolError(
            error=error, message=message, retryable=retryable, options=options or []
        )


def validation_text(exc: ValidationError) -> str:
    """Each schema error as `field: what is wrong`, so a caller (or a model) can fix its arguments."""
    return "; ".join(
        f"{'.'.join(map(str, e['loc'])) or 'arguments'}: {e['msg']}" for e in exc.errors()
    )


def json_schema_of(model: type[BaseModel]) -> dict[str, Any]:
    """``model.model_json_schema()``, built once per model class. Pydantic builds the schema
    afresh on every call, and a model-led run sends the tools' schemas with every turn: a
    gate's runs side by side spent a sixth of their time on the event loop rebuilding the same
    four schemas. Each caller gets its own copy (parsed from the kept text), free to edit."""
    schema: dict[str, Any] = json.loads(_schema_text(model))
    return schema


@cache
def _schema_text(model: type[BaseModel]) -> str:
    return json.dumps(model.model_json_schema())
