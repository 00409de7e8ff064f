"""The one parser for model and judge spec strings.

- ``rules``              offline deterministic judge (the embedded default)
- ``blind``              canary judge: always SUPPORTED with a valid quote
- ``presence``           straw-man report grader: a citation exists, nothing else
- ``extractive``         offline agent policy (no model)
- ``openai:<model>``     any OpenAI-compatible endpoint
- ``scripted:<path>``    replays a script file; fails loudly when it runs out
"""

from __future__ import annotations

import os
from typing import Literal

from pydantic import BaseModel, Field

SpecKind = Literal["rules", "blind", "presence", "extractive", "openai", "scripted"]
_BARE = {"rules", "blind", "presence", "extractive"}
_PREFIXED = {"openai", "scripted"}


class SpecError(ValueError):
    """A spec string that names nothing spanproof knows."""


class ModelSpec(BaseModel, frozen=True):
    kind: SpecKind
    name: str = ""  # model name for openai:, file path for scripted:

    def __str__(self) -> str:
        return self.kind if not self.name else f"{self.kind}:{self.name}"


def parse_spec(text: str) -> ModelSpec:
    raw = (text or "").strip()
    if raw in _BARE:
        return ModelSpec(kind=raw)
    kind, sep, name = raw.partition(":")
    if sep and kind in _PREFIXED and name.strip():
        return ModelSpec(kind=kind, name=name.strip())
    raise SpecError(
        f"Unknown model spec {text!r}. Use one of: rules, blind, presence, extractive, "
        "openai:<model> (e.g. openai:gpt-4o-mini), scripted:<path-to-script.json>."
    )


ResponseFormatChoice = Literal["auto", "json_schema", "json_object_schema", "json_object", "prompt"]

# Sized for CPU inference: a small local model on two cores takes tens of seconds for one
# reply, and the adaptive concurrency keeps requests from queueing behind each other.
DEFAULT_TIMEOUT_S = 180.0
DEFAULT_CONCURRENCY = 8
DEFAULT_MAX_RETRIES = 3
DEFAULT_BREAKER_AFTER = 5
# A chat completion is JSON around the model's text: a reply larger than this is a broken or
# hostile server, not an answer (replies feed the next request, so they must not grow it).
DEFAULT_MAX_REPLY_BYTES = 1_000_000


class EndpointSettings(BaseModel, frozen=True):
    """Where an ``openai:`` spec sends its calls, and how (the same for every caller)."""

    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = Field(DEFAULT_TIMEOUT_S, gt=0)
    concurrency: int = Field(DEFAULT_CONCURRENCY, ge=1, le=256)
    response_format: ResponseFormatChoice = "auto"
    max_retries: int = Field(DEFAULT_MAX_RETRIES, ge=0, le=10)
    breaker_after: int = Field(DEFAULT_BREAKER_AFTER, ge=1)
    max_reply_bytes: int = Field(DEFAULT_MAX_REPLY_BYTES, ge=1024)

    def resolved(self) -> EndpointSettings:
        """Fill unset fields from OPENAI_BASE_URL / OPENAI_API_KEY; fail with a fix if no key."""
        base_url = self.base_url or os.environ.get("OPENAI_BASE_URL")
        api_key = self.api_key or os.environ.get("OPENAI_API_KEY")
        if not api_key:
            raise SpecError(
                "No API key found for the openai: model - set OPENAI_API_KEY, or pass --api-key. "
                "For a local server that ignores keys (vLLM, llama.cpp, Ollama) any value works, "
                "e.g. OPENAI_API_KEY=local."
            )
        return self.model_copy(update={"base_url": base_url, "api_key": api_key})
