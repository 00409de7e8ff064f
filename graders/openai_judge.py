"""The LLM verifier: one isolated Chat Completions call per (claim, span), any OpenAI-compatible
endpoint (OpenAI, vLLM, llama.cpp server, Ollama).

What the model receives — and nothing else:
- a system message: graders/prompts/verifier.txt (versioned; its sha256 is on every verdict);
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
  same conversation (``spanproof.wire.structured``, which also sums the tokens of every
  attempt), then an error verdict.
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
import math
import re
from importlib import resources
from typing import Any

from pydantic import BaseModel, Field
from spanproof.graders.errors import JudgeConfigError

from spanproof.core.specs import EndpointSettings
from spanproof.core.untrusted import render_untrusted
from spanproof.core.verdict import Label, SpanRef, Verdict
from spanproof.wire import (
    CircuitOpen,
    EndpointConfigError,
    EndpointRefused,
    MalformedReply,
    ModelClient,
    WireError,
    client_for,
    max_tokens_for,
    strict_schema,
    structured,
)
from spanproof.wire.chat import (
    Message,
    ModelTurn,
    SystemMessage,
    TokenLogprob,
    Usage,
    UserMessage,
    to_wire,
    turn_from_response,
)
from spanproof.wire.structured import read_output

MAX_REASKS = 2
# Calls that could not reach an endpoint that never answered before the judge stops trying
# (the shared client's circuit breaker; after an answer, its breaker_after applies).
UNREACHABLE_AFTER = 3
PROMPT_NAME = "verifier.txt"
# Bump when the judge's request or parsing changes what a verdict can be (part of the cache key).
CODE_VERSION = "openai-judge-3"  # 3: confidence from logprobs


def load_prompt() -> tuple[str, str]:
    """The verifier prompt text and its sha256."""
    raw = resources.files("spanproof.graders").joinpath("prompts", PROMPT_NAME).read_bytes()
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


_LABEL_VALUE = re.compile(r'"verdict"\s*:\s*"')


def label_confidence(tokens: list[TokenLogprob] | None, label: str) -> float | None:
    """P(label) from the reply's token logprobs: the product of the probabilities of the
    tokens that spell the label's value after ``"verdict": "``; None without logprobs or when
    the tokens do not spell the reply (a server that reports something else)."""
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

    def _extra(self) -> dict[str, Any]:
        return {"logprobs": True} if self.ask_logprobs else {}

    async def _logprobs_refused(self, exc: EndpointRefused) -> dict[str, Any] | None:
        """Ask again without logprobs when the server refused them (once per judge)."""
        if not (self.ask_logprobs and "logprob" in (exc.server_message or str(exc)).lower()):
            return None
        self.ask_logprobs = False
        self.client.notice(
            f"{self.id}: the server refused logprobs ({exc.server_message}); verdicts "
            "from it carry no confidence"
        )
        return {}

    def messages_for(self, claim: str, span: SpanRef) -> list[Message]:
        return [
            SystemMessage(content=self.prompt),
            UserMessage(content=render_user_message(claim, span)),
        ]

    def request_body(self, claim: str, span: SpanRef) -> dict[str, Any]:
        """The first request for (claim, span) as the online path sends it once the response
        format is settled: what a Batch API line carries (graders.batch_judge)."""
        return self.client.request_body(
            [to_wire(m) for m in self.messages_for(claim, span)], schema=VERDICT_SCHEMA,
            name="verdict", max_tokens=VERDICT_MAX_TOKENS, **self._extra(),
        )  # fmt: skip

    def _verdict(self, out: JudgeOutput, turn: ModelTurn, usage: Usage, model_id: str | None):
        return Verdict(
            verdict=out.verdict,
            unsupported_element=out.unsupported_element,
            quote_used=out.quote_used,
            contains_instructions=out.contains_instructions,
            judge=self.id,
            model_id=model_id,
            prompt_sha256=self.prompt_sha256,
            usage=_usage_dict(usage),
            confidence=label_confidence(turn.logprobs, out.verdict),
        )

    def read_reply(self, resp: Any, usage: dict[str, int], model_id: str | None):
        """(verdict, "") from one chat completion, or (None, the problem) when its content is
        not a valid verdict. Adds the reply's tokens to ``usage``."""
        turn = turn_from_response(resp, label=self.id)
        model_id = turn.model_id or model_id
        usage["prompt_tokens"] += turn.usage.prompt_tokens
        usage["completion_tokens"] += turn.usage.completion_tokens
        out, problem, _ = read_output(turn, JudgeOutput, max_tokens=VERDICT_MAX_TOKENS)
        if out is None:
            return None, problem
        spent = Usage(
            prompt_tokens=usage["prompt_tokens"], completion_tokens=usage["completion_tokens"]
        )
        return self._verdict(out, turn, spent, model_id), ""

    def _count_call(self, _attempt: int) -> None:
        self.calls += 1

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        try:
            got = await structured(
                self.client, self.messages_for(claim, span), JudgeOutput, reasks=MAX_REASKS,
                name="verdict", max_tokens=VERDICT_MAX_TOKENS, extra=self._extra(),
                reask=_reask, on_refused=self._logprobs_refused, on_attempt=self._count_call,
            )  # fmt: skip
        except MalformedReply as exc:
            err = self._error(
                f"malformed output: no valid verdict after {exc.attempts} attempts ({exc.problem})",
                exc.model_id,
            )
            err.usage = _usage_dict(exc.usage)
            return err
        except (EndpointConfigError, CircuitOpen) as exc:
            raise JudgeConfigError(str(exc)) from exc
        except WireError as exc:
            err = self._error(f"{exc.kind}: {exc}", exc.model_id)
            spent = _usage_dict(exc.usage) if exc.usage is not None else None
            err.usage = spent if spent and any(spent.values()) else None
            return err
        return self._verdict(got.output, got.turn, got.usage, got.model_id or None)


def _reask(problem: str) -> str:
    return (
        "That reply was not one JSON object with exactly the keys "
        "verdict, unsupported_element, quote_used, contains_instructions "
        f"({problem}). Reply again with only that JSON object."
    )


def _usage_dict(usage: Usage) -> dict[str, int]:
    return {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens}
