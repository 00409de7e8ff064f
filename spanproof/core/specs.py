"""The one parser for model and judge spec strings: ``KIND`` or ``KIND:ARGUMENT``, and for a
judge given a name of its own, ``NAME=KIND[:ARGUMENT]``.

It reads the form only and knows no names: which kinds exist is said where they are consumed
(judges: ``spanproof.graders.judges``; agent models: ``spanproof.agent.chat``; the report
grader's ``presence``). Examples: ``rules``, ``blind``, ``openai:gpt-4o-mini``,
``scripted:verdicts.jsonl``, ``extractive``.
"""

from __future__ import annotations

import os
import re
from typing import Literal

from pydantic import BaseModel, Field

# A kind is a lowercase word; everything after the first colon is its argument (a model name,
# a file path), which may itself hold colons ("openai:org/model:v2", "scripted:C:/x.json").
_FORM = re.compile(r"(?P<kind>[a-z][a-z0-9_-]*)(?::(?P<name>.*))?", re.DOTALL)


class SpecError(ValueError):
    """A spec string that names nothing spanproof knows."""


class ModelSpec(BaseModel, frozen=True):
    kind: str
    name: str = ""  # the argument: a model name for openai:, a file path for scripted:

    def __str__(self) -> str:
        return self.kind if not self.name else f"{self.kind}:{self.name}"


def parse_spec(text: str) -> ModelSpec:
    """``KIND`` or ``KIND:ARGUMENT``; SpecError for anything else (never for an unknown KIND:
    the consumer says which kinds it takes)."""
    raw = (text or "").strip()
    form = _FORM.fullmatch(raw)
    if form is None or (form.group("name") is not None and not form.group("name").strip()):
        raise SpecError(
            f"Cannot read the spec {text!r}: write KIND or KIND:ARGUMENT, e.g. rules, "
            "openai:gpt-4o-mini, scripted:verdicts.jsonl."
        )
    return ModelSpec(kind=form.group("kind"), name=(form.group("name") or "").strip())


# A judge's name: what tables, files and pages call it instead of its spec (a scripted judge's
# spec is a whole path). A name holds no colon, so the first "=" before any colon is the name's:
# "scripted:a=b.jsonl" is a spec whose path holds "=", "t5=scripted:a.jsonl" is a named one.
_NAMED = re.compile(r"(?P<label>[^:=]*)=(?P<spec>.*)", re.DOTALL)
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")


class NamedSpec(BaseModel, frozen=True):
    """A spec with the name it was given (``NAME=SPEC``), or with none."""

    name: str | None
    spec: ModelSpec

    @property
    def label(self) -> str:
        """What to call it: its name, else its spec."""
        return self.name or str(self.spec)


def parse_named_spec(text: str) -> NamedSpec:
    """``NAME=SPEC`` or ``SPEC``; SpecError (saying how to write it) for a bad name or spec."""
    raw = (text or "").strip()
    named = _NAMED.fullmatch(raw)
    if named is None:
        return NamedSpec(name=None, spec=parse_spec(raw))
    label = named.group("label").strip()
    if not _NAME.fullmatch(label):
        raise SpecError(
            f"Cannot read the name {label!r} in {text!r}: write NAME=SPEC with a NAME of up to 40 "
            "letters, digits, '-', '_' or '.', e.g. t5=scripted:verdicts.jsonl."
        )
    return NamedSpec(name=label, spec=parse_spec(named.group("spec")))


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
