"""JSON schemas for structured output, derived from pydantic models, and reading JSON replies.

The schema sent to a server is generated from the same pydantic model that validates the
reply, so the two cannot drift. ``strict_schema`` makes it acceptable to OpenAI's strict
structured outputs (every property required, no additional properties, no titles, refs
inlined) and to llama.cpp's grammar conversion.
"""

from __future__ import annotations

import copy
import json
import re
from functools import lru_cache
from typing import Any

from pydantic import BaseModel

# Budget for a string field whose model declares none (json_schema_extra={"max_words": n}).
DEFAULT_MAX_WORDS = 40
TOKENS_PER_WORD = 2  # generous: quotes, numbers and names tokenise into several pieces


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        out = {}
        for key, value in node.items():
            if key in ("title", "default", "$defs", "max_words"):
                continue
            out[key] = _inline(value, defs)
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def _simplify_nullable(node: Any) -> Any:
    """``anyOf: [{type: X}, {type: null}]`` -> ``type: [X, null]`` (accepted by every server)."""
    if isinstance(node, dict):
        node = {k: _simplify_nullable(v) for k, v in node.items()}
        options = node.get("anyOf")
        if isinstance(options, list) and all(
            isinstance(o, dict) and set(o) == {"type"} and isinstance(o["type"], str)
            for o in options
        ):
            rest = {k: v for k, v in node.items() if k != "anyOf"}
            return {**rest, "type": [o["type"] for o in options]}
        return node
    if isinstance(node, list):
        return [_simplify_nullable(v) for v in node]
    return node


def strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema, inlined, for a ``json_schema`` response format; a copy of
    its own for every caller (pydantic builds a schema in milliseconds: once per model)."""
    return copy.deepcopy(_strict_schema(model))


def shared_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The same schema as ``strict_schema``, without the copy: one object shared by every
    caller, for a request body that is encoded and never changed. A copy per request was a
    deep copy of the whole schema per model call (a tenth of a millisecond each, on the event
    loop that drives every call in flight)."""
    return _strict_schema(model)


@lru_cache(maxsize=64)
def _strict_schema(model: type[BaseModel]) -> dict[str, Any]:
    raw = model.model_json_schema()
    schema = _simplify_nullable(_inline(raw, raw.get("$defs", {})))
    if not isinstance(schema, dict):  # an object model's schema is an object, always
        raise TypeError(f"{model.__name__}: its JSON schema is not an object")
    return schema


@lru_cache(maxsize=64)
def max_tokens_for(model: type[BaseModel]) -> int:
    """A completion budget from the schema's size: keys, enum values and each string's word cap.

    A judge reply is a few dozen tokens; without a cap, a small model that loses its way on a
    CPU server writes until the context is full (thousands of tokens, minutes per pair).
    """
    total = 8  # braces, commas, whitespace
    for name, field in model.model_fields.items():
        total += len(name) // 3 + 4
        extra = field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {}
        ann = str(field.annotation)
        if "Literal" in ann or "bool" in ann:
            total += 8
        elif "int" in ann or "float" in ann:
            total += 4
        else:
            words = extra.get("max_words", DEFAULT_MAX_WORDS)
            if not isinstance(words, int):
                raise TypeError(f"{model.__name__}.{name}: max_words must be an int, not {words!r}")
            total += words * TOKENS_PER_WORD
    return int(total * 1.5) + 32


_FENCED = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.S)


def json_from_reply(content: str | None) -> Any:
    """The JSON value of a reply: the whole text, a fenced block, or the outermost {...}.

    Raises json.JSONDecodeError when there is none (the caller re-asks).
    """
    text = (content or "").strip()
    fenced = _FENCED.search(text)
    if fenced:
        text = fenced.group(1)
    # strict=False: a raw newline or tab inside a string (small models write them) is still
    # the JSON the model meant; rejecting it costs a re-ask and says nothing about the verdict.
    try:
        return json.loads(text, strict=False)
    except json.JSONDecodeError:
        start, end = text.find("{"), text.rfind("}")
        if start < 0 or end <= start:
            raise
        return json.loads(text[start : end + 1], strict=False)
