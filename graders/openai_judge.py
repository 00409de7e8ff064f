"""The LLM verifier: one isolated Chat Completions call per (claim, span), any OpenAI-compatible
endpoint (OpenAI, vLLM, llama.cpp server, Ollama).

What the model receives — and nothing else:
- a system message: graders/prompts/verifier.txt (versioned; its sha256 is on every verdict);
- a user message: the CLAIM, and the SPAN with its URL and retrieval time inside
  ``<untrusted_span>`` tags. No tools, no question, no sibling claims, no agent reasoning.

Request settings: temperature 0, the pinned model name, ``response_format`` json_schema
(strict). When the endpoint rejects json_schema (HTTP 400/422 on the first call), the judge
falls back to ``{"type": "json_object"}`` and keeps using it.

Failures:
- HTTP 429 / 5xx / 408 / timeouts / connection errors: retried by the openai client
  (``max_retries``, exponential backoff with jitter from 0.5 s up to 8 s, and the server's
  ``Retry-After`` / ``retry-after-ms`` honoured when given). After the last retry the
  verdict is an error verdict.
- Malformed output (not JSON, or not the schema): at most ``MAX_REASKS`` = 2 re-asks in the
  same conversation, then an error verdict.
- An error verdict has ``error`` set and ``verdict`` NOT_SUPPORTED: never counted as
  SUPPORTED, never dropped. Setup mistakes (bad key, unknown model) raise JudgeConfigError
  with the fix, because every verdict would fail the same way.
"""

from __future__ import annotations

import hashlib
import json
import re
from importlib import resources

import openai
from pydantic import BaseModel, ValidationError
from spanproof.graders.judges import JudgeConfigError
from spanproof.graders.verdict import Label, SpanRef, Verdict

from spanproof.specs import EndpointSettings

MAX_REASKS = 2
# Consecutive calls that could not reach the endpoint (after the client's own retries) before
# the judge stops trying. Only before the endpoint has ever answered: a server that worked and
# then hiccups yields error verdicts, but one that was never there is a setup mistake, and
# hundreds of pairs each waiting out their retries would take many minutes to say so.
UNREACHABLE_AFTER = 3
DEFAULT_MAX_RETRIES = 4
PROMPT_NAME = "verifier.txt"


def load_prompt() -> tuple[str, str]:
    """The verifier prompt text and its sha256."""
    raw = resources.files("spanproof.graders").joinpath("prompts", PROMPT_NAME).read_bytes()
    return raw.decode("utf-8"), hashlib.sha256(raw).hexdigest()


class JudgeOutput(BaseModel, extra="forbid"):
    """Exactly what the model must return."""

    verdict: Label
    unsupported_element: str | None
    quote_used: str | None
    contains_instructions: bool


VERDICT_SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["SUPPORTED", "PARTIAL", "NOT_SUPPORTED"]},
        "unsupported_element": {"type": ["string", "null"]},
        "quote_used": {"type": ["string", "null"]},
        "contains_instructions": {"type": "boolean"},
    },
    "required": ["verdict", "unsupported_element", "quote_used", "contains_instructions"],
    "additionalProperties": False,
}
JSON_SCHEMA_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "verdict", "strict": True, "schema": VERDICT_SCHEMA},
}
JSON_OBJECT_FORMAT = {"type": "json_object"}

_TAG = re.compile(r"<\s*(/?)\s*untrusted_span", re.I)


def _attr(value: str | None) -> str:
    return (value or "unknown").replace('"', "%22").replace("<", "%3C").replace(">", "%3E")


def render_user_message(claim: str, span: SpanRef) -> str:
    # A span cannot close its own envelope: tag look-alikes inside it are defused.
    body = _TAG.sub(lambda m: f"&lt;{m.group(1)}untrusted_span", span.text)
    return (
        f"CLAIM:\n{claim}\n\n"
        f'SPAN:\n<untrusted_span url="{_attr(span.url)}" retrieved_at="{_attr(span.retrieved_at)}">\n'
        f"{body}\n</untrusted_span>"
    )


def parse_output(content: str | None) -> JudgeOutput:
    text = (content or "").strip()
    fenced = re.fullmatch(r"```(?:json)?\s*(.*?)\s*```", text, re.S)
    if fenced:
        text = fenced.group(1)
    return JudgeOutput.model_validate(json.loads(text))


class OpenAIJudge:
    def __init__(
        self,
        model: str,
        *,
        endpoint: EndpointSettings | None = None,
        max_retries: int = DEFAULT_MAX_RETRIES,
        client: openai.AsyncOpenAI | None = None,
    ) -> None:
        self.model = model
        self.id = f"openai:{model}"
        self.model_id: str | None = (
            model  # the pinned name; the endpoint's answer goes on the Verdict
        )
        self.prompt, self.prompt_sha256 = load_prompt()
        if client is None:
            settings = (endpoint or EndpointSettings()).resolved()  # SpecError with a fix if no key
            client = openai.AsyncOpenAI(
                api_key=settings.api_key,
                base_url=settings.base_url,
                timeout=settings.timeout_s,
                max_retries=max_retries,
            )
        self.client = client
        self.response_format: dict = JSON_SCHEMA_FORMAT
        self.calls = 0  # HTTP-level chat completions requested (retries by the client not included)
        self._answered = False
        self._unreachable_streak = 0

    def _error(self, message: str, model_id: str | None = None) -> Verdict:
        return Verdict(
            verdict="NOT_SUPPORTED",
            judge=self.id,
            model_id=model_id or self.model_id,
            prompt_sha256=self.prompt_sha256,
            error=message,
        )

    async def _complete(self, messages: list[dict]):
        self.calls += 1
        kwargs = {
            "model": self.model,
            "messages": messages,
            "temperature": 0,
            "response_format": self.response_format,
        }
        try:
            return await self.client.chat.completions.create(**kwargs)
        except (openai.BadRequestError, openai.UnprocessableEntityError):
            if self.response_format is not JSON_SCHEMA_FORMAT:
                raise
            # The endpoint does not take json_schema (older vLLM, llama.cpp, Ollama builds):
            # fall back to json_object for this and every later call.
            self.response_format = JSON_OBJECT_FORMAT
            self.calls += 1
            kwargs["response_format"] = self.response_format
            return await self.client.chat.completions.create(**kwargs)

    def _unreachable(self, what: str) -> None:
        if self._answered:
            return
        self._unreachable_streak += 1
        if self._unreachable_streak >= UNREACHABLE_AFTER:
            raise JudgeConfigError(
                f"{self.id}: the endpoint {self.client.base_url} was never reached "
                f"({self._unreachable_streak} calls in a row: {what}). Start the server, or set "
                "OPENAI_BASE_URL / --base-url to where it listens (it usually ends in /v1)."
            )

    async def judge(self, claim: str, span: SpanRef) -> Verdict:
        if not self._answered and self._unreachable_streak >= UNREACHABLE_AFTER:
            self._unreachable("not retried")
        messages: list[dict] = [
            {"role": "system", "content": self.prompt},
            {"role": "user", "content": render_user_message(claim, span)},
        ]
        model_id: str | None = None
        problem = ""
        usage = {"prompt_tokens": 0, "completion_tokens": 0}
        for attempt in range(1 + MAX_REASKS):
            try:
                resp = await self._complete(messages)
            except openai.AuthenticationError as exc:
                raise JudgeConfigError(
                    f"{self.id}: the endpoint refused the API key ({exc.status_code}). "
                    "Check OPENAI_API_KEY / --api-key and OPENAI_BASE_URL / --base-url."
                ) from exc
            except openai.NotFoundError as exc:
                raise JudgeConfigError(
                    f"{self.id}: the endpoint does not know model {self.model!r} or the URL is "
                    "wrong (404). Check the model name and OPENAI_BASE_URL / --base-url "
                    "(it usually ends in /v1)."
                ) from exc
            except openai.APITimeoutError:
                self._unreachable("timeout")
                return self._error(
                    "timeout: the endpoint did not answer in time (retries exhausted)"
                )
            except openai.APIStatusError as exc:
                return self._error(f"HTTP {exc.status_code} from the endpoint (retries exhausted)")
            except openai.APIConnectionError as exc:
                self._unreachable(f"connection error: {exc}")
                return self._error(f"connection error: {exc}")
            self._answered, self._unreachable_streak = True, 0
            model_id = getattr(resp, "model", None) or model_id
            if getattr(resp, "usage", None) is not None:
                usage["prompt_tokens"] += resp.usage.prompt_tokens or 0
                usage["completion_tokens"] += resp.usage.completion_tokens or 0
            content = resp.choices[0].message.content if resp.choices else None
            try:
                out = parse_output(content)
            except (json.JSONDecodeError, ValidationError, TypeError) as exc:
                problem = f"{type(exc).__name__}: {str(exc)[:200]}"
                if attempt < MAX_REASKS:
                    messages = messages + [
                        {"role": "assistant", "content": content or ""},
                        {
                            "role": "user",
                            "content": "That reply was not one JSON object with exactly the keys "
                            "verdict, unsupported_element, quote_used, contains_instructions "
                            f"({problem}). Reply again with only that JSON object.",
                        },
                    ]
                continue
            return Verdict(
                verdict=out.verdict,
                unsupported_element=out.unsupported_element,
                quote_used=out.quote_used,
                contains_instructions=out.contains_instructions,
                judge=self.id,
                model_id=model_id,
                prompt_sha256=self.prompt_sha256,
                usage=usage,
            )
        err = self._error(
            f"malformed output: no valid verdict after {1 + MAX_REASKS} attempts ({problem})",
            model_id,
        )
        err.usage = usage
        return err
