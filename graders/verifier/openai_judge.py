"""The LLM verifier: one isolated Chat Completions call per (claim, span), any OpenAI-compatible
endpoint (OpenAI, vLLM, llama.cpp server, Ollama).

What the model receives — and nothing else:
- a system message: graders/verifier/prompts/verifier.txt (versioned; its sha256 is on every verdict);
- a user message: the CLAIM, and the SPAN with its URL and retrieval time inside
  ``<untrusted_span>`` tags. No tools, no question, no sibling claims, no agent reasoning.

Request settings: temperature 0, the pinned model name, ``max_tokens`` sized from the verdict
schema, and structured output negotiated once per endpoint by the shared client
(spanproof.wire: json_schema -> json_object with the schema -> json_object -> prompt-only JSON,
moving on only when the server says the format is unsupported, and saying so once).

Failures:
- Timeouts, connection errors, 408/429/5xx: retried by the shared client inside its adaptive
  concurrency limit; after the last retry the verdict is an error verdict naming the cause.
- A request error of this call only (e.g. a 400 for a context that is too long): an error
  verdict for this pair; nothing changes for the other pairs.
- Malformed output (not JSON, or not the schema): at most ``MAX_REASKS`` = 2 re-asks in the
  same conversation, then an error verdict.
- Confidence: the request asks for token log-probabilities (``logprobs``); when the reply
  carries them, ``Verdict.confidence`` is the probability of the verdict's label - the product
  of the probabilities of the tokens that spell it. A reply without them leaves it None (and
  `spanproof calibrate` prints "none" and why); a server that refuses the ``logprobs``
  parameter is asked again without it, once per judge, and says so in a notice.
- An error verdict has ``error`` set and ``verdict`` NOT_SUPPORTED: never counted as
  SUPPORTED, never dropped. Setup mistakes (bad key, unknown model) and an endpoint whose
  circuit breaker opened (calls failing in a row) raise JudgeConfigError with the fix,
  because every later verdict would fail the same way.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from importlib import resources
from typing import Any

from pydantic import BaseModel, Field, ValidationError
from spanproof.graders.verifier.errors import JudgeConfigError

from spanproof.core.specs import EndpointSettings
from spanproof.core.untrusted import render_untrusted
from spanproof.core.verdict import Label, SpanRef, Verdict
from spanproof.wire import (
    CircuitOpen,
    EndpointConfigError,
    EndpointRefused,
    ModelClient,
    WireError,
    client_for,
    json_from_reply,
    max_tokens_for,
    strict_schema,
)

MAX_REASKS = 2
# Calls that could not reach an endpoint that never answered before the judge stops trying
# (the shared client's circuit breaker; after an answer, its breaker_after applies).
UNREACHABLE_AFTER = 3
PROMPT_NAME = "verifier.txt"
# Bump when the judge's request or parsing changes what a verdict can be (part of the cache key).
CODE_VERSION = "openai-judge-3"  # 3: confidence from logprobs


def load_prompt() -> tuple[str, str]:
    """The verifier prompt text and its sha256."""
    raw = (
        resources.files("spanproof.graders.verifier").joinpath("prompts", PROMPT_NAME).read_bytes()
    )
    return raw.decode("utf-8"), hashlib.sha256(raw).hexdigest()


class JudgeOutput(BaseModel, extra="forbid"):
    """Exactly what the model must return; the JSON schema sent to the server is derived from it."""

    verdict: Label
    unsupported_element: str | None = Field(json_schema_extra={"max_words": 40})
    quote_used: str | None = Field(json_schema_extra={"max_words": 25})
    contains_instructions: bool


VERDICT_SCHEMA = strict_schema(JudgeOutput)
VERDICT_MAX_TOKENS = max_tokens_for(JudgeOutput)
JSON_SCHEMA_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "verdict", "strict": True, "schema": VERDICT_SCHEMA},
}
JSON_OBJECT_FORMAT = {"type": "json_object"}


def render_user_message(claim: str, span: SpanRef) -> str:
    # The one envelope (spanproof.core.untrusted): the span cannot close it early.
    return f"CLAIM:\n{claim}\n\nSPAN:\n{render_untrusted(span.text, span.url, span.retrieved_at)}"


def parse_output(content: str | None) -> JudgeOutput:
    return JudgeOutput.model_validate(json_from_reply(content))


_LABEL_VALUE = re.compile(r'"verdict"\s*:\s*"')


def label_confidence(choice: Any, label: str) -> float | None:
    """P(label) from the reply's token logprobs: the product of the probabilities of the
    tokens that spell the label's value after ``"verdict": "``; None without logprobs or when
    the tokens do not spell the reply (a server that reports something else)."""
    tokens = getattr(getattr(choice, "logprobs", None), "content", None)
    if not tokens:
        return None
    text = "".join(t.token for t in tokens)
    found = _LABEL_VALUE.search(text)
    if found is None or not text.startswith(label, found.end()):
        return None
    start, end = found.end(), found.end() + len(label)
    logprob, pos = 0.0, 0
    for t in tokens:
        t_start, pos = pos, pos + len(t.token)
        if pos > start and t_start < end:  # the token overlaps the label's characters
            if t.logprob is None:
                return None
            logprob += t.logprob
    return min(1.0, max(0.0, math.exp(logprob)))


class OpenAIJudge:
    def __init__(
        self,
        model: str,
        *,
        endpoint: EndpointSettings | None = None,
        max_retries: int | None = None,
        client: ModelClient | None = None,
    ) -> None:
        self.model = model
        self.id = f"openai:{model}"
        self.model_id: str | None = (
            model  # the pinned name; the endpoint's answer goes on the Verdict
        )
        self.prompt, self.prompt_sha256 = load_prompt()
        self.code_version = CODE_VERSION
        if client is None:
            settings = endpoint or EndpointSettings()
            if max_retries is not None:
                settings = settings.model_copy(update={"max_retries": max_retries})
            client = client_for(model, settings)  # SpecError with a fix if no key
        self.client = client
        self.endpoint = client.base_url
        # Ask for token logprobs (the verdict's confidence) until the server refuses them.
        self.ask_logprobs = True
        self.calls = 0  # logical judge requests (re-asks included; HTTP retries are the client's)

    @property
    def response_format(self) -> dict | None:
        from spanproof.wire.client import response_format_for

        return response_format_for(self.client.mode, VERDICT_SCHEMA, "verdict")

    def _error(self, message: str, model_id: str | None = None) -> Verdict:
        return Verdict(
            verdict="NOT_SUPPORTED",
            judge=self.id,
            model_id=model_id or self.model_id,
            prompt_sha256=self.prompt_sha256,
            error=message,
        )

    async def _ask(self, messages: list[dict]) -> Any:
        extra = {"logprobs": True} if self.ask_logprobs else {}
        try:
            return await self.client.structured(
                messages, schema=VERDICT_SCHEMA, name="verdict", max_tokens=VERDICT_MAX_TOKENS,
                **extra,
            )  # fmt: skip
        except EndpointRefused as exc:
            if not (extra and "logprob" in (exc.server_message or str(exc)).lower()):
                raise
            self.ask_logprobs = False
            self.client.notice(
                f"{self.id}: the server refused logprobs ({exc.server_message}); verdicts "
                "from it carry no confidence"
            )
            return await self.client.structured(
                messages, schema=VERDICT_SCHEMA, name="verdict", max_tokens=VERDICT_MAX_TOKENS
            )

    def messages_for(self, claim: str, span: SpanRef) -> list[dict]:
        return [
            {"role": "system", "content": self.prompt},
            {"role": "user", "content": render_user_message(claim, span)},
        ]

    def request_body(self, claim: str, span: SpanRef) -> dict[str, Any]:
        """The first request for (claim, span) as the online path sends it once the response
        format is settled: what a Batch API line carries (graders.batch_judge)."""
        extra = {"logprobs": True} if self.ask_logprobs else {}
        return self.client.request_body(
            self.messages_for(claim, span), schema=VERDICT_SCHEMA, name="verdict",
            max_tokens=VERDICT_MAX_TOKENS, **extra,
        )  # fmt: skip

    def read_reply(self, resp: Any, usage: dict[str, int], model_id: str | None):
        """(verdict, "") from one chat completion, or (None, the problem) when its content is
        not a valid verdict. Adds the reply's tokens to ``usage``."""
        model_id = getattr(resp, "model", None) or model_id
        if getattr(resp, "usage", None) is not None:
            usage["prompt_tokens"] += resp.usage.prompt_tokens or 0
            usage["completion_tokens"] += resp.usage.completion_tokens or 0
        choice = resp.choices[0]
        try:
            out = parse_output(choice.message.content)
        except (json.JSONDecodeError, ValidationError, TypeError) as exc:
            problem = f"{type(exc).__name__}: {str(exc)[:200]}"
            if getattr(choice, "finish_reason", None) == "length":
                problem = f"the reply hit max_tokens={VERDICT_MAX_TOKENS} ({problem})"
            return None, problem
        return Verdict(
            verdict=out.verdict,
            unsupported_element=out.unsupported_element,
            quote_used=out.quote_used,
            contains_instructions=out.contains_instructions,
            judge=self.id,
            model_id=model_id,
            prompt_sha256=self.prompt_sha256,
            usage=usage,
            confidence=label_confidence(choice, out.verdict),
        ), ""

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        messages = self.messages_for(claim, span)
        model_id: str | None = None
        problem = ""
        usage = {"prompt_tokens": 0, "completion_tokens": 0}
        for attempt in range(1 + MAX_REASKS):
            self.calls += 1
            if attempt:
                self.client.counters.reasks += 1
            try:
                resp = await self._ask(messages)
            except (EndpointConfigError, CircuitOpen) as exc:
                raise JudgeConfigError(str(exc)) from exc
            except WireError as exc:
                err = self._error(f"{exc.kind}: {exc}", model_id)
                err.usage = usage if any(usage.values()) else None
                return err
            model_id = getattr(resp, "model", None) or model_id
            verdict, problem = self.read_reply(resp, usage, model_id)
            if verdict is not None:
                return verdict
            if attempt < MAX_REASKS:
                messages = messages + [
                    {"role": "assistant", "content": resp.choices[0].message.content or ""},
                    {
                        "role": "user",
                        "content": "That reply was not one JSON object with exactly the keys "
                        "verdict, unsupported_element, quote_used, contains_instructions "
                        f"({problem}). Reply again with only that JSON object.",
                    },
                ]
        err = self._error(
            f"malformed output: no valid verdict after {1 + MAX_REASKS} attempts ({problem})",
            model_id,
        )
        err.usage = usage
        return err
